"""Light and dark themes, the token palette, and the zoomable text font.

Token colours come from the Okabe-Ito palette (readable for colour-blind viewers), lightened
for the light theme and darkened for the dark one; a token's colour depends only on its id,
so the same token looks the same in every pane. Neighbouring tokens are told apart by a thin
boundary too, so nothing depends on colour alone.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999"]
BASE_POINT_SIZE = 11
PRESENTATION_POINT_SIZE = 20


def is_dark(theme: str) -> bool:
    if theme == "dark":
        return True
    if theme == "light":
        return False
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def token_colors(dark: bool) -> list[QColor]:
    """Background colours for tokens: pale tints in light mode, deep shades in dark mode."""
    colors = []
    for hex_color in OKABE_ITO:
        base = QColor(hex_color)
        colors.append(base.darker(260) if dark else base.lighter(175))
    return colors


def token_color(token_id: int, dark: bool) -> QColor:
    """Stable per id; the multiplier spreads neighbouring ids over the palette."""
    palette = token_colors(dark)
    return palette[(token_id * 2654435761 >> 7) % len(palette)]


def apply_theme(app: QApplication, theme: str) -> None:
    """Fusion style with a light or dark palette (the system's choice when `theme` is "system")."""
    app.setStyle("Fusion")
    dark = is_dark(theme)
    palette = QPalette()
    if dark:
        colors = {
            QPalette.ColorRole.Window: "#202124", QPalette.ColorRole.WindowText: "#e8eaed",
            QPalette.ColorRole.Base: "#17181a", QPalette.ColorRole.AlternateBase: "#26272b",
            QPalette.ColorRole.Text: "#e8eaed", QPalette.ColorRole.Button: "#2d2e31",
            QPalette.ColorRole.ButtonText: "#e8eaed", QPalette.ColorRole.Highlight: "#3d6fb4",
            QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#2d2e31",
            QPalette.ColorRole.ToolTipText: "#e8eaed", QPalette.ColorRole.PlaceholderText: "#9aa0a6",
            QPalette.ColorRole.Link: "#8ab4f8",
        }
    else:
        colors = {
            QPalette.ColorRole.Window: "#f4f4f5", QPalette.ColorRole.WindowText: "#1f1f1f",
            QPalette.ColorRole.Base: "#ffffff", QPalette.ColorRole.AlternateBase: "#f1f3f4",
            QPalette.ColorRole.Text: "#1f1f1f", QPalette.ColorRole.Button: "#e9e9eb",
            QPalette.ColorRole.ButtonText: "#1f1f1f", QPalette.ColorRole.Highlight: "#1a73e8",
            QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#ffffe8",
            QPalette.ColorRole.ToolTipText: "#1f1f1f", QPalette.ColorRole.PlaceholderText: "#70757a",
            QPalette.ColorRole.Link: "#1a0dab",
        }
    for role, value in colors.items():
        palette.setColor(role, QColor(value))
    apply_disabled_colors(palette, dark)
    app.setPalette(palette)
    app.setStyleSheet(CONTROLS_STYLESHEET)
    app.setProperty("explorer_dark", dark)


# Controls, apart from the token palette: disabled looks disabled, menu arrows have room.

# Setting a colour for a role sets it in every colour group, so without this a disabled button
# looks exactly like an enabled one: dim its text and flatten its face in both themes.
_DISABLED_COLORS = {
    False: {QPalette.ColorRole.WindowText: "#9a9ca0", QPalette.ColorRole.Text: "#9a9ca0",
            QPalette.ColorRole.ButtonText: "#9a9ca0", QPalette.ColorRole.Button: "#efeff0",
            QPalette.ColorRole.Base: "#f4f4f5", QPalette.ColorRole.Light: "#f4f4f5"},
    True: {QPalette.ColorRole.WindowText: "#6b6e73", QPalette.ColorRole.Text: "#6b6e73",
           QPalette.ColorRole.ButtonText: "#6b6e73", QPalette.ColorRole.Button: "#252629",
           QPalette.ColorRole.Base: "#1d1e20", QPalette.ColorRole.Light: "#252629"},
}

# A tool button whose menu opens on click (popupMode 2, InstantPopup: "Export", "Samples") gets
# no room for its arrow in Fusion, which draws it over the last letter: make room, once for all.
CONTROLS_STYLESHEET = """
QToolButton[popupMode="2"] { padding: 2px 16px 2px 6px; }
QToolButton[popupMode="2"]::menu-indicator { subcontrol-origin: margin; subcontrol-position: right center;
                                             right: 5px; }
"""


def apply_disabled_colors(palette: QPalette, dark: bool) -> None:
    for role, value in _DISABLED_COLORS[dark].items():
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(value))


def current_is_dark() -> bool:
    app = QApplication.instance()
    return bool(app.property("explorer_dark")) if app is not None else False


def text_font(point_size: int) -> QFont:
    """The font for token and byte views: the system's fixed font, scaled by the zoom level."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(point_size)
    return font
