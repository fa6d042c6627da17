"""A text and its tokens, kept in step with edits by re-encoding only the chunks around each edit.

BPE never merges across pre-tokenizer chunks, so an edit can only change the tokens of the chunks
it touches and, through the regex's look-ahead, the chunk before. `TokenizedText.edit` re-chunks
the new text from two chunks before the edit and stops at the first chunk boundary after it that
lines up with an old one: from there on, old and new text are the same and so are their tokens.
Tokens are held as columns (numpy), so shifting the tokens after an edit costs one vector add.

Big texts are encoded with `encode_stream`, a generator of `TokenBatch` records of whole chunks
that a worker runs off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import regex

from explorer.core.errors import SpecialTokenError
from explorer.core.pretokenize import BLOCK
from explorer.core.tokenizer import SpecialMode, Token, Tokenizer

SPECIAL, CUTS_START, CUTS_END = 1, 2, 4  # bits of TokenizedText.flags
_CONTINUATION = bytes(range(0x80, 0xC0))
_WINDOW = 256  # characters re-chunked at first around an edit; doubled until old and new line up


@dataclass(frozen=True, slots=True)
class TokenBatch:
    """Tokens of whole chunks, as columns with absolute offsets; `chunk_starts` are chunk boundaries."""

    ids: list[int]
    starts: list[int]
    ends: list[int]
    byte_starts: list[int]
    flags: list[int]
    chunk_starts: list[int]
    char_end: int  # where the text covered so far ends
    byte_end: int


@dataclass(frozen=True, slots=True)
class Edit:
    """What an edit changed: tokens [first, first + removed) were replaced by `inserted` new ones."""

    first: int
    removed: int
    inserted: int
    char_delta: int


def special_finder(tokenizer: Tokenizer) -> regex.Pattern[str] | None:
    tokens = sorted(tokenizer.special_tokens, key=len, reverse=True)
    return regex.compile("|".join(map(regex.escape, tokens))) if tokens else None


def effective_mode(tokenizer: Tokenizer, text: str, mode: SpecialMode) -> tuple[SpecialMode, SpecialTokenError | None]:
    """The mode the text can be encoded in: 'disallowed' with a special-token string falls back to
    'plain', with the error that says so (the view shows the plain reading and the error)."""
    if mode != "disallowed":
        return mode, None
    finder = special_finder(tokenizer)
    found = finder.search(text) if finder is not None else None
    if found is None:
        return mode, None
    return "plain", SpecialTokenError(found.group(), found.start())


class _Columns:
    """Token columns under construction (plain lists, turned into numpy arrays once)."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.byte_starts: list[int] = []
        self.flags: list[int] = []

    def add(self, ids: Sequence[int], token_bytes: object, char0: int, byte0: int, special: int | None = None) -> tuple[int, int]:
        """Append the tokens of `ids` that start at (char0, byte0); return where they end."""
        lookup = token_bytes
        datas = [lookup(i) for i in ids]  # type: ignore[operator]
        chars, position = char0, byte0
        for index, (token_id, data) in enumerate(zip(ids, datas)):
            cuts_start = bool(data) and 0x80 <= data[0] < 0xC0
            start = chars - 1 if cuts_start else chars
            chars += len(data.translate(None, _CONTINUATION))
            following = datas[index + 1] if index + 1 < len(datas) else b""
            cuts_end = bool(following) and 0x80 <= following[0] < 0xC0
            self.ids.append(token_id)
            self.starts.append(start)
            self.ends.append(max(chars, start + 1) if data else start)
            self.byte_starts.append(position)
            self.flags.append((SPECIAL if special == token_id else 0) | (CUTS_START if cuts_start else 0)
                              | (CUTS_END if cuts_end else 0))
            position += len(data)
        return chars, position


def _pieces(tokenizer: Tokenizer, text: str) -> list[str]:
    pretokenizer = tokenizer.pretokenizer
    return pretokenizer.pieces(text) if pretokenizer is not None and text else ([text] if text else [])


def _encode_pieces(tokenizer: Tokenizer, pieces: Sequence[str]) -> list[int]:
    """Ids of consecutive whole chunks (encoding chunk by chunk equals encoding their concatenation)."""
    encode_chunk = getattr(tokenizer, "encode_chunk", None)
    if encode_chunk is not None:
        out: list[int] = []
        for piece in pieces:
            out.extend(encode_chunk(piece))
        return out
    return tokenizer.encode("".join(pieces), "plain") if pieces else []


