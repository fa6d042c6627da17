"""What each character of a text is: code point, Unicode name, script, and its UTF-8 bytes and bits.

The Bytes pane shows one row per character, like the UTF-8 table people learn from: the bits of
every byte split into the marker prefix (`0`, `110`, `1110`, `11110`, or `10` for a continuation
byte) and the payload bits that spell the code point. All of that arithmetic lives here.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import regex

from explorer.core.text.render import INVISIBLE_NAMES
from explorer.core.text.utf8 import byte_role, prefix_bits

# Names Unicode leaves empty (controls), so a person still sees what the character is.
_CONTROL_NAMES = {
    0x00: "NULL", 0x07: "BELL", 0x08: "BACKSPACE", 0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED",
    0x0B: "LINE TABULATION", 0x0C: "FORM FEED", 0x0D: "CARRIAGE RETURN", 0x1B: "ESCAPE", 0x7F: "DELETE",
    0x85: "NEXT LINE",
}

# Scripts tried first, most common in tokenizer work first; any other script is found through
# the `regex` module's own table (see `_all_scripts`).
COMMON_SCRIPTS = (
    "Latin", "Common", "Inherited", "Devanagari", "Han", "Hangul", "Hiragana", "Katakana", "Cyrillic",
    "Greek", "Arabic", "Hebrew", "Thai", "Bengali", "Tamil", "Telugu", "Gujarati", "Gurmukhi", "Kannada",
    "Malayalam", "Oriya", "Sinhala", "Armenian", "Georgian", "Ethiopic", "Khmer", "Lao", "Myanmar",
    "Tibetan", "Mongolian", "Bopomofo", "Thaana", "Syriac", "Yi", "Cherokee", "Canadian_Aboriginal",
    "Braille", "Runic", "Ogham",
)

# Visible stand-ins for characters that print as nothing (the house convention: · → ↵).
VISIBLE = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍", "\x0b": "␋", "\x0c": "␌", "\u00a0": "⍽",
           "\u200b": "⍽", "\ufeff": "⍽", "\u3000": "⍽"}


@dataclass(frozen=True, slots=True)
class BitGroup:
    """A run of bits in one byte: the UTF-8 marker prefix or the payload."""

    bits: str
    role: str  # "ascii", "lead2", "lead3", "lead4", "continuation" for the prefix; "payload"; "invalid"

    @property
    def is_prefix(self) -> bool:
        return self.role != "payload"


@dataclass(frozen=True, slots=True)
class CharInfo:
    """One character of a text with its place in the UTF-8 byte string."""

    index: int  # character (code point) index in the text
    char: str
    byte_start: int
    data: bytes  # its UTF-8 bytes

    @property
    def byte_end(self) -> int:
        return self.byte_start + len(self.data)

    @property
    def code_point(self) -> str:
        """'U+0928'."""
        return f"U+{ord(self.char):04X}"

    @property
    def name(self) -> str:
        return char_name(self.char)

    @property
    def script(self) -> str:
        return script_of(self.char)

    @property
    def category(self) -> str:
        return unicodedata.category(self.char)

    @property
    def hex(self) -> str:
        """'E0 A4 A8'."""
        return self.data.hex(" ").upper()

    @property
    def bits(self) -> list[list[BitGroup]]:
        """Each byte's bits split by role."""
        return [bit_groups(byte) for byte in self.data]

    @property
    def payload(self) -> str:
        """The payload bits of all bytes joined: the code point in binary."""
        return payload_bits(self.data)


def describe(text: str) -> list[CharInfo]:
    """Every character of `text` with its byte span.

    >>> [(c.char, c.code_point, c.hex) for c in describe("aन")]
    [('a', 'U+0061', '61'), ('न', 'U+0928', 'E0 A4 A8')]
    """
    out, position = [], 0
    for index, char in enumerate(text):
        data = char.encode("utf-8", errors="surrogatepass")
        out.append(CharInfo(index, char, position, data))
        position += len(data)
    return out


