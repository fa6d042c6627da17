"""Encoding through a second cache above the chunk cache: one of the texts between spaces ("pieces").

Cutting a text at its spaces is C-speed (10 MB of prose in 0.08 s, where the pattern takes 0.3 s),
and prose holds few distinct pieces (222,000 in 1.3 million), so the pattern runs only over the
pieces not seen before, a few MB of a cold 10 MB and nothing of a warm one.

Why it is exact, for the patterns in PIECE_SAFE (each alternative checked; tests/core/test_piece_encoding.py
compares every one with the pattern over whole texts). A space U+0020 between two characters that are
not whitespace (a "good" space) always starts a chunk: no alternative holding a non-space character
takes a space after it (a space only ever opens a match: ` ?\\p{L}+`, `[^\\r\\n\\p{L}\\p{N}]?\\p{L}+`),
and none looks behind. So the text between two good spaces, with the space before it, is cut the
same alone as in its text: it starts at a chunk and ends at one, at a character that is not
whitespace, where the only look-ahead, `(?!\\S)` or `$` after whitespace, has nothing to look at, and
every run that could go on (`\\p{L}+`, `[\\r\\n]*`) stops at a space as at the end. The other spaces
(beside whitespace: double spaces, indentation, line ends) are written as `_MARK` first, so that
`str.split(" ")` cuts at good spaces only. A window of the text, likewise, starts at a good space
and ends before one; a segment's first piece (no space before it) and last one (the text's end
after it) go through the chunk level.

Measured (bench_tiktoken_encode, 10 MB prose, CPU time against tiktoken's in the same run): warm
1.18-1.25x where the chunk level alone gives 0.96-1.12x, but cold 0.45-0.48x against 0.75-0.85x.
A cold text's distinct pieces are 3.6 MB and 0.9 million chunks: the cold encode looks up as many
keys as the chunk level (1.3 M pieces + 0.9 M chunks against 2.2 M chunks) and then gathers each
new piece's ids from its chunks', which the pattern's 6.4 MB fewer do not pay for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache, reduce
from itertools import accumulate, chain, islice, repeat
from operator import add, iconcat
from typing import TYPE_CHECKING, NamedTuple

import regex

from explorer.core.pretokenization.pretokenize import (
    BYTE_LEVEL, CL100K, DIGITS, GPT2, LLAMA3, O200K, TEKKEN)

if TYPE_CHECKING:
    from explorer.core.algorithms.cached_encoding import CachedEncoding

# The patterns for which a good space always starts a chunk (see above). Not "none" (one chunk),
# never a user's regex: `\\w+ \\w+` joins across a space.
PIECE_SAFE = frozenset([GPT2, CL100K, O200K, LLAMA3, DIGITS, TEKKEN, BYTE_LEVEL])
PIECE_LIMIT = 1 << 19  # pieces kept (about 60 MB with their ids), then the cache starts again
_BLOCK = 1 << 15  # characters per window: 0.3 ms of lookups at a time, so the GIL is never held long
_MARK = "\x00"  # stands for a space that is not good; a window holding it goes by the chunk level


@lru_cache(maxsize=1)
def _whitespace() -> str:
    """Every character any reference's `\\s` holds (they agree with `regex`'s; see unicode_classes),
    and the ones `str.isspace` adds (U+001C-U+001F): more is safe, it only makes bigger pieces."""
    return "".join(char for char in map(chr, range(0x3001)) if char.isspace() or regex.match(r"\s", char))


@lru_cache(maxsize=1)
def _space_tables() -> tuple[frozenset[str], tuple[str, ...], re.Pattern[str], re.Pattern[str]]:
    """The whitespace as a set; its ASCII members but the space; a pattern finding the others; one
    finding the spaces beside any whitespace."""
    spaces = _whitespace()
    ascii_others = tuple(char for char in spaces if char.isascii() and char != " ")
    wide = re.escape("".join(char for char in spaces if not char.isascii()))
    every = re.escape(spaces)
    return frozenset(spaces), ascii_others, re.compile(f"[{wide}]"), re.compile(f"(?<=[{every}]) | (?=[{every}])")


def _marked(window: str) -> str:
    """`window` with every space beside whitespace written as _MARK (the same length), so that
    splitting at spaces cuts at good ones only. A few C-level passes: most windows hold double
    spaces and line ends only."""
    _, ascii_others, wide, beside = _space_tables()
    if "  " in window:  # a run of n spaces: pairs first, then the odd one after them
        window = window.replace("  ", _MARK + _MARK).replace(_MARK + " ", _MARK + _MARK)
    for char in ascii_others:
        if char in window:
            window = window.replace(char + " ", char + _MARK).replace(" " + char, _MARK + char)
    if not window.isascii() and wide.search(window):  # (rare: a no-break space, U+3000...)
        window = beside.sub(_MARK, window)
    return window


def windows(text: str, block: int | None = None) -> Iterator[PieceWindow]:
    """Consecutive slices of `text` of about `block` (_BLOCK) characters, each after the first
    starting at a good space (so each is cut into chunks alone as in the text)."""
    block = block or _BLOCK
    spaces = _space_tables()[0]
    position, size = 0, len(text)
    while size - position > block:
        cut = text.find(" ", position + block)
        while cut != -1 and (cut + 1 == size or text[cut - 1] in spaces or text[cut + 1] in spaces):
            cut = text.find(" ", cut + 1)
        if cut == -1:
            break
        yield PieceWindow(text[position:cut], position == 0, False)
        position = cut
    yield PieceWindow(text[position:], position == 0, True)


class PieceWindow(NamedTuple):
    """A window of a segment: its `first` piece has no space before it, its `last` the end after it."""

    text: str
    first: bool
    last: bool


class PieceMisses:
    """The pieces of a window that the piece cache had not seen (`keys`, and their empty lists,
    `slots`), cut into chunks (`chunks`, whose ids or empty lists are `chunk_ids`) by one call of
    the pattern. `fill` puts each piece's ids in its slot once the chunk cache's are filled."""

    def __init__(self, keys: list[str], slots: list[list[int]], chunks: list[str],
                 chunk_ids: list[Sequence[int]]) -> None:
        self.keys, self.slots, self.chunks, self.chunk_ids = keys, slots, chunks, chunk_ids

    def fill(self) -> None:
        if len(self.chunks) == len(self.keys):  # a chunk each (" the", " of")
            list(map(list.extend, self.slots, self.chunk_ids))
            return
        # Pieces end where chunks do: at the total length of the pieces (each with its space) so
        # far. So each piece's ids end where the ids of the chunk ending there do.
        flat: list[int] = reduce(iconcat, self.chunk_ids, [])
        id_ends = dict(zip(accumulate(map(len, self.chunks)), accumulate(map(len, self.chunk_ids))))
        ends = list(map(id_ends.__getitem__, accumulate(map(add, map(len, self.keys), repeat(1)))))
        list(map(list.extend, self.slots, map(flat.__getitem__, map(slice, chain((0,), ends), ends))))


def look_up(encoder: CachedEncoding, piece_window: PieceWindow, misses: list[PieceMisses]) -> list[Sequence[int]]:
    """The ids of `window`'s pieces (a new piece: an empty list, filled by its PieceMisses, added
    to `misses`), and of the chunks of its first piece (`first` window of a segment) and last
    one (`last`). The caller holds the cache lock."""
    pieces, chunks = encoder._pieces, encoder._cache
    window, first, last = piece_window
    if _MARK in window:
        return list(map(chunks.__getitem__, encoder._pretokenizer.pieces(window)))
    parts = _marked(window).split(" ")
    head = tail = ""
    if first and parts[0]:
        head = window[:len(parts[0])]
    stop = len(parts)
    if last and stop > 1:
        stop -= 1
        tail = window[len(window) - len(parts[-1]) - 1:]
    known = len(pieces)
    found = list(map(pieces.__getitem__, islice(parts, 1, stop)))
    new = len(pieces) - known
    if new:
        keys = pieces.newest(new)
        joined = " " + " ".join(keys)
        text = joined.replace(_MARK, " ") if _MARK in joined else joined
        cut = encoder._pretokenizer.pieces(text)
        slots: list[list[int]] = list(islice(reversed(pieces.values()), new))  # type: ignore[arg-type]
        misses.append(PieceMisses(keys, slots, cut, list(map(chunks.__getitem__, cut))))
    if head:
        found[:0] = map(chunks.__getitem__, encoder._pretokenizer.pieces(head))
    if tail:
        found += map(chunks.__getitem__, encoder._pretokenizer.pieces(tail))
    return found


def fill(misses: list[PieceMisses]) -> None:
    """Put the ids of the waiting windows' new pieces in their slots (chunk ids filled first)."""
    for miss in misses:
        miss.fill()
    misses.clear()
