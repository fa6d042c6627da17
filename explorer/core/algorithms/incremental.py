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
from explorer.core.pretokenization.pretokenize import BLOCK
from explorer.core.sources.tokenizer import SpecialMode, Token, Tokenizer

SPECIAL, CUTS_START, CUTS_END = 1, 2, 4  # bits of TokenizedText.flags
_CONTINUATION = bytes(range(0x80, 0xC0))
_WINDOW = 256  # characters re-chunked at first around an edit; doubled until old and new line up


@dataclass(frozen=True, slots=True)
class TokenBatch:
    """Tokens of whole chunks, as numpy columns with absolute offsets; `chunk_starts` are chunk boundaries."""

    ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    byte_starts: np.ndarray
    flags: np.ndarray
    chunk_starts: np.ndarray
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


class TokenFacts:
    """What spans need to know about each token, as numpy columns indexed by id: its length in
    bytes, the characters it begins (bytes that are not UTF-8 continuation bytes) and whether its
    first byte continues a character begun by the token before. Filled in as ids are first seen,
    so the spans of 356,000 tokens cost a few vector operations instead of a Python loop."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.token_bytes = tokenizer.token_bytes
        size = tokenizer.vocab_size
        self.length = np.full(size, -1, np.int64)  # -1: not seen yet
        self.chars = np.zeros(size, np.int64)
        self.continues = np.zeros(size, bool)

    def look_up(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if len(ids) and int(ids.max()) >= len(self.length):
            grow = int(ids.max()) + 1 - len(self.length)
            self.length = np.concatenate([self.length, np.full(grow, -1, np.int64)])
            self.chars = np.concatenate([self.chars, np.zeros(grow, np.int64)])
            self.continues = np.concatenate([self.continues, np.zeros(grow, bool)])
        for token_id in unseen_ids(ids, self.length):
            data = self.token_bytes(token_id)
            self.length[token_id] = len(data)
            self.chars[token_id] = len(data.translate(None, _CONTINUATION))
            self.continues[token_id] = bool(data) and 0x80 <= data[0] < 0xC0
        return self.length[ids], self.chars[ids], self.continues[ids]


def unseen_ids(ids: np.ndarray, lengths: np.ndarray) -> set[int]:
    """The distinct ids whose entry in `lengths` is still -1 (not worked out yet).

    A set, not np.unique: that imports numpy.ma on first use, 22 ms inside the first edit.
    """
    return set(ids[lengths[ids] < 0].tolist())


def _columns(facts: TokenFacts, ids: np.ndarray, char0: int, byte0: int, special: int | None = None
             ) -> tuple[dict[str, np.ndarray], int, int]:
    """The columns of tokens `ids` that start at (char0, byte0), and where they end (char, byte).

    A token whose first byte continues a character starts one character early, on the
    character it shares with the token before (which then "cuts" its end).
    """
    length, chars, continues = facts.look_up(ids)
    byte_ends = byte0 + np.cumsum(length)
    char_ends = char0 + np.cumsum(chars)
    starts = char_ends - chars - continues
    cuts_end = np.zeros(len(ids), bool)
    cuts_end[:-1] = continues[1:]
    flags = continues * np.uint8(CUTS_START) | cuts_end * np.uint8(CUTS_END)
    if special is not None:
        flags |= (ids == special) * np.uint8(SPECIAL)
    columns = {"ids": ids, "starts": starts, "ends": np.where(length > 0, np.maximum(char_ends, starts + 1), starts),
               "byte_starts": byte_ends - length, "flags": flags.astype(np.uint8)}
    char_end = int(char_ends[-1]) if len(ids) else char0
    byte_end = int(byte_ends[-1]) if len(ids) else byte0
    return columns, char_end, byte_end


def _batch(facts: TokenFacts, ids: list[int], chunk_starts: list[int] | np.ndarray, char0: int, byte0: int,
           special: int | None = None) -> TokenBatch:
    columns, char_end, byte_end = _columns(facts, np.asarray(ids, np.int64), char0, byte0, special)
    return TokenBatch(**columns, chunk_starts=np.asarray(chunk_starts, np.int64), char_end=char_end, byte_end=byte_end)


def _spanned_batch(tokens: list[Token], segment: str, char0: int, byte0: int) -> TokenBatch:
    """A batch of tokens that carry their own spans in `segment` (see Tokenizer.spells_text)."""
    def column(values: Iterator[int], dtype: type = np.int64) -> np.ndarray:
        return np.fromiter(values, dtype, len(tokens))

    flags = column((CUTS_START * t.cuts_start | CUTS_END * t.cuts_end for t in tokens), np.uint8)
    return TokenBatch(column(t.id for t in tokens), char0 + column(t.start for t in tokens),
                      char0 + column(t.end for t in tokens), byte0 + column(t.byte_start for t in tokens), flags,
                      np.asarray([char0], np.int64), char0 + len(segment),
                      byte0 + len(segment.encode("utf-8", errors="surrogatepass")))


def _column_batch(columns: tuple[np.ndarray, ...], segment: str, char0: int, byte0: int) -> TokenBatch:
    """A batch from a tokenizer's `span_columns`: ids, starts, ends, byte starts and ends, cut flags."""
    ids, starts, ends, byte_starts, _, cuts_start, cuts_end = columns
    flags = (cuts_start * np.uint8(CUTS_START) | cuts_end * np.uint8(CUTS_END)).astype(np.uint8)
    return TokenBatch(ids, char0 + starts, char0 + ends, byte0 + byte_starts, flags, np.asarray([char0], np.int64),
                      char0 + len(segment), byte0 + len(segment.encode("utf-8", errors="surrogatepass")))


