"""The writing system of a token, for filtering a vocabulary by script.

A token is classed by the scripts of its letters (Latin, Cyrillic, Han, ...); tokens without
letters are digits, whitespace or symbols, and tokens that are not whole UTF-8 characters are
"Partial UTF-8". Unicode's Script property comes from the `regex` module.
"""

from __future__ import annotations

import regex

# The scripts the app names, in the vocabulary filter and (with CJK_SCRIPTS as one group) in the
# corpus statistics; anything else with letters is "Other script".
SCRIPTS = (
    "Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic", "Syriac", "Thaana", "Devanagari", "Bengali",
    "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao",
    "Tibetan", "Myanmar", "Georgian", "Hangul", "Ethiopic", "Khmer", "Mongolian", "Hiragana", "Katakana", "Han",
    "Bopomofo",
)
CJK_SCRIPTS = ("Han", "Hiragana", "Katakana", "Bopomofo")  # shown together as "CJK" in text statistics
# Token classes besides the scripts, in the order the filter lists them.
MIXED, OTHER_SCRIPT, DIGITS, WHITESPACE, SYMBOLS, PARTIAL, SPECIAL = (
    "Mixed scripts", "Other script", "Digits", "Whitespace", "Symbols & punctuation", "Partial UTF-8", "Special")
SCRIPT_NAMES: tuple[str, ...] = (*SCRIPTS, MIXED, OTHER_SCRIPT, DIGITS, WHITESPACE, SYMBOLS, PARTIAL, SPECIAL)
_SCRIPT_INDEX = {name: index for index, name in enumerate(SCRIPT_NAMES)}
_CHAR_SCRIPT = regex.compile("|".join(f"(?P<{name}>\\p{{Script={name}}})" for name in SCRIPTS))
_LETTER = regex.compile(r"[\p{L}\p{M}]")
_NEUTRAL = regex.compile(r"\p{Script=Common}|\p{Script=Inherited}")


class ScriptClassifier:
    """The writing system of a token: one script, mixed scripts, digits, whitespace, symbols, partial.

    Characters are looked up once each and cached (a vocabulary holds a few tens of thousands
    of distinct characters), so classifying 200,000 tokens takes about a second.
    """

    def __init__(self) -> None:
        self._cache: dict[str, str | None] = {}

    def _script_of(self, char: str) -> str | None:
        try:
            return self._cache[char]
        except KeyError:
            pass
        match = _CHAR_SCRIPT.match(char)
        if match is not None:
            script: str | None = match.lastgroup
        elif _LETTER.match(char) and not _NEUTRAL.match(char):
            script = OTHER_SCRIPT
        else:
            script = None
        self._cache[char] = script
        return script

    def classify(self, data: bytes, special: bool = False) -> int:
        """Index into SCRIPT_NAMES for one token."""
        if special:
            return _SCRIPT_INDEX[SPECIAL]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return _SCRIPT_INDEX[PARTIAL]
        scripts = {self._script_of(char) for char in set(text)}
        scripts.discard(None)
        if len(scripts) == 1:
            return _SCRIPT_INDEX[scripts.pop()]  # type: ignore[index]
        if scripts:
            return _SCRIPT_INDEX[MIXED]
        if text.isspace():
            return _SCRIPT_INDEX[WHITESPACE]
        if any(char.isdigit() for char in text):
            return _SCRIPT_INDEX[DIGITS]
        return _SCRIPT_INDEX[SYMBOLS]
