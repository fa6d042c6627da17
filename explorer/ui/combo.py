"""How wide a combo box must be to show its current entry whole, and a combo box that asks for it.

One measure for the app: the eliding style (eliding_style.shown_text) shows a combo's text whole
when it fits the style's edit field less 2 px, so this is that text's width plus the box's chrome
around the field (the frame and the arrow, at the box's current size). The Merges filter row and
the Training settings column both size combos by it: two measures gave two answers (a 401 px column).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSize
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QWidget


def whole_text_width(combo: QComboBox) -> int:
    """The width at which `combo` shows its current entry whole (not elided)."""
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    chrome = option.rect.width() - field.width()
    icon = option.iconSize.width() + 4 if not option.currentIcon.isNull() else 0
    text = math.ceil(QFontMetricsF(combo.font()).horizontalAdvance(combo.currentText()))  # (not rounded down)
    return text + 2 + 1 + icon + chrome  # (the label's inset, and a pixel for the eliding's own rounding)


WHOLE_MINIMUM_CHARACTERS = 32  # the most a combo asks as its least width, in average characters of its font


class TextWideCombo(QComboBox):
    """A combo box that asks for the width of the text it shows (not of its longest entry, nor
    Qt's cached first-show width): a flow layout then gives it that or a line of its own.

    With `whole_minimum` that width is also its least, up to WHOLE_MINIMUM_CHARACTERS: a form
    (QFormLayout.WrapLongRows looks at a field's minimum only) then puts it under its label
    rather than elide it beside; an entry longer than the bound elides, whole in its tooltip."""

    def __init__(self, parent: QWidget | None = None, whole_minimum: bool = False) -> None:
        super().__init__(parent)
        self.whole_minimum = whole_minimum
        self.currentIndexChanged.connect(lambda _: self.updateGeometry())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(whole_text_width(self), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        least = super().minimumSizeHint()
        if not self.whole_minimum:
            return least
        bound = least.width() + self.fontMetrics().averageCharWidth() * WHOLE_MINIMUM_CHARACTERS
        return QSize(max(least.width(), min(whole_text_width(self), bound)), least.height())
