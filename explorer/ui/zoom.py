"""One zoom for every text in the window: the text font's point size (normal 11, presentation 20,
Ctrl +/- in between) decides the application font, so every label, button, table, header, menu
and dialog follows without a line of its own.

The session calls `apply_zoom` before it announces `font_changed`; the few widgets that paint
text themselves (token lanes, byte strips, plots, the merge tree) take their fonts from that
signal or from the widget font Qt hands down. A table's rows do not follow a font by themselves
(their height comes from the style), so `fit_rows` sets them from the font, for the whole window
at each zoom and for a pane or dialog built later.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication, QLayout, QStackedWidget, QStyle, QTableView, QWidget

from explorer.ui.theme import BASE_POINT_SIZE

_DEFAULT_PROPERTY = "explorer_default_point_size"  # the platform's own UI point size, kept on the app
_FITTED_PROPERTY = "explorer_fitted_rows"  # the row height fit_rows set last (a pane's own is kept)
# The smallest a secondary text (a caption, a small label) may be, as a share of the UI font.
SMALLEST_SHARE = 0.8


def default_point_size() -> float:
    """The platform's UI point size at normal zoom (9 pt on most Linux desktops)."""
    app = QApplication.instance()
    if app is None:
        return 9.0
    value = app.property(_DEFAULT_PROPERTY)
    if value is None:
        value = app.font().pointSizeF() if app.font().pointSizeF() > 0 else 9.0
        app.setProperty(_DEFAULT_PROPERTY, value)
    return float(value)


def ui_point_size(point_size: float) -> float:
    """The UI font's point size when the text font is `point_size`: scaled in proportion, whole points."""
    return float(max(7, round(default_point_size() * point_size / BASE_POINT_SIZE)))


def minimum_point_size(point_size: float) -> float:
    """The smallest point size any visible text may have at this zoom (tests/ui/test_layout.py checks)."""
    return min(ui_point_size(point_size), float(point_size)) * SMALLEST_SHARE


def ui_font(point_size: float) -> QFont:
    """The application font at zoom `point_size` (the platform's family)."""
    default_point_size()
    app = QApplication.instance()
    font = QFont(app.font()) if app is not None else QFont()
    font.setPointSizeF(ui_point_size(point_size))
    return font


def apply_zoom(point_size: float) -> None:
    """Set the application font for `point_size` and fit every table's rows to it."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    font = ui_font(point_size)
    if font.pointSizeF() != app.font().pointSizeF():
        from explorer.ui.eliding_style import set_indicator_scale  # (eliding_style imports theme, as this does)

        set_indicator_scale(app, font.pointSizeF() / default_point_size())  # before the font: their layout asks it
        app.setFont(font)
        # Qt hands a new application font out later, in posted events (under a style sheet, to
        # top-level widgets only), and the rows below are fitted now: hand it to every widget at
        # once, each window before its children (findChildren lists a parent before its children).
        change = QEvent(QEvent.Type.ApplicationFontChange)
        for window in app.topLevelWidgets():
            for widget in [window, *window.findChildren(QWidget)]:
                if shiboken6.isValid(widget) and not widget.testAttribute(Qt.WidgetAttribute.WA_SetFont):
                    QApplication.sendEvent(widget, change)
    for widget in app.topLevelWidgets():
        fit_rows(widget)


def fit_rows(root: QWidget) -> None:
    """Rows of every table under `root` tall enough for its font (a pane's own taller rows stay)."""
    views = root.findChildren(QTableView)
    if isinstance(root, QTableView):
        views.append(root)
    for view in views:
        header = view.verticalHeader()
        wanted = max(view.style().pixelMetric(QStyle.PixelMetric.PM_HeaderDefaultSectionSizeVertical, None, header),
                     QFontMetrics(view.font()).height() + 8)
        current, fitted = header.defaultSectionSize(), header.property(_FITTED_PROPERTY)
        if current < wanted or current == fitted:
            header.setDefaultSectionSize(wanted)
            header.setProperty(_FITTED_PROPERTY, wanted)


def add_keeping_fonts(layout: QLayout | QStackedWidget, widget: QWidget) -> None:
    """Add `widget` to `layout` (or a stack) with the fonts its children were given kept.

    Under the application's style sheet Qt re-resolves a moved widget's children against their new
    parents and drops fonts set on them (a pane built on its own, then put in its tab, lost the
    Bytes lanes' large fixed font; a pane's content put in its stack lost the Training demo's
    token font): set them again once the widget is in place.
    """
    kept = [(child, QFont(child.font())) for child in widget.findChildren(QWidget)
            if child.testAttribute(Qt.WidgetAttribute.WA_SetFont)]
    layout.addWidget(widget)
    for child, font in kept:
        if child.font() != font:
            child.setFont(font)


def style_plot(plot: object, font: QFont) -> None:
    """A pyqtgraph PlotItem's texts at `font`: tick labels, axis labels, title and legend (pyqtgraph
    draws its titles and legends at a fixed 9 pt, and measures ticks in a font it does not draw in
    unless one is given, which cuts the bottom labels)."""
    size = f"{font.pointSizeF():g}pt"
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)  # type: ignore[attr-defined]
        axis.setStyle(tickFont=font)
        axis.label.setFont(font)
        axis.setHeight(None) if name == "bottom" else axis.setWidth(None)
    fit_bottom_axis(plot.getAxis("bottom"), font)  # type: ignore[attr-defined]
    title = plot.titleLabel  # type: ignore[attr-defined]
    if title.text:
        title.setText(title.text, size=size)
        fit_title_row(plot, font)
    legend = getattr(plot, "legend", None)
    for _, label in getattr(legend, "items", []):
        label.setText(label.text, size=size)


def fit_bottom_axis(axis: object, font: QFont) -> None:
    """A pyqtgraph bottom axis tall enough for tick labels in `font`: pyqtgraph sizes it from the
    labels' ink, so descenders ('g', 'y') are cut at a large font."""
    if not axis.isVisible() or not axis.style["showValues"]:  # type: ignore[attr-defined]
        return
    label = axis.label.boundingRect().height() * 0.8 if axis.label.isVisible() else 0.0  # type: ignore[attr-defined]
    needed = (QFontMetrics(font).height() + axis.style["tickTextOffset"][1]  # type: ignore[attr-defined]
              + max(0, axis.style["tickLength"]) + label)  # type: ignore[attr-defined]
    if axis.maximumHeight() < needed:  # type: ignore[attr-defined]
        axis.setHeight(needed)  # type: ignore[attr-defined]


def fit_title_row(plot: object, font: QFont, lines: int = 1) -> int:
    """A PlotItem's title row as tall as a title of `lines` lines in `font` (PlotItem.setTitle fixes
    it and the title at 30 px, which cuts a title at presentation mode's size). Returns the height."""
    height = QFontMetrics(font).lineSpacing() * lines + 8
    plot.titleLabel.setMaximumHeight(height)  # type: ignore[attr-defined]
    plot.layout.setRowFixedHeight(0, height)  # type: ignore[attr-defined]
    return height
