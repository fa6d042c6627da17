"""The pinned-column table follows its rows: scrolled to the bottom right after rows arrive (as the
Training pane follows the newest merge), it shows the last row, not the bottom of the rows before.
The pinned view lays out new rows later than the table, and its scroll bar, clipped to the rows it
knew, sent the table back a batch."""

from __future__ import annotations

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.ui.pinned import PinnedColumnTable


def test_scrolling_to_the_bottom_after_new_rows_shows_the_last_row(qtbot: QtBot) -> None:
    model = QStandardItemModel(0, 3)
    table = PinnedColumnTable()
    qtbot.addWidget(table)
    table.setModel(model)
    table.resize(400, 300)
    table.show()
    qtbot.waitExposed(table)
    for batch in range(5):
        for row in range(40):
            model.appendRow([QStandardItem(f"{batch}.{row}.{column}") for column in range(3)])
        table.scrollToBottom()  # at once, in the same turn, as the pane's timer does
        last = table.visualRect(model.index(model.rowCount() - 1, 1))
        assert table.viewport().rect().contains(last.center()), \
            f"batch {batch}: the last row at {last.y()} px, below the view ({table.viewport().height()} px)"
        QApplication.processEvents()  # (then the event loop runs: the pinned view lays out the rows)