def encode_stream(tokenizer: Tokenizer, text: str, mode: SpecialMode = "plain", block: int = BLOCK
                  ) -> Iterator[TokenBatch]:
    """Encode `text` in batches of whole chunks (about `block` characters each), for workers.

    Raises SpecialTokenError in 'disallowed' mode when the text holds a special-token string.
    Joining the batches gives exactly `tokenizer.encode_tokens(text, mode)`.
    """
    finder = special_finder(tokenizer) if mode != "plain" else None
    found = list(finder.finditer(text)) if finder is not None else []
    if found and mode == "disallowed":
        raise SpecialTokenError(found[0].group(), found[0].start())
    segments: list[tuple[int, int, int | None]] = []  # (start, end, special id)
    position = 0
    for match in found:
        if match.start() > position:
            segments.append((position, match.start(), None))
        segments.append((match.start(), match.end(), tokenizer.special_tokens[match.group()]))
        position = match.end()
    if position < len(text) or not segments:
        segments.append((position, len(text), None))
    chars = byte_position = 0
    pretokenizer = tokenizer.pretokenizer
    for start, end, special_id in segments:
        columns = _Columns()
        chunk_starts: list[int] = []
        if special_id is not None:
            chunk_starts.append(start)
            chars, byte_position = columns.add([special_id], tokenizer.token_bytes, chars, byte_position, special_id)
            yield TokenBatch(columns.ids, columns.starts, columns.ends, columns.byte_starts, columns.flags,
                             chunk_starts, chars, byte_position)
            continue
        segment = text[start:end]
        windows = pretokenizer.iter_pieces(segment, block) if pretokenizer is not None else iter([[segment]])
        for pieces in windows:
            columns = _Columns()
            chunk_starts = []
            offset = chars
            for piece in pieces:
                chunk_starts.append(offset)
                offset += len(piece)
            chars, byte_position = columns.add(_encode_pieces(tokenizer, pieces), tokenizer.token_bytes,
                                               chars, byte_position)
            yield TokenBatch(columns.ids, columns.starts, columns.ends, columns.byte_starts, columns.flags,
                             chunk_starts, chars, byte_position)


