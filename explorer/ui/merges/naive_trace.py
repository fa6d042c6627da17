"""Seed 004's naive encode beside the real trace: the most frequent pair of the new text at each
step instead of the earliest merge, so merges come out of order or stop on a KeyError.

The encode trace shows it on the same word, step for step, when its toggle is on.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from explorer.core.algorithms.bpe import TraceStep
from explorer.core.algorithms.tutorial_bugs import key_error, naive_encode
from explorer.core.errors import ExplorerError
from explorer.core.plural import plural
from explorer.core.sources.tokenizer import Tokenizer
from explorer.ui.merges.trace import Trace, TokenStrip, _html


@dataclass
class NaiveTrace:
    trace: Trace
    failure: str  # the KeyError the naive encode stops on, "" if it got through


def build_naive_trace(tokenizer: Tokenizer, chunks: list[str]) -> NaiveTrace:
    """The naive encode of each chunk in turn, stopping at the first KeyError (it ends the encode)."""
    bpe = tokenizer.as_bpe()
    steps: list[tuple[int, TraceStep]] = []
    failure = ""
    for index, chunk in enumerate(chunks):
        result = naive_encode(bpe, chunk)
        steps.extend((index, step) for step in result.steps)
        if result.unknown_pair is not None:
            failure = key_error(result.unknown_pair, bpe.vocab)
            chunks = chunks[: index + 1]
            break
    start = [tuple(bpe.byte_tokens(chunk.encode("utf-8"))) for chunk in chunks]
    return NaiveTrace(Trace(chunks, start, steps), failure)


class NaiveTraceView(QWidget):
    """The naive encode's tokens after as many steps as the real trace has taken."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.naive: NaiveTrace | None = None
        self.label: Callable[[int], str] = str
        self.title = QLabel("<b>Naive encode</b> (seed 004's first try): the most frequent pair of this text, "
                            "not the earliest merge")
        self.title.setWordWrap(True)
        self.strip = TokenStrip()
        self.status = QLabel()
        self.status.setObjectName("naiveStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        for widget in (self.title, self.strip, self.status):
            layout.addWidget(widget)

    def set_trace(self, tokenizer: Tokenizer | None, chunks: list[str], label: Callable[[int], str]) -> None:
        self.label = label
        self.strip.label = label
        self.naive = None
        if tokenizer is not None and chunks:
            try:
                self.naive = build_naive_trace(tokenizer, chunks)
            except ExplorerError as error:
                self.status.setText(html.escape(str(error)))

    def show_step(self, done: int, finished: bool) -> None:
        """The naive state after `done` steps; all of it (and its KeyError) once the real trace is done."""
        naive = self.naive
        if naive is None:
            self.strip.set_tokens([], None)
            return
        total = len(naive.trace.steps)
        shown = total if finished else min(done, total)
        ids, last = naive.trace.state(shown)
        self.strip.set_tokens(ids, last)
        if shown == 0 and not (finished and naive.failure):
            self.status.setText(f"{plural(total, 'naive step')} before it stops." if done == 0 else "")
            return
        parts = []
        if shown:
            _, step = naive.trace.steps[shown - 1]
            parts.append(f"Naive step {shown}: most frequent pair <code>{_html(self.label(step.left))}</code> + "
                         f"<code>{_html(self.label(step.right))}</code>, merge #{step.rank:,}")
        if shown == total and (finished or done > total):
            if naive.failure:
                parts.append(f"<b style='color:#b3261e'>{_html(naive.failure)}</b>: frequency in the new text is the "
                             "wrong question; encoding replays merges earliest first.")
            else:
                final = [token for chunk in ids for token in chunk]
                parts.append(f"Naive result: {plural(len(final), 'token')}: {', '.join(map(str, final))}.")
        self.status.setText("<br>".join(parts))

