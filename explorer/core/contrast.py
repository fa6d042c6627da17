"""Colour contrast as WCAG 2 defines it: relative luminance and the contrast ratio of two colours.

The token palettes are checked with these (every token colour must leave its text readable,
>= 4.5:1, in both themes), so the rule lives in one small pure function, testable without Qt.
"""

from __future__ import annotations

TEXT_CONTRAST = 4.5  # WCAG AA for normal text
MARK_CONTRAST = 3.0  # WCAG AA for graphical objects (a boundary mark against its token)


def _channel(value: int) -> float:
    """One sRGB channel (0-255) as linear light."""
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def rgb(color: str) -> tuple[int, int, int]:
    """'#1f1f1f' -> (31, 31, 31)."""
    text = color.lstrip("#")
    if len(text) != 6:
        raise ValueError(f"{color!r} is not a #rrggbb colour")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def relative_luminance(color: str) -> float:
    """WCAG relative luminance of '#rrggbb': 0 for black, 1 for white."""
    r, g, b = rgb(color)
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two '#rrggbb' colours, from 1 (same) to 21 (black on white).

    >>> round(contrast_ratio("#000000", "#ffffff"), 1)
    21.0
    """
    high, low = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def distance(first: str, second: str) -> float:
    """Euclidean distance of two colours in sRGB (0-441): how far apart two palette entries look."""
    return sum((a - b) ** 2 for a, b in zip(rgb(first), rgb(second))) ** 0.5