def _pieces(tokenizer: Tokenizer, text: str) -> list[str]:
    pretokenizer = tokenizer.pretokenizer
    return pretokenizer.pieces(text) if pretokenizer is not None and text else ([text] if text else [])


def _by_chunk(tokenizer: Tokenizer) -> bool:
    """Whether `tokenizer` encodes one chunk at a time (`encode_chunk`: our BPE); a library
    (tiktoken, Hugging Face) is given whole texts, which it splits again itself."""
    return getattr(tokenizer, "encode_chunk", None) is not None


def _encode_pieces(tokenizer: Tokenizer, pieces: Sequence[str]) -> list[int]:
    """Ids of consecutive whole chunks. A tokenizer without `encode_chunk` encodes their joined
    text, so it must end where the text can be cut (see `_ends_cleanly`)."""
    if _by_chunk(tokenizer):
        out: list[int] = []
        for piece in pieces:
            out.extend(tokenizer.encode_chunk(piece))  # type: ignore[attr-defined]
        return out
    return tokenizer.encode("".join(pieces), "plain") if pieces else []


def _ends_cleanly(tokenizer: Tokenizer, pieces: Sequence[str], count: int) -> bool:
    """Whether `_encode_pieces` may take `pieces[:count]` without what follows. A library that
    encodes a text splits it again, and the whitespace at a text's end splits as the end: GPT-2
    reads ".\n\nThe" as ".", "\n", "\n", "The", but ".\n\n" alone as ".", "\n\n" (another id).
    So such a tokenizer's text ends only where the chunks on both sides cannot change (see
    Pretokenizer.windows), which needs the piece after it; one that encodes chunk by chunk
    ends anywhere."""
    if _by_chunk(tokenizer):
        return True
    pretokenizer = tokenizer.pretokenizer
    return pretokenizer is not None and pretokenizer.can_cut(pieces, count)


