"""The coloured token view: a read-only text view that paints only what is on screen.

The document holds each token's display text (visible whitespace, hex for partial bytes, or the
id); colours, token boundaries, the boundary differences of a comparison, split characters and
missing glyphs are painted under and over the text for the visible blocks only, so a 1 MB text
costs no more to show than a short prompt. Token positions are kept as numpy columns in Qt's
UTF-16 units (see display.py).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import (QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen, QTextCursor, QTextLine,
                           QTextOption)
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from explorer.core.incremental import CUTS_END, CUTS_START, SPECIAL
from explorer.ui.theme import token_color
from explorer.ui.tokens.display import DisplayPiece
from explorer.ui.tokens.glyphs import is_missing

DIFF_COLOR = QColor("#D81B60")  # boundary differences in a comparison: magenta, not in the token palette
SPLIT_COLOR = QColor("#C62828")


class TokenView(QPlainTextEdit):
    """Tokens as coloured text. Signals carry token indices (-1 for none)."""

    token_hovered = Signal(int)
    token_clicked = Signal(int)
    glyphs_missing = Signal(object)  # set of characters no font can draw (newly seen ones)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.viewport().setMouseTracking(True)
        self.dark = False
        self.ids = np.zeros(0, np.int64)
        self.flags = np.zeros(0, np.uint8)
        self.starts = np.zeros(0, np.int64)  # display position (UTF-16) of each token
        self.painted = np.zeros(0, np.int64)
        self.total = 0
        self.diff: np.ndarray | None = None  # bool per token: inside a span where comparisons disagree
        self.current = -1
        self._colors: dict[int, QColor] = {}
        self._press: QPoint | None = None
        self._missing_seen: set[str] = set()
        self.cursorPositionChanged.connect(self._on_cursor_moved)

    # Content

    def clear_tokens(self) -> None:
        self.ids = np.zeros(0, np.int64)
        self.flags = np.zeros(0, np.uint8)
        self.starts = np.zeros(0, np.int64)
        self.painted = np.zeros(0, np.int64)
        self.total = 0
        self.diff = None
        self.current = -1
        self.setPlainText("")

    def append_tokens(self, ids: np.ndarray, flags: np.ndarray, piece: DisplayPiece) -> None:
        """Add tokens at the end (the pane calls this batch by batch for big texts)."""
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(piece.text)
        self.ids = np.concatenate([self.ids, ids])
        self.flags = np.concatenate([self.flags, flags])
        self.starts = np.concatenate([self.starts, np.asarray(piece.starts, np.int64) + self.total])
        self.painted = np.concatenate([self.painted, np.asarray(piece.painted, np.int64)])
        self.total += piece.length
        self.viewport().update()

    def replace_tokens(self, first: int, removed: int, ids: np.ndarray, flags: np.ndarray, piece: DisplayPiece) -> None:
        """Replace tokens [first, first + removed) after an edit; the rest only shift."""
        last = first + removed
        begin = int(self.starts[first]) if first < len(self.starts) else self.total
        end = int(self.starts[last]) if last < len(self.starts) else self.total
        cursor = QTextCursor(self.document())
        cursor.setPosition(begin)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(piece.text)
        shift = piece.length - (end - begin)
        self.ids = np.concatenate([self.ids[:first], ids, self.ids[last:]])
        self.flags = np.concatenate([self.flags[:first], flags, self.flags[last:]])
        self.starts = np.concatenate([self.starts[:first], np.asarray(piece.starts, np.int64) + begin,
                                      self.starts[last:] + shift])
        self.painted = np.concatenate([self.painted[:first], np.asarray(piece.painted, np.int64), self.painted[last:]])
        if self.diff is not None:
            self.diff = None  # stale; the pane recomputes the comparison
        self.total += shift
        self.viewport().update()

    def set_diff(self, diff: np.ndarray | None) -> None:
        self.diff = diff if diff is not None and len(diff) == len(self.ids) else None
        self.viewport().update()

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self._colors.clear()
        self.viewport().update()

    def set_text_font(self, font: QFont) -> None:
        self.setFont(font)
        self.document().setDefaultFont(font)

    # Positions

    def index_at(self, position: int) -> int:
        """The token at display position `position` (-1 if none)."""
        if not len(self.starts) or position >= self.total:
            return -1
        return int(np.searchsorted(self.starts, position, side="right")) - 1

    def index_at_point(self, point: QPoint) -> int:
        cursor = self.cursorForPosition(point)
        position = cursor.position()
        # cursorForPosition gives the nearest gap; the token is on whichever side the point is.
        rect = self.cursorRect(cursor)
        if point.x() < rect.x() and position > 0:
            position -= 1
        index = self.index_at(position)
        if index < 0 or position >= int(self.starts[index]) + int(self.painted[index]) and self.painted[index] > 0:
            return -1
        return index

    def show_token(self, index: int) -> None:
        """Scroll to token `index` and select its display text."""
        if not 0 <= index < len(self.starts):
            return
        cursor = QTextCursor(self.document())
        cursor.setPosition(int(self.starts[index]))
        cursor.setPosition(int(self.starts[index] + max(self.painted[index], 1)), QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        self.centerCursor()
        self.set_current(index)

    def set_current(self, index: int) -> None:
        if index != self.current:
            self.current = index
            self.viewport().update()

    def _color(self, token_id: int) -> QColor:
        color = self._colors.get(token_id)
        if color is None:
            color = self._colors[token_id] = token_color(token_id, self.dark)
        return color

    # Painting: backgrounds and boundaries under the text, marks over it

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        boxes = self._visible_boxes(event.rect().bottom())
        painter = QPainter(self.viewport())
        boundary = QColor(self.palette().text().color())
        boundary.setAlpha(110)
        for index, rect, first_line in boxes:
            painter.fillRect(rect, self._color(int(self.ids[index])))
            if first_line:
                painter.fillRect(QRectF(rect.left(), rect.top() + 2, 1.0, rect.height() - 4), boundary)
        painter.end()
        super().paintEvent(event)
        painter = QPainter(self.viewport())
        for index, rect, _ in boxes:
            flags = int(self.flags[index])
            if self.diff is not None and self.diff[index]:
                painter.fillRect(QRectF(rect.left(), rect.bottom() - 3, rect.width(), 3), DIFF_COLOR)
            if flags & (CUTS_START | CUTS_END):
                pen = QPen(SPLIT_COLOR, 1.5, Qt.PenStyle.DashLine)
                painter.setPen(pen)
                painter.drawLine(rect.bottomLeft() + QPoint(0, -1).toPointF(), rect.bottomRight() + QPoint(0, -1).toPointF())
            if flags & SPECIAL:
                painter.setPen(QPen(self.palette().text().color(), 1.5))
                painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
            if index == self.current:
                painter.setPen(QPen(self.palette().highlight().color(), 2))
                painter.drawRect(rect.adjusted(1, 1, -1, -1))
        self._paint_missing_glyphs(painter, event.rect().bottom())
        painter.end()

    def _visible_blocks(self, bottom: int):  # type: ignore[no-untyped-def]
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        while block.isValid():
            geometry = self.blockBoundingGeometry(block).translated(offset)
            if geometry.top() > bottom:
                break
            if block.isVisible():
                yield block, geometry
            block = block.next()

    def _visible_boxes(self, bottom: int) -> list[tuple[int, QRectF, bool]]:
        """(token index, rectangle, is this the token's first line) for every token piece on screen."""
        boxes: list[tuple[int, QRectF, bool]] = []
        if not len(self.starts):
            return boxes
        starts, painted = self.starts, self.painted
        for block, geometry in self._visible_blocks(bottom):
            layout = block.layout()
            block_start, block_end = block.position(), block.position() + block.length() - 1
            index = max(0, int(np.searchsorted(starts, block_start, side="right")) - 1)
            top = geometry.top() + layout.position().y()
            left = geometry.left() + layout.position().x()
            while index < len(starts) and starts[index] < block_end:
                start = max(int(starts[index]), block_start) - block_start
                end = min(int(starts[index] + painted[index]), block_end) - block_start
                if end > start:
                    first = True
                    position = start
                    while position < end:
                        line: QTextLine = layout.lineForTextPosition(position)
                        if not line.isValid():
                            break
                        line_end = min(end, line.textStart() + line.textLength())
                        x1 = line.cursorToX(position)[0]
                        x2 = line.cursorToX(line_end)[0]
                        if line_end == position:
                            break
                        boxes.append((index, QRectF(left + min(x1, x2), top + line.y(), abs(x2 - x1), line.height()),
                                      first and position == int(starts[index]) - block_start))
                        first = False
                        position = line_end
                index += 1
        return boxes

    def _paint_missing_glyphs(self, painter: QPainter, bottom: int) -> None:
        font = self.font()
        new: set[str] = set()
        painter.setPen(QPen(SPLIT_COLOR, 1.5))
        for block, geometry in self._visible_blocks(bottom):
            text = block.text()
            if text.isascii():
                continue
            layout = block.layout()
            position = 0  # UTF-16 position in the block
            for char in text:
                if not char.isascii() and is_missing(char, font):
                    line = layout.lineForTextPosition(position)
                    if line.isValid():
                        x1 = line.cursorToX(position)[0]
                        x2 = line.cursorToX(position + (2 if ord(char) > 0xFFFF else 1))[0]
                        origin = geometry.topLeft() + layout.position()
                        painter.drawRect(QRectF(origin.x() + x1, origin.y() + line.y(), max(x2 - x1, 4), line.height()))
                    if char not in self._missing_seen:
                        new.add(char)
                position += 2 if ord(char) > 0xFFFF else 1
        if new:
            self._missing_seen |= new
            self.glyphs_missing.emit(set(self._missing_seen))

    # Mouse: hover shows a token, a click (not a drag) opens it

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        if event.buttons() == Qt.MouseButton.NoButton:
            index = self.index_at_point(event.position().toPoint())
            if index >= 0:
                self.set_current(index)
                self.token_hovered.emit(index)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        point = event.position().toPoint()
        if (event.button() == Qt.MouseButton.LeftButton and self._press is not None
                and (point - self._press).manhattanLength() < 4):
            index = self.index_at_point(point)
            if index >= 0:
                self.token_clicked.emit(index)
        self._press = None

    def _on_cursor_moved(self) -> None:
        cursor = self.textCursor()
        if cursor.hasSelection():
            index = self.index_at(cursor.selectionStart())
            if index >= 0:
                self.set_current(index)
                self.token_hovered.emit(index)
