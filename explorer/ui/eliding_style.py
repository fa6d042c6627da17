"""The application's style: Fusion, with combo boxes that elide their current text and say it whole
in a tooltip.

Fusion draws a combo box's current text clipped at its field, so a narrow box (a Chunks column
at 1280 px in presentation mode) showed "GPT-4o / o200k_bas" cut mid-glyph. Here every combo box
in the application elides instead ("GPT-4o / o200k…"), and hovering it shows the whole text.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QHelpEvent, QPainter
from PySide6.QtWidgets import (QApplication, QComboBox, QProxyStyle, QStyle, QStyleOption, QStyleOptionComboBox,
                               QToolTip, QWidget)

_STYLE_PROPERTY = "explorer_eliding_style"


def shown_text(text: str, option: QStyleOptionComboBox, style: QStyle, widget: QWidget | None) -> str:
    """`text` as the combo box described by `option` can show it: whole, or elided at the right."""
    field = style.subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                 QStyle.SubControl.SC_ComboBoxEditField, widget)
    width = field.width() - 2  # (the label is drawn 1 px inside the field on each side)
    if not option.currentIcon.isNull():
        width -= option.iconSize.width() + 4
    return option.fontMetrics.elidedText(text, Qt.TextElideMode.ElideRight, max(0, width))


def combo_shown_text(combo: QComboBox) -> str:
    """What `combo` shows of its current text."""
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return shown_text(combo.currentText(), option, combo.style(), combo)


class _WholeTextTips(QObject):
    """A combo box that elides its text shows it whole in its tooltip, above the box's own tip."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.ToolTip and isinstance(watched, QComboBox) and not watched.isEditable():
            text = watched.currentText()
            if text and combo_shown_text(watched) != text:
                tip = watched.toolTip()
                position = event.globalPos() if isinstance(event, QHelpEvent) else watched.mapToGlobal(watched.rect().center())
                QToolTip.showText(position, f"{text}\n{tip}" if tip else text, watched)
                return True
        return False


class ElidingStyle(QProxyStyle):
    """Fusion, whose combo boxes elide their current text (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__("Fusion")
        self._tips = _WholeTextTips(self)

    def drawControl(self, element: QStyle.ControlElement, option: QStyleOption,  # noqa: N802 (Qt override)
                    painter: QPainter, widget: QWidget | None = None) -> None:
        if element == QStyle.ControlElement.CE_ComboBoxLabel and isinstance(option, QStyleOptionComboBox) \
                and option.currentText and not option.editable:
            elided = shown_text(option.currentText, option, self, widget)
            if elided != option.currentText:
                option = QStyleOptionComboBox(option)
                option.currentText = elided
        super().drawControl(element, option, painter, widget)

    def polish(self, target: object) -> None:  # type: ignore[override]  # noqa: D102 (Qt override)
        super().polish(target)  # type: ignore[arg-type]
        if isinstance(target, QComboBox):
            target.installEventFilter(self._tips)

    def unpolish(self, target: object) -> None:  # type: ignore[override]  # noqa: D102 (Qt override)
        super().unpolish(target)  # type: ignore[arg-type]
        if isinstance(target, QComboBox):
            target.removeEventFilter(self._tips)


def use_eliding_style(app: QApplication) -> None:
    """Make the eliding Fusion style the application's (once: a theme change keeps it). Under a
    style sheet `app.style()` is Qt's wrapper, so the application remembers the style itself."""
    if app.property(_STYLE_PROPERTY) is None:
        style = ElidingStyle()
        app.setStyle(style)
        app.setProperty(_STYLE_PROPERTY, True)
