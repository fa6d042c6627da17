"""A table whose first column stays put at the left while the others scroll sideways.

The vocabulary table is wider than its pane; scrolled sideways, a plain QTableView cuts the id
column ("0781" for id 100781) or hides it. Here a second view, sharing the model and the
selection, shows only column 0 over the left edge of the viewport (Qt's "frozen column" example),
and the column is as wide as the widest id, so an id is never cut. At the right edge, the column
the viewport cuts is covered by its empty cells ("(2985" of "(29852)" read as another number).
The Training pane's merges table pins its merge number the same way.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QStyle, QStyleOptionHeader, QStyleOptionViewItem, QTableView, QWidget)

from explorer.ui.cell_width import cell_margin

SORT_ARROW = 24  # room for the header's sort indicator, beside the title


class PinnedColumnTable(QTableView):
    """A QTableView with column 0 pinned; `pinned` is the view that shows it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.widest = "0"  # the longest text column 0 can show (set_widest)
        self.pinned = QTableView(self)
        self.pinned.setObjectName("pinnedColumn")
        self.pinned.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.pinned.verticalHeader().hide()
        self.pinned.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.pinned.horizontalHeader().setSectionsClickable(True)
        self.pinned.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.pinned.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.pinned.setFrameShape(QTableView.Shape.NoFrame)
        self.pinned.setWordWrap(False)
        self.viewport().stackUnder(self.pinned)
        self._following = False  # (the pinned view being moved to the main one's rows, not scrolled by the user)
        self.pinned.verticalScrollBar().valueChanged.connect(self._on_pinned_scrolled)
        self.verticalScrollBar().valueChanged.connect(self._follow_vertically)
        # The main view may scroll before the pinned one knows its rows (a token shown as the table
        # arrives): a value beyond the pinned range was clipped, so follow again once it has grown.
        self.pinned.verticalScrollBar().rangeChanged.connect(self._follow_vertically)
        self.horizontalHeader().sectionResized.connect(self._on_header_section_resized)
        self.horizontalHeader().sortIndicatorChanged.connect(self._on_header_sort_indicator_changed)
        self.pinned.horizontalHeader().sectionClicked.connect(self._on_pinned_header_clicked)
        self.pinned.doubleClicked.connect(self.doubleClicked)  # (a row opened from its pinned cell too)
        self._snapping = False
        self.horizontalScrollBar().valueChanged.connect(self._snap_to_column)
        self.cover = CutColumnCover(self)
        self.horizontalScrollBar().valueChanged.connect(self._place_cover)
        self.verticalScrollBar().valueChanged.connect(self.cover.update)

    # Keeping the two views one

    def setModel(self, model: QAbstractItemModel | None) -> None:  # noqa: N802 (Qt override)
        super().setModel(model)
        self.pinned.setModel(model)
        self.pinned.setSelectionModel(self.selectionModel())
        self.selectionModel().selectionChanged.connect(self.cover.update)
        if model is not None:
            model.modelReset.connect(self._show_only_first)
            model.layoutChanged.connect(self._show_only_first)
        self._show_only_first()

    def _show_only_first(self) -> None:
        model = self.model()
        for column in range(1, model.columnCount() if model is not None else 0):
            self.pinned.setColumnHidden(column, True)
        self._sync()

    def set_widest(self, text: str) -> None:
        """Size column 0 so that `text` (the widest value it holds) is never elided."""
        self.widest = text
        self.fit_pinned_column()

    def fit_pinned_column(self) -> None:
        """Column 0 as wide as the widest value (every digit measured) or its title, at the current font."""
        margin = cell_margin(self)
        cell = QFontMetrics(self.font())
        digits = max(cell.horizontalAdvance(digit * len(self.widest)) for digit in "0123456789")
        needed = max(digits, cell.horizontalAdvance(self.widest)) + margin + 8
        model = self.model()
        title = str(model.headerData(0, Qt.Orientation.Horizontal)) if model is not None else ""
        header = QFontMetrics(self.horizontalHeader().font()).horizontalAdvance(title) + SORT_ARROW + margin
        self.setColumnWidth(0, max(needed, header))

    def _on_header_section_resized(self, section: int, _old: int, _new: int) -> None:
        if section == 0:
            self._sync()
        self._place_cover()

    def setSortingEnabled(self, enable: bool) -> None:  # noqa: N802 (Qt override)
        """The pinned title shows the sort arrow only in a table that sorts (a merges table does not)."""
        super().setSortingEnabled(enable)
        first = self.horizontalHeader().sortIndicatorSection() == 0
        self.pinned.horizontalHeader().setSortIndicatorShown(enable and first)

    def _sync(self) -> None:
        self.pinned.setFont(self.font())
        self.pinned.setColumnWidth(0, self.columnWidth(0))
        self.pinned.verticalHeader().setDefaultSectionSize(self.verticalHeader().defaultSectionSize())
        self.pinned.horizontalHeader().setFixedHeight(self.horizontalHeader().height())
        self.pinned.setAlternatingRowColors(self.alternatingRowColors())
        self.pinned.setSelectionBehavior(self.selectionBehavior())
        self.pinned.setSelectionMode(self.selectionMode())
        frame = self.frameWidth()
        left = frame + (self.verticalHeader().width() if self.verticalHeader().isVisible() else 0)
        self.pinned.setGeometry(left, frame, self.columnWidth(0),
                                self.viewport().height() + self.horizontalHeader().height())
        self.pinned.setVisible(self.model() is not None and not self.isColumnHidden(0))
        self._follow_vertically()
        self._place_cover()

    def _on_pinned_scrolled(self, value: int) -> None:
        """A wheel turned over the pinned column scrolls the table."""
        if not self._following:
            self.verticalScrollBar().setValue(value)

    def _follow_vertically(self, *_: int) -> None:
        """Rows at the same height as the main view's (its header's pixel offset, whatever the scroll bar says).
        Not back: the pinned view lays out new rows later than the main one, and its scroll bar,
        clipped to the rows it knew, sent the table back a batch (following the newest merge of a
        training run stopped short of it)."""
        self._following = True
        try:
            self.pinned.verticalScrollBar().setValue(self.verticalScrollBar().value())
        finally:
            self._following = False
        if self.pinned.verticalHeader().offset() != self.verticalHeader().offset():
            self.pinned.verticalHeader().setOffset(self.verticalHeader().offset())
            self.pinned.viewport().update()

    def updateGeometries(self) -> None:  # noqa: N802 (Qt override: after a resize, a font or a header change)
        super().updateGeometries()
        self._sync()

    # Sorting from the pinned header, and its indicator

    def _on_pinned_header_clicked(self, section: int) -> None:
        if not self.isSortingEnabled():
            return
        header = self.horizontalHeader()
        ascending = header.sortIndicatorSection() != section or header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
        self.sortByColumn(section, Qt.SortOrder.AscendingOrder if ascending else Qt.SortOrder.DescendingOrder)

    def _on_header_sort_indicator_changed(self, section: int, order: Qt.SortOrder) -> None:
        pinned = self.pinned.horizontalHeader()
        pinned.setSortIndicatorShown(self.isSortingEnabled() and section == 0)
        pinned.setSortIndicator(0 if section == 0 else -1, order)

    # Scrolling sideways by whole columns: a column is either beside the pinned one or hidden under it,
    # never a sliver of it ("4)") right after an id, where it would read as part of the id.

    def _snap_to_column(self, value: int) -> None:
        if self._snapping:
            return
        header = self.horizontalHeader()
        pinned = self.columnWidth(0)
        stops = [header.sectionPosition(column) - pinned for column in range(1, header.count())
                 if not header.isSectionHidden(column) and header.sectionPosition(column) >= pinned]
        bar = self.horizontalScrollBar()
        stops = [stop for stop in stops if stop < bar.maximum()] + [bar.maximum()]  # (the end stays reachable)
        best = min(stops, key=lambda stop: (abs(stop - value), stop))
        if best != value:
            self._snapping = True
            try:
                bar.setValue(best)
            finally:
                self._snapping = False

    # The column the right edge cuts: covered

    def cut_column(self) -> tuple[int, int] | None:
        """The column the viewport's right edge cuts, and the viewport x where its visible part
        starts (never under the pinned column); None when the last column shown ends in view."""
        header, width = self.horizontalHeader(), self.viewport().width()
        for column in range(1, header.count()):
            left = header.sectionViewportPosition(column)
            if not header.isSectionHidden(column) and left < width < left + header.sectionSize(column):
                return column, max(left, self.columnWidth(0) if self.pinned.isVisible() else 0)
        return None

    def _place_cover(self, *_: int) -> None:
        cut = self.cut_column()
        if cut is None or self.model() is None:
            self.cover.hide()
            return
        viewport, header = self.viewport().geometry(), self.horizontalHeader()
        top = header.geometry().top() if header.isVisible() else viewport.top()
        self.cover.setGeometry(QRect(viewport.left() + cut[1], top, viewport.width() - cut[1], viewport.bottom() - top + 1))
        self.cover.show()
        self.cover.raise_()
        self.cover.update()

    # Never leave the current cell under the pinned column

    def scrollTo(self, index: QModelIndex | QPersistentModelIndex,  # noqa: N802 (Qt override)
                 hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible) -> None:
        super().scrollTo(index, hint)
        if index.isValid() and index.column() > 0:
            hidden = self.columnWidth(0) - self.visualRect(index).left()
            if hidden > 0:
                bar = self.horizontalScrollBar()
                bar.setValue(bar.value() - hidden)


