"""The Training pane's live demo: a sentence shown as coloured tokens, re-tokenized as merges land.

The pane calls `catch_up` on its view timer (not per merge): the new merges are applied where
their pairs occur in the sentence (explorer/core/algorithms/demo_sentence.py) and the token strip is drawn
again, with the Tokens pane's own view and display, so the boxes look as they do there.
"""

from __future__ import annotations


import numpy as np
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QGroupBox, QLineEdit, QVBoxLayout, QWidget

from explorer.core.algorithms.demo_sentence import DEFAULT_SENTENCE, SentenceTokens
from explorer.core.algorithms.incremental import CUTS_END, CUTS_START, TokenFacts
from explorer.core.plural import plural
from explorer.ui.pane import WrappingLabel
from explorer.ui.qt_text import qt_text
from explorer.ui.training.model import MergesModel
from explorer.ui.tokens.display import DisplayBuilder
from explorer.ui.tokens.view import TokenView
from explorer.ui.tokens.wrapping import keep_whole

VIEW_LINES = 3  # the strip's height in text lines: a sentence of 120 characters as bytes fits


class _Vocab:
    """The merges table's vocabulary as the little of a tokenizer the display needs."""

    def __init__(self, vocab: list[bytes]) -> None:
        self.vocab = vocab

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def token_bytes(self, token_id: int) -> bytes:
        return self.vocab[token_id]


class LiveSentence(QGroupBox):
    """An editable sentence and its tokens under the merges learned so far."""

    def __init__(self, model: MergesModel, parent: QWidget | None = None) -> None:
        super().__init__("A sentence as merges land", parent)
        self.model = model  # its merges and vocabulary are the run's so far
        self.pattern = "cl100k"
        self.tokens = SentenceTokens(DEFAULT_SENTENCE, self.pattern)
        self.redraws = 0  # how often the strip was drawn (once per view tick at most)
        self.edited = False  # the user typed their own sentence: a new corpus leaves it
        self._display: DisplayBuilder | None = None  # see _display_builder
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(3)
        self.edit = QLineEdit(DEFAULT_SENTENCE)
        self.edit.setCursorPosition(0)  # the sentence's start in view ("ick brown fox..." otherwise)
        self.edit.setObjectName("demoSentence")
        self.edit.setAccessibleName("Sentence to tokenize as merges are learned")
        self.edit.setToolTip("Type any sentence: it is tokenized with the merges learned so far")
        self.edit.textEdited.connect(self._on_edit_text_edited)
        layout.addWidget(self.edit)
        self.view = TokenView()
        self.view.setObjectName("demoTokens")
        self.view.setAccessibleName("The sentence's tokens")
        layout.addWidget(self.view)
        self.count = WrappingLabel()  # a long figure line must not widen the pane
        self.count.setObjectName("demoCount")
        layout.addWidget(self.count)
        self._rebuild()

    # Feeding

    def restart(self, pattern: str) -> None:
        """A new run (with this pattern): start again from bytes."""
        self.pattern = pattern
        self._rebuild()

    def catch_up(self) -> None:
        """Apply the merges that reached the table since the last call, and draw once."""
        if self.tokens.catch_up(self.model.merges):
            self._redraw()

    def set_sentence(self, text: str, edited: bool = False) -> None:
        if text != self.edit.text():
            self.edit.setText(qt_text(text))
            self.edit.setCursorPosition(0)  # the sentence's start in view, not its end
        self.edited = edited
        self._rebuild()

    def _on_edit_text_edited(self, text: str) -> None:
        self.edited = True
        self._rebuild()

    def _rebuild(self) -> None:
        self.tokens = SentenceTokens(self.edit.text(), self.pattern)
        self.tokens.catch_up(self.model.merges)
        self._redraw()

    def _redraw(self) -> None:
        self.redraws += 1
        ids = np.asarray(self.tokens.ids(), np.int64)
        display = self._display_builder()
        _, _, continues = TokenFacts(display.tokenizer).look_up(ids)  # type: ignore[arg-type]
        flags = continues * np.uint8(CUTS_START)
        flags[:-1] |= continues[1:] * np.uint8(CUTS_END)
        piece = display.piece(ids)
        self.view.clear_tokens()
        self.view.follow_direction(self.tokens.text)
        self.view.append_tokens(ids, flags.astype(np.uint8), piece)
        self._fit_height()  # (its lines as laid out for this text: scripts differ in height)
        size = len(self.tokens.text.encode("utf-8"))
        merges = self.tokens.applied
        figures = f"{plural(len(ids), 'token')} for {plural(size, 'byte')}"
        if len(ids):
            figures += f" ({size / len(ids):.2f} bytes per token)"
        self.count.setText(figures + (f" after {plural(merges, 'merge')}" if merges else ", one per byte before any merge"))

    def _display_builder(self) -> DisplayBuilder:
        """The tokens' displays, kept while the run's vocabulary is the same list (a new run makes
        a new one): a token's bytes never change within a run, and working its display out again
        (where lines may break) at every redraw was half of the redraw."""
        vocab = self.model.vocab
        if self._display is None or self._display.tokenizer.vocab is not vocab:  # type: ignore[attr-defined]
            self._display = DisplayBuilder(_Vocab(vocab), False, keep_whole)  # type: ignore[arg-type]
        self._display.line = 0  # (the sentence starts a line)
        return self._display

    # Looks

    def set_dark(self, dark: bool, palette: str) -> None:
        self.view.set_dark(dark, palette)

    def set_text_font(self, font: QFont) -> None:
        self.view.set_text_font(font)
        self._fit_height()

    def _fit_height(self) -> None:
        """As many lines of token boxes as the sentence takes, up to VIEW_LINES (then it scrolls),
        each whole: a box line is taller than the font's line spacing (the third line of a Japanese
        sentence in bytes was cut in half); a short sentence leaves its room to the plots."""
        view = self.view
        view.lines_height(1)  # (lays the sentence out at the view's width)
        layout = view.document().firstBlock().layout()
        count = layout.lineCount() if layout is not None else VIEW_LINES
        lines = max(1, min(VIEW_LINES, count))
        height = max(view.lines_height(lines), QFontMetrics(view.font()).lineSpacing() * lines)
        if count > lines:  # more lines follow (it scrolls): no bottom margin, or the next line's boxes
            height -= int(view.document().documentMargin()) + 2  # (which start a pixel above it) peek in
        if height != view.height():
            view.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._fit_height()  # another width: another number of lines
