"""Check boxes and radio buttons grow with the zoom (issue 12, presentation mode): Fusion draws
their indicators a fixed 13-14 px whatever the font, specks beside 20 pt labels on a projector.
The dark theme's indicator palette (theme.INDICATOR_BASE) stays through the zoom."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QCheckBox, QRadioButton, QStyle, QStyleOptionButton

from explorer.ui.session import Session
from explorer.ui.theme import INDICATOR_BASE
from explorer.ui.zoom import default_point_size
from tests.ui.windows import close_window, open_window

ELEMENTS = {QCheckBox: QStyle.SubElement.SE_CheckBoxIndicator, QRadioButton: QStyle.SubElement.SE_RadioButtonIndicator}


def indicator_size(qapp: QApplication, kind: type) -> tuple[int, int]:
    """The indicator of a `kind` shown in the window's fonts, as the style lays it out."""
    box = kind("Show ids")
    box.ensurePolished()
    option = QStyleOptionButton()
    box.initStyleOption(option)
    rect = box.style().subElementRect(ELEMENTS[kind], option, box)
    return rect.width(), rect.height()


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("kind", [QCheckBox, QRadioButton], ids=["check-box", "radio-button"])
def test_indicators_grow_with_the_zoom(qapp: QApplication, session: Session, theme: str, kind: type) -> None:
    window = open_window(qapp, session, (1280, 800, theme, False), "tokens")
    try:
        normal = indicator_size(qapp, kind)
        window.menus.presentation.trigger()
        qapp.processEvents()
        factor = qapp.font().pointSizeF() / default_point_size()
        presenting = indicator_size(qapp, kind)
        assert factor > 1.5
        for before, after in zip(normal, presenting):
            assert abs(after - before * factor) <= 1.5, f"{normal} -> {presenting}, zoom x{factor:.2f}"
        assert qapp.palette(kind.__name__).color(QPalette.ColorRole.Base) == QColor(INDICATOR_BASE[theme == "dark"])
        window.menus.presentation.trigger()
        qapp.processEvents()
        assert indicator_size(qapp, kind) == normal
    finally:
        close_window(qapp, window)
