"""The Merges pane gives each part the room its content needs (issue 12): at 1280x800 in
presentation mode the merge tree kept ~70 px, the encode trace's last line was half hidden and
the vocabulary table's Rank column was scrolled off. Offscreen, the real main window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from explorer.core.sources.load import load_tokenizer
from explorer.ui.main_window import MainWindow
from explorer.ui.merges.model import COLUMNS
from tests.ui.windows import configuration_id, eventually, session_window, settle

CONFIGURATIONS = [(1280, 800, "light", True), (1280, 800, "dark", False), (1920, 1080, "dark", True),
                  (1920, 1080, "light", False)]


@pytest.fixture(params=CONFIGURATIONS, ids=configuration_id)
def window(qapp: QApplication, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    with session_window(qapp, tmp_path / "merges.ini", request.param, "merges",
                        load_tokenizer("o200k_base"), "o200k_base") as window:
        yield window


def shown_whole(widget: QWidget) -> bool:
    """`widget` is all on screen, or inside a scroll area that can scroll to all of it."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QScrollArea):
        parent = parent.parentWidget()
    if parent is not None:
        inner = parent.widget()
        top = widget.mapTo(inner, QPoint(0, 0)).y()
        bar = parent.verticalScrollBar()
        return top + widget.height() <= parent.viewport().height() + bar.maximum()
    return widget.visibleRegion().boundingRect() == widget.rect()


@pytest.mark.parametrize("word", ["tokenization", "internationalization", "telecommunications"])
def test_every_part_of_the_merges_pane_has_room(qapp: QApplication, window: MainWindow, word: str) -> None:
    pane = window.panes["merges"]
    pane.prepare_screenshot(word)  # type: ignore[attr-defined]
    settle(qapp, window)
    panel, trace = pane.token_panel, pane.trace_panel  # type: ignore[attr-defined]
    assert panel.tree_view.height() >= 200, f"the merge tree has {panel.tree_view.height()} px"
    tree = panel.tree_view
    root = next(node for node in tree.nodes if node.is_root)
    box = tree.mapFromScene(root.sceneBoundingRect()).boundingRect()
    view = tree.viewport().rect()
    assert box.width() > view.width() or (box.left() >= view.left() and box.right() <= view.right()), \
        f"the token's own box {box} is cut by the tree's view {view}"
    assert view.contains(box.center())
    legend = panel.legend
    assert legend.height() >= legend.heightForWidth(legend.width()), "the tree's legend is cut"
    assert legend.visibleRegion().boundingRect() == legend.rect(), "the tree's legend is hidden"
    status = trace.status
    assert eventually(qapp, lambda: status.height() >= status.heightForWidth(status.width())), \
        f"the trace's status is cut: {status.height()} px of {status.heightForWidth(status.width())}"
    for name, part in (("strip", trace.strip), ("status", status), ("steps", trace.steps)):
        assert eventually(qapp, lambda: shown_whole(part)), f"the trace's {name} cannot be seen whole, even scrolled"
    # Room enough at these sizes for the whole trace without scrolling: the table gives rows
    # first (a scrolled trace showed its list cut mid-row at the pane's edge, 21 px short at 1280x800)
    assert eventually(qapp, lambda: pane.trace_scroll.verticalScrollBar().maximum() == 0), \
        f"the trace scrolls by {pane.trace_scroll.verticalScrollBar().maximum()} px"
    assert trace.status.visibleRegion().boundingRect() == trace.status.rect()
    assert trace.steps.visibleRegion().boundingRect() == trace.steps.rect()
    steps = trace.steps
    current = steps.visualItemRect(steps.currentItem())
    assert steps.viewport().rect().contains(current), f"the current merge {current} is not whole in the list"
    rows = pane.table_view.verticalHeader().defaultSectionSize()  # type: ignore[attr-defined]
    assert eventually(qapp, lambda: pane.table_view.viewport().height() % rows == 0), \
        f"the table's last row is cut: {pane.table_view.viewport().height()} px for rows of {rows}"
    line = trace.steps.sizeHintForRow(0)
    assert trace.steps.viewport().height() >= 2 * line, "the list of merges shows under two rows"
    table = pane.table_view  # type: ignore[attr-defined]
    table.horizontalScrollBar().setValue(0)
    header = table.horizontalHeader()
    rank = next(index for index, column in enumerate(COLUMNS) if column.key == "rank")
    assert not table.isColumnHidden(rank)
    right = header.sectionViewportPosition(rank) + header.sectionSize(rank)
    assert right <= table.viewport().width(), f"the Rank column ends at {right}, the table at {table.viewport().width()}"
    used = panel.children_view
    assert used.model().rowCount() > 0 or word == "telecommunications"  # (no merge builds on that one)
    assert used.horizontalScrollBar().maximum() == 0, "the Used by list scrolls sideways: its ids are cut"
    if used.model().rowCount():
        assert used.visualRect(used.model().index(0, 0)).width() <= used.viewport().width()
    assert QRect(QPoint(0, 0), window.size()) == window.rect()
