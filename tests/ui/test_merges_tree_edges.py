"""No box of the merge tree shows its text cut by the view's edge (issue 12): in presentation mode
the tree of `·telecommunications` was wider than its view at 1280x800 and 1920x1080, so it
scrolled sideways and a box at the edge read "e #2" for rank 2,417. Offscreen, the real window;
what each box drew is recorded as it paints."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from explorer.core.sources.load import load_tokenizer
from explorer.ui.main_window import MainWindow
from explorer.ui.merges import tree_view
from explorer.ui.merges.tree_view import MergeTreeView, NodeItem
from explorer.ui.theme import PRESENTATION_POINT_SIZE
from explorer.ui.zoom import minimum_point_size
from tests.ui.windows import configuration_id, session_window, settle

CONFIGURATIONS = [(1280, 800, "light", True), (1920, 1080, "dark", True)]


@pytest.fixture(params=CONFIGURATIONS, ids=configuration_id)
def window(qapp: QApplication, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    with session_window(qapp, tmp_path / "merges.ini", request.param, "merges",
                        load_tokenizer("r50k_base"), "r50k_base") as window:
        yield window


class _Recorder:
    """Stands in for the painter a box paints with and notes that it drew text."""

    def __init__(self, painter: Any, node: RecordingNode) -> None:
        self._painter, self._node = painter, node

    def drawText(self, *args: Any) -> None:  # noqa: N802 (QPainter's name)
        self._node.drew_text = True
        self._painter.drawText(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._painter, name)


class RecordingNode(NodeItem):
    """A box that remembers whether its last paint drew any text."""

    painted = drew_text = False

    def paint(self, painter: Any, option: Any, widget: Any = None) -> None:
        self.painted, self.drew_text = True, False
        super().paint(_Recorder(painter, self), option, widget)


@pytest.fixture(autouse=True)
def recording_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree_view, "NodeItem", RecordingNode)


def painted(qapp: QApplication, tree: MergeTreeView) -> list[tuple[NodeItem, bool]]:
    """Paint the view as it is on screen; each box painted, and whether it drew its text."""
    qapp.processEvents()
    for node in tree.nodes:
        node.painted = False  # type: ignore[attr-defined]
    tree.viewport().grab()
    assert all(isinstance(node, RecordingNode) for node in tree.nodes)
    return [(node, node.drew_text) for node in tree.nodes if node.painted]  # type: ignore[attr-defined]


def assert_no_text_cut(qapp: QApplication, tree: MergeTreeView, where: str) -> int:
    """Every box drawn with its text lies wholly in the view; how many there are."""
    boxes = painted(qapp, tree)
    view = tree.viewport().rect()
    with_text = [node for node, text in boxes if text]
    for node in with_text:
        box = tree.mapFromScene(node.sceneBoundingRect()).boundingRect()
        assert view.contains(box), f"{where}: {node.lines} drawn with its text at {box}, cut by the view {view}"
    least = min(font.pointSizeF() for font in tree.painted_fonts())
    assert least >= minimum_point_size(PRESENTATION_POINT_SIZE), f"{where}: labels at {least:.1f} pt"
    return len(with_text)


def test_a_long_tokens_tree_shows_no_box_cut(qapp: QApplication, window: MainWindow) -> None:
    pane = window.panes["merges"]
    pane.prepare_screenshot("telecommunications")  # type: ignore[attr-defined]
    settle(qapp, window)
    tree = pane.token_panel.tree_view  # type: ignore[attr-defined]
    assert tree.tree is not None and len(tree.tree.leaves()) == 19
    # It fits: laid out compactly, the whole width is in view at a legible size.
    assert tree.horizontalScrollBar().maximum() == 0, "the tree scrolls sideways"
    assert_no_text_cut(qapp, tree, "fitted")
    assert all(text for _, text in painted(qapp, tree)), "a box of the fitted tree shows no text"
    # Zoomed in until it is wider than the view, then scrolled: boxes at the edges keep no text.
    bar = tree.horizontalScrollBar()
    for _ in range(8):
        tree.zoom(1.2)
        if bar.maximum() > 0:
            break
    tree.zoom(1.2)
    assert bar.maximum() > 0
    shown = 0
    for value in (bar.minimum(), bar.maximum() // 3, bar.maximum()):
        bar.setValue(value)
        shown += assert_no_text_cut(qapp, tree, f"zoomed, scrolled to {value} of {bar.maximum()}")
    assert shown > 0, "zoomed in, no box shows its text anywhere"
    cut = [node for node, text in painted(qapp, tree) if not text]
    assert cut, "no box at the view's edge is drawn as an outline"

