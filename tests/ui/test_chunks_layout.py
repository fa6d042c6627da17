"""The Chunks pane in presentation mode (issue 12): the editor kept two lines at 1280x800 (then
a fixed four, mostly blank), and
the columns' pickers cut "GPT-4o / o200k_base" mid-glyph. And every combo box of the app elides
its current text with the whole text in its tooltip, never cutting a glyph."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtGui import QFontMetrics, QHelpEvent, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QComboBox, QToolTip
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from explorer.ui.chunks.pane import EDITOR_SHARE
from explorer.ui.pane import editor_chrome, text_height
from explorer.ui.theme import apply_theme
from tests.ui.windows import configuration_id, session_window, settle

CONFIGURATIONS = [(1280, 800, "light", True), (1280, 800, "dark", True), (1920, 1080, "dark", True),
                  (1280, 800, "light", False)]
TEXTS = {"one line": "HOW'S it going? how's it going?",
         "English": "HOW'S it going? how's it going?\nOrder 1234567 costs 3.14\n",
         "scripts": "नमस्ते दुनिया। مرحبا بالعالم. こんにちは世界。 สวัสดีครับ 👋🏽 🇺🇦\n" * 3}


@pytest.fixture(params=CONFIGURATIONS, ids=configuration_id)
def window(qapp: QApplication, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    with session_window(qapp, tmp_path / "chunks.ini", request.param, "chunks") as window:
        yield window


def tooltip_of(combo: QComboBox) -> str:
    """The tooltip hovering `combo` shows."""
    QToolTip.hideText()
    point = QPoint(5, combo.height() // 2)
    QApplication.sendEvent(combo, QHelpEvent(QEvent.Type.ToolTip, point, combo.mapToGlobal(point)))
    return QToolTip.text() if QToolTip.isVisible() else combo.toolTip()


def drawn_text(combo: QComboBox) -> str:
    """The text the application's style draws as `combo`'s label: the combo painted again under
    a copy of that style that records what it draws must give the same picture."""
    from explorer.ui.eliding_style import ElidingStyle

    drawn: list[str] = []

    class Recording(ElidingStyle):
        def drawItemText(self, painter: QPainter, rect: QRect, flags: int, palette: QPalette,  # noqa: N802
                         enabled: bool, text: str, role: QPalette.ColorRole = QPalette.ColorRole.NoRole) -> None:
            drawn.append(text)
            super().drawItemText(painter, rect, flags, palette, enabled, text, role)

    before = combo.grab().toImage()
    recording = Recording()
    combo.setStyle(recording)
    try:
        after = combo.grab().toImage()
    finally:
        combo.setStyle(None)  # type: ignore[arg-type]  (back to the application's)
    assert before == after, "the application's style draws the combo box otherwise"
    return drawn[-1] if drawn else ""


def assert_whole_or_elided(combo: QComboBox) -> None:
    from explorer.ui.eliding_style import combo_shown_text

    text = combo.currentText()
    shown = combo_shown_text(combo)
    if shown != text:
        assert shown.endswith("\u2026") and text.startswith(shown[:-1]), f"{text!r} shown as {shown!r}"
        assert text in tooltip_of(combo), f"{text!r} is elided and its tooltip does not say it"
    assert len(shown) >= min(len(text), 8), f"{text!r}: only {shown!r} fits"


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_the_chunks_editor_and_pickers_have_room(qapp: QApplication, window: MainWindow, text: str) -> None:
    pane = window.panes["chunks"]
    pane.set_text(text)  # type: ignore[attr-defined]
    settle(qapp, window)
    editor = pane.editor  # type: ignore[attr-defined]
    line = QFontMetrics(editor.font()).lineSpacing()
    # As tall as its text and a line more to type into, no more (a fixed four lines held one line
    # of text over ~100 px of blank in presentation mode while the columns scrolled)
    text_lines = text_height(editor, 10_000)
    shown = editor.viewport().height()
    wanted = min(text_lines + line, EDITOR_SHARE * pane.height() - editor_chrome(editor))  # (then it scrolls)
    assert shown >= wanted - 2, f"the editor shows {shown} px of its {text_lines} px text and a line"
    assert shown <= text_lines + 2 * line, f"the editor is {shown} px for {text_lines} px of text"
    for column in pane.columns:  # type: ignore[attr-defined]
        assert_whole_or_elided(column.combo)
        assert column.count.visibleRegion().boundingRect() == column.count.rect(), "the chunk count is cut"
    assert pane.columns[0].view.height() > 3 * line, "the chunk columns have no room left"  # type: ignore[attr-defined]
    # The first rows of boxes line up across columns, however each header wraps (a narrow column
    # puts its count under its picker: its boxes started a line lower than its neighbour's)
    tops = {column.view.mapTo(pane.splitter, QPoint(0, 0)).y() for column in pane.columns}  # type: ignore[attr-defined]
    assert len(tops) == 1, f"the columns' boxes start at {sorted(tops)}"


def test_a_narrow_combo_box_elides_its_text_and_tells_it_whole(qapp: QApplication, qtbot: QtBot) -> None:
    apply_theme(qapp, "light")  # (the application's style, as the app sets it)
    combo = QComboBox()
    qtbot.addWidget(combo)
    combo.addItem("GPT-4o / o200k_base, the tokenizer of a long name")
    combo.setToolTip("The pre-tokenizer pattern of this column")
    combo.resize(140, 30)
    combo.show()
    qapp.processEvents()
    drawn = drawn_text(combo)
    assert drawn.endswith("\u2026"), f"drawn as {drawn!r}: cut, not elided"
    assert QFontMetrics(combo.font()).horizontalAdvance(drawn) <= combo.width() - 20
    tip = tooltip_of(combo)
    assert combo.currentText() in tip and "pre-tokenizer pattern" in tip
    combo.resize(600, 30)
    qapp.processEvents()
    assert drawn_text(combo) == combo.currentText()
    assert tooltip_of(combo) == "The pre-tokenizer pattern of this column"
