"""A side column beside a pane's main view (the Training settings, the Corpus pane's efficiency
choices): as wide as its content asks at the current font, so its choosers (TextWideCombo) show
their entries whole in presentation mode, but never more than a third of the window, so the main
view keeps the rest and no window grows. One rule for every side panel: each had its own cap
(a third of the window, a fixed 240 px) and they elided differently.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QScrollArea, QSplitter, QWidget

SHARE = 3  # a side column takes at most a third of its window


class SideColumn(QScrollArea):
    """`content` in a column that scrolls up and down only and asks for the width `content` needs,
    at least `least` px and at most a third of the window."""

    def __init__(self, content: QWidget, least: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.least = least
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        content.installEventFilter(self)
        # (no fixed minimum width: a splitter then keeps the column at least at minimumSizeHint;
        # with one, it squeezed the Training settings to 340 px and elided their engine)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # (a chooser given a longer entry: the splitter asks this column again)
        return super().eventFilter(watched, event)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        inner = self.widget().sizeHint().width() if self.widget() is not None else 0
        width = inner + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()
        room = self.window().width() // SHARE if self.window() is not self else width  # the main view keeps the rest
        return QSize(max(self.least, min(width, room)), super().minimumSizeHint().height())


def fit_side(splitter: QSplitter, side: SideColumn, normal: int) -> None:
    """Give `side` (the splitter's first part) the width it asks for, at least `normal` px and at
    most half the splitter (called after a font change: a splitter keeps the width it was given)."""
    sizes = splitter.sizes()
    wanted = max(side.minimumSizeHint().width(), normal)
    if len(sizes) == 2 and sum(sizes) > 0 and sizes[0] != wanted:
        width = min(wanted, sum(sizes) // 2)
        splitter.setSizes([width, sum(sizes) - width])
