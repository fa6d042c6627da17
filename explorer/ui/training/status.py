"""What the Training pane's progress bar and status line say about a run, in plain words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explorer.core.plural import plural
from explorer.core.text.render import token_text
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
    """'counting: 5.6 of 10.0 MB', '4,155 of 16,128 merges · 2,089 merges/s · 5.7 s left', ...,
    and once the run is over what happened: 'done: 768 merges', 'cancelled at 73 merges'."""
    if run.state in ENDED:
        done = len(run.merges)
        fraction = BAR_STEPS if run.state == FINISHED else int(BAR_STEPS * done / max(run.target, 1))
        return BarShown(f"{ending(run)} · {duration(run.elapsed)}", fraction)
    if run.stage is None:
        counting = run.counting
        if counting is None or not counting.total_bytes:
            return BarShown("starting the trainer", maximum=0) if run.is_running else BarShown("")
        if run.settings.engine == "hf":
            return _hf_shown(run, counting.phase, counting.bytes_read, counting.total_bytes)
        return BarShown(f"counting: {counting.bytes_read / 1e6:,.1f} of {counting.total_bytes / 1e6:,.1f} MB",
                        int(BAR_STEPS * counting.bytes_read / counting.total_bytes))
    done, target = len(run.merges), max(run.target, 1)
    text = f"{done:,} of {run.target:,} merges"
    rate = run.merges_per_second
    if run.state == MERGING and rate:
        text += f" · {rate:,.0f} merges/s" if rate >= 10 else f" · {rate:.1f} merges/s"
        left = run.seconds_left
        if left is not None:
            text += f" · {duration(left)} left"
    fraction = run.fraction_done  # the Hugging Face engine: of the whole run, not of the replay
    return BarShown(text, int(BAR_STEPS * (done / target if fraction is None else fraction)))


def _hf_shown(run: TrainingRun, phase: str, bytes_read: int, total_bytes: int) -> BarShown:
    """The Hugging Face engine's bar: the whole run by time, as its phases estimate it
    ('reading: 120.5 of 400.0 MB · 1:23 left', 'learning merges · 12 s left')."""
    text = {"reading": f"reading: {bytes_read / 1e6:,.1f} of {total_bytes / 1e6:,.1f} MB",
            "learning": "learning merges", "measuring": "measuring counts"}[phase]
    fraction, left = run.fraction_done, run.seconds_left
    if fraction is None or left is None:
        return BarShown(text, int(BAR_STEPS * bytes_read / total_bytes) if phase == "reading" else 0,
                        BAR_STEPS if phase == "reading" else 0)
    return BarShown(f"{text} · {duration(left)} left", int(BAR_STEPS * fraction))


def ending(run: TrainingRun) -> str:
    """How an ended run ended, in the bar's words."""
    done = len(run.merges)
    if run.state == FAILED:
        return f"failed after {plural(done, 'merge')}"
    if run.state == CANCELLED:
        return f"cancelled at {plural(done, 'merge')}" if run.stage is not None else "cancelled before the first merge"
    if run.summary is not None and run.summary.stopped_early:
        return f"stopped early at {plural(done, 'merge')}: no pair left"
    return f"done: {plural(done, 'merge')}"


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
            stage = (f" ({counting.stage.lower()}: {counting.step:,} of {counting.steps:,})"
                     if counting.stage and counting.steps else "")
            return {"reading": f"Hugging Face tokenizers is reading the corpus ({counting.texts:,} texts so far); "
                               "its merges appear when it is done.",
                    "learning": f"Hugging Face tokenizers is learning merges{stage}.",
                    "measuring": "Measuring how often each merge applied: cutting each distinct text of the corpus "
                                 "into chunks, then encoding each distinct chunk once with the new merges (Hugging "
                                 "Face tokenizers does not report counts)."}[counting.phase]
        return (f"Counting chunks: {counting.texts:,} texts read, {counting.distinct_chunks:,} distinct "
                f"chunks so far.{waiting}")
    if run.state in (FINISHED, CANCELLED):
        return _ended_html(run, vocab, tokenizer_name)
    text = ""
    if run.merges:
        merge = run.merges[-1]
        text = (f"merge {merge.rank + 1:,} of {run.target:,}: {quoted(vocab[merge.left])} + "
                f"{quoted(vocab[merge.right])} → {quoted(merge.token)}")
        text += " (seen once)" if merge.count == 1 else f" (seen {merge.count:,} times)"
    elif run.state == PAUSED:
        text = "Counted. Press Step for the first merge."
    suffix = {PAUSED: " · paused", STARTING: "", COUNTING: "", MERGING: ""}.get(run.state, "")
    return escape(text) + suffix


def _ended_html(run: TrainingRun, vocab: Sequence[bytes], tokenizer_name: str | None) -> str:
    """'Done: 768 merges in 1.4 s. The last, merge 768 of 768: ...', 'Stopped early at 73 merges:
    no pair left ...', 'Cancelled at 73 merges ...': what happened first, then the last merge."""
    text = f"<b>{escape(ending(run)[0].upper() + ending(run)[1:])}</b> in {duration(run.elapsed)}."
    if run.state == FINISHED and run.summary is not None and run.summary.stopped_early:
        text += " Every chunk of the corpus became one token before the vocabulary was full."
    elif run.state == CANCELLED and run.merges:
        text += f" The tokenizer keeps the {plural(len(run.merges), 'merge')} learned."
    if run.merges:
        merge = run.merges[-1]
        text += escape(f" The last, merge {merge.rank + 1:,} of {run.target:,}: {quoted(vocab[merge.left])} + "
                       f"{quoted(vocab[merge.right])} → {quoted(merge.token)}.")
    if tokenizer_name is not None:
        text += f" <b>{escape(tokenizer_name)}</b> is in the toolbar picker."
    return text


def quoted(data: bytes) -> str:
    """A token in quotes, isolated (U+2068 ... U+2069) so an Arabic or Hebrew token keeps its place
    in "'a' + 'b' → 'ab'" instead of the line being reordered around it; its spaces do not break
    (a wrapped status line showed "'" at a line's end and " ret'" on the next)."""
    return "'\u2068" + token_text(data).replace("\u00b7", "\u00a0").replace(" ", "\u00a0") + "\u2069'"


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def duration(seconds: float) -> str:
    """'4.2 s', '3:07', '1 h 05 min'."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