class CutColumnCover(QWidget):
    """The visible part of the column the table's right edge cuts, drawn as empty cells: an empty
    header, each row's background and grid line, no text. Clicks go through to the table."""

    def __init__(self, table: PinnedColumnTable) -> None:
        super().__init__(table)
        self.table = table
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.hide()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        table, painter = self.table, QPainter(self)
        header = table.horizontalHeader()
        top = 0
        if header.isVisible():
            option = QStyleOptionHeader()
            option.initFrom(header)
            option.rect = QRect(0, 0, self.width() + 8, header.height())  # (its right border out of sight)
            option.state |= QStyle.StateFlag.State_Raised | QStyle.StateFlag.State_Horizontal
            option.orientation = Qt.Orientation.Horizontal
            option.text = ""
            table.style().drawControl(QStyle.ControlElement.CE_Header, option, painter, header)
            top = header.height()
        palette = table.palette()
        group = QPalette.ColorGroup.Active if table.hasFocus() else QPalette.ColorGroup.Inactive
        painter.fillRect(QRect(0, top, self.width(), self.height() - top), palette.color(group, QPalette.ColorRole.Base))
        cell = QStyleOptionViewItem()
        cell.initFrom(table)  # (the style's grid colour follows the palette it is given)
        grid = QColor.fromRgba(table.style().styleHint(QStyle.StyleHint.SH_Table_GridLineColor, cell, table) & 0xFFFFFFFF)
        selection, model = table.selectionModel(), table.model()
        first, last = table.rowAt(0), table.rowAt(table.viewport().height() - 1)
        if first < 0 or model is None:
            return
        for row in range(first, (last if last >= 0 else model.rowCount() - 1) + 1):  # (the rows in view)
            y, row_height = top + table.rowViewportPosition(row), table.rowHeight(row)
            if selection is not None and selection.isRowSelected(row, QModelIndex()):
                role = QPalette.ColorRole.Highlight
            else:
                role = QPalette.ColorRole.AlternateBase if table.alternatingRowColors() and row % 2 else QPalette.ColorRole.Base
            painter.fillRect(QRect(0, y, self.width(), row_height), palette.color(group, role))
            if table.showGrid():
                painter.fillRect(QRect(0, y + row_height - 1, self.width(), 1), grid)
