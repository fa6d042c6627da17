"""One tokenizer's reading of the prompt: its tokens, coloured view and counts.

The pane has one lane for the current tokenizer and, when comparing, one more per tokenizer.
A lane follows the text: small edits re-encode only the chunks around them (on the GUI thread,
a millisecond or two); a new text, tokenizer or mode is encoded by a worker in batches, and the
view fills batch by batch within a time budget per event-loop turn, so the window never freezes.
"""

from __future__ import annotations

import time
from collections import deque

import numpy as np
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from explorer.core.compare import count
from explorer.core.errors import ExplorerError
from explorer.core.incremental import TokenBatch, TokenizedText, effective_mode, encode_stream
from explorer.core.tokenizer import SpecialMode, Tokenizer
from explorer.ui.session import Session
from explorer.ui.tokens.display import DisplayBuilder, DisplayPiece
from explorer.ui.tokens.view import TokenView

SYNC_LIMIT = 20_000  # characters encoded on the GUI thread at once; longer texts go to a worker
BUDGET_SECONDS = 0.012  # GUI time per turn spent filling the view


class Lane(QWidget):
    updated = Signal(object)  # this lane: tokens changed (an edit applied, or a full encoding finished)
    token_hovered = Signal(object, int)  # lane, token index
    token_clicked = Signal(object, int)
    status = Signal(object, str)  # this lane, an error or note for the banner ('' clears it)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.tokenizer: Tokenizer | None = None
        self.mode: SpecialMode = session.special_mode
        self.show_ids = False
        self.state: TokenizedText | None = None
        self.text = ""
        self.words: int | None = None
        self.complete = False
        self._builder: DisplayBuilder | None = None
        self._queue: deque[tuple[TokenBatch, DisplayPiece]] = deque()
        self._pending_text = ""
        self._job = None
        self.counts = QLabel(self)
        self.counts.setObjectName("tokenCounts")
        self.view = TokenView(self)
        self.view.set_dark(session.dark)
        self.view.set_text_font(session.font)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.header = QWidget(self)
        self.header_layout = QVBoxLayout(self.header)
        self.header_layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(self.counts)
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
        if edit.removed or edit.inserted or edit.char_delta:
            ids = self.state.ids[edit.first:edit.first + edit.inserted]
            flags = self.state.flags[edit.first:edit.first + edit.inserted]
            assert self._builder is not None
            self.view.replace_tokens(edit.first, edit.removed, ids, flags, self._builder.piece(ids.tolist()))
        self.last_edit_seconds = time.perf_counter() - started
        self.words = None
        self._show_counts()
        self.updated.emit(self)

    # Full encoding

    def encode_all(self, text: str) -> None:
        self.text = text
        self.complete = False
        self._queue.clear()
        if self._job is not None:
            self._job.cancel()
            self._job = None
        self.view.clear_tokens()
        self.words = None
        if self.tokenizer is None:
            self.state = None
            self.counts.setText("No tokenizer yet: pick one in the toolbar.")
            return
        tokenizer = self.tokenizer
        mode, error = effective_mode(tokenizer, text, self.mode)
        self.status.emit(self, f"{error} Showing the plain-text reading." if error else "")
        self.state = TokenizedText(tokenizer, "", mode, self.mode)
        self._builder = DisplayBuilder(tokenizer, self.show_ids)
        self._pending_text = text
        if len(text) <= SYNC_LIMIT:
            try:
                for batch in encode_stream(tokenizer, text, mode):
                    self._queue.append((batch, self._builder.piece(batch.ids)))
            except ExplorerError as exc:
                self.status.emit(self, str(exc))
                return
            self._drain(budget=None)
            return
        builder = DisplayBuilder(tokenizer, self.show_ids)  # the worker's own cache
        self._builder = builder

        def work():  # type: ignore[no-untyped-def]
            for batch in encode_stream(tokenizer, text, mode):
                yield batch, builder.piece(batch.ids)

        self.counts.setText(f"Tokenizing {len(text):,} characters...")
        job = self.session.workers.start(f"tokenizing {len(text):,} characters", work, key=f"lane:{id(self)}")
        job.connect("batch_ready", self._on_job_batch)
        job.connect("finished", self._on_job_finished)
        job.connect("failed", self._on_job_failed)
        self._job = job

    def _on_job_batch(self, job: object, items: list[tuple[TokenBatch, DisplayPiece]]) -> None:
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

    def _drain(self, budget: float | None = BUDGET_SECONDS) -> None:
        """Move queued batches into the state and the view, for at most `budget` seconds."""
        started = time.perf_counter()
        state = self.state
        while self._queue and state is not None:
            batch, piece = self._queue.popleft()
            state.extend(batch)
            self.view.append_tokens(np.asarray(batch.ids, np.int64), np.asarray(batch.flags, np.uint8), piece)
            if budget is not None and time.perf_counter() - started > budget:
                return
        self._drain_timer.stop()
        if self._job is None and state is not None and not self.complete:
            state.finish(self._pending_text)
            self.complete = True
            self._show_counts()
            self.updated.emit(self)
        elif state is not None and not self.complete:
            self.counts.setText(f"Tokenizing... {len(state):,} tokens so far")

    def _rebuild_view(self) -> None:
        assert self.state is not None and self.tokenizer is not None
        self._builder = DisplayBuilder(self.tokenizer, self.show_ids)
        self.view.clear_tokens()
        step = 4096
        ids, flags = self.state.ids, self.state.flags
        for first in range(0, len(ids), step):
            chunk = ids[first:first + step]
            self.view.append_tokens(chunk, flags[first:first + step], self._builder.piece(chunk.tolist()))
        self.updated.emit(self)

    # Counts

    def set_words(self, words: int) -> None:
        self.words = words
        self._show_counts()

    def _show_counts(self) -> None:
        if self.state is None:
            return
        counts = count(self.text, len(self.state), self.words if self.words is not None else 0)
        summary = counts.summary()
        if self.words is None:
            summary = summary.rsplit(" · ", 2)[0] + " · counting words..."
        name = self.tokenizer.name if self.tokenizer is not None else ""
        self.counts.setText(f"<b>{name}</b>: {summary}")
