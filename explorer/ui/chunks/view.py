"""The chunk boxes of one pattern: coloured by kind (letters, digits...), wrapped to the column, with hover details.

Every chunk is a box: merges happen inside a box, never across two. A chunk too wide for a line,
or holding a newline, continues in a box with an open (dashed) side. Boundaries that another
pattern does not have get an accent bar; the tokens of the current tokenizer are thin bars
under the text. Geometry is computed once per width; text layouts only for boxes painted.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (QBrush, QColor, QFont, QFontMetricsF, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen,
                           QResizeEvent, QTextCharFormat, QTextLayout, QTextOption)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from explorer.core.plural import plural
from explorer.core.pretokenization.chunk_diff import Comparison, TokenPiece
from explorer.core.pretokenization.pretokenize import Chunk
from explorer.core.text.bidi import direction, has_right_to_left, resolve, visual_order
from explorer.core.text.chars import visible
from explorer.core.text.graphemes import ShownPiece, grapheme_bounds, shown_piece, shown_text
from explorer.ui.chunks.categories import category_border, category_color, category_tag
from explorer.ui.theme import token_color

PAD_X, PAD_Y, GAP_X, GAP_Y = 4.0, 3.0, 3.0, 7.0
TOKEN_BAR = 4.0  # height of the token bars under the text
ACCENT_LIGHT, ACCENT_DARK = QColor("#c2185b"), QColor("#ff6eb4")


def accent(dark: bool) -> QColor:
    return ACCENT_DARK if dark else ACCENT_LIGHT


@dataclass
class Box:
    """One painted piece of a chunk (a chunk is one box unless a newline or the width cuts it)."""

    rect: QRectF
    chunk: int
    start: int  # absolute character offsets covered by this box
    end: int
    open_left: bool
    open_right: bool
    tag: str  # the kind's short tag ("L", "N"), on the chunk's last box only
    xs: list[float] = field(default_factory=list)  # x of each character position, filled on paint
    rtl: bool = False  # reads from the right (Arabic, Hebrew; or a number or neutral in such a line)
    inset: float = PAD_X  # from the box's left to its text (the tag goes left of right-to-left text)

    def sides(self) -> tuple[float, float]:
        """x of the side where the box's text starts and of the side where it ends."""
        return (self.rect.right(), self.rect.left()) if self.rtl else (self.rect.left(), self.rect.right())


