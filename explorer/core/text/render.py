"""How a token's bytes are shown to a person: visible whitespace, escapes and honest hex.

A token is bytes, not text. Complete characters are shown as themselves (spaces as `·`, tabs as
`→`, newlines as `↵`); bytes that are only part of a character, or never valid UTF-8, are shown
in hex (`<E0 A4>`) instead of U+FFFD. Every view and export uses these functions, so the same
token reads the same everywhere.
"""

from __future__ import annotations

import unicodedata
from itertools import groupby

SPACE, TAB, NEWLINE = "\u00b7", "\u2192", "\u21b5"

# Characters that take no room or look like a plain space: named, so they cannot hide.
INVISIBLE_NAMES: dict[str, str] = {
    "\u200b": "ZWSP", "\u200c": "ZWNJ", "\u200d": "ZWJ", "\u2060": "WJ", "\ufeff": "BOM",
    "\u00ad": "SHY", "\u00a0": "NBSP", "\u202f": "NNBSP", "\u2028": "LS", "\u2029": "PS",
    "\u034f": "CGJ", "\u180e": "MVS",
    # Direction marks and overrides: nothing to see, yet they reorder the text around them
    "\u200e": "LRM", "\u200f": "RLM", "\u061c": "ALM", "\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF",
    "\u202d": "LRO", "\u202e": "RLO", "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI",
}


def _visible_table() -> dict[int, str]:
    table = {ord(" "): SPACE, ord("\t"): TAB, ord("\n"): NEWLINE + "\n", ord("\r"): "\u240d"}
    for code in range(0x20):  # other C0 controls become the Control Pictures block
        table.setdefault(code, chr(0x2400 + code))
    table[0x7F] = "\u2421"
    for char, name in INVISIBLE_NAMES.items():
        table[ord(char)] = "\u2423" if char == "\u00a0" else f"\u27e8{name}\u27e9"
    return table


_VISIBLE = _visible_table()


def visible(text: str) -> str:
    """`text` with whitespace and invisible characters made visible (newlines still break lines).

    >>> visible("a b\\tc\\n")
    'a·b→c↵\\n'
    """
    return text.translate(_VISIBLE)


def hex_bytes(data: bytes) -> str:
    """'E0 A4' for b'\\xe0\\xa4'."""
    return data.hex(" ").upper()


def split_valid(data: bytes) -> list[tuple[bool, bytes]]:
    """Runs of (is_valid_utf8, bytes): partial characters and invalid bytes come out as their own runs.

    >>> split_valid(b"ab\\xe0\\xa4")
    [(True, b'ab'), (False, b'\\xe0\\xa4')]
    """
    text = data.decode("utf-8", errors="surrogateescape")  # bad bytes become U+DC80..U+DCFF
    runs = [(not bad, "".join(chars).encode("utf-8", errors="surrogateescape"))
            for bad, chars in groupby(text, key=lambda char: "\udc80" <= char <= "\udcff")]
    return runs


def token_text(data: bytes, isolate_hex: bool = False) -> str:
    """The token as shown in the token view: visible whitespace, hex like `<E0 A4>` for partial bytes.

    With `isolate_hex` each hex group is a left-to-right isolate (U+2066 ... U+2069): inside an
    Arabic or Hebrew word the byte pieces of its letters then follow the word's direction, one
    token after another, instead of running together left to right.

    >>> token_text(b" cat")
    '·cat'
    >>> token_text(b"\\xe0\\xa4")
    '<E0 A4>'
    """
    try:
        return visible(data.decode("utf-8"))
    except UnicodeDecodeError:
        left, right = ("\u2066", "\u2069") if isolate_hex else ("", "")
        return "".join(visible(part.decode("utf-8")) if ok else f"{left}<{hex_bytes(part)}>{right}"
                       for ok, part in split_valid(data))


def shown_text(data: bytes, alone: bool = False) -> str:
    """A token on one line, as tables and lists show it: `·the`, `↵`, `<E0 A4>` (the token view
    keeps a real line break after `↵`; a table cell would cut the text there). `alone`: in a cell
    of its own, a leading combining mark on a dotted circle (see standalone_text), else it is
    drawn onto the cell's left edge and cut."""
    return (standalone_text(data) if alone else token_text(data)).replace("\n", "")


def escaped(data: bytes) -> str:
    """The token as a string literal with escapes (`\\n`, `\\u200b`, `\\xe0`), for the details panel."""
    parts = []
    for ok, part in split_valid(data):
        if ok:
            parts.extend(char if char.isprintable() and char not in INVISIBLE_NAMES and char != '"'
                         else char.encode("unicode_escape").decode("ascii") if char != '"' else '\\"'
                         for char in part.decode("utf-8"))
        else:
            parts.extend(f"\\x{byte:02x}" for byte in part)
    return '"' + "".join(parts) + '"'


def describe_char(char: str) -> str:
    """'U+0928 DEVANAGARI LETTER NA' (or the code point alone for unnamed characters)."""
    return f"U+{ord(char):04X} {unicodedata.name(char, '')}".rstrip()


def standalone_text(data: bytes) -> str:
    """`token_text` for a token shown on its own: a leading combining mark gets a dotted circle (◌्)."""
    shown = token_text(data)
    return "\u25cc" + shown if shown and unicodedata.category(shown[0]).startswith("M") else shown
