"""Controls in both themes: a menu button's arrow beside its text, not over it; disabled looks disabled."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QApplication, QCheckBox, QMenu, QPushButton, QRadioButton, QStyle,
                               QStyleOptionButton, QToolButton)
from pytestqt.qtbot import QtBot

from explorer.core.contrast import contrast_ratio
from explorer.ui.theme import apply_theme


@pytest.fixture(params=["light", "dark"])
def theme(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[str]:
    palette, sheet = qapp.palette(), qapp.styleSheet()
    apply_theme(qapp, request.param)  # (the eliding style it installs stays: setStyle(name) would drop it)
    yield request.param
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)
    for kind in ("QCheckBox", "QRadioButton"):
        qapp.setPalette(palette, kind)


def ink_runs(button: QToolButton, dark: bool) -> list[tuple[int, int]]:
    """Runs of pixel columns holding text or arrow ink, left to right (the frame left out)."""
    image = button.grab().toImage()
    face = image.pixelColor(3, image.height() // 2).lightness()

    def inked(x: int) -> bool:
        return any(abs(image.pixelColor(x, y).lightness() - face) > 70 for y in range(3, image.height() - 3))

    runs, start = [], None
    for x in range(3, image.width() - 3):
        if inked(x) and start is None:
            start = x
        elif not inked(x) and start is not None:
            runs.append((start, x))
            start = None
    if start is not None:
        runs.append((start, image.width() - 3))
    return runs


@pytest.mark.parametrize("text", ["Export", "Samples"])
def test_the_menu_arrow_leaves_the_last_letter_alone(qtbot: QtBot, theme: str, text: str) -> None:
    button = QToolButton()
    button.setText(text)
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    button.setMenu(QMenu(button))
    qtbot.addWidget(button)
    button.show()
    runs = ink_runs(button, theme == "dark")
    assert len(runs) >= 3, runs
    (_, letter_end), (arrow_start, arrow_end) = runs[-2], runs[-1]
    assert arrow_start - letter_end >= 2, f"the arrow touches the last letter: {runs}"
    assert arrow_end - arrow_start <= 8  # the arrow alone, not an arrow over a letter


def test_a_disabled_button_looks_disabled(qtbot: QtBot, theme: str) -> None:
    palette = QApplication.palette()
    for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText, QPalette.ColorRole.Text):
        enabled = palette.color(QPalette.ColorGroup.Active, role)
        disabled = palette.color(QPalette.ColorGroup.Disabled, role)
        assert abs(enabled.lightness() - disabled.lightness()) >= 40, role
    images = []
    for on in (True, False):
        button = QPushButton("Compute")
        button.setEnabled(on)
        qtbot.addWidget(button)
        button.resize(120, 32)
        button.show()
        images.append(button.grab().toImage())
    assert images[0] != images[1]


@pytest.mark.parametrize("kind", [QCheckBox, QRadioButton])
def test_an_unchecked_box_stands_out_from_the_window(qtbot: QtBot, theme: str, kind: type) -> None:
    """In the dark theme Fusion's square was near-black on near-black ("Naive encode beside it")."""
    box = kind("Naive encode beside it")
    qtbot.addWidget(box)
    box.show()
    option = QStyleOptionButton()
    box.initStyleOption(option)
    element = (QStyle.SubElement.SE_CheckBoxIndicator if kind is QCheckBox
               else QStyle.SubElement.SE_RadioButtonIndicator)
    square = box.style().subElementRect(element, option, box)
    image = box.grab().toImage()
    window = box.palette().color(QPalette.ColorRole.Window).name()
    inks = {image.pixelColor(x, y).name() for x in range(square.left(), square.right() + 1)
            for y in range(square.top(), square.bottom() + 1)}  # its outline and its face
    best = max(inks, key=lambda ink: contrast_ratio(ink, window))
    assert contrast_ratio(best, window) >= 1.5, f"the box at most {best} on the window's {window}"
