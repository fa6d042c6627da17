"""One measure of the width a combo box needs for its current entry (explorer/ui/combo.py), used
by the Merges filter row and the Training settings column: there were two (a style size hint and
a field measure) and they disagreed by a pixel or more (a 401 px column where 400 was the bound)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont
from pytestqt.qtbot import QtBot

from explorer.ui import combo as shared
from explorer.ui.combo import TextWideCombo, whole_text_width
from explorer.ui.eliding_style import combo_shown_text
from explorer.ui.merges.filter_bar import FilterBar
from explorer.ui.training import pane as training_pane

ENTRIES = ["Any script", "Symbols & punctuation (1,234)", "cl100k: GPT-4 / cl100k_base", "built-in (streams every merge)",
           "नमस्ते दुनिया", "مرحبا بالعالم"]


@pytest.mark.parametrize("points", [9.0, 16.0, 20.0])
def test_a_combo_at_its_width_shows_its_entry_whole_and_no_wider(qtbot: QtBot, points: float) -> None:
    box = TextWideCombo()
    qtbot.addWidget(box)
    font = QFont(box.font())
    font.setPointSizeF(points)
    box.setFont(font)
    box.addItems(ENTRIES)
    box.show()
    for index, entry in enumerate(ENTRIES):
        box.setCurrentIndex(index)
        width = box.sizeHint().width()
        assert width == whole_text_width(box)
        box.resize(width, box.sizeHint().height())
        assert combo_shown_text(box) == entry, f"{entry!r} at {points} pt, {width} px"
        box.resize(width - 4, box.sizeHint().height())  # the measure is tight: a few px less elides
        assert combo_shown_text(box) != entry, f"{entry!r}: {width} px is more than it needs"


def test_the_merges_filter_row_and_the_training_column_use_the_one_measure(qtbot: QtBot,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    bar = FilterBar()
    qtbot.addWidget(bar)
    assert isinstance(bar.script, shared.TextWideCombo) and isinstance(bar.flag, shared.TextWideCombo)
    asked: list[object] = []
    monkeypatch.setattr(training_pane, "whole_text_width", lambda box: asked.append(box) or 500)
    box = TextWideCombo()
    qtbot.addWidget(box)
    box.addItem("hf: Hugging Face")
    box.show()
    assert training_pane._more_for_whole_text(box) == 500 - box.sizeHint().width()  # noqa: SLF001
    assert asked == [box]
