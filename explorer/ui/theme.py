"""Light and dark themes, the token palettes, and the zoomable text font.

Token colours are fixed lists per theme, chosen so the theme's text on every one of them reads
at >= 4.5:1 (WCAG), none is near the page's own colour, and they stay far apart from each
other (tests/ui/test_palette.py checks all three with explorer.core.contrast). The default
palette spreads eight hues; the colour-blind one is derived from Okabe-Ito. A token's colour
depends only on its id, so the same token looks the same in every pane; neighbouring tokens
are told apart by a boundary mark too, so nothing depends on colour alone.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from explorer.ui.glyph_weight import even_cff_weight

OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999"]
# Token backgrounds: (palette, dark?) -> colours. Red, orange, yellow, green, teal, blue, purple, pink.
PALETTES: dict[tuple[str, bool], list[str]] = {
    ("default", False): ["#f4a3a3", "#f8c38a", "#eedd6e", "#a8dc9a", "#8ed8d0", "#a9c8f5", "#cdb4f0", "#f2a9d4"],
    ("default", True): ["#8b2c2c", "#8a4d12", "#6b5f0a", "#2e6b2a", "#146660", "#2c4f9a", "#5d3a94", "#8a2f6a"],
    # Okabe-Ito tinted towards white or black (orange, sky blue, bluish green, yellow, blue,
    # vermillion, reddish purple, grey).
    ("colour-blind", False): ["#f0b94d", "#9ad2f2", "#73cab2", "#e8df55", "#73b1d5", "#e69e66", "#e0afca", "#b8b8b8"],
    ("colour-blind", True): ["#7a5200", "#2f6380", "#00573f", "#5b5719", "#004a74", "#8c3300", "#663c54", "#363636"],
}
PALETTE_NAMES = ("default", "colour-blind")
# Hues for kinds of things that are not tokens (a chunk's category in Chunks, a script's share in
# Corpus), by role, in each palette. Both panes ask kind_hue() with the View menu's palette. The
# colour-blind one is Okabe-Ito with Paul Tol's muted cyan, teal and sand; the default one the
# same roles in the default token palette's hues (its red and green are the pair it gives up).
KIND_HUES: dict[str, dict[str, str]] = {
    "default": {"blue": "#42A5F5", "cyan": "#80DEEA", "navy": "#1565C0", "orange": "#FB8C00", "green": "#43A047",
                "yellow": "#FDD835", "teal": "#26A69A", "grey": "#9E9E9E", "red": "#E53935", "purple": "#AB47BC",
                "sand": "#D4B483"},
    "colour-blind": {"blue": "#56B4E9", "cyan": "#88CCEE", "navy": "#0072B2", "orange": "#E69F00",
                     "green": "#009E73", "yellow": "#F0E442", "teal": "#44AA99", "grey": "#999999",
                     "red": "#D55E00", "purple": "#CC79A7", "sand": "#DDCC77"},
}
# The colours text and the page take in each theme (apply_theme uses the same).
TEXT = {False: "#1f1f1f", True: "#e8eaed"}
BASE = {False: "#ffffff", True: "#17181a"}
# Fusion fills a check box's square with Base and outlines it with the window's colour darkened,
# which in the dark theme leaves an unchecked box black on near-black: give it a grey face there.
INDICATOR_BASE = {False: BASE[False], True: "#4a4d52"}
BASE_POINT_SIZE = 11
PRESENTATION_POINT_SIZE = 20


def is_dark(theme: str) -> bool:
    if theme == "dark":
        return True
    if theme == "light":
        return False
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def use_palette(palette: str) -> None:
    """Make `palette` the one every token colour comes from unless a caller names another: the
    Session calls it as the View menu changes (as apply_theme records the theme for current_is_dark)."""
    app = QApplication.instance()
    if app is not None:
        app.setProperty("explorer_palette", palette)


def current_palette() -> str:
    app = QApplication.instance()
    name = app.property("explorer_palette") if app is not None else None
    return name if name in PALETTE_NAMES else "default"


def _palette_key(palette: str | None, dark: bool) -> tuple[str, bool]:
    name = current_palette() if palette is None else palette
    return (name if name in PALETTE_NAMES else "default", dark)


def kind_hue(role: str, palette: str | None = None) -> QColor:
    """The hue of `role` (a key of KIND_HUES' palettes) in `palette`, by default the View menu's."""
    return QColor(KIND_HUES[_palette_key(palette, False)[0]][role])


def kind_hues(palette: str | None = None) -> list[QColor]:
    """Every hue of `palette`, for kinds without a role of their own (rarer scripts)."""
    return [QColor(hue) for hue in KIND_HUES[_palette_key(palette, False)[0]].values()]


def token_colors(dark: bool, palette: str | None = None) -> list[QColor]:
    """Background colours for tokens: tints in light mode, deep shades in dark mode; from
    `palette`, by default the one chosen in the View menu."""
    return [QColor(c) for c in PALETTES[_palette_key(palette, dark)]]


def token_color(token_id: int, dark: bool, palette: str | None = None) -> QColor:
    """Stable per id; the multiplier spreads neighbouring ids over the palette (by default the
    one chosen in the View menu, so every pane colours a token alike)."""
    colors = PALETTES[_palette_key(palette, dark)]
    return QColor(colors[(token_id * 2654435761 >> 7) % len(colors)])


def apply_theme(app: QApplication, theme: str) -> None:
    """Fusion style with a light or dark palette (the system's choice when `theme` is "system")."""
    even_cff_weight()  # CJK no bolder than its Latin in the dark theme (every start calls this first)
    from explorer.ui.eliding_style import use_eliding_style  # (theme.py is imported before any widget)

    use_eliding_style(app)  # Fusion, whose combo boxes elide their text instead of cutting it
    dark = is_dark(theme)
    palette = QPalette()
    if dark:
        colors = {
            QPalette.ColorRole.Window: "#202124", QPalette.ColorRole.WindowText: "#e8eaed",
            QPalette.ColorRole.Base: BASE[True], QPalette.ColorRole.AlternateBase: "#26272b",
            QPalette.ColorRole.Text: TEXT[True], QPalette.ColorRole.Button: "#2d2e31",
            QPalette.ColorRole.ButtonText: "#e8eaed", QPalette.ColorRole.Highlight: "#3d6fb4",
            QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#2d2e31",
            QPalette.ColorRole.ToolTipText: "#e8eaed", QPalette.ColorRole.PlaceholderText: "#9aa0a6",
            QPalette.ColorRole.Link: "#8ab4f8",
        }
    else:
        colors = {
            QPalette.ColorRole.Window: "#f4f4f5", QPalette.ColorRole.WindowText: "#1f1f1f",
            QPalette.ColorRole.Base: BASE[False], QPalette.ColorRole.AlternateBase: "#f1f3f4",
            QPalette.ColorRole.Text: TEXT[False], QPalette.ColorRole.Button: "#e9e9eb",
            QPalette.ColorRole.ButtonText: "#1f1f1f", QPalette.ColorRole.Highlight: "#1a73e8",
            QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#ffffe8",
            QPalette.ColorRole.ToolTipText: "#1f1f1f", QPalette.ColorRole.PlaceholderText: "#70757a",
            QPalette.ColorRole.Link: "#1a0dab",
        }
    for role, value in colors.items():
        palette.setColor(role, QColor(value))
    apply_disabled_colors(palette, dark)
    app.setPalette(palette)
    indicators = QPalette(palette)  # (a class's palette: set again at every theme change, so light undoes dark)
    indicators.setColor(QPalette.ColorRole.Base, QColor(INDICATOR_BASE[dark]))
    for kind in ("QCheckBox", "QRadioButton"):
        app.setPalette(indicators, kind)
    app.setProperty("explorer_dark", dark)


# Controls, apart from the token palette: disabled looks disabled (menu arrows get room in
# explorer/ui/eliding_style.py).

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
