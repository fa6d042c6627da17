"""The prompt editor: a big paste goes in piece by piece, and marks show what the tokens do to characters.

The pane owns the prompt (with its own line endings); the editor shows it with "\n" line breaks.
A paste or drop goes to the pane first, which starts tokenizing at once, then into the editor
PASTE_STEP characters per event-loop turn, so a 1 MB paste never freezes the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QMimeData, QSize
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

from explorer.core.algorithms.incremental import CUTS_END, TokenizedText
from explorer.ui.pane import editor_least_height
from explorer.ui.qt_text import qt_text
from explorer.ui.timers import call_later
from explorer.ui.tokens.glyphs import is_missing, missing_message
from explorer.ui.tokens.prompt import Prompt

if TYPE_CHECKING:
    from explorer.ui.tokens.pane import TokensPane

PASTE_STEP = 32_768  # characters inserted per event-loop turn for a big paste
MAX_MARKS = 2000  # per kind, in the visible part
SPLIT_NOTE = "Dotted underline: this character's bytes are split across tokens (its pieces show in hex below)"


class PromptEditor(QPlainTextEdit):
    """The prompt editor (see the module docstring)."""

    def __init__(self, pane: TokensPane) -> None:
        super().__init__(pane)
        self.pane = pane

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """One line of text (what room.py lets compared lanes take it down to): Qt's own, the scroll bar's arrows, kept the box
        70 px tall in presentation mode while three compared lanes needed the room."""
        return QSize(super().minimumSizeHint().width(), editor_least_height(self))
        self.setPlaceholderText("Type or paste a prompt to see every token.")
        self.setTabChangesFocus(False)
        self._queue: list[str] = []
        self._first = False  # the next piece starts the step to undo
        self._replacing = False
        self.inserting = False  # True while the editor itself changes the text (not the user)

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802 (Qt override)
        if source.hasText():
            self.pane.insert(source.text())

    def fill(self, text: str, replace: bool = False) -> None:
        """Insert `text` (line breaks as "\n") at the cursor, or instead of everything, PASTE_STEP
        characters per event-loop turn, as one step to undo; the pane hears when it is done."""
        self._replacing = replace
        if replace:
            self.setUndoRedoEnabled(False)  # a new prompt, not an edit (this also forgets the history)
            self.inserting = True
            self.clear()
            self.inserting = False
        self._queue = [text[i:i + PASTE_STEP] for i in range(0, len(text), PASTE_STEP)] or [""]
        self._first = True
        if len(self._queue) == 1:
            self._insert_next()
        else:  # the pane has had its turn: the text goes in from the next one
            call_later(self, self._insert_next)

    def finish_fill(self) -> None:
        """Insert what is left of the text now."""
        while self._queue:
            self._insert_next()

    def _insert_next(self) -> None:
        if not self._queue:
            return  # (finished early by `finish_fill`)
        cursor = self.textCursor()  # a copy; the editor's own cursor moves along with the insertion
        if self._first:
            cursor.beginEditBlock()
        else:
            cursor.joinPreviousEditBlock()
        self._first = False
        self.inserting = True
        cursor.insertText(qt_text(self._queue.pop(0)))
        cursor.endEditBlock()
        self.inserting = False
        if self._queue:
            call_later(self, self._insert_next)
            return
        if self._replacing:
            self.setUndoRedoEnabled(True)
            self.moveCursor(QTextCursor.MoveOperation.Start)
        else:
            self.ensureCursorVisible()
        self.pane.end_bulk()

    # Marks

    def mark(self, state: TokenizedText, prompt: Prompt) -> set[str]:
        """In the visible part: underline characters split across tokens, box characters no
        installed font can draw. Returns those characters (for the banner to name their fonts)."""
        text = prompt.text
        viewport = self.viewport().rect()
        low = prompt.from_editor(self.cursorForPosition(viewport.topLeft()).position())
        high = min(len(text), prompt.from_editor(self.cursorForPosition(viewport.bottomRight()).position()) + 1)
        tokens = state.tokens_in(low, high)
        cut = np.flatnonzero(state.flags[tokens.start:tokens.stop] & CUTS_END) + tokens.start
        split = [i for i in (state.ends[cut] - 1).tolist() if low <= i < high][:MAX_MARKS]
        font = self.font()
        unusual = {char for char in set(text[low:high]) if not char.isascii() and is_missing(char, font)}
        missing = [i for i in range(low, high) if text[i] in unusual][:MAX_MARKS] if unusual else []
        selections = [self._mark(prompt, i, "split") for i in split]
        selections += [self._mark(prompt, i, "missing") for i in missing]
        self.setExtraSelections(selections)
        return unusual

    def _mark(self, prompt: Prompt, index: int, kind: str) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        if kind == "split":
            # Quiet: a red wave would read as a spelling error in the user's own text.
            selection.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
            selection.format.setUnderlineColor(self.palette().placeholderText().color())
            selection.format.setToolTip(SPLIT_NOTE)
        else:
            selection.format.setBackground(QColor(255, 0, 0, 70))
            selection.format.setToolTip(f"No installed font has this character: {missing_message({prompt.text[index]})}")
        cursor = QTextCursor(self.document())
        cursor.setPosition(prompt.to_editor(index))
        cursor.setPosition(prompt.to_editor(index + 1), QTextCursor.MoveMode.KeepAnchor)
        selection.cursor = cursor
        return selection
