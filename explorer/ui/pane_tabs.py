"""The main window's tabs, without a repaint of the whole window for every label that changes.

Any layout change inside a pane (a status line's new text, a button's new title) reaches the
QTabWidget as a LayoutRequest, and QTabWidget answers each one by placing its tab bar and pages
again and repainting itself whole: every widget of the shown pane, 10-20 ms, in the frames where
a pane updates itself the most (a training run's last frames). Here a request that changes none of
what that placing depends on (the tab bar's and the pages' sizes, and the widget's own) is taken
without it; the pane's own layout has already done its work.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QStackedWidget, QTabWidget, QWidget


class PaneTabs(QTabWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layouts = 0  # LayoutRequests laid out (tests count them)
        self._placed: tuple[QSize, ...] | None = None  # what the last placing depended on

    def _placing(self) -> tuple[QSize, ...]:
        bar, pages = self.tabBar(), self.findChild(QStackedWidget)
        sizes = [self.size(), bar.sizeHint(), bar.minimumSizeHint()]
        if pages is not None:
            sizes += [pages.sizeHint(), pages.minimumSizeHint()]
        return tuple(sizes)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            placing = self._placing()
            if placing == self._placed:
                return True
            self._placed = placing
            self.layouts += 1
        return super().event(event)
