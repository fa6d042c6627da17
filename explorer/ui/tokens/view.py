"""The coloured token view: a read-only text view that paints only what is on screen.

The document holds each token's display text (visible whitespace, hex for partial bytes, or the
id); colours, token boundaries, the boundary differences of a comparison, split characters and
missing glyphs are painted under and over the text for the visible blocks only, so a 1 MB text
costs no more to show than a short prompt. Where each token sits in a block is measured once
and cached by the block's text and token boundaries, so typing (which changes one block)
repaints the rest from the cache. Token positions are numpy columns in Qt's UTF-16 units.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

import numpy as np
from PySide6.QtCore import QMimeData, QPoint, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (QColor, QFont, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen, QTextBlock, QTextCursor,
                           QTextLayout, QTextLine, QTextOption)
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from explorer.core.algorithms.incremental import CUTS_END, CUTS_START, SPECIAL, Growing
from explorer.core.text.bidi import has_right_to_left
from explorer.ui.line_scroll import whole_lines_bottom
from explorer.ui.pane import align_to_text
from explorer.ui.qt_text import qt_text
from explorer.ui.theme import TEXT, token_color
from explorer.ui.tokens.display import DisplayPiece
from explorer.ui.tokens.glyphs import is_missing
from explorer.ui.tokens.lines import LineFitter
from explorer.ui.tokens.wrapping import shown

DIFF_COLOR = QColor("#D81B60")  # boundary differences in a comparison: magenta, not in the token palette
SPLIT_COLOR = QColor("#C62828")  # boxes around characters no installed font can draw
CACHED_BLOCKS = 1024  # blocks whose token boxes are remembered (a few screens' worth)
ROW_GAP = 3.0  # pixels below a line that its boxes leave free (one of them is taken back above the line)

_MARKS = "\u200b\u200d\u2060\u2066\u2069"  # the display's zero-width marks (wrapping.py, display.py)

# One token's piece on one line of a block: (token index relative to the block's first token,
# rectangle relative to the block's layout, the tick that marks the token's start if it starts here).
Box = tuple[int, QRectF, QRectF | None]


class TokenView(QPlainTextEdit):
    """Tokens as coloured text. Signals carry token indices (-1 for none)."""

    token_hovered = Signal(int)
    token_clicked = Signal(int)
    glyphs_missing = Signal(object)  # set of characters no font can draw (newly seen ones)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lines = LineFitter(self.document(), self._starts_between)  # (lines end between tokens)
        self._height: tuple[tuple[int, ...], int] = ((), 0)  # (what content_height was measured for, it)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.viewport().setMouseTracking(True)
        self.dark = False
        self.palette_name = "default"
        self.diff: np.ndarray | None = None  # bool per token: inside a span where comparisons disagree
        self.current = -1
        self._colors: dict[int, QColor] = {}
        self._boxes: OrderedDict[tuple[object, ...], list[Box]] = OrderedDict()
        self._missing_boxes: OrderedDict[tuple[object, ...], list[QRectF]] = OrderedDict()
        self._press: QPoint | None = None
        self._missing_seen: set[str] = set()
        self._reset_columns()
        self.cursorPositionChanged.connect(self._on_cursor_moved)

    def reserve(self, tokens: int) -> None:
        """Make room for about `tokens` more tokens (appending then copies nothing)."""
        self._growing = {name: Growing(len(self.ids) + tokens) for name in self._growing}

    def _reset_columns(self) -> None:
        self.ids = np.zeros(0, np.int64)
        self.flags = np.zeros(0, np.uint8)
        self.starts = np.zeros(0, np.int64)  # display position (UTF-16) of each token
        self.painted = np.zeros(0, np.int64)  # how much of it is coloured
        self._growing = {name: Growing() for name in ("ids", "flags", "starts", "painted")}
        self.total = 0

    # Content

    def clear_tokens(self) -> None:
        self._reset_columns()
        self.diff = None
        self.current = -1
        self.setPlainText("")

    def append_tokens(self, ids: np.ndarray, flags: np.ndarray, piece: DisplayPiece) -> None:
        """Add tokens at the end (the lane calls this batch by batch for big texts)."""
        document, layout = self.document(), self.document().documentLayout()
        cursor = QTextCursor(document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        # Qt repaints the whole view after any change; text added below the screen needs none,
        # only the scroll bar's new range (a 1 MB paste appends a hundred times).
        below = self.blockBoundingGeometry(document.lastBlock()).top() + self.contentOffset().y() > self.viewport().height()
        layout.blockSignals(below)
        cursor.insertText(qt_text(piece.text))
        layout.blockSignals(False)
        if below:
            layout.documentSizeChanged.emit(layout.documentSize())
        columns = {"ids": ids, "flags": flags, "starts": piece.starts + self.total, "painted": piece.painted}
        for name, values in columns.items():
            setattr(self, name, self._growing[name].append(getattr(self, name), [values]))
        self.total += piece.length
        self._lines.forget(self.total - piece.length)  # (its lines are checked when next shown)

    def replace_tokens(self, first: int, removed: int, ids: np.ndarray, flags: np.ndarray, piece: DisplayPiece) -> None:
        """Replace tokens [first, first + removed) after an edit; the rest only shift."""
        last = first + removed
        begin = self.position_of(first)
        end = self.position_of(last)
        cursor = QTextCursor(self.document())
        cursor.setPosition(begin)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(qt_text(piece.text))
        shift = piece.length - (end - begin)
        self.ids = np.concatenate([self.ids[:first], ids, self.ids[last:]])
        self.flags = np.concatenate([self.flags[:first], flags, self.flags[last:]])
        self.starts = np.concatenate([self.starts[:first], piece.starts + begin, self.starts[last:] + shift])
        self.painted = np.concatenate([self.painted[:first], piece.painted, self.painted[last:]])
        self._growing = {name: Growing() for name in self._growing}  # (no more appends: drop the spare room)
        if self.diff is not None:
            self.diff = None  # stale; the pane recomputes the comparison
        self.total += shift
        self._lines.forget(begin)
        self.viewport().update()

    def _starts_between(self, first: int, last: int) -> tuple[np.ndarray, int]:
        """The starts of the tokens that reach into display positions [first, last], and where the
        last token known ends (the line layout asks, lines.py)."""
        low = max(0, int(np.searchsorted(self.starts, first, side="right")) - 1)
        high = int(np.searchsorted(self.starts, last, side="right"))
        return self.starts[low:high], self.total

    def _layout_key(self) -> int:
        """What Qt lays the blocks out for (a block fitted for another key is fitted again)."""
        option = self.document().defaultTextOption()
        return hash((self.viewport().width(), self.font().key(), int(option.alignment().value))) & 0x3FFFFFFF

    def content_height(self) -> int:
        """Pixels the whole text takes at the current width, plus a spare line to type into
        (a text of many lines: more than any screen, without laying it all out)."""
        document = self.document()
        if document.blockCount() > 200 or document.characterCount() > 20_000:  # (laying it all out could take long)
            return 100_000
        key = self._layout_key()
        measured = (key, document.revision(), self.frameWidth(), int(document.documentMargin()))
        if self._height[0] == measured:  # (the pane shares its room asking each lane dozens of times)
            return self._height[1]
        block = document.firstBlock()
        while block.isValid():
            self._lines.ensure(block, key)
            block = block.next()
        bottom = self.blockBoundingGeometry(document.lastBlock()).bottom()
        height = int(bottom + self.fontMetrics().lineSpacing() + 2 * self.frameWidth() + 2 * document.documentMargin())
        self._height = (measured, height)
        return height

    def lines_height(self, lines: int) -> int:
        """Pixels the first `lines` lines of tokens take, frame and margins included (a lane's room
        for them); past the text's last line, the first line's height for each one more."""
        bottoms = self.line_bottoms(lines)
        margin = self.document().documentMargin()
        end = (bottoms[-1] if bottoms else margin) + (lines - len(bottoms)) * self._first_line(bottoms)
        return int(end + margin + 2 * self.frameWidth()) + 1

    def line_bottoms(self, count: int) -> list[float]:
        """Where each of the first `count` lines of tokens ends, from the viewport's top when not
        scrolled (fewer when the text has fewer lines). Lines differ in height (hex pieces, emoji
        and fallback fonts make taller rows: 49 px and 43 px in one lane in presentation mode), so
        k lines take what these say, not k times the first. From a block too long to lay out here
        (4096 characters) on, each line is counted the first line's height."""
        document = self.document()
        top = margin = document.documentMargin()
        bottoms: list[float] = []
        block, key = document.firstBlock(), self._layout_key()
        while block.isValid() and len(bottoms) < count:
            if block.length() >= 4096:  # (laying it out could take long)
                end, line = bottoms[-1] if bottoms else margin, self._first_line(bottoms)
                return bottoms + [end + n * line for n in range(1, count - len(bottoms) + 1)]
            self._lines.ensure(block, key)  # (a lane out of sight is not laid out yet)
            layout = block.layout()
            origin = top + layout.position().y()
            for number in range(min(layout.lineCount(), count - len(bottoms))):
                text_line = layout.lineAt(number)
                bottoms.append(origin + text_line.y() + text_line.height())
            top += document.documentLayout().blockBoundingRect(block).height()
            block = block.next()
        return bottoms

    def _first_line(self, bottoms: list[float]) -> float:
        """The height of the first line (of those whose `bottoms` are known), or the font's line if taller."""
        first = bottoms[0] - self.document().documentMargin() if bottoms else 0.0
        return max(first, self.fontMetrics().lineSpacing())

    def line_count(self) -> int:
        """Lines of tokens at the view's width (a text too long to lay out: as far as Qt knows)."""
        self.content_height()  # (lays a short text out)
        return self.document().lineCount()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """No taller than a line of tokens: a scroll area's own least height (its scroll bar's,
        a hidden horizontal bar's and the frame: 70 px in presentation mode) is more than a line
        and a half, and a lane given one line showed it over a blank row-sized gap."""
        hint = super().minimumSizeHint()
        return QSize(hint.width(), min(hint.height(), self.lines_height(1)))

    def position_of(self, index: int) -> int:
        """Display position where token `index` starts (the end for `len(ids)`)."""
        return int(self.starts[index]) if index < len(self.starts) else self.total

    def line_length_at(self, position: int) -> int:
        """Display characters between the line break before `position` and `position`."""
        return position - self.document().findBlock(position).position()

    def set_diff(self, diff: np.ndarray | None) -> None:
        self.diff = diff if diff is not None and len(diff) == len(self.ids) else None
        self.viewport().update()

    def set_dark(self, dark: bool, palette: str = "default") -> None:
        """Token colours for the theme and palette; the text takes the theme's own colour, the one
        every palette entry is checked against (explorer/ui/theme.py)."""
        self.dark, self.palette_name = dark, palette
        self._colors.clear()
        colors = self.palette()
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            colors.setColor(group, QPalette.ColorRole.Text, QColor(TEXT[dark]))
        self.setPalette(colors)
        self.viewport().update()

    def follow_direction(self, text: str) -> None:
        """Align right a text that starts in Arabic or Hebrew (see `align_to_text`)."""
        if align_to_text(self, text):
            self._boxes.clear()
            self._missing_boxes.clear()

    def set_text_font(self, font: QFont) -> None:
        self.setFont(font)
        self.document().setDefaultFont(font)

    def toPlainText(self) -> str:  # noqa: N802 (Qt override): the text without the wrapping marks
        return shown(super().toPlainText())

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802 (Qt override): copy what is read
        data = QMimeData()
        data.setText(qt_text(shown(self.textCursor().selection().toPlainText())))
        return data

    # Positions

    def index_at(self, position: int) -> int:
        """The token at display position `position` (-1 if none)."""
        if not len(self.starts) or position >= self.total:
            return -1
        return int(np.searchsorted(self.starts, position, side="right")) - 1

    def index_at_point(self, point: QPoint) -> int:
        if point.y() >= self.whole_lines_bottom():  # (a row not drawn has no tokens to hover)
            return -1
        cursor = self.cursorForPosition(point)
        if has_right_to_left(cursor.block().text()):  # the gap's sides depend on each run's direction
            return self._index_in_boxes(cursor.block(), QPointF(point))
        position = cursor.position()
        # cursorForPosition gives the nearest gap; the token is on whichever side the point is.
        rect = self.cursorRect(cursor)
        if point.x() < rect.x() and position > 0:
            position -= 1
        index = self.index_at(position)
        if index < 0 or position >= int(self.starts[index]) + int(self.painted[index]) and self.painted[index] > 0:
            return -1
        return index

    def _index_in_boxes(self, block: QTextBlock, point: QPointF) -> int:
        """The token whose box holds `point` in `block` (a line with right-to-left runs)."""
        on_screen = [(found, origin) for found, origin in self._blocks_between(int(point.y()), int(point.y()))
                     if found == block]
        for origin, first, boxes in self._token_blocks(on_screen):
            for offset, rect, _ in boxes:
                if rect.translated(origin).contains(point):
                    return first + offset
        return -1

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
            color = self._colors[token_id] = token_color(token_id, self.dark, self.palette_name)
        return color

    def boundary_color(self) -> QColor:
        """The notch at each token's start: the text's own colour, so it stands out from every token
        colour as the text does (neighbouring tokens of one colour are still told apart)."""
        return QColor(self.palette().text().color())

    def boundary_width(self) -> float:
        """The width of a token's boundary marks: they grow with the text (presentation mode)."""
        return max(1.0, round(self.fontMetrics().height() / 16))

    def boundary_marks(self, rect: QRectF, tick: QRectF, width: float | None = None) -> tuple[QRectF, QRectF]:
        """(gap, notch) where a token starts, in the box `rect`: a cut of the page's colour through
        the box, and a short notch of `boundary_color` at its foot. A full-height line in the text's
        colour at every start read as one more stroke of the letters beside it (Devanagari's bars,
        Thai's vowels) and was a fence in a line of short tokens; the notch stays under the letters'
        body, the gap parts two boxes of one colour. `width`: boundary_width(), which a paint reads
        once for all its tokens (a font's metrics per token were a third of the strip's paint)."""
        width = self.boundary_width() if width is None else width
        notch = max(3.0, round(rect.height() / 4))
        left = tick.left() if tick.left() + width <= rect.right() else rect.right() - width
        return (QRectF(left, rect.top(), width, rect.height()),
                QRectF(left, rect.bottom() - notch, width, notch))

    # Painting: backgrounds and boundaries under the text, marks over it

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        on_screen = list(self._blocks_between(event.rect().top(), event.rect().bottom()))
        blocks = list(self._token_blocks(on_screen))
        painter = QPainter(self.viewport())
        boundary, page = self.boundary_color(), self.palette().base().color()
        color, width = self._color, self.boundary_width()
        for origin, first, boxes in blocks:
            painter.translate(origin)
            ids = self.ids[first:first + boxes[-1][0] + 1].tolist() if boxes else []
            for offset, rect, tick in boxes:
                painter.fillRect(rect, color(ids[offset]))
                if tick is not None:
                    gap, notch = self.boundary_marks(rect, tick, width)
                    painter.fillRect(gap, page)
                    painter.fillRect(notch, boundary)
            painter.translate(-origin)
        painter.end()
        super().paintEvent(event)
        painter = QPainter(self.viewport())
        for origin, first, boxes in blocks:
            painter.translate(origin)
            self._paint_marks(painter, first, boxes)
            painter.translate(-origin)
        self._paint_missing_glyphs(painter, on_screen)
        bottom = self.whole_lines_bottom() - 1  # (a line's boxes start a pixel above it: _line_spans)
        if bottom < self.viewport().height() - 1:  # the row the edge would cut is not shown (line_scroll.py)
            painter.fillRect(QRectF(0, bottom, self.viewport().width(), self.viewport().height() - bottom), page)
        painter.end()

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 (Qt override)
        """Repaint it all: Qt moves the pixels and paints only the strip scrolled in, which would
        leave the blank below the old last whole line in the middle of the new lines."""
        super().scrollContentsBy(dx, dy)
        self.viewport().update()

    def whole_lines_bottom(self) -> float:
        """The viewport's y where the lines shown whole end: below it nothing is drawn (an id cut
        in half by the view's edge is a wrong id). The same in a lone view and in compared lanes,
        whatever height the room gave the view and however its lines differ in height."""
        height = self.viewport().height()
        bottoms = (origin.y() + line.y() + line.height()
                   for block, origin in self._blocks_between(0, height)
                   for line in (block.layout().lineAt(n) for n in range(block.layout().lineCount())))
        return whole_lines_bottom(bottoms, height)

    def _paint_marks(self, painter: QPainter, first: int, boxes: list[Box]) -> None:
        """Comparison differences, split characters, special tokens and the current token."""
        last = first + boxes[-1][0] + 1 if boxes else first
        marked = self.flags[first:last] != 0
        if self.diff is not None:
            marked |= self.diff[first:last]
        wanted = set(np.flatnonzero(marked).tolist())
        split = QColor(self.palette().text().color())
        split.setAlpha(120)  # (under every piece of a text split into bytes: a quiet line, not a rule)
        if first <= self.current < last:
            wanted.add(self.current - first)
        for offset, rect, _ in boxes:
            if offset not in wanted:
                continue
            index = first + offset
            flags = int(self.flags[index])
            if self.diff is not None and self.diff[index]:
                painter.fillRect(QRectF(rect.left(), rect.bottom() - 3, rect.width(), 3), DIFF_COLOR)
            if flags & (CUTS_START | CUTS_END):  # the pieces of one character: a bracket under them all
                painter.setPen(QPen(split, 1.0))
                painter.drawLine(rect.bottomLeft() + QPointF(0, -1.5), rect.bottomRight() + QPointF(0, -1.5))
            if flags & SPECIAL:  # the outline's bottom runs in the gap below the line, clear of `_` in <|end_of_text|>
                painter.setPen(QPen(self.palette().text().color(), 1.5))
                painter.drawRect(rect.adjusted(0.75, 0.75, -0.75, ROW_GAP - 1.5))
            if index == self.current:
                painter.setPen(QPen(self.palette().highlight().color(), 2))
                painter.drawRect(rect.adjusted(1, 1, -1, -1))

    def _blocks_between(self, top: int, bottom: int) -> Iterator[tuple[QTextBlock, QPointF]]:
        """Visible blocks that reach into [top, bottom] (viewport y), with their layout's origin."""
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        key = self._layout_key()
        while block.isValid():
            self._lines.ensure(block, key)  # (before its geometry is read: a fit can add a line)
            geometry = self.blockBoundingGeometry(block).translated(offset)
            if geometry.top() > bottom:
                break
            if block.isVisible() and geometry.bottom() >= top:
                yield block, geometry.topLeft() + block.layout().position()
            block = block.next()

    def _token_blocks(self, blocks: list[tuple[QTextBlock, QPointF]]) -> Iterator[tuple[QPointF, int, list[Box]]]:
        """(layout origin, index of the block's first token, its boxes) for `blocks` that hold tokens."""
        if not len(self.starts):
            return
        context = (self.viewport().width(), self.font().key())
        for block, origin in blocks:
            start = block.position()
            end = start + block.length() - 1
            first = max(0, int(np.searchsorted(self.starts, start, side="right")) - 1)
            last = int(np.searchsorted(self.starts, end, side="left"))
            if first >= last:
                continue
            relative = self.starts[first:last] - start  # the first may start in a block before
            painted = np.minimum(relative + self.painted[first:last], end - start)
            key = (block.text(), relative.tobytes(), painted.tobytes(), context)
            boxes = self._boxes.get(key)
            if boxes is None:
                text = key[0]
                if has_right_to_left(text):
                    boxes = _measure_bidi(block.layout(), relative.tolist(), painted.tolist(), text)
                else:
                    boxes = _measure(block.layout(), relative.tolist(), painted.tolist())
                self._boxes[key] = boxes
                if len(self._boxes) > CACHED_BLOCKS:
                    self._boxes.popitem(last=False)
            yield origin, first, boxes

    def boxes_on_screen(self) -> list[tuple[int, QRectF]]:
        """(token index, rectangle in the viewport) for every token piece on screen."""
        return [(first + offset, rect.translated(origin))
                for origin, first, boxes in self._token_blocks(list(self._blocks_between(0, self.viewport().height())))
                for offset, rect, _ in boxes]

    def _paint_missing_glyphs(self, painter: QPainter, blocks: list[tuple[QTextBlock, QPointF]]) -> None:
        font = self.font()
        new: set[str] = set()
        painter.setPen(QPen(SPLIT_COLOR, 1.5))
        for block, origin in blocks:
            text = block.text()
            if text.isascii():
                continue
            key = (text, self.viewport().width(), font.key())
            rects = self._missing_boxes.get(key)
            if rects is None:
                missing = {char for char in set(text) if is_missing(char, font)}
                rects = self._missing_boxes[key] = _measure_chars(block.layout(), text, missing) if missing else []
                new |= missing - self._missing_seen
                if len(self._missing_boxes) > CACHED_BLOCKS:
                    self._missing_boxes.popitem(last=False)
            for rect in rects:
                painter.drawRect(rect.translated(origin))
        if new:
            self._missing_seen |= new
            self.glyphs_missing.emit(set(self._missing_seen))

    # Keyboard: the arrows walk the tokens one at a time, Enter opens one

    STEPS = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: +1, Qt.Key.Key_Home: None, Qt.Key.Key_End: None}

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        key = event.key()
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if plain and key in self.STEPS and len(self.ids):
            if key == Qt.Key.Key_Home:
                index = 0
            elif key == Qt.Key.Key_End:
                index = len(self.ids) - 1
            else:
                index = min(max(self.current + self.STEPS[key], 0), len(self.ids) - 1) if self.current >= 0 else 0
            self.walk_to(index)
            return
        if plain and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.current >= 0:
            self.token_clicked.emit(self.current)
            return
        super().keyPressEvent(event)

    def walk_to(self, index: int) -> None:
        """Make token `index` the current one, in sight, and say so (details and screen readers follow)."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(int(self.starts[index]))
        self.blockSignals(True)  # (the cursor's own signal would report the same token)
        self.setTextCursor(cursor)
        self.blockSignals(False)
        self.ensureCursorVisible()
        self.set_current(index)
        self.setAccessibleDescription(f"Token {index + 1} of {len(self.ids):,}: id {int(self.ids[index])}")
        self.token_hovered.emit(index)

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


# One token's piece on one line: (token offset, the line, its number, the piece's [start, end) in
# the block, whether the token begins here, the boxes' top and height).
Span = tuple[int, QTextLine, int, int, int, bool, float, float]


def _line_spans(layout: QTextLayout, starts: list[int], ends: list[int]) -> Iterator[Span]:
    """Each token's piece on each line of a block, clipped to the line (positions relative to the
    block, the first may be negative; a token wider than a line has a piece per line).

    A token begins on a line if its piece starts where it does, or one position after it when its
    first character (a line break mark, see wrapping.py) was left at the end of the line before.
    Boxes leave the line's leading, and at least ROW_GAP, free below them, and start a pixel above
    the line, so rows of tokens never touch and marks stacked to the font's ascent stay inside.

    Walks the block's lines once: few Qt calls per token, as each call that lets a worker take
    the interpreter lock may cost milliseconds to get it back.
    """
    first = 0
    for number in range(layout.lineCount()):
        line = layout.lineAt(number)
        line_start, line_end = line.textStart(), line.textStart() + line.textLength()
        top = line.y() - 1
        height = line.height() + 1 - max(line.leading(), ROW_GAP)
        while first < len(starts) and ends[first] <= line_start:
            first += 1
        for offset in range(first, len(starts)):
            token_start = starts[offset]
            if token_start >= line_end:
                break
            start, end = max(token_start, line_start), min(ends[offset], line_end)
            if end <= start:
                continue
            begins = start == token_start or (
                start == token_start + 1 and number > 0 and token_start >= 0
                and layout.lineForTextPosition(token_start).lineNumber() == number - 1)
            yield offset, line, number, start, end, begins, top, height


def _measure(layout: QTextLayout, starts: list[int], ends: list[int]) -> list[Box]:
    """The boxes of tokens that start at `starts` and are coloured up to `ends` in a block (see
    `_line_spans`): one per piece, from the cursor's x at its ends. A piece with no width (a
    token's zero-width break mark left at the end of the line before it) gets no box."""
    boxes: list[Box] = []
    for offset, line, _, start, end, begins, top, height in _line_spans(layout, starts, ends):
        x1, x2 = line.cursorToX(start)[0], line.cursorToX(end)[0]
        if x1 == x2:
            continue
        tick = QRectF(min(x1, x2), top + 2, 1.0, height - 4) if begins else None
        boxes.append((offset, QRectF(min(x1, x2), top, abs(x2 - x1), height), tick))
    return boxes