def _cleanly_ending(tokenizer: Tokenizer, windows: Iterator[list[str]]) -> Iterator[list[str]]:
    """The same pieces, in windows that end cleanly (`_ends_cleanly`): the pieces after a
    window's last clean end wait for the next window (for ever, in text with no clean end)."""
    if _by_chunk(tokenizer):
        yield from windows
        return
    held: list[str] = []
    for pieces in windows:
        first_new = len(held)
        held += pieces
        for count in range(len(held) - 1, max(first_new, 1) - 1, -1):  # (the held pieces had no clean end)
            if _ends_cleanly(tokenizer, held, count):
                yield held[:count]
                held = held[count:]
                break
    if held:
        yield held


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
    facts = TokenFacts(tokenizer)
    chars = byte_position = 0
    pretokenizer = tokenizer.pretokenizer
    for start, end, special_id in segments:
        if special_id is not None:
            batch = _batch(facts, [special_id], [start], chars, byte_position, special_id)
            chars, byte_position = batch.char_end, batch.byte_end
            yield batch
            continue
        segment = text[start:end]
        if not tokenizer.spells_text:  # spans from the tokenizer's offsets, the segment in one piece
            columns = getattr(tokenizer, "span_columns", None)  # SentencePiece: the spans as columns at once
            batch = (_column_batch(columns(segment), segment, chars, byte_position) if columns is not None and segment
                     else _spanned_batch(tokenizer.encode_tokens(segment, "plain"), segment, chars, byte_position))
            chars, byte_position = batch.char_end, batch.byte_end
            yield batch
            continue
        windows = pretokenizer.iter_pieces(segment, block) if pretokenizer is not None else iter([[segment]])
        for pieces in _cleanly_ending(tokenizer, windows):
            lengths = np.fromiter(map(len, pieces), np.int64, len(pieces))
            chunk_starts = chars + np.cumsum(lengths) - lengths
            batch = _batch(facts, _encode_pieces(tokenizer, pieces), chunk_starts, chars, byte_position)
            chars, byte_position = batch.char_end, batch.byte_end
            yield batch


COLUMNS = ("ids", "starts", "ends", "byte_starts", "flags", "chunk_starts")  # as in TokenBatch


