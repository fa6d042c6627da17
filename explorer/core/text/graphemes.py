"""What to draw for a piece of text cut out of a longer one, when the cut may fall inside a character.

A reader sees graphemes (a flag, a family emoji, स्ते), not code points. A chunk or token boundary
can fall inside one: GPT-2 cuts the vowel sign off a Devanagari syllable, a custom pattern cuts a
flag into its two regional indicators. Drawn alone, a lone regional indicator or a ZWJ is a broken
glyph (or nothing), so such pieces are drawn as labels ("U+1F1FA", "ZWJ") that say what is there.
Positions are also given in UTF-16 units, the units Qt counts in.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex

from explorer.core.text.chars import VISIBLE, glyph, visible

_GRAPHEME = regex.compile(r"\X", regex.DOTALL)
# The only characters that can get a label: regional indicators, enclosing marks, format characters, odd spaces
# and variation selectors (see `_label`). Text without them is shown as `visible` shows it.
_MAY_LABEL = regex.compile(
    r"[[\p{Me}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\U0001F1E6-\U0001F1FF\uFE00-\uFE0F\U000E0000-\U000E01EF]--[ ]]", regex.V1)


def grapheme_bounds(text: str) -> frozenset[int]:
    """Offsets where a grapheme cluster starts or ends (0 and len(text) included).

    >>> sorted(grapheme_bounds("a🇺🇦"))
    [0, 1, 3]
    """
    if text.isascii() and "\r\n" not in text:
        return frozenset(range(len(text) + 1))
    return frozenset([0, *(match.end() for match in _GRAPHEME.finditer(text))])


def _units(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


def is_regional_indicator(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


@dataclass(frozen=True, slots=True)
class ShownPiece:
    """What to draw for text[start:end], and where each of its characters sits in it."""

    text: str
    units: tuple[int, ...]  # UTF-16 offset in `text` of each position start..end (end included)
    muted: tuple[tuple[int, int], ...]  # UTF-16 (start, length) spans drawn as symbols, not text


def shown_piece(text: str, start: int, end: int, bounds: frozenset[int]) -> ShownPiece:
    """Whitespace made visible (· ↵), and each character of a grapheme cut by `start` or `end`
    that has no glyph of its own (a regional indicator, ZWJ, a variation selector) as a label.

    >>> shown_piece("🇺🇦", 0, 1, grapheme_bounds("🇺🇦")).text
    'U+1F1FA'
    >>> shown_piece("hi 🇺🇦", 0, 5, grapheme_bounds("hi 🇺🇦")).text
    'hi·🇺🇦'
    >>> shown_piece("1\ufe0f\u20e3", 1, 3, grapheme_bounds("1\ufe0f\u20e3")).text
    'VS16 U+20E3'
    """
    piece = text[start:end]
    if piece.isascii():
        shown = visible(piece)
        muted = tuple((i, 1) for i, char in enumerate(piece) if char in VISIBLE)
        return ShownPiece(shown, tuple(range(len(piece) + 1)), muted)
    if _MAY_LABEL.search(piece) is None:
        units, muted_list, offset = [], [], 0
        for char in piece:
            units.append(offset)
            if char in VISIBLE:
                muted_list.append((offset, 1))
            offset += 2 if ord(char) > 0xFFFF else 1
        units.append(offset)
        return ShownPiece(visible(piece), tuple(units), tuple(muted_list))
    parts: list[str] = []
    units: list[int] = []
    muted_spans: list[tuple[int, int]] = []
    offset = 0
    labelled = False  # the character before got a label: a mark after it would sit on the label
    cut_left = next((b for b in range(start, -1, -1) if b in bounds), 0)  # the grapheme start at or before `start`
    for position in range(start, end):
        if position in bounds:
            cut_left = position
        char = text[position]
        units.append(offset)
        whole = cut_left >= start and _grapheme_end(bounds, position, len(text)) <= end
        label = _label(char, whole, text, position, bounds)
        category = unicodedata.category(char)
        if label is None and category.startswith("M") and (labelled or (category == "Me" and not whole)):
            label = f"U+{ord(char):04X}"  # the keycap of 1\ufe0f\u20e3 cut after the 1, or alone
        if label is not None and labelled:
            label = " " + label  # two labels side by side stay two words
        labelled = label is not None
        if label is None:
            shown = visible(char)
            if shown != char or char in VISIBLE:
                muted_spans.append((offset, 1))
        else:
            shown = label
            muted_spans.append((offset, _units(label)))
        parts.append(shown)
        offset += _units(shown)
    units.append(offset)
    return ShownPiece("".join(parts), tuple(units), tuple(muted_spans))


def shown_text(text: str, start: int, end: int, bounds: frozenset[int]) -> str:
    """`shown_piece(...).text`, quickly (the layout measures every box, and most need no label)."""
    piece = text[start:end]
    if piece.isascii() or _MAY_LABEL.search(piece) is None:
        return visible(piece)
    return shown_piece(text, start, end, bounds).text


def _grapheme_end(bounds: frozenset[int], position: int, length: int) -> int:
    end = position + 1
    while end < length and end not in bounds:
        end += 1
    return end


def _label(char: str, whole: bool, text: str, position: int, bounds: frozenset[int]) -> str | None:
    """A label for `char`, or None to draw it as itself."""
    if is_regional_indicator(char):
        # A pair inside the piece is a flag; one alone has no glyph (fonts draw a letter, a box or �).
        alone = position in bounds and position + 1 in bounds
        return f"U+{ord(char):X}" if not whole or alone else None
    if whole and not (position in bounds and position + 1 in bounds):
        return None  # part of a whole grapheme (the ZWJ of a family emoji): the font joins it
    named = glyph(char)
    return named if named != visible(char) else None


# What makes a cluster one emoji glyph that its code points, drawn one by one, break into pieces
# ("U A" for 🇺🇦, four people for a family): a joiner, a skin tone, a keycap, a variation selector, a tag.
_JOINED = regex.compile(r"[\U0001F1E6-\U0001F1FF\u200d\U0001F3FB-\U0001F3FF\u20e3\ufe0f\U000E0020-\U000E007F]")


def emoji_clusters(text: str) -> list[tuple[int, int]]:
    """(start, end) code point offsets of the grapheme clusters of `text` drawn as one glyph made
    of several code points (a flag, a ZWJ sequence, a skin tone, a keycap): a view that draws each
    code point in a cell of its own draws these whole, across their cells.

    >>> emoji_clusters("a🇺🇦 👋🏽 é")
    [(1, 3), (4, 6)]
    """
    if text.isascii() or _JOINED.search(text) is None:
        return []
    return [match.span() for match in _GRAPHEME.finditer(text)
            if match.end() - match.start() > 1 and _JOINED.search(match.group()) is not None]