def _measure_bidi(layout: QTextLayout, starts: list[int], ends: list[int], text: str) -> list[Box]:
    """`_measure` for a block with right-to-left text, where one token can be drawn in pieces apart
    (`·Hello` after Arabic: its space sits by the Arabic, its word in the English run): each
    token's boxes are the glyph runs Qt draws for its characters, touching ones joined, and the
    tick on the side the token starts from. (One Qt call per token piece, about as cheap as the
    two `_measure` makes.)"""
    boxes: list[Box] = []
    units = text.encode("utf-16-le", errors="surrogatepass")  # the block's text (Qt's positions are UTF-16 units)
    for offset, line, _, start, end, begins, top, height in _line_spans(layout, starts, ends):
        if end - start <= 2 and not units[2 * start:2 * end].decode("utf-16-le", "ignore").strip(_MARKS):
            continue  # (only a zero-width mark: its glyph run may report a neighbour's rectangle)
        spans = sorted((run.boundingRect().left(), run.boundingRect().right()) for run in line.glyphRuns(start, end - start))
        joined: list[list[float]] = []
        for left, right in spans:
            if right - left < 0.01:
                continue
            if joined and left <= joined[-1][1] + 0.5:
                joined[-1][1] = max(joined[-1][1], right)
            else:
                joined.append([left, right])
        # The tick on the side the token starts from: in the glyph run nearest the cursor's x there
        # (at the start of a right-to-left line Qt puts that x at the line's far edge, past the text).
        x = line.cursorToX(start)[0] if begins and joined else None
        nearest = -1 if x is None else 0 if len(joined) == 1 else \
            min(range(len(joined)), key=lambda n: max(joined[n][0] - x, x - joined[n][1], 0.0))
        for number, (left, right) in enumerate(joined):
            tick = None
            if number == nearest:
                tick = QRectF(min(max(x, left), right - 1.0), top + 2, 1.0, height - 4)  # type: ignore[type-var]
            boxes.append((offset, QRectF(left, top, right - left, height), tick))
    return boxes


def _measure_chars(layout: QTextLayout, text: str, chars: set[str]) -> list[QRectF]:
    """Rectangles (relative to the layout) around every occurrence of `chars` in a block's `text`."""
    rects = []
    position = 0  # UTF-16
    for char in text:
        width = 2 if ord(char) > 0xFFFF else 1
        if char in chars:
            line = layout.lineForTextPosition(position)
            if line.isValid():
                x1, x2 = line.cursorToX(position)[0], line.cursorToX(position + width)[0]
                rects.append(QRectF(x1, line.y(), max(x2 - x1, 4), line.height()))
        position += width
    return rects
