"""The Merges pane gives room where the content is (issue 12, the acceptance walk at 1280x800 in
presentation mode): the filter row's combos read "Any …" and "Any a…", the encode trace's word box
kept ~200 px for a sentence, and an empty "Used by" list kept ~330 px beside a cramped tree.
Offscreen, the real main window; shared helpers in tests/ui/windows.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from explorer.ui.eliding_style import combo_shown_text
from explorer.ui.main_window import MainWindow
from explorer.ui.merges.pane import TABLE_LEAST_ROWS, TABLE_ROWS
from explorer.ui.merges.trace import TracePanel
from explorer.ui.theme import BASE_POINT_SIZE
from tests.ui.windows import configuration_id, eventually, session_window, settle

CONFIGURATIONS = [(1280, 800, "light", True), (1280, 800, "dark", False), (1920, 1080, "dark", True)]
SENTENCE = "こんにちは世界。今日はいい天気ですね。"


@pytest.fixture(params=CONFIGURATIONS, ids=configuration_id)
def window(qapp: QApplication, tmp_path: Path, o200k, request: pytest.FixtureRequest) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    with session_window(qapp, tmp_path / "merges.ini", request.param, "merges", o200k, "o200k_base") as window:
        yield window


def test_the_filter_row_shows_every_control_whole(qapp: QApplication, window: MainWindow) -> None:
    """The row wraps onto a second line rather than eliding: combos and the filter hint whole."""
    size = QSize(window.size())
    pane = window.panes["merges"]
    pane.prepare_screenshot("hello")  # type: ignore[attr-defined]
    settle(qapp, window)
    bar = pane.filter_bar  # type: ignore[attr-defined]
    for combo in (bar.mode, bar.script, bar.flag):
        assert eventually(qapp, lambda: combo_shown_text(combo) == combo.currentText()), \
            f"{combo.currentText()!r} shown as {combo_shown_text(combo)!r}"
    hint = QFontMetrics(bar.text.font()).horizontalAdvance(bar.text.placeholderText())
    assert bar.text.width() >= hint, f"the filter box is {bar.text.width()} px for a {hint} px hint"
    for widget in (bar.min_length, bar.max_length, pane.result_label, pane.export_csv_button):  # type: ignore[attr-defined]
        assert widget.visibleRegion().boundingRect() == widget.rect(), f"{type(widget).__name__} is cut"
    bar.script.setCurrentIndex(bar.script.count() - 1)  # a longer entry ("Symbols & punctuation (…)")
    assert eventually(qapp, lambda: combo_shown_text(bar.script) == bar.script.currentText())
    assert window.size() == size
    # The wrapped row leaves the table its rows: all TABLE_ROWS, or at 1280x800 in presentation mode
    # TABLE_LEAST_ROWS beside a trace shown whole (its room goes to the trace, not to the row).
    table = pane.table_view  # type: ignore[attr-defined]
    rows = table.viewport().height() // table.verticalHeader().defaultSectionSize()
    least = TABLE_ROWS if window.height() >= 1080 or not window.session.point_size > BASE_POINT_SIZE else TABLE_LEAST_ROWS
    assert rows >= least, f"the wrapped row took the table's room: {rows} rows"
    assert pane.trace_scroll.verticalScrollBar().maximum() == 0, "the trace scrolls"  # type: ignore[attr-defined]


def test_the_trace_word_box_takes_the_room_its_text_needs(qapp: QApplication, window: MainWindow) -> None:
    pane = window.panes["merges"]
    pane.prepare_screenshot(SENTENCE)  # type: ignore[attr-defined]
    settle(qapp, window)
    trace = pane.trace_panel  # type: ignore[attr-defined]
    box = trace.input
    needed = QFontMetrics(box.font()).horizontalAdvance(box.text())
    room = trace.contentsRect().width() - 40
    assert box.width() >= min(needed, room), f"the word box is {box.width()} px for {needed} px of text"
    assert trace.step_button.visibleRegion().boundingRect() == trace.step_button.rect()
    trace.set_text(" cat")  # a short word: the buttons stay beside it, on its line
    assert eventually(qapp, lambda: trace.step_button.mapTo(trace, trace.step_button.rect().center()).y()
                      < box.mapTo(trace, box.rect().bottomLeft()).y())


def test_an_empty_used_by_list_gives_its_room_to_the_tree(qapp: QApplication, window: MainWindow) -> None:
    pane = window.panes["merges"]
    panel = pane.token_panel  # type: ignore[attr-defined]
    pane.prepare_screenshot("नमस्ते")  # type: ignore[attr-defined]  (·नम: no merge builds on it)
    settle(qapp, window)
    assert panel.children_model.rowCount() == 0
    assert eventually(qapp, lambda: not panel.used_by.isVisible()), "the empty Used by list keeps its room"
    assert panel.tree_stack.width() >= panel.width() - 40, f"the tree has {panel.tree_stack.width()} of {panel.width()} px"
    assert "no merge builds on it" in panel.info_label.text()
    pane.prepare_screenshot("The")  # type: ignore[attr-defined]  (·The: 16 tokens build on it)
    settle(qapp, window)
    assert eventually(qapp, lambda: panel.used_by.isVisible())
    assert panel.children_model.rowCount() > 0
    width = QFontMetrics(panel.children_model.font).horizontalAdvance("·Theatre  #123456")
    assert panel.children_view.viewport().width() >= width, "the Used by list cuts its ids"
    assert "no merge builds on it" not in panel.info_label.text()


def test_the_trace_counts_read_in_the_singular(qtbot: object, o200k) -> None:  # type: ignore[no-untyped-def]
    trace = TracePanel()
    qtbot.addWidget(trace)  # type: ignore[attr-defined]
    trace.set_tokenizer(o200k, str)
    trace.set_text(" a")  # two bytes, one chunk, one merge
    text = trace.status.text()
    assert "1 chunk." in text and "1 merge to go" in text, text
    assert "(s)" not in text
