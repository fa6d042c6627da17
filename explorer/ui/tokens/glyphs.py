"""Missing glyphs: which characters no installed font can draw, and which package would fix it.

Qt falls back through every installed font when the chosen one lacks a character; only when none
has it does it draw an empty box. Shaping a character with QTextLayout and looking for glyph 0
(".notdef") in the result asks exactly the question the renderer asks.
"""

from __future__ import annotations

import unicodedata

from PySide6.QtGui import QFont, QTextLayout

_cache: dict[tuple[str, str], bool] = {}

EMOJI_PACKAGE = "fonts-noto-color-emoji"
CJK_PACKAGE = "fonts-noto-cjk"
CORE_PACKAGE = "fonts-noto-core"
_CJK_RANGES = ((0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3130, 0x318F),
               (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF),
               (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0x20000, 0x3FFFF))
_EMOJI_RANGES = ((0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0x1F1E6, 0x1F1FF), (0xFE0F, 0xFE0F))


def is_missing(char: str, font: QFont) -> bool:
    """True if no installed font has a glyph for `char` (controls and format characters never count)."""
    if char.isascii() or unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Mn", "Me"):
        return False
    key = (font.family(), char)
    missing = _cache.get(key)
    if missing is None:
        layout = QTextLayout(char, font)
        layout.beginLayout()
        layout.createLine()
        layout.endLayout()
        missing = any(0 in run.glyphIndexes() for run in layout.glyphRuns())
        _cache[key] = missing
    return missing


def font_package(char: str) -> str:
    """The Debian/Ubuntu package with a font for `char` (by script)."""
    code = ord(char)
    if any(low <= code <= high for low, high in _EMOJI_RANGES):
        return EMOJI_PACKAGE
    if any(low <= code <= high for low, high in _CJK_RANGES):
        return CJK_PACKAGE
    if 0xE000 <= code <= 0xF8FF or 0xF0000 <= code:
        return "a font for this private-use character (no standard package has one)"
    return CORE_PACKAGE


def missing_message(chars: set[str]) -> str:
    """'No installed font draws 你 (U+4F60): install fonts-noto-cjk.'"""
    by_package: dict[str, list[str]] = {}
    for char in sorted(chars):
        by_package.setdefault(font_package(char), []).append(char)
    parts = []
    for package, members in by_package.items():
        shown = ", ".join(f"{c} (U+{ord(c):04X})" for c in members[:4]) + (" ..." if len(members) > 4 else "")
        action = f"install {package}" if package.startswith("fonts-") else package
        parts.append(f"{shown}: {action}")
    return "No installed font can draw " + "; ".join(parts) + ". Those characters are boxed in red."
