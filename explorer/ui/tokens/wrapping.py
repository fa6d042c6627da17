"""Where a line of tokens may wrap: between two tokens, never inside one.

Qt wraps the token view where Unicode allows a line break, or anywhere when a line has none.
Both cut tokens: `<E0 A4>` at its space, 你好 between its ideographs, and a line of English has
no break at all (spaces show as `·`, a letter), so it is cut mid-token. Each token's display
therefore gets a word joiner (U+2060) at every break Qt would make inside it, its spaces (only
in hex, `<E0 A4>`: a space in the text shows as `·`) become no-break spaces, since Qt's layout
breaks after any other space whatever the Unicode rules say, and a zero-width space (U+200B)
goes before it where a break changes nothing that is drawn: the token starts with a character
that never joins, reorders or stacks with the one before it. The marks are invisible and
zero-width, and the view's text is copied without them.
"""

from __future__ import annotations

import unicodedata

from PySide6.QtCore import QTextBoundaryFinder

JOINER, BREAK, NO_BREAK_SPACE = "\u2060", "\u200b", "\u00a0"
ISOLATE, END_ISOLATE = "\u2066", "\u2069"  # around hex pieces (explorer/core/text/render.py)
LETTER_JOINER = "\u200d"  # either side of an id between joining letters (display.py); a ZWJ of the text shows as ⟨ZWJ⟩
# The view's text -> what it reads as (a real no-break space in a token shows as `␣`, never as itself).
READ = {ord(JOINER): None, ord(BREAK): None, ord(NO_BREAK_SPACE): " ", ord(ISOLATE): None, ord(END_ISOLATE): None,
        ord(LETTER_JOINER): None}

# Scripts whose letters join, stack or reorder across a character boundary (Arabic and its
# relatives, the Brahmic scripts with their viramas, Mongolian, ...), Hangul vowel and final
# jamo, emoji modifiers and regional indicators: a break before one could change the drawing.
_JOINING = ((0x0600, 0x08FF), (0x0900, 0x0DFF), (0x0F00, 0x109F), (0x1160, 0x11FF), (0x1700, 0x18AF),
            (0x1900, 0x1CFF), (0xA800, 0xABFF), (0xD7B0, 0xD7FF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF),
            (0x10A00, 0x11FFF), (0x1E800, 0x1EFFF), (0x1F1E6, 0x1F1FF), (0x1F3FB, 0x1F3FF))
_SPACING_MARKS = {"\u0e33", "\u0eb3"}  # Thai and Lao AM: letters by category, part of the cluster before


def breaks_before(char: str) -> bool:
    """True if a line may break just before `char` without changing how anything is drawn."""
    if unicodedata.category(char)[0] in "MC" or char in _SPACING_MARKS:
        return False
    code = ord(char)
    return not any(low <= code <= high for low, high in _JOINING)


def keep_whole(text: str) -> str:
    """A token's display with no line break inside it, and one allowed before it where that is safe.

    >>> keep_whole("<E0 A4>") == BREAK + "<E0" + NO_BREAK_SPACE + "A4>"
    True
    """
    text = text.replace(" ", NO_BREAK_SPACE)
    finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Line, text)
    inside: set[int] = set()  # UTF-16 positions where Qt would break the line
    position = finder.toNextBoundary()
    while position != -1:
        inside.add(position)
        position = finder.toNextBoundary()
    first = text.lstrip(ISOLATE)[:1]
    out = [BREAK] if first and breaks_before(first) else []
    offset = 0  # UTF-16
    previous = ""
    for char in text:
        if offset in inside and offset > 0 and previous != "\n":
            out.append(JOINER)
        out.append(char)
        previous = char
        offset += 2 if ord(char) > 0xFFFF else 1
    return "".join(out)


def shown(text: str) -> str:
    """The view's text as a person reads it: without the wrapping characters."""
    return text.translate(READ)
