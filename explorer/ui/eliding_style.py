"""The application's style: Fusion, with combo boxes that elide their current text and say it whole
in a tooltip.

Fusion draws a combo box's current text clipped at its field, so a narrow box (a Chunks column
at 1280 px in presentation mode) showed "GPT-4o / o200k_bas" cut mid-glyph. Here every combo box
in the application elides instead ("GPT-4o / o200k…"), and hovering it shows the whole text.
The style only hooks each combo box as it is polished; the box is painted by an event filter.
It also gives each tool button whose menu opens on click room for its arrow, as it is polished.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QHelpEvent, QPalette
from PySide6.QtWidgets import (QApplication, QComboBox, QHeaderView, QProxyStyle, QStyle, QStyleOptionComboBox, QStylePainter,
                               QToolButton, QToolTip, QWidget)

_STYLE_PROPERTY = "explorer_eliding_style"
# A tool button whose menu opens on click (popupMode 2, InstantPopup: "Export", "Samples") gets
# no room for its arrow in Fusion, which draws it over the last letter. The sheet is the button's
# own, not the application's: an application style sheet puts every widget under Qt's style-sheet
# style, which made building a pane 2-4 times slower (the Corpus pane 50 -> 175-200 ms).
MENU_BUTTON_STYLESHEET = """
QToolButton { padding: 2px 16px 2px 6px; }
QToolButton::menu-indicator { subcontrol-origin: margin; subcontrol-position: right center; right: 5px; }
"""
_STYLE_OBJECT = "explorer_eliding_style_object"  # the style itself (under a style sheet app.style() is Qt's wrapper)


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


class _ComboText(QObject):
    """Paints a combo box as QComboBox.paintEvent does, with its current text elided, and shows
    the whole text in the tooltip of a box that elides it (above the box's own tip). An event
    filter on combo boxes only: a style overriding drawControl in Python made every widget's
    repaint ~30% slower (a full table: 7.7 -> 10.0 ms of CPU)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if not isinstance(watched, QComboBox) or watched.isEditable():
            return False
        if event.type() == QEvent.Type.Paint and type(watched).paintEvent is QComboBox.paintEvent:
            self._paint(watched)  # (a combo box that paints itself is left to do so)
            return True
        if event.type() == QEvent.Type.ToolTip:
            text = watched.currentText()
            if text and combo_shown_text(watched) != text:
                tip = watched.toolTip()
                position = event.globalPos() if isinstance(event, QHelpEvent) else watched.mapToGlobal(QPoint(0, 0))
                QToolTip.showText(position, f"{text}\n{tip}" if tip else text, watched)
                return True
        return False

    @staticmethod
    def _paint(combo: QComboBox) -> None:
        painter = QStylePainter(combo)
        painter.setPen(combo.palette().color(QPalette.ColorRole.Text))
        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        if combo.currentIndex() < 0 and combo.placeholderText():
            option.palette.setBrush(QPalette.ColorRole.ButtonText, option.palette.placeholderText())
            option.currentText = combo.placeholderText()
        option.currentText = shown_text(option.currentText, option, combo.style(), combo)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
        painter.end()


# Fusion's check box and radio button indicators are a fixed 13-14 px whatever the font: these
# grow with the zoom (set_indicator_scale), so presentation mode's check boxes are not specks.
_INDICATORS = frozenset({QStyle.PixelMetric.PM_IndicatorWidth, QStyle.PixelMetric.PM_IndicatorHeight,
                         QStyle.PixelMetric.PM_ExclusiveIndicatorWidth,
                         QStyle.PixelMetric.PM_ExclusiveIndicatorHeight})


class ElidingStyle(QProxyStyle):
    """Fusion, whose combo boxes elide their current text (see the module's docstring), and
    whose indicators grow with the zoom. Only `polish` and `pixelMetric` are overridden: each
    Python override is a call into Python for every widget drawn (pixelMetric: measured below
    a millisecond per repaint of the whole window, see set_indicator_scale)."""

    def __init__(self) -> None:
        super().__init__("Fusion")
        self._combo_text = _ComboText(self)
        self.indicator_scale = 1.0

    def pixelMetric(self, metric: QStyle.PixelMetric, option: object = None,  # noqa: N802 (Qt override)
                    widget: QWidget | None = None) -> int:
        value = super().pixelMetric(metric, option, widget)  # type: ignore[arg-type]
        if metric in _INDICATORS and self.indicator_scale != 1.0:
            return round(value * self.indicator_scale)
        return value

    def polish(self, target: object) -> None:  # type: ignore[override]  # noqa: D102 (Qt override)
        super().polish(target)  # type: ignore[arg-type]
        if isinstance(target, QComboBox):
            target.installEventFilter(self._combo_text)
        elif (isinstance(target, QToolButton) and not target.styleSheet()
              and target.popupMode() == QToolButton.ToolButtonPopupMode.InstantPopup):
            target.setStyleSheet(MENU_BUTTON_STYLESHEET)
        elif isinstance(target, QHeaderView) and target.textElideMode() == Qt.TextElideMode.ElideNone:
            # Qt's headers clip a long title at both ends ("PT-3.5, GPT-4 (cl100k_bas" in a
            # narrow column): elided instead, the whole title is in the model's tooltip
            target.setTextElideMode(Qt.TextElideMode.ElideRight)

    def unpolish(self, target: object) -> None:  # type: ignore[override]  # noqa: D102 (Qt override)
        super().unpolish(target)  # type: ignore[arg-type]
        if isinstance(target, QComboBox):
            target.removeEventFilter(self._combo_text)


def set_indicator_scale(app: QApplication, scale: float) -> None:
    """Check boxes and radio buttons drawn `scale` times Fusion's size (the zoom's UI font over
    the normal one); called by explorer/ui/zoom.apply_zoom before the new font goes out."""
    style = app.property(_STYLE_OBJECT)
    if isinstance(style, ElidingStyle):
        style.indicator_scale = scale


def use_eliding_style(app: QApplication) -> None:
    """Make the eliding Fusion style the application's (once: a theme change keeps it). Under a
    style sheet `app.style()` is Qt's wrapper, so the application remembers the style itself."""
    if app.property(_STYLE_PROPERTY) is None:
        style = ElidingStyle()
        app.setStyle(style)
        app.setProperty(_STYLE_PROPERTY, True)
        app.setProperty(_STYLE_OBJECT, style)