class ChunkView(QWidget):
    """Paints the chunks of one pattern; emits `hovered(start, end)` for the chunk under the mouse."""

    hovered = Signal(int, int)  # character span of the hovered chunk, (-1, -1) when none

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.text = ""
        self.chunks: list[Chunk] = []
        self.labels: list[str] = []
        self.sources: list[str] = []
        self.edges: list[tuple[bool, bool]] = []  # per chunk: start/end boundary differs from another pattern
        self.differs: list[bool] = []  # per chunk: not the same chunk in every pattern
        self.disagreeing: dict[int, list[str]] = {}  # boundary -> names of patterns without it
        self.tokens: list[list[TokenPiece]] | None = None
        self.show_differences = True
        self.stale = False
        self.dark = False
        self.highlight: tuple[int, int] | None = None
        self.boxes: list[Box] = []
        self._bounds: frozenset[int] = frozenset()  # grapheme boundaries of `text`
        self._layouts: dict[int, QTextLayout] = {}
        self._laid_out_width = -1.0
        self._hover_chunk = -1
        self._small = QFont(self.font())

    # Data

    def set_chunks(self, text: str, chunks: Sequence[Chunk], labels: Sequence[str], sources: Sequence[str]) -> None:
        self.text, self.chunks, self.labels, self.sources = text, list(chunks), list(labels), list(sources)
        self._bounds = grapheme_bounds(text)
        self.edges = [(False, False)] * len(self.chunks)
        self.differs = [False] * len(self.chunks)
        self.disagreeing = {}
        self.tokens = None
        self.stale = False
        self._relayout()

    def set_comparison(self, comparison: Comparison | None, index: int, names: Sequence[str]) -> None:
        """Mark boundaries that differ from the other patterns (`names` are all patterns' titles)."""
        if comparison is None or len(comparison.boundaries) < 2:
            self.edges = [(False, False)] * len(self.chunks)
            self.differs = [False] * len(self.chunks)
            self.disagreeing = {}
        else:
            self.edges = [comparison.edges(index, c) for c in self.chunks]
            self.differs = [not comparison.same_chunk_everywhere(index, c) for c in self.chunks]
            self.disagreeing = {b: [names[i] for i, own in enumerate(comparison.boundaries) if b not in own]
                                for b in comparison.differing(index)}
        self.update()

    def set_tokens(self, pieces: list[list[TokenPiece]] | None) -> None:
        had = self.tokens is not None
        self.tokens = pieces if pieces and len(pieces) == len(self.chunks) else None
        if had != (self.tokens is not None):
            self._relayout()
        self.update()

    def set_stale(self, stale: bool) -> None:
        """Dim the last good result while the pattern being edited is invalid."""
        self.stale = stale
        self.update()

    def set_show_differences(self, on: bool) -> None:
        self.show_differences = on
        self.update()

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self.update()

    def set_highlight(self, start: int, end: int) -> None:
        """Outline the characters [start, end) (the chunk hovered in another column)."""
        self.highlight = (start, end) if start >= 0 else None
        self.update()

    def setFont(self, font: QFont) -> None:  # noqa: N802 (Qt override)
        super().setFont(font)
        self._small = QFont(font)
        self._small.setPointSizeF(max(6.0, font.pointSizeF() * 0.7))
        self._relayout()

    # Geometry

    @property
    def _line_height(self) -> float:
        height = QFontMetricsF(self.font()).height() + 2 * PAD_Y
        return height + (TOKEN_BAR + 2 if self.tokens is not None else 0)

    def _relayout(self) -> None:
        self._laid_out_width = -1.0
        self._layouts.clear()
        self._layout(self.width())
        self.update()

    def _layout(self, width: float) -> None:
        if width == self._laid_out_width:
            return
        self._laid_out_width = width
        self._layouts.clear()
        metrics, small = QFontMetricsF(self.font()), QFontMetricsF(self._small)
        tag_widths: dict[str, float] = {}
        widths: dict[str, float] = {}  # most chunks repeat (" the"): measure each text once

        def shown(start: int, end: int) -> str:
            return shown_text(self.text, start, end, self._bounds)

        def advance(text: str) -> float:
            width = widths.get(text)
            if width is None:
                width = widths[text] = metrics.horizontalAdvance(text)
            return width

        line_height = self._line_height
        usable = max(40.0, width - 2 * GAP_X)
        boxes: list[Box] = []
        x, y = GAP_X, GAP_Y
        for index, chunk in enumerate(self.chunks):
            tag = category_tag(chunk.label)
            if tag not in tag_widths:
                tag_widths[tag] = small.horizontalAdvance(tag) + 3 if tag else 0.0
            tag_width = tag_widths[tag]
            for part_start, part_end in _newline_parts(chunk):
                position = part_start
                while position < part_end:
                    last_part = part_end == chunk.end
                    needed = advance(shown(position, part_end)) + 2 * PAD_X + (tag_width if last_part else 0)
                    if x + needed > usable and x > GAP_X:  # start a new line before splitting the chunk
                        x, y = GAP_X, y + line_height + GAP_Y
                    end = part_end
                    if x + needed > usable:  # still too wide: cut the chunk at the line's end
                        end = _fit(shown, self._bounds, position, part_end, usable - x - 2 * PAD_X - tag_width,
                                   metrics)
                        needed = advance(shown(position, end)) + 2 * PAD_X
                        needed += tag_width if end == chunk.end else 0
                    is_last = end == chunk.end
                    rect = QRectF(x, y, needed, line_height)
                    boxes.append(Box(rect, index, position, end, position > chunk.start, end < chunk.end,
                                     tag if is_last else ""))
                    position = end
                    x += needed + GAP_X
                    if position < part_end or self.text[end - 1:end] == "\n":
                        x, y = GAP_X, y + line_height + GAP_Y
        if has_right_to_left(self.text):
            self._order_right_to_left(boxes, usable, tag_widths)
        self.boxes = boxes
        bottom = (boxes[-1].rect.bottom() if boxes else 0) + GAP_Y + 2
        if abs(self.minimumHeight() - bottom) > 0.5:
            self.setMinimumHeight(int(math.ceil(bottom)))

    def _order_right_to_left(self, boxes: list[Box], usable: float, tag_widths: dict[str, float]) -> None:
        """Put each line's boxes in the order the bidi algorithm gives (each box one unit): a line of
        Arabic or Hebrew runs from the right edge leftwards, an English phrase in it left to right."""
        kinds: dict[str, str] = {}
        paragraphs: dict[int, bool] = {}  # paragraph start -> reads from the right

        def kind(box: Box) -> str:
            text = self.text[box.start:box.end]
            found = kinds.get(text)
            if found is None:
                found = kinds[text] = direction(text)
            return found

        def reads_from_right(position: int) -> bool:
            start = self.text.rfind("\n", 0, position) + 1
            found = paragraphs.get(start)
            if found is None:
                end = self.text.find("\n", start)
                found = paragraphs[start] = direction(self.text[start:end if end >= 0 else len(self.text)]) == "R"
            return found

        first = 0
        while first < len(boxes):
            last = first
            while last + 1 < len(boxes) and boxes[last + 1].rect.top() == boxes[first].rect.top():
                last += 1
            row = boxes[first:last + 1]
            rtl = reads_from_right(row[0].start)
            row_kinds = [kind(box) for box in row]
            for box, resolved in zip(row, resolve(row_kinds, rtl)):
                box.rtl = resolved == "R"
                if box.rtl and box.tag:
                    box.inset = PAD_X + tag_widths.get(box.tag, 0.0)
            if rtl or "R" in row_kinds:
                total = sum(box.rect.width() for box in row) + GAP_X * (len(row) - 1)
                x = max(GAP_X, usable - total) if rtl else GAP_X
                for index in visual_order(row_kinds, rtl):
                    box = row[index]
                    box.rect.moveLeft(x)
                    x += box.rect.width() + GAP_X
            first = last + 1

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        self._layout(event.size().width())
        super().resizeEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(320, max(60, self.minimumHeight()))

    # Painting

    def _text_layout(self, number: int) -> QTextLayout:
        layout = self._layouts.get(number)
        if layout is not None:
            return layout
        box = self.boxes[number]
        shown = shown_piece(self.text, box.start, box.end, self._bounds)
        layout = QTextLayout(shown.text, self.font())
        if box.rtl:  # (drawn from the box's left: no alignment to the far right of the huge line)
            option = QTextOption(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignAbsolute)
            option.setTextDirection(Qt.LayoutDirection.RightToLeft)
            layout.setTextOption(option)
        muted = QTextCharFormat()
        muted.setForeground(self.palette().color(QPalette.ColorRole.PlaceholderText))
        formats = []
        for start, length in shown.muted:  # Qt counts in UTF-16 units, as `shown` does
            span = QTextLayout.FormatRange()
            span.start, span.length, span.format = start, length, muted
            formats.append(span)
        layout.setFormats(formats)
        layout.beginLayout()
        line = layout.createLine()
        line.setLineWidth(1e6)
        layout.endLayout()
        box.xs = _cursor_xs(layout, shown, box.rtl)
        self._layouts[number] = layout
        return layout

    def _x_at(self, box: Box, position: float) -> float:
        """x of a (possibly fractional) character position inside a box."""
        offset = min(max(position - box.start, 0.0), float(box.end - box.start))
        whole = int(offset)
        xs = box.xs
        x = xs[whole] if whole >= len(xs) - 1 else xs[whole] + (offset - whole) * (xs[whole + 1] - xs[whole])
        return box.rect.left() + box.inset + x

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.stale:
            painter.setOpacity(0.45)
        exposed = QRectF(event.rect()).adjusted(0, -20, 0, 20)
        text_color = self.palette().color(QPalette.ColorRole.Text)
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
        line_metrics = QFontMetricsF(self.font())
        for number, box in enumerate(self.boxes):
            if not box.rect.intersects(exposed):
                continue
            chunk = self.chunks[box.chunk]
            layout = self._text_layout(number)
            self._paint_box(painter, box, chunk)
            painter.setPen(text_color)
            painter.save()
            painter.setClipRect(box.rect)  # a glyph wider than measured never spills onto its neighbour
            layout.draw(painter, QPointF(box.rect.left() + box.inset, box.rect.top() + PAD_Y))
            painter.restore()
            if box.tag:
                painter.setFont(self._small)
                painter.setPen(QColor("#b00020") if chunk.is_gap else muted)
                small = QFontMetricsF(self._small)
                x = box.rect.left() + 3 if box.rtl else box.rect.right() - small.horizontalAdvance(box.tag) - 3
                y = box.rect.top() + PAD_Y + line_metrics.ascent()
                painter.drawText(QPointF(x, y), box.tag)
                painter.setFont(self.font())
            if self.tokens is not None:
                self._paint_tokens(painter, box)
            if self.show_differences:
                self._paint_edges(painter, box)
            if self.highlight is not None:
                self._paint_highlight(painter, box)
        painter.end()

    def _paint_box(self, painter: QPainter, box: Box, chunk: Chunk) -> None:
        rect = box.rect.adjusted(0.5, 0.5, -0.5, -0.5)
        fill = category_color(chunk.label, self.dark)
        if chunk.is_gap:
            border = QColor("#ff8a80") if self.dark else QColor("#b00020")
        else:
            border = category_border(chunk.label, self.dark)
        if box.chunk == self._hover_chunk:
            fill = fill.lighter(125) if self.dark else fill.darker(108)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 3, 3)
        if chunk.is_gap:
            painter.setBrush(QBrush(border, Qt.BrushStyle.BDiagPattern))
            painter.drawRoundedRect(rect, 3, 3)
        differs = self.show_differences and self.differs[box.chunk] if self.differs else False
        pen = QPen(accent(self.dark) if differs else border, 1.6 if differs else 1.0)
        if chunk.is_gap:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if not box.open_left and not box.open_right:
            painter.drawRoundedRect(rect, 3, 3)
            return
        painter.drawLine(rect.topLeft(), rect.topRight())
        painter.drawLine(rect.bottomLeft(), rect.bottomRight())
        start_x, end_x = (rect.right(), rect.left()) if box.rtl else (rect.left(), rect.right())
        for is_open, x in ((box.open_left, start_x), (box.open_right, end_x)):
            side = QPen(pen)
            if is_open:  # the chunk goes on in the previous/next box
                side.setStyle(Qt.PenStyle.DotLine)
            painter.setPen(side)
            painter.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))

    def _paint_edges(self, painter: QPainter, box: Box) -> None:
        """An accent bar on each side whose boundary another pattern does not have."""
        start_differs, end_differs = self.edges[box.chunk] if self.edges else (False, False)
        rect = box.rect
        start_x, end_x = box.sides()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent(self.dark))
        if start_differs and not box.open_left:
            painter.drawRoundedRect(QRectF(start_x - 2, rect.top() - 3, 4, rect.height() + 6), 1.5, 1.5)
        if end_differs and not box.open_right:
            painter.drawRoundedRect(QRectF(end_x - 2, rect.top() - 3, 4, rect.height() + 6), 1.5, 1.5)

    def _paint_tokens(self, painter: QPainter, box: Box) -> None:
        if self.tokens is None:
            return
        y = box.rect.bottom() - TOKEN_BAR - 2
        for piece in self.tokens[box.chunk]:
            if piece.end <= box.start or piece.start >= box.end:
                continue
            begin, end = self._x_at(box, max(piece.start, box.start)), self._x_at(box, min(piece.end, box.end))
            left, right = min(begin, end), max(begin, end)
            color = token_color(piece.token_id, self.dark)
            color = color.darker(130) if not self.dark else color.lighter(170)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawRect(QRectF(left + 0.5, y, max(1.0, right - left - 1.5), TOKEN_BAR))
            if piece.crosses_start or piece.crosses_end:  # a token that straddles this pattern's chunks
                painter.setBrush(accent(self.dark))
                if piece.crosses_start and piece.start >= box.start:
                    painter.drawRect(QRectF(begin - 2 if box.rtl else begin, y - 2, 2, TOKEN_BAR + 4))
                if piece.crosses_end and piece.end <= box.end:
                    painter.drawRect(QRectF(end if box.rtl else end - 2, y - 2, 2, TOKEN_BAR + 4))

    def _paint_highlight(self, painter: QPainter, box: Box) -> None:
        start, end = self.highlight or (0, 0)
        if end <= box.start or start >= box.end:
            return
        begin, finish = self._x_at(box, max(start, box.start)), self._x_at(box, min(end, box.end))
        left, right = min(begin, finish), max(begin, finish)
        pen = QPen(self.palette().color(QPalette.ColorRole.Highlight), 2.0)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(QRectF(left, box.rect.top() + 1, max(2.0, right - left), box.rect.height() - 2))

    # Hover

    def box_at(self, point: QPointF) -> Box | None:
        for box in self.boxes:
            if box.rect.contains(point):
                return box
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        box = self.box_at(event.position())
        chunk = box.chunk if box is not None else -1
        if chunk != self._hover_chunk:
            self._hover_chunk = chunk
            self.update()
            if box is None:
                self.hovered.emit(-1, -1)
                QToolTip.hideText()
            else:
                found = self.chunks[chunk]
                self.hovered.emit(found.start, found.end)
        if box is not None:
            QToolTip.showText(event.globalPosition().toPoint(), self.describe(box.chunk), self)

    def leaveEvent(self, event: object) -> None:  # noqa: N802
        if self._hover_chunk != -1:
            self._hover_chunk = -1
            self.hovered.emit(-1, -1)
            self.update()

    def describe(self, index: int) -> str:
        """The tooltip of a chunk: its text, span, alternative, tokens and differences."""
        chunk = self.chunks[index]
        shown = html.escape(visible(chunk.text[:200]) + ("…" if len(chunk.text) > 200 else ""))
        size = len(chunk.text.encode("utf-8", errors="surrogatepass"))
        lines = [f"<b style='font-size:large'>{shown}</b>",
                 f"characters {chunk.start}–{chunk.end} ({plural(len(chunk.text), 'character')}, "
                 f"{plural(size, 'byte')})"]
        if chunk.is_gap:
            lines.append("<b>gap</b>: the custom pattern matched none of this text; a real tokenizer would "
                         "still keep it as its own piece")
        else:
            source = self.sources[chunk.alternative] if chunk.alternative < len(self.sources) else ""
            lines.append(f"alternative {chunk.alternative + 1} of {len(self.labels)}: <b>{html.escape(chunk.label)}</b>"
                         f"<br><code>{html.escape(source)}</code>")
        for position, side in ((chunk.start, "starts"), (chunk.end, "ends")):
            others = self.disagreeing.get(position)
            if others:
                lines.append(f"<span style='color:{accent(self.dark).name()}'>{side} at {position}: no boundary there "
                             f"in {html.escape(', '.join(others))}</span>")
        if self.tokens is not None:
            ids = [str(p.token_id) for p in self.tokens[index]]
            lines.append(f"tokens: {len(ids)} (ids {', '.join(ids[:12])}{'…' if len(ids) > 12 else ''})")
            if any(p.crosses_start or p.crosses_end for p in self.tokens[index]):
                lines.append("a token crosses this chunk's edge: the tokenizer uses another pattern")
        return "<br>".join(lines)


