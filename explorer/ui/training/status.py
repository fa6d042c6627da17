"""What the Training pane's progress bar and status line say about a run, in plain words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explorer.core.render import token_text
from explorer.ui.training.run import (
    CANCELLED, COUNTING, ENDED, FAILED, FINISHED, MERGING, PAUSED, STARTING, TrainingRun)

BAR_STEPS = 1000


@dataclass(frozen=True)
class BarShown:
    """The bar's text and position (maximum 0: busy, no figures)."""

    text: str
    value: int = 0
    maximum: int = BAR_STEPS


def progress_shown(run: TrainingRun) -> BarShown:
    """'counting: 5.6 of 10.0 MB', '4,155 of 16,128 merges · 2,089 merges/s · 5.7 s left', ..."""
    if run.stage is None:
        counting = run.counting
        if counting is None or not counting.total_bytes:
            return BarShown("starting the trainer", maximum=0) if run.is_running else BarShown("")
        if counting.phase == "learning":
            return BarShown("learning merges", maximum=0)
        verb = {"reading": "counting", "measuring": "measuring counts"}[counting.phase]
        return BarShown(f"{verb}: {counting.bytes_read / 1e6:,.1f} of {counting.total_bytes / 1e6:,.1f} MB",
                        int(BAR_STEPS * counting.bytes_read / counting.total_bytes))
    done, target = len(run.merges), max(run.target, 1)
    text = f"{done:,} of {run.target:,} merges"
    rate = run.merges_per_second
    if run.state == MERGING and rate:
        text += f" · {rate:,.0f} merges/s" if rate >= 10 else f" · {rate:.1f} merges/s"
        left = run.seconds_left
        if left is not None:
            text += f" · {duration(left)} left"
    elif run.state in ENDED:
        text += f" · {duration(run.elapsed)}"
    return BarShown(text, BAR_STEPS if run.state == FINISHED else int(BAR_STEPS * done / target))


def status_html(run: TrainingRun, vocab: Sequence[bytes], tokenizer_name: str | None) -> str:
    """The status line: the stage, or the newest merge in words ("merge 1,203 of 3,840: ' the' + 're'")."""
    if run.state == FAILED:
        return f"<b>Training failed.</b> {run.error}"
    if run.stage is None:
        counting = run.counting
        waiting = " It will stop after the first merge." if run.state == PAUSED else ""
        if counting is None:
            return "Starting the trainer..." + waiting
        if run.settings.engine == "hf":
            return {"reading": f"Hugging Face tokenizers is reading the corpus ({counting.texts:,} texts so far); "
                               "its merges appear when it is done.",
                    "learning": "Hugging Face tokenizers is learning merges (it reports no progress here).",
                    "measuring": "Measuring how often each merge applied: encoding the corpus once more with the "
                                 "new merges (Hugging Face tokenizers does not report counts)."}[counting.phase]
        return (f"Counting chunks: {counting.texts:,} texts read, {counting.distinct_chunks:,} distinct "
                f"chunks so far.{waiting}")
    text = ""
    if run.merges:
        merge = run.merges[-1]
        text = (f"merge {merge.rank + 1:,} of {run.target:,}: {quoted(vocab[merge.left])} + "
                f"{quoted(vocab[merge.right])} → {quoted(merge.token)}")
        text += " (seen once)" if merge.count == 1 else f" (seen {merge.count:,} times)"
    elif run.state == PAUSED:
        text = "Counted. Press Step for the first merge."
    suffix = {PAUSED: " · paused", STARTING: "", COUNTING: "", MERGING: ""}.get(run.state, "")
    if run.state == FINISHED:
        summary = run.summary
        early = summary is not None and summary.stopped_early
        suffix = (f" · done in {duration(run.elapsed)}" + (
            "; the corpus ran out of pairs before the vocabulary was full" if early else ""))
    elif run.state == CANCELLED:
        suffix = f" · cancelled; the tokenizer keeps the {len(run.merges):,} merges learned"
    if run.state in (FINISHED, CANCELLED) and tokenizer_name is not None:
        suffix += f". <b>{tokenizer_name}</b> is in the toolbar picker."
    return escape(text) + suffix


def quoted(data: bytes) -> str:
    return "'" + token_text(data).replace("\u00b7", " ") + "'"


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def duration(seconds: float) -> str:
    """'4.2 s', '3:07', '1 h 05 min'."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
