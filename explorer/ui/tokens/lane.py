"""One tokenizer's reading of the prompt: its tokens, coloured view and counts.

The pane has one lane for the current tokenizer and, when comparing, one more per tokenizer.
A lane follows the text: small edits re-encode only the chunks around them (on the GUI thread,
a millisecond or two); a new text, tokenizer or mode is encoded by a worker, which also builds
the display with numpy, and hands over groups of about 10,000 tokens. The GUI thread only
appends each group to the columns and the view (a few array copies and one insertion per
event-loop turn), so a 1 MB paste never holds the window for long.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator

import numpy as np
from PySide6.QtCore import QSize, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from explorer.core.algorithms.incremental import (
    Edit, TokenBatch, TokenizedText, effective_mode, encode_stream, join_batches)
from explorer.core.analysis.compare import Counts
from explorer.core.errors import ExplorerError
from explorer.core.plural import plural
from explorer.core.sources.tokenizer import SpecialMode, Tokenizer
from explorer.ui.session import Session
from explorer.ui.tokens.display import DisplayBuilder, DisplayPiece, headline, join_pieces
from explorer.ui.tokens.one_line import PartsLabel
from explorer.ui.tokens.view import TokenView
from explorer.ui.tokens.wrapping import keep_whole

MIN_LINES = 3  # lines of tokens a lane keeps however many lanes share the room (more: its view scrolls)
SYNC_LIMIT = 20_000  # characters encoded on the GUI thread at once; longer texts go to a worker
TURN_CHARACTERS = 40_000  # display characters added to the view per event-loop turn (a few ms)
GROUP_TOKENS = 10_000  # tokens per group a worker hands over (about 30,000 characters)
# Characters a worker pre-tokenizes per regex call. The call holds the interpreter lock
# throughout (about 0.2 ms per 1,000 characters), and the GUI thread waits for its end each
# time it takes the lock back; short calls keep those waits short.
WORKER_BLOCK = 2048

# Tokens waiting to be shown: the batch for the state (None when only the view is rebuilt), the
# ids and flags for the view, and their display.
Queued = tuple[TokenBatch | None, np.ndarray, np.ndarray, DisplayPiece]


class Lane(QWidget):
    updated = Signal(object)  # this lane: tokens changed (an edit applied, or a full encoding finished)
    token_hovered = Signal(object, int)  # lane, token index
    token_clicked = Signal(object, int)
    status = Signal(object, str)  # this lane, an error or note for the banner ('' clears it)
    chrome_changed = Signal(object)  # this lane: its title row wrapped to another height (the pane shares the room again)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.tokenizer: Tokenizer | None = None
        self.mode: SpecialMode = session.special_mode
        self.show_ids = False
        self.ids_under = False  # text mode with each token's id under it
        self.state: TokenizedText | None = None
        self.text = ""
        self.words: int | None = None
        self.reference: tuple[int, str] | None = None  # (tokens, name) of the first lane, when comparing
        self.complete = False
        self._builder: DisplayBuilder | None = None
        self._queue: deque[Queued] = deque()
        self._job = None
        self.counts = PartsLabel(self)  # a line of figures: those that fit (never widens the window, never wraps)
        self.counts.setObjectName("tokenCounts")
        self.view = TokenView(self)
        self.view.set_dark(session.dark, session.palette)
        self.view.set_text_font(session.font)
        self.min_lines = MIN_LINES  # fewer while the lanes share a small room (tokens/room.py)
        self._chrome = -1  # the title row's height last announced
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        # The lane's title row: its summary, beside a compared lane's choice and Remove button (one
        # row, not two: three lanes at 1280x800 in presentation mode then keep their tokens in sight).
        self.header = QWidget(self)
        self.header_layout = QHBoxLayout(self.header)
        self.header_layout.setContentsMargins(0, 0, 0, 0)
        self.header_layout.addWidget(self.counts, 1)
        layout.addWidget(self.header)
        layout.addWidget(self.view, 1)
        self._drain_timer = QTimer(self)
        self._drain_timer.setInterval(0)
        self._drain_timer.timeout.connect(self._drain)
        self.view.token_hovered.connect(lambda index: self.token_hovered.emit(self, index))
        self.view.token_clicked.connect(lambda index: self.token_clicked.emit(self, index))

    # Inputs

    def set_tokenizer(self, tokenizer: Tokenizer | None) -> None:
        self.tokenizer = tokenizer
        self.encode_all(self.text)

    def set_mode(self, mode: SpecialMode) -> None:
        self.mode = mode
        self.encode_all(self.text)

    def set_show_ids(self, show: bool) -> None:
        self.show_ids = show
        if self.state is not None and self.complete:
            self._rebuild_view()
        elif self.state is not None:
            self.encode_all(self.text)  # half built with the other display

    def _new_builder(self, tokenizer: Tokenizer) -> DisplayBuilder:
        return DisplayBuilder(tokenizer, self.show_ids, keep_whole, self.ids_under)

    def set_text(self, text: str) -> None:
        """Follow the prompt: re-encode around the edit when possible, else everything."""
        big_change = abs(len(text) - len(self.text)) > SYNC_LIMIT
        if self.state is None or not self.complete or self.tokenizer is None or big_change:
            self.encode_all(text)
            return
        started = time.perf_counter()
        try:
            edit = self.state.edit(text)
        except ExplorerError as exc:
            self.status.emit(self, str(exc))
            return
        if edit is None:
            self.encode_all(text)
            return
        self.text = text
        self.view.follow_direction("" if self.show_ids else text)
        if edit.removed or edit.inserted or edit.char_delta:
            self._show_edit(edit)
        self.last_edit_seconds = time.perf_counter() - started
        self.words = None
        self._show_counts()
        self.updated.emit(self)

    def _show_edit(self, edit: Edit) -> None:
        assert self.state is not None and self._builder is not None
        stop = edit.first + edit.inserted
        ids, flags = self.state.ids[edit.first:stop], self.state.flags[edit.first:stop]
        following = int(self.state.ids[stop]) if stop < len(self.state) else None
        self._builder.line = self.view.line_length_at(self.view.position_of(edit.first))
        state = self.state
        after = (int(state.starts[stop]), int(state.flags[stop])) if stop < len(state) else None
        piece = self._builder.text_piece(ids, following, state.text, state.starts[edit.first:stop],
                                         state.ends[edit.first:stop], flags, after)
        self.view.replace_tokens(edit.first, edit.removed, ids, flags, piece)

    # Full encoding

    def encode_all(self, text: str) -> None:
        self._start_filling(text)
        self.view.clear_tokens()
        if self.tokenizer is None:
            self.state = None
            self.counts.setText("No tokenizer yet: pick one in the toolbar.")
            return
        tokenizer = self.tokenizer
        mode, error = effective_mode(tokenizer, text, self.mode)
        self.status.emit(self, f"{_sentence(str(error))} Showing the plain-text reading." if error else "")
        self.state = TokenizedText(tokenizer, "", mode, self.mode)
        self._builder = self._new_builder(tokenizer)
        if len(text) <= SYNC_LIMIT:
            try:
                self._queue.extend(_displayed(encode_stream(tokenizer, text, mode), self._builder, text))
            except ExplorerError as exc:
                self.status.emit(self, str(exc))
                return
            self._drain(budget=None)
            return
        builder = self._new_builder(tokenizer)  # the worker's own
        self.state.reserve(len(text) + 16)  # most texts have fewer tokens than characters
        self.view.reserve(len(text) + 16)

        def work():  # type: ignore[no-untyped-def]
            yield from _displayed(encode_stream(tokenizer, text, mode, block=WORKER_BLOCK), builder, text)

        self.counts.setText(f"Tokenizing {plural(len(text), 'character')}...")
        self._start_job(f"tokenizing {plural(len(text), 'character')}", work)

    def _rebuild_view(self) -> None:
        """Show the same tokens again (text or ids), filling the view as a new text would."""
        assert self.state is not None and self.tokenizer is not None
        self._start_filling(self.text)
        self.view.clear_tokens()
        self._builder = self._new_builder(self.tokenizer)
        ids, flags = self.state.ids, self.state.flags
        text, starts, ends = self.state.text, self.state.starts, self.state.ends
        if len(self.text) <= SYNC_LIMIT:
            self._queue.append((None, ids, flags, self._builder.text_piece(ids, None, text, starts, ends, flags)))
            self._drain(budget=None)
            return
        builder = self._new_builder(self.tokenizer)
        self.view.reserve(len(ids))

        def work():  # type: ignore[no-untyped-def]
            for first in range(0, len(ids), GROUP_TOKENS):
                stop = first + GROUP_TOKENS
                following = int(ids[stop]) if stop < len(ids) else None
                after = (int(starts[stop]), int(flags[stop])) if stop < len(ids) else None
                piece = builder.text_piece(ids[first:stop], following, text, starts[first:stop], ends[first:stop],
                                           flags[first:stop], after)
                yield None, ids[first:stop], flags[first:stop], piece

        self._start_job("showing the tokens again", work)

    def _start_filling(self, text: str) -> None:
        self.text = text
        self.view.follow_direction("" if self.show_ids else text)
        self.complete = False
        self.words = None
        self._queue.clear()
        if self._job is not None:
            self._job.cancel()
            self._job = None

    def _start_job(self, name: str, work: object) -> None:
        job = self.session.workers.start(name, work, key=f"lane:{id(self)}")  # type: ignore[arg-type]
        job.on("batch_ready", self._on_job_batch)
        job.on("finished", self._on_job_finished)
        job.on("failed", self._on_job_failed)
        self._job = job

    def _on_job_batch(self, job: object, items: list[Queued]) -> None:
        if job is not self._job:
            return
        self._queue.extend(items)
        self._drain_timer.start()

    def _on_job_failed(self, job: object, message: str) -> None:
        if job is self._job:
            self._job = None
            self.status.emit(self, message)

    def _on_job_finished(self, job: object, _: object) -> None:
        if job is not self._job:
            return
        self._job = None
        self._drain_timer.start()

    def _drain(self, budget: int | None = TURN_CHARACTERS) -> None:
        """Move queued tokens into the state and the view: about `budget` display characters per
        event-loop turn, in one insertion into the view's document."""
        state = self.state
        if state is None:
            return
        taken: list[Queued] = []
        size = 0
        while self._queue and (budget is None or size < budget):
            taken.append(self._queue.popleft())
            size += taken[-1][3].length
        if taken:
            state.extend([batch for batch, *_ in taken if batch is not None])
            self.view.append_tokens(np.concatenate([ids for _, ids, _, _ in taken]),
                                    np.concatenate([flags for _, _, flags, _ in taken]),
                                    join_pieces([piece for *_, piece in taken]))
        if self._queue:
            return
        self._drain_timer.stop()
        if self._job is None and not self.complete:
            state.finish(self.text)
            self.complete = True
            self._show_counts()
            self.updated.emit(self)
        elif not self.complete:
            self.counts.setText(f"Tokenizing... {plural(len(state), 'token')} so far")

    def chrome_height(self) -> int:
        """The title row: the summary wrapped at its width, or a compared lane's choice and button
        if taller: always shown whole."""
        layout = self.header_layout
        others = [layout.itemAt(i).sizeHint().height() for i in range(layout.count())
                  if layout.itemAt(i).widget() is not self.counts]
        summary = self.counts.heightForWidth(max(self.counts.width(), 200))
        return max([summary, *others]) + self.layout().spacing()

    def _check_chrome(self) -> None:
        """Announce a title row that wrapped to another height (a new summary, a new width): the
        room was shared for the old one, and a summary grown a line would be cut."""
        chrome = self.chrome_height()
        if chrome != self._chrome:
            self._chrome = chrome
            self.chrome_changed.emit(self)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._check_chrome()

    def wanted_height(self) -> int:
        """Pixels the lane needs to show all its tokens (a big text: more than any screen)."""
        return self.chrome_height() + self.view.content_height()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """The summary whole and `min_lines` lines of tokens (fewer if its tokens take fewer): the
        splitter of lanes never squeezes a lane below it (the lanes scroll instead)."""
        hint = super().minimumSizeHint()
        lines = min(self.view.lines_height(self.min_lines), self.view.content_height())
        return QSize(hint.width(), max(hint.height(), self.chrome_height() + lines))

    # Counts

    def set_reference(self, tokens: int | None, name: str) -> None:
        reference = (tokens, name) if tokens is not None else None
        if reference != self.reference:
            self.reference = reference
            self._show_counts()

    def set_words(self, words: int) -> None:
        self.words = words
        self._show_counts()

    def _show_counts(self) -> None:
        """The lane's summary on one line: the figures that fit, the token count first, then a
        compared lane's change (explorer/ui/tokens/one_line.py); beside a compared lane's choice a
        wrapped summary cost a line of tokens, which three lanes at 1280x800 do not have."""
        if self.state is None:
            return
        counts = Counts(len(self.text), self.state.byte_length, len(self.state), self.words or 0)
        parts = counts.summary().split(" · ")  # chars, bytes, tokens, bytes/token, words, tokens/word
        tokens = parts[2]  # the figure a speaker points at: large (a compared lane's: its change)
        parts[2] = f"<b>{tokens}</b>" if self.reference is not None else headline(tokens)
        ranked = list(zip(parts, (3, 4, 0, 1, 5, 2)))
        if self.words is None:
            ranked[4:] = [("counting words...", 5)]
        name = self.tokenizer.name if self.tokenizer is not None else ""
        if self.reference is not None and self.reference[0] and self.complete:
            # (the characters, bytes and words are the first lane's: a compared lane says what differs)
            change = 100 * (len(self.state) - self.reference[0]) / self.reference[0]
            ranked = [ranked[2], (parts[3], 2), *([(parts[5], 3)] if self.words is not None else []),
                      (f"<b>{change:+.1f}%</b> tokens vs {self.reference[1]}", 1)]
        self.counts.set_parts(f"<b>{name}</b>: ", ranked)
        self._check_chrome()