def char_name(char: str) -> str:
    """The Unicode name, or a descriptive stand-in for controls and unassigned code points."""
    name = unicodedata.name(char, "")
    if name:
        return name
    code = ord(char)
    category = unicodedata.category(char)
    if category == "Cc":
        return f"<control> {_CONTROL_NAMES.get(code, f'{code:04X}')}"
    if category == "Co":
        return "<private use>"
    if category == "Cs":
        return "<surrogate: not valid in UTF-8>"
    return "<unassigned>"


def bit_groups(byte: int) -> list[BitGroup]:
    """The bits of one UTF-8 byte split into marker prefix and payload.

    >>> [(g.bits, g.role) for g in bit_groups(0xE0)]
    [('1110', 'lead3'), ('0000', 'payload')]
    """
    bits = f"{byte:08b}"
    role = byte_role(byte)
    if role == "invalid":
        return [BitGroup(bits, "invalid")]
    prefix = prefix_bits(byte)
    return [BitGroup(bits[:prefix], role), BitGroup(bits[prefix:], "payload")]


def payload_bits(data: bytes) -> str:
    """The payload bits of a UTF-8 sequence, joined: they spell the code point in binary.

    >>> payload_bits("न".encode())  # 0x928
    '0000100100101000'
    """
    return "".join(group.bits for byte in data for group in bit_groups(byte) if group.role == "payload")


def _control_picture(code: int) -> str:
    """U+2400 block for C0 controls (␀, ␛), ␡ for DEL, a generic box for C1 controls."""
    if code < 0x20:
        return chr(0x2400 + code)
    return "␡" if code == 0x7F else "⌧"


# One table for str.translate: every control character (category Cc: U+0000-001F, U+007F-009F)
# gets a picture, and the whitespace of the house convention its symbol.
_VISIBLE_TABLE = {code: _control_picture(code) for code in (*range(0x20), *range(0x7F, 0xA0))}
_VISIBLE_TABLE.update({ord(char): symbol for char, symbol in VISIBLE.items()})


def visible(text: str) -> str:
    """`text` with whitespace shown (· space, → tab, ↵ newline), one character for one character."""
    return text.translate(_VISIBLE_TABLE)


# Characters that print as nothing on their own, by the short names people use for them (the
# no-break space has the symbol of a space, as in VISIBLE).
_INVISIBLE_NAMES = {char: name for char, name in INVISIBLE_NAMES.items() if char != "\u00a0"}


def glyph(char: str) -> str:
    """What to draw for one character standing alone: itself, a whitespace symbol, or a short
    name for an invisible one (ZWJ, VS16, TAG), so every cell of a character table shows something.

    >>> glyph("a"), glyph(" "), glyph("\u200d"), glyph("\ufe0f")
    ('a', '·', 'ZWJ', 'VS16')
    """
    if char in _INVISIBLE_NAMES:
        return _INVISIBLE_NAMES[char]
    code = ord(char)
    if 0xFE00 <= code <= 0xFE0F:
        return f"VS{code - 0xFE00 + 1}"
    if 0xE0100 <= code <= 0xE01EF:
        return f"VS{code - 0xE0100 + 17}"
    if 0xE0000 <= code <= 0xE007F:
        return "TAG"
    shown = visible(char)
    if shown == char and unicodedata.category(char) in ("Cf", "Zl", "Zp", "Zs") and char != " ":
        return "⍽"
    return shown


def glyph_alone(char: str) -> str:
    """`glyph` for a character in a cell of its own: a combining mark sits on a dotted circle, as
    Unicode shows marks alone (alone, a Thai tone mark is drawn above nothing, cut by the cell's top).

    >>> glyph_alone("\u0e49"), glyph_alone("a")
    ('◌้', 'a')
    """
    return "\u25cc" + char if unicodedata.category(char).startswith("M") else glyph(char)


@lru_cache(maxsize=1)
def _script_patterns() -> list[tuple[str, regex.Pattern[str]]]:
    return [(name, regex.compile(rf"\p{{Script={name}}}")) for name in (*COMMON_SCRIPTS, *_other_scripts())]


