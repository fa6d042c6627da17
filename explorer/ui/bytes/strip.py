"""The byte strip: characters over their UTF-8 bytes and bits, tokens under the bytes they hold.

Each character is a column group as wide as its bytes; groups wrap into bands. Under the bytes,
every token is a box spanning exactly its bytes, so a token that ends inside a character (seed
000's न) shows its edge cutting through that character's group, marked in red. Two lanes
under the tokens show, per token, what a naive decoder prints and what a buffered decoder
prints (or holds back) as the stream is played.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from explorer.core.sources.tokenizer import Token
from explorer.core.text.chars import CharInfo, glyph_alone, visible
from explorer.core.text.graphemes import emoji_clusters, grapheme_bounds
from explorer.core.text.utf8 import REPLACEMENT, StreamStep, byte_role
from explorer.ui.bytes.roles import pending_color, replacement_color, role_color, token_color_name
from explorer.ui.line_scroll import whole_line_scroll

MARGIN, CELL_PAD, BAND_GAP = 6.0, 4.0, 14.0
ROWS = ("char", "code point", "UTF-8", "bits", "token", "naive", "buffered")
ROLE_NAMES = {"ascii": "one-byte character", "lead2": "lead byte of 2", "lead3": "lead byte of 3",
              "lead4": "lead byte of 4", "continuation": "continuation byte", "invalid": "not valid UTF-8"}


@dataclass
class _Band:
    top: float
    first_char: int
    last_char: int  # exclusive


class ByteStrip(QWidget):
    """Paints characters, bytes, bits, tokens and the two decoder lanes; click a token to step to it."""

    token_clicked = Signal(int)  # token index
    char_clicked = Signal(int)  # character index

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.chars: list[CharInfo] = []
        self.tokens: list[Token] = []
        self.steps: list[StreamStep] = []
        self.shown = 0
        self.show_bits = True
        self.dark = False
        self.selected_char = -1
        self.bands: list[_Band] = []
        self.byte_x: list[float] = []  # left edge of every byte cell, plus the end of the last
        self.byte_band: list[int] = []
        self.char_x: list[tuple[float, float]] = []
        self.clusters: list[tuple[int, int]] = []  # (first, end) chars of emoji drawn whole across their cells
        self._cluster_of: dict[int, tuple[int, int]] = {}
        self._grapheme_end: dict[int, int] = {}  # first char of a grapheme of several -> its end
        self._token_of_byte: list[int] = []
        self._laid_out_width = -1.0
        self._bottom = 0.0  # where the last band ends (+ MARGIN)
        self.tail = 0  # blank room below it, so that a view can start at a band's top there too
        self._fonts()

    # Data

    def set_data(self, chars: Sequence[CharInfo], tokens: Sequence[Token], steps: Sequence[StreamStep]) -> None:
        self.chars, self.tokens, self.steps = list(chars), list(tokens), list(steps)
        text = "".join(info.char for info in self.chars)
        self.clusters = emoji_clusters(text)
        # Bands break between graphemes only (Thai ดี, Devanagari स्ते), when one fits a band.
        bounds = sorted(grapheme_bounds(text))
        self._grapheme_end = {start: end for start, end in zip(bounds, bounds[1:]) if end - start > 1}
        self._cluster_of = {char: span for span in self.clusters for char in range(*span)}
        self._token_of_byte = [index for index, t in enumerate(self.tokens) for _ in range(t.byte_end - t.byte_start)]
        self.shown = min(self.shown, len(self.steps))
        self.selected_char = -1
        self._relayout()

    def set_shown(self, shown: int) -> None:
        """How many tokens have been streamed: later tokens are faded, their lanes empty."""
        self.shown = max(0, min(shown, len(self.steps)))
        self.update()

    def set_show_bits(self, on: bool) -> None:
        self.show_bits = on
        self._relayout()

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self.update()

    def select_char(self, index: int) -> None:
        self.selected_char = index
        self.update()

    def setFont(self, font: QFont) -> None:  # noqa: N802 (Qt override)
        super().setFont(font)
        self._fonts()
        self._relayout()

    def _fonts(self) -> None:
        base = self.font()
        size = base.pointSizeF() if base.pointSizeF() > 0 else 11.0
        self.glyph_font = QFont(base)
        self.glyph_font.setPointSizeF(size * 1.6)
        self.small_font = QFont(base)
        self.small_font.setPointSizeF(max(6.5, size * 0.78))
        self.bold_small = QFont(self.small_font)
        self.bold_small.setBold(True)
        small = QFontMetricsF(self.small_font)
        self.gutter = max(small.horizontalAdvance(name) for name in ROWS) + 14  # row names, whatever the zoom

    # Geometry

    def _row_heights(self) -> list[float]:
        glyph, small, base = (QFontMetricsF(f).height() for f in (self.glyph_font, self.small_font, self.font()))
        return [glyph + 4, small + 2, small + 6, (small + 6) if self.show_bits else 0.0, base + 8, base + 6,
                base + 6]

    def _row_tops(self, band: _Band) -> list[float]:
        tops, y = [], band.top
        for height in self._row_heights():
            tops.append(y)
            y += height
        return tops

    @property
    def band_height(self) -> float:
        return sum(self._row_heights())

    def _cell_width(self) -> float:
        small = QFontMetricsF(self.small_font)
        widest = small.horizontalAdvance("00000000" if self.show_bits else "00")
        return widest + 2 * CELL_PAD

    def _relayout(self) -> None:
        self._laid_out_width = -1.0
        self._layout(self.width())
        self.update()

    def _layout(self, width: float) -> None:
        if width == self._laid_out_width:
            return
        self._laid_out_width = width
        cell = self._cell_width()
        metrics = QFontMetricsF(self.glyph_font)
        usable = max(self.gutter + cell * 4, width - MARGIN)
        self.bands, self.byte_x, self.byte_band, self.char_x = [], [], [], []
        x, top, first = self.gutter, MARGIN, 0
        band_height = self.band_height
        widths = [max(len(info.data) * cell, metrics.horizontalAdvance(glyph_alone(info.char)) + 10)
                  for info in self.chars]
        # A grapheme goes whole on one band (an emoji's glyph spans its cells).
        index = 0
        while index < len(self.chars):
            end = self._grapheme_end.get(index, index + 1)
            unit = sum(widths[index:end])
            if unit > usable - self.gutter:  # wider than a band (a family at 20 pt): it breaks (an emoji drawn on each)
                end, unit = index + 1, widths[index]
            if x + unit > usable and index > first:
                self.bands.append(_Band(top, first, index))
                x, top, first = self.gutter, top + band_height + BAND_GAP, index
            for char in range(index, end):
                info, group = self.chars[char], widths[char]
                size = len(info.data)
                self.char_x.append((x, x + group))
                for k in range(size):
                    self.byte_x.append(x + k * group / size)
                    self.byte_band.append(len(self.bands))
                x += group
            index = end
        if self.chars:
            self.bands.append(_Band(top, first, len(self.chars)))
        self.byte_x.append(x)
        self._bottom = (self.bands[-1].top + band_height if self.bands else 0) + MARGIN
        self.setMinimumHeight(int(math.ceil(self._bottom)) + self.tail)

    def set_tail(self, tail: int) -> None:
        """Blank room under the last band, so that a view can start at a band's top there too (see scroll_stop)."""
        if tail != self.tail:
            self.tail = tail
            self.setMinimumHeight(int(math.ceil(self._bottom)) + tail)

    def resizeEvent(self, event: object) -> None:  # noqa: N802
        self._layout(self.width())
        super().resizeEvent(event)  # type: ignore[arg-type]

    def sizeHint(self) -> QSize:
        return QSize(600, max(120, self.minimumHeight()))

    def _byte_span_x(self, start: int, end: int, band: int) -> tuple[float, float] | None:
        """x extent of bytes [start, end) that lie in `band` (a token may continue on the next)."""
        inside = [j for j in range(start, end) if self.byte_band[j] == band]
        if not inside:
            return None
        last = inside[-1]
        right = self.byte_x[last + 1] if last + 1 < len(self.byte_band) and self.byte_band[last + 1] == band else \
            self.char_x[self._char_of_byte(last)][1]
        return self.byte_x[inside[0]], right

    def _char_of_byte(self, byte: int) -> int:
        low, high = 0, len(self.chars) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self.chars[middle].byte_start <= byte:
                low = middle
            else:
                high = middle - 1
        return low

    # Painting

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        exposed = QRectF(event.rect())
        for number, band in enumerate(self.bands):
            if band.top > exposed.bottom() or band.top + self.band_height < exposed.top():
                continue
            tops = self._row_tops(band)
            self._paint_gutter(painter, tops)
            for index in range(band.first_char, band.last_char):
                self._paint_char(painter, index, tops)
            self._paint_clusters(painter, band, tops)
            self._paint_tokens(painter, number, tops)
        painter.end()

    def _muted(self) -> QColor:
        return self.palette().color(QPalette.ColorRole.PlaceholderText)

    def _text(self) -> QColor:
        return self.palette().color(QPalette.ColorRole.Text)

    def _paint_gutter(self, painter: QPainter, tops: list[float]) -> None:
        painter.setFont(self.small_font)
        painter.setPen(self._muted())
        heights = self._row_heights()
        for name, top, height in zip(ROWS, tops, heights):
            if height:
                painter.drawText(QRectF(2, top, self.gutter - 8, height),
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, name)

    def _paint_char(self, painter: QPainter, index: int, tops: list[float]) -> None:
        info = self.chars[index]
        left, right = self.char_x[index]
        heights = self._row_heights()
        group_bottom = tops[3] + heights[3] if self.show_bits else tops[2] + heights[2]
        if index == self.selected_char:
            painter.fillRect(QRectF(left, tops[0], right - left, group_bottom - tops[0]),
                             self.palette().color(QPalette.ColorRole.Highlight).lighter(170) if not self.dark
                             else self.palette().color(QPalette.ColorRole.Highlight).darker(200))
        cluster = self._cluster_of.get(index)
        if cluster is None:
            shown = glyph_alone(info.char)
            itself = shown.endswith(info.char)  # (or a name: ZWJ, VS16, a whitespace symbol)
            painter.setFont(self.glyph_font if itself or len(shown) == 1 else self.bold_small)
            painter.setPen(self._text() if itself else self._muted())
            painter.drawText(QRectF(left, tops[0], right - left, heights[0]), Qt.AlignmentFlag.AlignCenter, shown)
        painter.setFont(self.small_font)
        painter.setPen(self._muted())
        painter.drawText(QRectF(left, tops[1], right - left, heights[1]), Qt.AlignmentFlag.AlignCenter,
                         info.code_point)
        grid = QPen(self._muted(), 0.6)
        for k, byte in enumerate(info.data):
            j = info.byte_start + k
            cell_left = self.byte_x[j]
            cell_right = self.byte_x[j + 1] if k + 1 < len(info.data) else right
            cell = QRectF(cell_left, tops[2], cell_right - cell_left, heights[2])
            painter.setPen(grid)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(cell.adjusted(1, 1, -1, -1))
            role = role_color(byte_role(byte), self.dark)
            painter.setFont(self.small_font)
            painter.setPen(role if role is not None else self._text())
            painter.drawText(cell, Qt.AlignmentFlag.AlignCenter, f"{byte:02X}")
            if self.show_bits:
                self._paint_bits(painter, info.bits[k], QRectF(cell_left, tops[3], cell_right - cell_left, heights[3]))
        # A firm line between characters, so the eye sees where each one starts (inside an emoji
        # drawn whole, from under its glyph).
        painter.setPen(QPen(self._text(), 1.2))
        inside = cluster is not None and cluster[0] != index
        painter.drawLine(QPointF(left, (tops[1] if inside else tops[0]) + 4), QPointF(left, group_bottom))
        if index + 1 == len(self.chars) or self.char_x[index + 1][0] != right:
            painter.drawLine(QPointF(right, tops[0] + 4), QPointF(right, group_bottom))

    def _paint_clusters(self, painter: QPainter, band: _Band, tops: list[float]) -> None:
        """Each emoji of several code points whole, across its cells in this band (🇺🇦, not "U A")."""
        height = self._row_heights()[0]
        painter.setFont(self.glyph_font)
        painter.setPen(self._text())
        for start, end in self.clusters:
            first, last = max(start, band.first_char), min(end, band.last_char)
            if first < last:
                painter.drawText(self.cluster_rect((first, last), tops[0], height), Qt.AlignmentFlag.AlignCenter,
                                 "".join(self.chars[char].char for char in range(start, end)))

    def _paint_bits(self, painter: QPainter, groups: Sequence[object], cell: QRectF) -> None:
        metrics = QFontMetricsF(self.small_font)
        total = metrics.horizontalAdvance("00000000")
        x = cell.center().x() - total / 2
        baseline = cell.center().y() + metrics.ascent() / 2 - 1
        for group in groups:
            bits, role = group.bits, group.role  # type: ignore[attr-defined]
            color = role_color(role, self.dark) if role != "payload" else None
            painter.setFont(self.bold_small if color is not None else self.small_font)
            painter.setPen(color if color is not None else self._text())
            painter.drawText(QPointF(x, baseline), bits)
            x += metrics.horizontalAdvance(bits)

    def _paint_tokens(self, painter: QPainter, band: int, tops: list[float]) -> None:
        heights = self._row_heights()
        token_top, token_height = tops[4] + 2, heights[4] - 4
        cut_pen = QPen(replacement_color(self.dark), 2.0, Qt.PenStyle.DashLine)
        first_char, last_char = self.bands[band].first_char, self.bands[band].last_char - 1
        if not self._token_of_byte or last_char < first_char:
            return
        first_token = self._token_of_byte[self.chars[first_char].byte_start]
        last_token = self._token_of_byte[self.chars[last_char].byte_end - 1]
        for index in range(first_token, last_token + 1):
            token = self.tokens[index]
            span = self._byte_span_x(token.byte_start, token.byte_end, band)
            if span is None:
                continue
            left, right = span
            rect = QRectF(left + 1.5, token_top, right - left - 3, token_height)
            played = index < self.shown
            color = QColor(token_color_name(token.id, self.dark))
            if not played:
                color.setAlphaF(0.35)
            painter.setPen(QPen(self._muted(), 0.8))
            painter.setBrush(color)
            painter.drawRoundedRect(rect, 4, 4)
            if index == self.shown - 1:
                painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 2.4))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(rect.adjusted(-1, -1, 1, 1), 4, 4)
            painter.setFont(self.small_font)
            text_color = QColor(self._text())
            if not played:
                text_color.setAlphaF(0.5)
            painter.setPen(text_color)
            label = QFontMetricsF(self.small_font).elidedText(str(token.id), Qt.TextElideMode.ElideRight,
                                                              max(8.0, rect.width() - 4))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
            # A token that ends inside a character: a red cut through that character's bytes.
            if token.cuts_end and self.byte_band[token.byte_end] == band and self.byte_band[token.byte_end - 1] == band:
                x = self.byte_x[token.byte_end]
                painter.setPen(cut_pen)
                painter.drawLine(QPointF(x, tops[2]), QPointF(x, token_top + token_height))
            if played and self.byte_band[token.byte_start] == band:
                self._paint_lanes(painter, index, QRectF(left, tops[5], right - left, heights[5]),
                                  QRectF(left, tops[6], right - left, heights[6]))

    def _paint_lanes(self, painter: QPainter, index: int, naive_rect: QRectF, buffered_rect: QRectF) -> None:
        step = self.steps[index]
        self._paint_lane_text(painter, step.naive, naive_rect)
        if step.emitted:
            self._paint_lane_text(painter, step.emitted, buffered_rect)
        if step.pending:  # the decoder holds these bytes until the character completes
            pending = step.pending.hex(" ").upper()
            metrics = QFontMetricsF(self.small_font)
            width = min(buffered_rect.width() - 2, metrics.horizontalAdvance(pending) + 10)
            box = QRectF(buffered_rect.right() - width - 1, buffered_rect.top() + 3, width, buffered_rect.height() - 6)
            painter.setPen(QPen(replacement_color(self.dark) if index == self.shown - 1 else self._muted(), 1.0,
                                Qt.PenStyle.DashLine))
            painter.setBrush(pending_color(self.dark))
            painter.drawRoundedRect(box, 3, 3)
            painter.setFont(self.small_font)
            painter.setPen(self._text())
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter,
                             metrics.elidedText(pending, Qt.TextElideMode.ElideRight, box.width() - 4))

    def _paint_lane_text(self, painter: QPainter, text: str, rect: QRectF) -> None:
        """Decoded text centred in `rect`; U+FFFD in the warning colour."""
        painter.setFont(self.font())
        metrics = QFontMetricsF(self.font())
        shown = visible(text)
        width = metrics.horizontalAdvance(shown)
        x = rect.center().x() - min(width, rect.width()) / 2
        baseline = rect.center().y() + metrics.ascent() / 2 - 1
        if REPLACEMENT not in shown:
            painter.setPen(self._text())
            painter.drawText(QPointF(x, baseline), metrics.elidedText(shown, Qt.TextElideMode.ElideRight, rect.width()))
            return
        for part in _split_keep(shown, REPLACEMENT):
            painter.setPen(replacement_color(self.dark) if part == REPLACEMENT else self._text())
            painter.drawText(QPointF(x, baseline), part)
            x += metrics.horizontalAdvance(part)

    # Mouse

    def byte_at(self, point: QPointF) -> int:
        """The byte under `point` (in the char, hex, bits or token rows), or -1."""
        for number, band in enumerate(self.bands):
            if band.top <= point.y() < band.top + self.band_height:
                for index in range(band.first_char, band.last_char):
                    left, right = self.char_x[index]
                    if left <= point.x() < right:
                        info = self.chars[index]
                        size = len(info.data)
                        k = min(size - 1, int((point.x() - left) / ((right - left) / size)))
                        return info.byte_start + k
        return -1

    def band_rect(self, index: int) -> QRectF:
        """The band holding token `index`, so scrolling can show it whole."""
        band = self.bands[self.byte_band[self.tokens[index].byte_start]]
        return QRectF(0, band.top, self.width(), self.band_height)

    def scroll_stop(self, index: int, value: int, height: int) -> tuple[int, int]:
        """(where, tail): where a view `height` px tall, scrolled to `value`, should scroll to show
        token `index`'s band whole, starting at a band's top (see line_scroll), and the blank
        `tail` under the last band that needs near the end (the pane gives the strip that much)."""
        band = self.band_rect(index)
        tops = [max(0.0, other.top - MARGIN) for other in self.bands]
        return whole_line_scroll(tops, self._bottom, height, (band.top() - MARGIN, band.bottom() + MARGIN), value)

    def cluster_rect(self, cluster: tuple[int, int], top: float, height: float) -> QRectF:
        """Where an emoji of several code points is drawn whole: across its cells, in their band."""
        left, right = self.char_x[cluster[0]][0], self.char_x[cluster[1] - 1][1]
        return QRectF(left, top, right - left, height)

    def token_rect(self, index: int) -> QRectF:
        """Where token `index` is drawn (its first band), for tests and tooltips."""
        token = self.tokens[index]
        band = self.byte_band[token.byte_start]
        tops = self._row_tops(self.bands[band])
        span = self._byte_span_x(token.byte_start, token.byte_end, band) or (0.0, 0.0)
        return QRectF(span[0], tops[4], span[1] - span[0], self._row_heights()[4])

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        byte = self.byte_at(event.position())
        if byte < 0:
            return super().mousePressEvent(event)
        band = self.bands[self.byte_band[byte]]
        tops = self._row_tops(band)
        if event.position().y() >= tops[4] and self._token_of_byte:
            self.token_clicked.emit(self._token_of_byte[byte])
        else:
            self.char_clicked.emit(self._char_of_byte(byte))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        byte = self.byte_at(event.position())
        if byte < 0:
            QToolTip.hideText()
            return
        QToolTip.showText(event.globalPosition().toPoint(), self.describe_byte(byte), self)

    def describe_byte(self, byte: int) -> str:
        info = self.chars[self._char_of_byte(byte)]
        k = byte - info.byte_start
        value = info.data[k]
        bits = " ".join(g.bits for g in info.bits[k])
        lines = [f"<b style='font-size:x-large'>{html.escape(visible(info.char))}</b> &nbsp; {info.code_point} "
                 f"{html.escape(info.name)}",
                 f"script: {html.escape(info.script)} · {len(info.data)} byte{'s' if len(info.data) > 1 else ''}: "
                 f"{info.hex}",
                 f"byte {k + 1} of {len(info.data)}: <b>{value:02X}</b> = {bits} "
                 f"({ROLE_NAMES.get(byte_role(value), '')})"]
        if self._token_of_byte:
            index = self._token_of_byte[byte]
            token, step = self.tokens[index], self.steps[index]
            lines.append(f"token {index + 1} of {len(self.tokens)}: id {token.id}, bytes "
                         f"{token.bytes.hex(' ').upper()}")
            naive = html.escape(visible(step.naive))
            lines.append(f"decoded alone: “{naive}”" + (" — cuts a character" if REPLACEMENT in step.naive else ""))
        return "<br>".join(lines)


def _split_keep(text: str, separator: str) -> list[str]:
    parts: list[str] = []
    for piece in text.split(separator):
        parts.extend([piece, separator])
    return [p for p in parts[:-1] if p]
