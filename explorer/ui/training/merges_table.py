"""The merges table's columns at any zoom: the new token takes the room the others leave, but never
less than a few characters, and when that makes the table wider than its view, it scrolls sideways
with the merge number pinned at the left (a PinnedColumnTable: a row is never read without knowing
which merge it is).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView


class FittedColumns(QObject):
    """Column `stretch` of `table` fills the width left, at least `minimum` px; each of `parts`
    takes a quarter of the room the text columns share, at least `part_minimum` px (with the parts
    at their least, a wide table gave the new token 340 px beside parts cut to '<E8 …')."""

    def __init__(self, table: QTableView, stretch: int, parts: tuple[int, ...] = ()) -> None:
        super().__init__(table)
        self.table = table
        self.stretch = stretch
        self.parts = parts
        self.minimum = 0
        self.part_minimum = 0
        header = table.horizontalHeader()
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Fixed)  # set here, to fit (see fit)
        header.setStretchLastSection(False)
        # By pixels: scrolled by whole columns, the first one shown would sit under the pinned one.
        table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header.sectionResized.connect(self._on_header_section_resized)
        table.viewport().installEventFilter(self)

    def set_minimum(self, minimum: int, part_minimum: int = 0) -> None:
        self.minimum, self.part_minimum = minimum, part_minimum
        self._share()
        self.fit()

    def _share(self) -> None:
        """The parts' widths from the view's (at a resize or a new font, so a part the user widens
        keeps its width until then)."""
        if not self.parts:
            return
        header = self.table.horizontalHeader()
        fixed = sum(header.sectionSize(c) for c in range(header.count())
                    if c != self.stretch and c not in self.parts and not header.isSectionHidden(c))
        width = max(self.part_minimum, (self.table.viewport().width() - fixed) // 4)
        for column in self.parts:
            if header.sectionSize(column) != width:
                header.resizeSection(column, width)

    def fit(self) -> None:
        """The stretching column's width from the view's width and the other columns'."""
        header = self.table.horizontalHeader()
        others = sum(header.sectionSize(c) for c in range(header.count()) if c != self.stretch
                     and not header.isSectionHidden(c))
        width = max(self.minimum, self.table.viewport().width() - others)
        if header.sectionSize(self.stretch) != width:
            header.resizeSection(self.stretch, width)

    def _on_header_section_resized(self, column: int, _old: int, _new: int) -> None:
        if column != self.stretch:
            self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        # (events reach the filter while the table is being destroyed: then there is nothing to fit)
        if event.type() == QEvent.Type.Resize and shiboken6.isValid(self.table) and watched is self.table.viewport():
            self._share()
            self.fit()
        return super().eventFilter(watched, event)