def _newline_parts(chunk: Chunk) -> list[tuple[int, int]]:
    """The chunk's span cut after each newline, so the boxes keep the text's line breaks."""
    if "\n" not in chunk.text:
        return [(chunk.start, chunk.end)]
    parts, start = [], chunk.start
    for offset, char in enumerate(chunk.text):
        if char == "\n":
            parts.append((start, chunk.start + offset + 1))
            start = chunk.start + offset + 1
    if start < chunk.end:
        parts.append((start, chunk.end))
    return parts


def _fit(shown: Callable[[int, int], str], bounds: frozenset[int], start: int, end: int, width: float,
         metrics: QFontMetricsF) -> int:
    """The largest end (at least one grapheme, never inside one: a flag, स्ते) whose shown text fits."""
    # No line holds more characters than this (narrowest glyphs at 40% of the average), so the
    # search measures line-sized strings, not the whole rest of a 10,000-character chunk.
    low, high = start + 1, min(end, start + 1 + int(width / (0.4 * max(1.0, metrics.averageCharWidth()))))
    while low < high:
        middle = (low + high + 1) // 2
        if metrics.horizontalAdvance(shown(start, middle)) <= width:
            low = middle
        else:
            high = middle - 1
    cut = low
    while start < cut < end and cut not in bounds:
        cut -= 1  # never cut a grapheme in two
    if cut == start:  # one grapheme wider than the line: it still goes whole in one box
        cut = min((b for b in bounds if b > start), default=end)
    return min(cut, end)


def _cursor_xs(layout: QTextLayout, shown: ShownPiece, rtl: bool = False) -> list[float]:
    """x of every character position of the box (from the right for right-to-left text);
    positions inside a grapheme (न + ा) are spread evenly across it."""
    line = layout.lineAt(0)
    xs = []
    for unit in shown.units:
        x, position = line.cursorToX(unit)
        xs.append(float(x) if position == unit else math.nan)
    width = float(line.naturalTextWidth())
    xs[0], xs[-1] = (width, 0.0) if rtl else (0.0, width)
    known = [i for i, x in enumerate(xs) if not math.isnan(x)]
    for left, right in zip(known, known[1:]):
        for i in range(left + 1, right):
            xs[i] = xs[left] + (xs[right] - xs[left]) * (i - left) / (right - left)
    return xs
