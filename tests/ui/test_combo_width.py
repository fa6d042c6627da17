"""One measure of the width a combo box needs for its current entry (explorer/ui/combo.py), used
by the Merges filter row and the Training settings column: there were two (a style size hint and
a field measure) and they disagreed by a pixel or more (a 401 px column where 400 was the bound).
In a form its least width is that too, up to a bound (whole_minimum)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from explorer.ui import combo as shared
from explorer.ui.combo import WHOLE_MINIMUM_CHARACTERS, TextWideCombo, whole_text_width
from explorer.ui.eliding_style import combo_shown_text
from explorer.ui.merges.filter_bar import FilterBar
from explorer.ui.training.settings_form import SettingsForm

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


def test_the_merges_filter_row_and_the_training_column_use_the_one_measure(qtbot: QtBot) -> None:
    bar = FilterBar()
    qtbot.addWidget(bar)
    assert isinstance(bar.script, shared.TextWideCombo) and isinstance(bar.flag, shared.TextWideCombo)
    form = SettingsForm()
    qtbot.addWidget(form)
    for box in (form.pattern_combo, form.rules_combo, form.engine_combo):
        assert isinstance(box, shared.TextWideCombo) and box.whole_minimum


@pytest.mark.parametrize("entry", ["built-in (streams every merge)", "x" * 200])
def test_a_whole_minimum_is_the_entry_up_to_a_bound(qtbot: QtBot, entry: str) -> None:
    """A form wraps a field by its minimum: the entry's whole width, but a very long entry must
    not make a column as wide as itself (it elides, whole in its tooltip)."""
    box = TextWideCombo(whole_minimum=True)
    qtbot.addWidget(box)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(8)
    box.addItem(entry)
    least = box.minimumSizeHint().width()
    if len(entry) < WHOLE_MINIMUM_CHARACTERS:
        assert least == whole_text_width(box)
    else:
        assert least < whole_text_width(box)
        assert least <= box.fontMetrics().averageCharWidth() * (WHOLE_MINIMUM_CHARACTERS + 20)
    plain = TextWideCombo()
    qtbot.addWidget(plain)
    plain.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    plain.setMinimumContentsLength(8)
    plain.addItem(entry)
    assert plain.minimumSizeHint().width() < whole_text_width(plain)  # (without: Qt's own least)
