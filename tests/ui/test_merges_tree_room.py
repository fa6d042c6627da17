"""The merge tree has the room its rows need (issue 12, the acceptance walk at 1280x800 in
presentation mode): under the tree the encode trace left it 184 px, so even a tree of depth 2
had its byte row cut in half at the bottom. Offscreen, the real main window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from explorer.ui.main_window import MainWindow
from tests.ui.windows import configuration_id, session_window, settle

CONFIGURATIONS = [(1280, 800, "light", True), (1280, 800, "dark", False), (1920, 1080, "light", True)]


@pytest.fixture(params=CONFIGURATIONS, ids=configuration_id)
def window(qapp: QApplication, tmp_path: Path, o200k, request: pytest.FixtureRequest) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    with session_window(qapp, tmp_path / "merges.ini", request.param, "merges", o200k, "o200k_base") as window:
        yield window


def rows_on_screen(window: MainWindow) -> tuple[list[str], int]:
    """How each box of the tree sits in its view vertically ("whole", "cut", "hidden"), and its depth."""
    tree = window.panes["merges"].token_panel.tree_view  # type: ignore[attr-defined]
    view = tree.viewport().rect()
    places = []
    for node in tree.nodes:
        box = tree.mapFromScene(node.sceneBoundingRect().adjusted(2, 2, -2, -2)).boundingRect()
        if box.top() >= view.top() and box.bottom() <= view.bottom():
            places.append("whole")
        elif box.bottom() < view.top() or box.top() > view.bottom():
            places.append("hidden")
        else:
            places.append("cut")
    return places, tree.tree.height


@pytest.mark.parametrize("word", ["The", "ingredients"])
def test_a_tree_up_to_depth_5_shows_whole_down_to_its_bytes(qapp: QApplication, window: MainWindow, word: str) -> None:
    pane = window.panes["merges"]
    pane.prepare_screenshot(word)  # type: ignore[attr-defined]
    settle(qapp, window)
    places, depth = rows_on_screen(window)
    assert depth <= 5
    assert places.count("whole") == len(places), f"depth {depth}: {places.count('cut')} boxes cut, " \
                                                 f"{places.count('hidden')} hidden"


@pytest.mark.parametrize("word", ["internationalization", "telecommunications"])
def test_a_deeper_tree_scrolls_by_whole_rows(qapp: QApplication, window: MainWindow, word: str) -> None:
    pane = window.panes["merges"]
    pane.prepare_screenshot(word)  # type: ignore[attr-defined]
    settle(qapp, window)
    places, _ = rows_on_screen(window)
    assert "cut" not in places, f"{places.count('cut')} boxes cut in half by the tree's view"
    assert places[0] == "whole", "the token's own box is not in view"


def test_every_step_of_the_trace_reads_whole_under_the_table(qapp: QApplication, window: MainWindow) -> None:
    """Under the table the trace is narrower: a long step wraps instead of being cut at the right."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QFontMetrics

    pane = window.panes["merges"]
    pane.prepare_screenshot("नमस्ते")  # type: ignore[attr-defined]  (steps such as "·<E0 A4> + <A4>")
    settle(qapp, window)
    steps = pane.trace_panel.steps  # type: ignore[attr-defined]
    assert steps.count() > 3
    view = steps.viewport().width()
    metrics = QFontMetrics(steps.font())
    for row in range(steps.count()):
        rect = steps.visualRect(steps.model().index(row, 0))
        text = steps.item(row).text()
        assert rect.width() <= view, f"step {row + 1} is {rect.width()} px wide in a {view} px list"
        needed = metrics.boundingRect(0, 0, rect.width(), 10_000, int(Qt.TextFlag.TextWordWrap), text)
        assert needed.width() <= rect.width() and needed.height() <= rect.height() + 2, f"step {row + 1} is cut"