def _other_scripts() -> list[str]:
    """The scripts the `regex` module knows beyond COMMON_SCRIPTS, upper case without spaces."""
    try:  # the property table is not public API; without it, rare scripts read "Unknown"
        from regex import _regex_core

        table = _regex_core.PROPERTY_NAMES[_regex_core.PROPERTIES["SCRIPT"][0]][1]
    except (ImportError, AttributeError, KeyError, IndexError, TypeError):
        return []
    known = {name.replace("_", "").upper() for name in COMMON_SCRIPTS}
    skip = known | {"UNKNOWN", "KATAKANAORHIRAGANA"}
    return sorted(value for value in table.values() if value not in skip)


@lru_cache(maxsize=4096)
def script_of(char: str) -> str:
    """The Unicode Script property: 'Devanagari', 'Hangul', 'Latin', 'Common' (punctuation, digits, emoji)...

    >>> script_of("न"), script_of("안"), script_of("🎂")
    ('Devanagari', 'Hangul', 'Common')
    """
    for name, pattern in _script_patterns():
        if pattern.match(char):
            return name.replace("_", " ") if not name.isupper() else _readable(name, char)
    return "Unknown"


def _readable(squashed: str, char: str) -> str:
    """'OLDITALIC' -> 'Old Italic', using the character's name ("OLD ITALIC LETTER A") for the spaces."""
    words = char_name(char).split()
    for n in range(1, len(words) + 1):
        if "".join(words[:n]) == squashed:
            return " ".join(words[:n]).title()
    return squashed.title()


@lru_cache(maxsize=4096)
def scripts_used_with(char: str) -> tuple[str, ...]:
    """For Common/Inherited characters, the scripts that use them (Script_Extensions), if narrower.

    >>> scripts_used_with("।")[:2]  # DEVANAGARI DANDA
    ('Devanagari', 'Bengali')
    """
    if script_of(char) not in ("Common", "Inherited"):
        return ()
    return tuple(name for name, pattern in _extension_patterns() if pattern.match(char))


@lru_cache(maxsize=1)
def _extension_patterns() -> list[tuple[str, regex.Pattern[str]]]:
    """One compiled \\p{scx=...} per script (the regex module's own cache is too small for all)."""
    return [(name.replace("_", " ") if not name.isupper() else name.title(), regex.compile(rf"\p{{scx={name}}}"))
            for name, _ in _script_patterns() if name not in ("Common", "Inherited")]


@dataclass(frozen=True, slots=True)
class TextCounts:
    """How long a text is in each unit, and what it costs against an English reference."""

    chars: int
    bytes: int
    tokens: int | None = None  # None without a tokenizer
    reference_tokens: int | None = None

    @property
    def bytes_per_token(self) -> float | None:
        return self.bytes / self.tokens if self.tokens else None

    @property
    def cost_ratio(self) -> float | None:
        """Tokens of this text per token of the reference (seed 004: Hindi 31 vs English 10 = 3.1)."""
        if self.tokens is None or not self.reference_tokens:
            return None
        return self.tokens / self.reference_tokens


def count(text: str, tokens: int | None = None, reference_tokens: int | None = None) -> TextCounts:
    """Characters (code points), UTF-8 bytes and tokens of `text`."""
    return TextCounts(len(text), len(text.encode("utf-8", errors="surrogatepass")), tokens, reference_tokens)


def tokens_of_chars(chars: list[CharInfo], spans: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """For each character, the tokens holding its bytes: (token index, how many of its bytes).

    `spans` are the tokens' (byte_start, byte_end) in order. A character split between two
    tokens lists both, which is what makes seed 000's न decode to U+FFFD token by token.

    >>> tokens_of_chars(describe("aन"), [(0, 1), (1, 3), (3, 4)])
    [[(0, 1)], [(1, 2), (2, 1)]]
    """
    out: list[list[tuple[int, int]]] = []
    first = 0
    for info in chars:
        while first < len(spans) and spans[first][1] <= info.byte_start:
            first += 1
        held, index = [], first
        while index < len(spans) and spans[index][0] < info.byte_end:
            overlap = min(spans[index][1], info.byte_end) - max(spans[index][0], info.byte_start)
            if overlap > 0:
                held.append((index, overlap))
            index += 1
        out.append(held)
    return out
