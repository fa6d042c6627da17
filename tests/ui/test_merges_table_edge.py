"""The vocabulary table scrolled sideways shows no text cut at its right edge (issue 12): its id
column stayed whole at the left, but the last column in view was cut at the right, "(2985" of a
parent's id. Offscreen, the real window; what the table shows is read from its pixels."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from explorer.core.sources.load import load_tokenizer
from explorer.ui.main_window import MainWindow
from tests.ui.windows import configuration_id, session_window, settle

CONFIGURATIONS = [(1280, 800, "light", True), (1920, 1080, "dark", True), (1280, 800, "dark", False)]


@pytest.fixture(params=CONFIGURATIONS, ids=configuration_id)
def window(qapp: QApplication, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    with session_window(qapp, tmp_path / "merges.ini", request.param, "merges",
                        load_tokenizer("r50k_base"), "r50k_base") as window:
        yield window


def blank(image: QImage, left: int, right: int, top: int, bottom: int) -> bool:
    """Whether each line of the box from (left, top) to (right, bottom) is one colour: no glyph in it."""
    for y in range(top, bottom + 1):
        first = image.pixel(left, y)
        if any(image.pixel(x, y) != first for x in range(left + 1, right + 1)):
            return False
    return True


def test_no_cell_is_cut_at_the_right_edge(qapp: QApplication, window: MainWindow) -> None:
    pane = window.panes["merges"]
    pane.prepare_screenshot("telecommunications")  # type: ignore[attr-defined]
    settle(qapp, window)
    table = pane.table_view  # type: ignore[attr-defined]
    header, bar = table.horizontalHeader(), table.horizontalScrollBar()
    assert bar.maximum() > 0, "the table does not scroll sideways"
    cuts = 0
    for column in range(1, header.count()):
        if header.isSectionHidden(column):
            continue
        bar.setValue(min(bar.maximum(), header.sectionPosition(column) - table.columnWidth(0)))  # (one stop per column)
        qapp.processEvents()
        width = table.viewport().width()
        shown = [c for c in range(header.count()) if not header.isSectionHidden(c)
                 and header.sectionViewportPosition(c) < width < header.sectionViewportPosition(c) + header.sectionSize(c)]
        if not shown:
            continue  # (the last column ends at the edge)
        cut = shown[0]
        cuts += 1
        image = table.grab().toImage()
        origin = table.viewport().geometry().topLeft()
        left = origin.x() + max(header.sectionViewportPosition(cut), table.columnWidth(0)) + 1
        right = origin.x() + width - 2
        if right - left < 2:
            continue
        where = f"column {cut} ({table.model().headerData(cut, header.orientation())!r}) at scroll {bar.value()}"
        head = header.geometry()
        assert blank(image, left, right, head.top() + 3, head.bottom() - 3), f"{where}: its title is cut"
        for row in range(table.rowAt(0), table.rowAt(table.viewport().height() - 1) + 1):
            top = origin.y() + table.rowViewportPosition(row)
            bottom = top + table.rowHeight(row) - 1
            if top < origin.y() or bottom > origin.y() + table.viewport().height() - 1:
                continue
            text = table.model().index(row, cut).data()
            assert blank(image, left, right, top + 2, bottom - 3), f"{where}: row {row}'s {text!r} is shown cut"
    assert cuts > 0, "no scroll position cuts a column at the right edge"
