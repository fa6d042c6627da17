"""The prompt as the user gave it, and the editor's copy of it.

Qt's editor turns every line ending into a paragraph break, so "\\r\\n" and a lone "\\r" would
come back as "\\n", and it counts positions in UTF-16 units where Python counts code points.
`Prompt` keeps the original text (the one that is tokenized), follows the editor's edits
without losing the line endings elsewhere, and maps positions between the two. No Qt here.
"""

from __future__ import annotations

import numpy as np
import regex

from explorer.core.algorithms.incremental import common_prefix, common_suffix


def shown(text: str) -> str:
    """`text` as the editor holds it (in Python terms): every line ending is one "\\n"."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2029", "\n")


class Prompt:
    """The prompt (`text`) and the editor's copy of it (`shown`), kept in step edit by edit.

    >>> prompt = Prompt("a\\r\\nb")
    >>> prompt.follow("a\\nbc")
    True
    >>> prompt.text
    'a\\r\\nbc'
    """

    def __init__(self, text: str = "") -> None:
        self.set(text)

    def set(self, text: str) -> None:
        self.text = text
        self.shown = shown(text)
        # Where each "\r\n" starts in `text`, and each character beyond U+FFFF in `shown`.
        self._crlf, self._astral = _landmarks(text)

    @property
    def newline(self) -> str:
        """The line ending new lines typed in the editor get: the prompt's first one."""
        match = regex.search(r"\r\n|\r|\n", self.text)
        return match.group() if match is not None else "\n"

    # Edits

    def replace(self, start: int, end: int, text: str) -> str:
        """Replace characters [start, end) of `shown` by `text` (given with its own line endings);
        returns `text` as the editor shows it."""
        left, right = self.to_text(start), self.to_text(end)
        # A lone "\r" meeting a "\n" across the edit would make one line ending of two: it
        # becomes "\r\n" (still one line ending, and no longer lone).
        if self.text[:left].endswith("\r") and (text or self.text[right:]).startswith("\n"):
            start, left, text = start - 1, left - 1, "\r\n" + text
        if text.endswith("\r") and self.text[right:].startswith("\n"):
            text += "\n"
        added = shown(text)
        crlf, astral = _landmarks(text)
        self._crlf = _splice(self._crlf, left, right, len(text) - (right - left), crlf + left)
        self._astral = _splice(self._astral, start, end, len(added) - (end - start), astral + start)
        self.text = self.text[:left] + text + self.text[right:]
        self.shown = self.shown[:start] + added + self.shown[end:]
        return added

    def follow(self, new_shown: str) -> bool:
        """The editor now holds `new_shown`: apply the difference (new line breaks get `newline`).
        Returns False if nothing changed."""
        if new_shown == self.shown:
            return False
        start = common_prefix(self.shown, new_shown)
        suffix = common_suffix(self.shown, new_shown, start)
        inserted = new_shown[start:len(new_shown) - suffix]
        self.replace(start, len(self.shown) - suffix, inserted.replace("\n", self.newline))
        return True

    # Positions: in `text` (Python), in `shown` (Python) and in the editor (UTF-16)

    def to_text(self, index: int) -> int:
        """A position in `shown` -> the same place in `text` (before a "\\r\\n")."""
        return index + int(np.searchsorted(self._crlf - np.arange(len(self._crlf)), index, side="left"))

    def from_text(self, index: int) -> int:
        """A position in `text` -> `shown` (inside a "\\r\\n" rounds down)."""
        return index - int(np.searchsorted(self._crlf, index, side="left"))

    def to_editor(self, index: int) -> int:
        """A position in `text` -> the editor's (UTF-16) position."""
        shown_index = self.from_text(index)
        return shown_index + int(np.searchsorted(self._astral, shown_index, side="left"))

    def shown_index(self, position: int) -> int:
        """The editor's (UTF-16) position -> a position in `shown` (inside a surrogate pair rounds down)."""
        units = self._astral + np.arange(len(self._astral))  # where each astral character starts in UTF-16
        return position - int(np.searchsorted(units, position, side="left"))

    def from_editor(self, position: int) -> int:
        """The editor's (UTF-16) position -> a position in `text`."""
        return self.to_text(self.shown_index(position))


def _landmarks(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Where each "\\r\\n" starts in `text`, and where each character beyond U+FFFF (two UTF-16
    units) is in `shown(text)`: sorted arrays, from one pass over the code points."""
    if text.isascii():
        if "\r\n" not in text:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        codes = np.frombuffer(text.encode("ascii"), np.uint8)
    else:
        codes = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), np.uint32)
    crlf = np.flatnonzero((codes[:-1] == 13) & (codes[1:] == 10))
    astral = np.flatnonzero(codes > 0xFFFF) if codes.dtype == np.uint32 else np.zeros(0, np.int64)
    return crlf, astral - np.searchsorted(crlf, astral)  # each "\r\n" before is one character shown


def _splice(positions: np.ndarray, start: int, end: int, delta: int, added: np.ndarray) -> np.ndarray:
    """Sorted positions after [start, end) was replaced: those inside dropped, those after shifted."""
    first, last = np.searchsorted(positions, start, side="left"), np.searchsorted(positions, end, side="left")
    return np.concatenate([positions[:first], added.astype(np.int64), positions[last:] + delta])
