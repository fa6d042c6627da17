"""Painting for the sources table: a stacked bar of script shares, and a progress bar while counting."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from explorer.core.analysis.script_stats import SCRIPT_NAMES, describe_shares, script_shares
from explorer.ui.corpus.models import FractionRole, ScriptsRole
from explorer.ui.theme import kind_hue, kind_hues

BAR_WIDTH = 90
TEXT_MARGIN = 4  # right of the text


# The scripts a corpus usually mixes get distinct hues of the View menu's palette (the text beside
# the bar names them too); rarer ones share the rest, darker.
_ROLES = {"Latin": "orange", "Devanagari": "red", "Hangul": "purple", "Arabic": "green",
          "CJK": "navy", "Cyrillic": "blue", "Greek": "yellow", "Hebrew": "grey"}


def script_color(name: str) -> QColor:
    """A stable colour per script, in the palette chosen in the View menu (explorer.ui.theme)."""
    if name in _ROLES:
        return kind_hue(_ROLES[name])
    index = SCRIPT_NAMES.index(name) if name in SCRIPT_NAMES else 0
    hues = kind_hues()
    return hues[index % len(hues)].darker(130)


class ScriptsDelegate(QStyledItemDelegate):
    """A small bar of the script shares, then their description ('Latin 62% · Hangul 38%'), fitted
    to the cell in the row's own font (the Total row is bold); the tooltip holds the full list."""

    def shown_text(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> str:
        """The description as it fits the cell: every script; else fewer scripts and how many more
        ('Latin 33% · Thai 20% · +4 more': never a script cut mid-name); else the names without
        their shares (the bar shows them), then the first name alone; only that is cut with an
        ellipsis: a share is shown whole or not at all ('Devanagari 10…' read as 10%).
        (It named three and '+3 more' in a 1,100 px cell at 1920 px.)"""
        styled = QStyleOptionViewItem(option)
        self.initStyleOption(styled, index)
        width = max(0, option.rect.width() - BAR_WIDTH - 10 - TEXT_MARGIN)
        metrics = QFontMetrics(styled.font)
        text = str(index.data() or "")
        counts = index.data(ScriptsRole) or {}
        shares = script_shares(counts)
        if not shares:
            return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
        fewer = [describe_shares(counts, limit=limit) for limit in range(len(shares) - 1, 0, -1)]
        names = [describe_shares(counts, limit=1, figures=False), shares[0][0]]
        for candidate in [text, *fewer, *names]:
            if metrics.horizontalAdvance(candidate) <= width:
                return candidate
        return metrics.elidedText(shares[0][0], Qt.TextElideMode.ElideRight, width)

    def sizeHint(self, option: QStyleOptionViewItem,  # noqa: N802 (Qt override)
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        styled = QStyleOptionViewItem(option)
        self.initStyleOption(styled, index)
        hint = super().sizeHint(option, index)
        width = BAR_WIDTH + 10 + TEXT_MARGIN + QFontMetrics(styled.font).horizontalAdvance(str(index.data() or ""))
        return QSize(max(hint.width(), width), hint.height())

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        shares = script_shares(index.data(ScriptsRole) or {})
        if not shares:
            super().paint(painter, option, index)
            return
        styled = QStyleOptionViewItem(option)
        self.initStyleOption(styled, index)
        painter.save()
        painter.setFont(styled.font)
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        bar = QRect(option.rect.left() + 4, option.rect.top() + option.rect.height() // 4,
                    BAR_WIDTH, option.rect.height() // 2)
        x = bar.left()
        for position, (name, share) in enumerate(shares):
            width = round(share * BAR_WIDTH) if position < len(shares) - 1 else bar.right() - x + 1
            painter.fillRect(QRect(x, bar.top(), max(width, 1), bar.height()), script_color(name))
            x += width
        painter.setPen(option.palette.color(option.palette.ColorRole.Mid))
        painter.drawRect(bar)
        text_rect = option.rect.adjusted(BAR_WIDTH + 10, 0, 0, 0)
        role = option.palette.ColorRole.HighlightedText if option.state & QStyle.StateFlag.State_Selected \
            else option.palette.ColorRole.Text
        painter.setPen(option.palette.color(role))
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                         self.shown_text(option, index))
        painter.restore()


class StatusDelegate(QStyledItemDelegate):
    """The status text over a thin progress bar while the source is being counted."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        super().paint(painter, option, index)
        fraction = index.data(FractionRole)
        if fraction is None or fraction >= 1.0:
            return
        painter.save()
        track = QRect(option.rect.left() + 2, option.rect.bottom() - 3, option.rect.width() - 4, 3)
        painter.fillRect(track, option.palette.color(option.palette.ColorRole.Midlight))
        painter.fillRect(QRect(track.left(), track.top(), round(track.width() * fraction), track.height()),
                         option.palette.color(option.palette.ColorRole.Highlight))
        painter.restore()