def join_batches(batches: Sequence[TokenBatch]) -> TokenBatch:
    """Consecutive batches from `encode_stream` as one."""
    if len(batches) == 1:
        return batches[0]
    columns = [np.concatenate([getattr(batch, name) for batch in batches]) for name in COLUMNS]
    return TokenBatch(*columns, char_end=batches[-1].char_end, byte_end=batches[-1].byte_end)


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
        self._growing = {name: Growing() for name in COLUMNS}
        self._facts: TokenFacts | None = None
        self._finder = special_finder(tokenizer)
        self._longest_special = max(map(len, tokenizer.special_tokens), default=0)
        # Re-chunking near an edit is sound for windowed patterns only (see Pretokenizer.windowed):
        # a custom one could change chunks far from the edit, so it re-encodes in full.
        self.incremental = (tokenizer.pretokenizer is not None and tokenizer.pretokenizer.windowed
                            and tokenizer.spells_text)
        if text:
            self.extend_all(encode_stream(tokenizer, text, mode), text)

    # Building

    def reserve(self, tokens: int) -> None:
        """Make room for about `tokens` tokens before `extend` (a text has at most one per byte)."""
        self._growing = {name: Growing(tokens) for name in COLUMNS}

    def extend(self, batches: TokenBatch | Sequence[TokenBatch]) -> None:
        """Append batches from `encode_stream` (then `finish` sets the text they cover)."""
        batches = [batches] if isinstance(batches, TokenBatch) else list(batches)
        if not batches:
            return
        for name in COLUMNS:
            setattr(self, name, self._growing[name].append(getattr(self, name), [getattr(b, name) for b in batches]))
        self.byte_length = batches[-1].byte_end

    def finish(self, text: str) -> None:
        self.text = text
        self._growing = {name: Growing() for name in COLUMNS}  # the spare room goes with the first edit

    def extend_all(self, batches: Iterator[TokenBatch], text: str) -> None:
        self.extend(list(batches))
        self.finish(text)

    def snapshot(self) -> TokenizedText:
        """A copy that later edits do not touch (for a worker reading it while the user types).

        Columns are never changed in place (an edit builds new arrays, `extend` only writes past
        their end), so the copy shares them.
        """
        copy = object.__new__(TokenizedText)
        copy.__dict__.update(self.__dict__)
        copy._growing = {name: Growing() for name in COLUMNS}
        copy._facts = None
        return copy

    def byte_boundaries(self) -> np.ndarray:
        """Byte offsets where tokens start, and the end, in order (for `compare.boundary_differences`)."""
        return np.append(self.byte_starts, self.byte_length)

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
            if (index < len(chunk_starts) and chunk_starts[index] == old_position
                    and _ends_cleanly(self.tokenizer, pieces, count)):
                return count, old_position
        if at_end:
            return len(pieces), len(self.text)
        return None

    def _replace(self, new_text: str, pieces: list[str], s: int, old_stop: int, delta: int) -> Edit:
        first = int(np.searchsorted(self.starts, s, side="left"))
        last = int(np.searchsorted(self.starts, old_stop, side="left"))
        byte0 = int(self.byte_starts[first]) if first < len(self) else self.byte_length
        old_byte_stop = int(self.byte_starts[last]) if last < len(self) else self.byte_length
        if self._facts is None:
            self._facts = TokenFacts(self.tokenizer)
        ids = np.asarray(_encode_pieces(self.tokenizer, pieces), np.int64)
        new, _, byte_stop = _columns(self._facts, ids, s, byte0)
        byte_delta = byte_stop - old_byte_stop
        shifts = {"starts": delta, "ends": delta, "byte_starts": byte_delta}
        for name in ("ids", "starts", "ends", "byte_starts", "flags"):
            column, shift = getattr(self, name), shifts.get(name, 0)
            tail = column[last:] + shift if shift else column[last:]
            setattr(self, name, np.concatenate([column[:first], new[name].astype(column.dtype), tail]))
        chunk_first = int(np.searchsorted(self.chunk_starts, s, side="left"))
        chunk_last = int(np.searchsorted(self.chunk_starts, old_stop, side="left"))
        new_chunks = np.cumsum([s, *map(len, pieces[:-1])]) if pieces else np.zeros(0, np.int64)
        self.chunk_starts = np.concatenate([self.chunk_starts[:chunk_first], new_chunks.astype(np.int64),
                                            self.chunk_starts[chunk_last:] + delta])
        self.text = new_text
        self.byte_length += byte_delta
        return Edit(first, last - first, len(ids), delta)

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


class Growing:
    """A numpy column that appends in amortized constant time per item, by doubling a buffer.

    Appending to the array the last call returned reuses the buffer's spare room; arrays handed
    out earlier stay valid (the buffer only changes past their end, or is replaced by a copy).
    `capacity` is the room made at first: an estimate of the final size saves the copies (and
    pages never written are never allocated).
    """

    def __init__(self, capacity: int = 0) -> None:
        self.capacity = capacity
        self.buffer: np.ndarray | None = None
        self.last: np.ndarray | None = None  # what the last call returned

    def append(self, column: np.ndarray, parts: Sequence[np.ndarray]) -> np.ndarray:
        """`column` followed by `parts`."""
        size = len(column)
        needed = size + sum(map(len, parts))
        if self.buffer is None or column is not self.last or needed > len(self.buffer):
            buffer = np.empty(max(needed, self.capacity, 2 * size, 1024), column.dtype)
            buffer[:size] = column
            self.buffer = buffer
        for part in parts:
            self.buffer[size:size + len(part)] = part
            size += len(part)
        self.last = self.buffer[:size]
        return self.last


def common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, by C-speed comparisons of ever smaller slices.

    Only the part still in doubt is compared, halving it each time: about `len(a)` characters
    copied in all, so typing in a 1 MB prompt stays cheap.
    """
    low, high = 0, min(len(a), len(b))  # a[:low] == b[:low], and the answer is in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def common_suffix(a: str, b: str, prefix: int) -> int:
    """Length of the common suffix that does not overlap the first `prefix` characters."""
    low, high = 0, max(0, min(len(a), len(b)) - prefix)  # same search as `common_prefix`, from the end
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:len(a) - low] == b[len(b) - middle:len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low