def _sentence(text: str) -> str:
    """'the text contains ...' -> 'The text contains ....' (an error message in a banner)."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _displayed(batches: Iterator[TokenBatch], builder: DisplayBuilder, text: str) -> Iterator[Queued]:
    """The batches joined into groups of about GROUP_TOKENS tokens (each becomes one insertion into
    the view, and a few array copies on the GUI thread), each with its display. A group's display
    is built once the next group has started: whether its last carriage return ends a line depends
    on the token after it. Characters split across tokens get their glyph after their pieces."""
    def piece(group: TokenBatch, following: TokenBatch | None) -> DisplayPiece:
        if following is None or not len(following.ids):
            return builder.text_piece(group.ids, None, text, group.starts, group.ends, group.flags)
        after = (int(following.starts[0]), int(following.flags[0]))
        return builder.text_piece(group.ids, int(following.ids[0]), text, group.starts, group.ends, group.flags, after)

    previous: TokenBatch | None = None
    for group in _grouped(batches):
        if previous is not None:
            yield previous, previous.ids, previous.flags, piece(previous, group)
        previous = group
    if previous is not None:
        yield previous, previous.ids, previous.flags, piece(previous, None)


def _grouped(batches: Iterator[TokenBatch]) -> Iterator[TokenBatch]:
    """Groups of GROUP_TOKENS tokens; the first is smaller, to show the top of the text sooner."""
    pending: list[TokenBatch] = []
    size = GROUP_TOKENS // 5
    for batch in batches:
        pending.append(batch)
        if sum(len(batch.ids) for batch in pending) >= size:
            yield join_batches(pending)
            pending, size = [], GROUP_TOKENS
    if pending:
        yield join_batches(pending)
