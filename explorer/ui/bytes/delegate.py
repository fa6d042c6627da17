"""Paints a character's UTF-8 bits with the marker prefix coloured by role."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QSize, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from explorer.ui.bytes.model import BITS_ROLE
from explorer.ui.bytes.roles import role_color


class BitsDelegate(QStyledItemDelegate):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dark = False

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        groups_per_byte = index.data(BITS_ROLE)
        if not groups_per_byte:
            super().paint(painter, option, index)
            return
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(option.rect, option.palette.highlight())
        font = QFont(option.font)
        bold = QFont(font)
        bold.setBold(True)
        metrics = QFontMetricsF(font)
        x = option.rect.left() + 4.0
        baseline = option.rect.center().y() + metrics.ascent() / 2 - 1
        text_color = option.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        for groups in groups_per_byte:
            for group in groups:
                color = role_color(group.role, self.dark) if group.role != "payload" else None
                painter.setFont(bold if color is not None else font)
                painter.setPen(text_color if color is None or selected else color)
                painter.drawText(QPointF(x, baseline), group.bits)
                x += QFontMetricsF(painter.font()).horizontalAdvance(group.bits)
            x += metrics.horizontalAdvance(" ")
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:  # noqa: N802
        size = super().sizeHint(option, index)
        groups = index.data(BITS_ROLE) or []
        bold = QFont(option.font)
        bold.setBold(True)
        width = QFontMetricsF(bold).horizontalAdvance("0" * 9 * len(groups)) + 8
        return QSize(max(size.width(), int(width)), size.height())


class LeftElidingDelegate(QStyledItemDelegate):
    """Elides a cell's text at its start: a character's name ends in what tells it apart
    ('…VOWEL SIGN AA', where eliding the end read 'DEVANAGARI VOWEL SIGN…' for AA, E and AI alike)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideLeft
