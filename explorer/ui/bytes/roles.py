"""Colours for the roles of UTF-8 bits, shared by the byte strip, the table and the legend."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtGui import QColor

from explorer.ui.theme import current_palette, token_color

# (light, dark) per role; payload bits use the normal text colour.
_ROLE_COLORS = {
    "ascii": ("#00795a", "#4fd1a5"),  # the 0 of a one-byte character
    "lead2": ("#0062a0", "#7cc4ff"),  # 110, 1110, 11110: a character starts, and says how long it is
    "lead3": ("#0062a0", "#7cc4ff"),
    "lead4": ("#0062a0", "#7cc4ff"),
    "continuation": ("#b34700", "#ffab70"),  # 10: a byte in the middle of a character
    "invalid": ("#b00020", "#ff8a80"),
}
REPLACEMENT_COLOR = ("#b00020", "#ff6b6b")
PENDING_COLOR = ("#fff1c2", "#5a4a12")  # bytes a buffered decoder holds back

LEGEND = [
    ("ascii", "0", "one-byte character (ASCII)"),
    ("lead3", "110 · 1110 · 11110", "lead byte: a character of 2, 3 or 4 bytes starts"),
    ("continuation", "10", "continuation byte"),
]


def role_color(role: str, dark: bool) -> QColor | None:
    """The colour of a bit role, or None for payload bits (drawn in the text colour)."""
    pair = _ROLE_COLORS.get(role)
    return QColor(pair[1] if dark else pair[0]) if pair else None


def replacement_color(dark: bool) -> QColor:
    return QColor(REPLACEMENT_COLOR[1] if dark else REPLACEMENT_COLOR[0])


def pending_color(dark: bool) -> QColor:
    return QColor(PENDING_COLOR[1] if dark else PENDING_COLOR[0])


def legend_html(dark: bool) -> str:
    """The legend for bit colours, as rich text."""
    parts = []
    for role, bits, meaning in LEGEND:
        color = role_color(role, dark)
        parts.append(f"<b style='color:{color.name() if color else ''}'>{bits}</b> {meaning}")
    parts.append("<span>plain bits: the payload, which spells the code point</span>")
    return " &nbsp;·&nbsp; ".join(parts)


def token_color_name(token_id: int, dark: bool) -> str:
    """The theme's token colour as '#rrggbb' in the palette chosen in the View menu."""
    return _color_name(token_id, dark, current_palette())


@lru_cache(maxsize=8192)
def _color_name(token_id: int, dark: bool, palette: str) -> str:
    """Cached: a stream repaints every token on every step."""
    return token_color(token_id, dark, palette).name()
