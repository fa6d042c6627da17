"""The rendered prompt as tokens: a label line wherever the message changes, then its tokens.

Drawn by the Tokens pane's view (colours for the visible lines only, so a 1 MB prompt costs no
more to show than a short one), with each control token outlined, so a control token and the
same string typed as text never look alike. The outline is drawn here, reaching into the gap
below the line: the token view's own special-token frame runs along the bottom of the line and
hides the underscores of `<|begin_of_text|>`, which then reads as `<|begin of text|>`. The text is added a chunk per event-loop turn
(see display.py). Clicking a token says what it is.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QWidget

from explorer.core.chat import ChatResult
from explorer.ui.chat.display import ChatDisplay, DisplayChunk
from explorer.ui.tokens.view import ROW_GAP, TokenView

LABEL_COLOR = QColor("#808080")  # readable on the light and the dark theme's base


class ChatView(TokenView):
    """Read-only; `token_clicked(index)` as in the token view. `result` is what it shows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Prompt tokens")
        self.result: ChatResult | None = None
        self._queue: deque[DisplayChunk] = deque()
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._add_chunk)
        self._label_format = QTextCharFormat()
        self._label_format.setForeground(LABEL_COLOR)
        self._label_format.setFontItalic(True)
        self.control = np.zeros(0, bool)  # per token shown: a control token (outlined)

    def show_display(self, display: ChatDisplay | None) -> None:
        """Show `display` (None: nothing); the first chunk now, the rest on the next turns."""
        self._timer.stop()
        self._queue.clear()
        self.clear_tokens()
        self.control = np.zeros(0, bool)
        self.result = display.result if display is not None else None
        if display is None:
            return
        self.reserve(len(display.result.encoding.tokens))
        self._queue.extend(display.chunks)
        self._add_chunk()

    @property
    def filling(self) -> bool:
        """Whether chunks are still waiting to be added."""
        return bool(self._queue)

    def _add_chunk(self) -> None:
        if not self._queue:
            self._timer.stop()
            return
        chunk = self._queue.popleft()
        at = self.total
        self.append_tokens(chunk.ids, chunk.flags, chunk.piece)
        self.control = np.concatenate([self.control, chunk.control])
        for offset, length in chunk.labels:
            cursor = QTextCursor(self.document())
            cursor.setPosition(at + offset)
            cursor.setPosition(at + offset + length, QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(self._label_format)
        if self._queue:
            self._timer.start()
        else:
            self._timer.stop()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        super().paintEvent(event)
        if not self.control.any():
            return
        painter = QPainter(self.viewport())
        painter.setPen(QPen(self.palette().text().color(), 1.5))
        for index, rect in self.boxes_on_screen():
            if self.control[index]:
                painter.drawRect(rect.adjusted(0.75, 0.75, -0.75, ROW_GAP - 1.5))
        painter.end()
