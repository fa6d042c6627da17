"""The token view's text: each token's display string and where it sits, in Qt's UTF-16 units.

Qt counts positions in UTF-16 code units, Python in code points; an emoji is 2 of one and 1 of
the other. Display strings are cached per token id (a token's bytes never change), so building
the view of a 1 MB text is a dictionary lookup per token. No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.core.render import token_text
from explorer.core.tokenizer import Tokenizer

LONG_LINE = 3000  # display characters before a forced line break (Qt lays out huge lines slowly)


def utf16_length(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF) if not text.isascii() else len(text)


@dataclass(frozen=True, slots=True)
class DisplayPiece:
    """The display of consecutive tokens: their text and, per token, start (relative) and painted length."""

    text: str
    starts: list[int]  # UTF-16 offsets from the piece's start
    painted: list[int]  # UTF-16 length to colour (a trailing separator or line break is left white)
    length: int  # UTF-16 length of `text`


class DisplayBuilder:
    """Builds display pieces for token ids in text mode or id mode, remembering the current line length."""

    def __init__(self, tokenizer: Tokenizer, show_ids: bool) -> None:
        self.tokenizer = tokenizer
        self.show_ids = show_ids
        self._cache: dict[int, tuple[str, int, int]] = {}
        self.line = 0  # display characters since the last line break

    def _entry(self, token_id: int) -> tuple[str, int, int]:
        entry = self._cache.get(token_id)
        if entry is None:
            data = self.tokenizer.token_bytes(token_id)
            if self.show_ids:
                text = f"{token_id}\n" if b"\n" in data else f"{token_id} "
                entry = (text, len(text), len(text) - 1)
            else:
                text = token_text(data)
                length = utf16_length(text)
                entry = (text, length, length - 1 if text.endswith("\n") else length)
            self._cache[token_id] = entry
        return entry

    def piece(self, ids: Sequence[int]) -> DisplayPiece:
        parts: list[str] = []
        starts: list[int] = []
        painted: list[int] = []
        position, line = 0, self.line
        entry = self._entry
        for token_id in ids:
            text, length, paint = entry(token_id)
            starts.append(position)
            painted.append(paint)
            if text.endswith("\n"):
                line = 0
            else:
                line += length
                if line > LONG_LINE:
                    text, length, line = text + "\n", length + 1, 0
            parts.append(text)
            position += length
        self.line = line
        return DisplayPiece("".join(parts), starts, painted, position)


def concat_starts(base: int, piece: DisplayPiece) -> np.ndarray:
    return np.asarray(piece.starts, np.int64) + base


def to_utf16(text: str, index: int) -> int:
    """Python index -> Qt position."""
    return index if text.isascii() else len(text[:index].encode("utf-16-le")) // 2


def from_utf16(text: str, position: int) -> int:
    """Qt position -> Python index (a position inside a surrogate pair rounds down)."""
    if text.isascii():
        return position
    low, high = 0, min(len(text), position)
    while low < high:  # largest index whose UTF-16 position is <= position
        middle = (low + high + 1) // 2
        if to_utf16(text, middle) <= position:
            low = middle
        else:
            high = middle - 1
    return low