class TokenizedText:
    """A text, the mode it is encoded in, and its tokens as columns (see the module docstring)."""

    def __init__(self, tokenizer: Tokenizer, text: str = "", mode: SpecialMode = "plain",
                 requested_mode: SpecialMode | None = None) -> None:
        self.tokenizer = tokenizer
        self.mode = mode  # the mode the tokens are in
        self.requested_mode = requested_mode or mode  # the user's ('disallowed' may fall back to 'plain')
        self.text = ""
        self.byte_length = 0
        self.ids = np.zeros(0, np.int64)
        self.starts = np.zeros(0, np.int64)
        self.ends = np.zeros(0, np.int64)
        self.byte_starts = np.zeros(0, np.int64)
        self.flags = np.zeros(0, np.uint8)
        self.chunk_starts = np.zeros(0, np.int64)
        self._finder = special_finder(tokenizer)
        self._longest_special = max(map(len, tokenizer.special_tokens), default=0)
        pattern = getattr(tokenizer.pretokenizer, "regex", "")
        # Look-behind would let an edit change chunks before it; such patterns re-encode in full.
        self.incremental = tokenizer.pretokenizer is not None and "(?<" not in pattern
        if text:
            self.extend_all(encode_stream(tokenizer, text, mode), text)

    # Building

    def extend(self, batch: TokenBatch) -> None:
        """Append a batch from `encode_stream` (the text itself is set by `extend_all` or `finish`)."""
        self.ids = np.concatenate([self.ids, np.asarray(batch.ids, np.int64)])
        self.starts = np.concatenate([self.starts, np.asarray(batch.starts, np.int64)])
        self.ends = np.concatenate([self.ends, np.asarray(batch.ends, np.int64)])
        self.byte_starts = np.concatenate([self.byte_starts, np.asarray(batch.byte_starts, np.int64)])
        self.flags = np.concatenate([self.flags, np.asarray(batch.flags, np.uint8)])
        self.chunk_starts = np.concatenate([self.chunk_starts, np.asarray(batch.chunk_starts, np.int64)])
        self.byte_length = batch.byte_end

    def finish(self, text: str) -> None:
        self.text = text

    def extend_all(self, batches: Iterator[TokenBatch], text: str) -> None:
        for batch in batches:
            self.extend(batch)
        self.finish(text)

    # Reading

    def __len__(self) -> int:
        return len(self.ids)

    def token(self, index: int) -> Token:
        token_id = int(self.ids[index])
        data = self.tokenizer.token_bytes(token_id)
        flags = int(self.flags[index])
        byte_start = int(self.byte_starts[index])
        return Token(token_id, data, int(self.starts[index]), int(self.ends[index]), byte_start,
                     byte_start + len(data), bool(flags & SPECIAL), bool(flags & CUTS_START), bool(flags & CUTS_END))

    def tokens(self, first: int = 0, last: int | None = None) -> list[Token]:
        return [self.token(i) for i in range(first, len(self) if last is None else last)]

    def index_at(self, char: int) -> int:
        """The token covering character `char` (the first one, where tokens share a character)."""
        index = int(np.searchsorted(self.ends, char, side="right"))
        return min(index, len(self) - 1)

    def tokens_in(self, start: int, end: int) -> range:
        """Indices of the tokens that touch characters [start, end)."""
        first = int(np.searchsorted(self.ends, start, side="right"))
        last = int(np.searchsorted(self.starts, end, side="left"))
        return range(first, max(first, last))

    # Editing

    def edit(self, new_text: str) -> Edit | None:
        """Bring the tokens in step with `new_text`; None when only a full re-encode can (the caller
        then runs `encode_stream`): no pre-tokenizer, or a special-token string near the edit."""
        old = self.text
        prefix = common_prefix(old, new_text)
        suffix = common_suffix(old, new_text, prefix)
        old_end, new_end = len(old) - suffix, len(new_text) - suffix
        delta = new_end - old_end
        if delta == 0 and old_end == prefix:
            return Edit(0, 0, 0, 0)  # nothing changed
        if not self.incremental or not len(self.chunk_starts) or self._special_near(old, new_text, prefix, old_end, new_end):
            return None
        chunk = int(np.searchsorted(self.chunk_starts, prefix, side="left"))
        s = int(self.chunk_starts[max(0, chunk - 2)])
        window = _WINDOW
        while True:
            limit = min(len(new_text), max(new_end, s) + window)
            pieces = _pieces(self.tokenizer, new_text[s:limit])
            at_end = limit == len(new_text)
            if not at_end:
                del pieces[-2:]  # the window's end may cut these two
            aligned = self._align(pieces, s, new_end, delta, at_end)
            if aligned is not None:
                break
            window *= 4
        keep, old_stop = aligned
        pieces = pieces[:keep]
        return self._replace(new_text, pieces, s, old_stop, delta)

    def _align(self, pieces: list[str], s: int, new_end: int, delta: int, at_end: bool) -> tuple[int, int] | None:
        """(pieces to keep, old char where they end) at the first boundary past the edit that is also
        an old chunk boundary; None if the window ran out first."""
        position = s
        chunk_starts = self.chunk_starts
        for count, piece in enumerate(pieces, 1):
            position += len(piece)
            if position < new_end or position <= s:
                continue
            old_position = position - delta
            if old_position == len(self.text):
                return count, old_position
            index = int(np.searchsorted(chunk_starts, old_position, side="left"))
            if index < len(chunk_starts) and chunk_starts[index] == old_position:
                return count, old_position
        if at_end:
            return len(pieces), len(self.text)
        return None

    def _replace(self, new_text: str, pieces: list[str], s: int, old_stop: int, delta: int) -> Edit:
        first = int(np.searchsorted(self.starts, s, side="left"))
        last = int(np.searchsorted(self.starts, old_stop, side="left"))
        byte0 = int(self.byte_starts[first]) if first < len(self) else self.byte_length
        old_byte_stop = int(self.byte_starts[last]) if last < len(self) else self.byte_length
        columns = _Columns()
        _, byte_stop = columns.add(_encode_pieces(self.tokenizer, pieces), self.tokenizer.token_bytes, s, byte0)
        byte_delta = byte_stop - old_byte_stop

        def splice(column: np.ndarray, new: list[int], shift: int) -> np.ndarray:
            tail = column[last:] + shift if shift else column[last:]
            return np.concatenate([column[:first], np.asarray(new, column.dtype), tail])

        self.ids = splice(self.ids, columns.ids, 0)
        self.starts = splice(self.starts, columns.starts, delta)
        self.ends = splice(self.ends, columns.ends, delta)
        self.byte_starts = splice(self.byte_starts, columns.byte_starts, byte_delta)
        self.flags = splice(self.flags, columns.flags, 0)
        chunk_first = int(np.searchsorted(self.chunk_starts, s, side="left"))
        chunk_last = int(np.searchsorted(self.chunk_starts, old_stop, side="left"))
        new_chunks = np.cumsum([s, *map(len, pieces[:-1])]) if pieces else np.zeros(0, np.int64)
        self.chunk_starts = np.concatenate([self.chunk_starts[:chunk_first], new_chunks.astype(np.int64),
                                            self.chunk_starts[chunk_last:] + delta])
        self.text = new_text
        self.byte_length += byte_delta
        return Edit(first, last - first, len(columns.ids), delta)

    def _special_near(self, old: str, new: str, start: int, old_end: int, new_end: int) -> bool:
        """True if a special-token string appears or disappears near the edit (so the mode's
        segmentation may change) or the text holds one in 'allowed' mode."""
        if self._finder is None or self.requested_mode == "plain":
            return False
        reach = self._longest_special
        before = self._finder.search(old, max(0, start - reach), min(len(old), old_end + reach))
        after = self._finder.search(new, max(0, start - reach), min(len(new), new_end + reach))
        if before is not None or after is not None:
            return True
        return self.mode == "allowed" and bool(self.flags.size) and bool((self.flags & SPECIAL).any())


def common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, by binary search over C-speed slice comparisons."""
    low, high = 0, min(len(a), len(b))
    if a[:high] == b[:high]:
        return high
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def common_suffix(a: str, b: str, prefix: int) -> int:
    """Length of the common suffix that does not overlap the first `prefix` characters."""
    low, high = 0, min(len(a), len(b)) - prefix
    if high <= 0:
        return 0
    if a[len(a) - high:] == b[len(b) - high:]:
        return high
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:] == b[len(b) - middle:]:
            low = middle
        else:
            high = middle - 1
    return low
