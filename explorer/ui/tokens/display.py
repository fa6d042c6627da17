"""The token view's text: each token's display string and where it sits, in Qt's UTF-16 units.

Qt counts positions in UTF-16 code units, Python in code points; an emoji is 2 of one and 1 of
the other. A token's display string never changes, so it is worked out once per id and kept in
numpy columns indexed by id: a piece of 3,000 tokens then costs a few vector operations and one
join, which keeps a worker building the view of a 1 MB text from holding the interpreter lock
for long. No Qt here.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from explorer.core.algorithms.incremental import CUTS_END, CUTS_START, unseen_ids
from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.text.bidi import ZWJ, joins_backward, joins_forward
from explorer.core.text.chars import glyph_alone
from explorer.core.text.render import token_text

LONG_LINE = 3000  # display characters before a forced line break (Qt lays out huge lines slowly)
SUBSCRIPT = str.maketrans("0123456789", "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089")
CAPTION_JOINER = "\u2060"  # keeps a split character's caption on the line of its last byte piece
LINE_BREAK = "\u200b"  # where a token's display may start a line (wrapping.BREAK; no Qt import here)


def headline(figure: str) -> str:
    """`figure` ("27 tokens") as the large bold headline of a summary line, the number a speaker points at."""
    return f"<span style='font-size:x-large'><b>{figure}</b></span>"


def subscript(token_id: int) -> str:
    """'15496' in subscript digits: the id written small under the token's text line."""
    return str(token_id).translate(SUBSCRIPT)


def split_captions(text: str, starts: np.ndarray, ends: np.ndarray, flags: np.ndarray) -> dict[int, str]:
    """{token index: the character it finishes} for tokens that end a character split across
    tokens (an emoji's last byte pieces): the view shows the glyph right after its hex pieces.

    >>> split_captions("é", np.array([0, 0]), np.array([1, 1]), np.array([CUTS_END, CUTS_START]))
    {1: 'é'}
    """
    finishing = np.flatnonzero((flags & CUTS_START) != 0)
    if not len(finishing):
        return {}
    # (A token that also ends inside the same character leaves the finishing to the next one.)
    continues = ((flags[finishing] & CUTS_END) != 0) & (ends[finishing] - 1 == starts[finishing])
    return {int(i): glyph_alone(text[int(starts[i])]) for i in finishing[~continues].tolist() if int(starts[i]) < len(text)}


def glued(text: str, starts: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Indices of the tokens a line must not break before: a character's later byte pieces (its
    glyph spans them all, on one line) and the first piece of a combining mark or vowel sign (a
    line starting with it would show the mark cut from the letter it sits on). Python work only
    for the tokens that start a split character.

    >>> glued("ा", np.array([0, 0]), np.array([CUTS_END, CUTS_START])).tolist()
    [0, 1]
    """
    inside = (flags & CUTS_START) != 0
    first = np.flatnonzero(((flags & CUTS_END) != 0) & ~inside)
    first = first[starts[first] < len(text)]
    chars = "".join([text[i] for i in starts[first].tolist()])
    codes = np.frombuffer(chars.encode("utf-32-le", errors="surrogatepass"), np.uint32)
    inside[first[_is_mark(codes)]] = True
    return np.flatnonzero(inside)


def _is_mark(codes: np.ndarray) -> np.ndarray:
    """Whether each code point is a combining mark (Mn, Mc, Me), asked of unicodedata once per
    distinct one: a table of every code point took 0.1-0.14 s on the GUI thread, the first time
    a tokenizer's tokens were shown (a stall of 100 ms as a trained tokenizer arrived). A set, not
    `np.unique`: its first call imports numpy.ma, 23 ms more on the GUI thread at that moment (as
    does `np.isin` of nothing)."""
    if not len(codes):
        return np.zeros(0, np.bool_)
    distinct = set(codes.tolist())
    return np.isin(codes, [code for code in distinct if unicodedata.category(chr(code))[0] == "M"])


def utf16_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le", errors="surrogatepass")) // 2


@dataclass(frozen=True, slots=True)
class DisplayPiece:
    """The display of consecutive tokens: their text and, per token, start (relative) and painted length."""

    text: str
    starts: np.ndarray  # UTF-16 offsets from the piece's start
    painted: np.ndarray  # UTF-16 length to colour (a line break after the token is left white)
    length: int  # UTF-16 length of `text`


class DisplayBuilder:
    """Builds display pieces for token ids in text mode or id mode, remembering the current line length.

    Line breaks: after a token that shows a newline (`↵`), after one that ends in a carriage
    return not followed by a newline (`␍`, old Mac text), and every LONG_LINE characters of a
    line without either (minified JSON), at a token boundary.
    """

    def __init__(self, tokenizer: Tokenizer, show_ids: bool, wrap: Callable[[str], str] | None = None,
                 ids_under: bool = False) -> None:
        self.tokenizer = tokenizer
        self.show_ids = show_ids
        self.ids_under = ids_under and not show_ids  # the text, each token's id in subscript after it
        self.wrap = wrap  # a token's text -> the same with the view's wrapping marks (see wrapping.py)
        size = tokenizer.vocab_size
        self.texts = np.empty(size, object)  # the display of each id seen
        self.glued_texts = np.empty(size, object)  # the same where no line may start (see glued)
        self.lengths = np.full(size, -1, np.int64)  # UTF-16 length of the display; -1: not seen yet
        self.painted = np.zeros(size, np.int64)  # how much of it is coloured (not a separator or line break)
        self.newline = np.zeros(size, bool)  # the display ends with a line break
        self.ends_cr = np.zeros(size, bool)  # the token ends with "\r" (shown as `␍`)
        self.starts_lf = np.zeros(size, bool)  # the token starts with "\n"
        # (ids under the text: the token's last letter joins one after it / its first one before it)
        self.joins_next = np.zeros(size, bool)
        self.joins_previous = np.zeros(size, bool)
        self.line = 0  # display characters since the last line break

    def _learn(self, ids: np.ndarray) -> None:
        """Work out the display of ids not seen before."""
        if len(ids) and int(ids.max()) >= len(self.lengths):
            grow = int(ids.max()) + 1 - len(self.lengths)
            self.lengths = np.concatenate([self.lengths, np.full(grow, -1, np.int64)])
            self.painted = np.concatenate([self.painted, np.zeros(grow, np.int64)])
            for name in ("newline", "ends_cr", "starts_lf", "joins_next", "joins_previous"):
                setattr(self, name, np.concatenate([getattr(self, name), np.zeros(grow, bool)]))
            for name in ("texts", "glued_texts"):
                setattr(self, name, np.concatenate([getattr(self, name), np.empty(grow, object)]))
        for token_id in unseen_ids(ids, self.lengths):
            data = self.tokenizer.token_bytes(token_id)
            if self.show_ids:
                text = f"{token_id}\n" if b"\n" in data else f"{token_id} "
            else:
                text = token_text(data, isolate_hex=True)
                if self.ids_under:
                    self.joins_next[token_id], self.joins_previous[token_id] = joins_forward(text), joins_backward(text)
                    line_break = "\n" if text.endswith("\n") else ""
                    text = text[:len(text) - len(line_break)] + subscript(token_id) + line_break
                if self.wrap is not None:
                    text = self.wrap(text)
                self.ends_cr[token_id] = data.endswith(b"\r")
                self.starts_lf[token_id] = data.startswith(b"\n")
            self.texts[token_id] = text
            self.glued_texts[token_id] = CAPTION_JOINER + text[1:] if text.startswith(LINE_BREAK) else text
            self.lengths[token_id] = utf16_length(text)
            self.newline[token_id] = text.endswith("\n")
            self.painted[token_id] = self.lengths[token_id] - (self.show_ids or text.endswith("\n"))

    def piece(self, ids: Sequence[int] | np.ndarray, following: int | None = None,
              captions: dict[int, str] | None = None, glue: np.ndarray | None = None,
              following_glued: bool = False) -> DisplayPiece:
        """The display of `ids`; `following` is the id of the token after them, if any (it decides
        whether a final carriage return ends a line or is the first half of "\\r\\n").
        `captions` ({index in ids: character}, see split_captions) go after their token's text,
        uncoloured: the character whose bytes the hex pieces before it are (text mode only).
        Before the tokens at `glue` (indices in ids, see glued) no line break is allowed, nor
        before the following token when `following_glued` (the next piece breaks the line then)."""
        ids = np.asarray(ids, np.int64)
        self._learn(ids)
        column = self.texts[ids]
        if glue is not None and len(glue):  # (the same length: a joiner where the break was)
            glue = glue[(glue >= 0) & (glue < len(ids))]
            column[glue] = self.glued_texts[ids[glue]]
        texts = column.tolist()
        lengths = self.lengths[ids]  # (indexing with an array copies: these are ours to change)
        painted = self.painted[ids]
        breaks = self.newline[ids]
        if self.ids_under and len(ids) > 1:
            self._keep_joined(ids, texts, lengths, painted)
        if captions and not self.show_ids:
            for index, char in captions.items():
                if 0 <= index < len(texts) and not breaks[index]:
                    texts[index] += CAPTION_JOINER + char
                    lengths[index] += 1 + utf16_length(char)
        next_lf = np.zeros(len(ids), bool)
        next_lf[:-1] = self.starts_lf[ids[1:]]
        if len(ids) and following is not None:
            self._learn(np.asarray([following], np.int64))
            next_lf[-1] = self.starts_lf[following]
        lone_cr = np.flatnonzero(self.ends_cr[ids] & ~next_lf)
        breaks[lone_cr] = True
        held = np.zeros(len(ids) + 1, bool)  # (a forced break never goes before a glued token either)
        if glue is not None:
            held[glue] = True
        held[-1] = following_glued
        added = np.concatenate([lone_cr, _forced_breaks(np.cumsum(lengths), breaks, self.line, held)])
        for index in added.tolist():
            texts[index] += "\n"
        lengths[added] += 1  # (a token gets at most one added break)
        breaks[added] = True
        ends = np.cumsum(lengths)
        length = int(ends[-1]) if len(ids) else 0
        self.line = _line_after(ends, breaks, self.line)
        return DisplayPiece("".join(texts), ends - lengths, painted, length)


    def text_piece(self, ids: np.ndarray, following: int | None, text: str, starts: np.ndarray, ends: np.ndarray,
                   flags: np.ndarray, next_token: tuple[int, int] | None = None) -> DisplayPiece:
        """`piece` for tokens of `text` (their character `starts`, `ends` and `flags`): split
        characters captioned after their pieces, and no line break inside one (see glued), not
        even between this piece and the next: `next_token` is the following token's (start, flags)."""
        following_glued = next_token is not None and len(
            glued(text, np.asarray([next_token[0]], np.int64), np.asarray([next_token[1]], np.uint8))) > 0
        return self.piece(ids, following, split_captions(text, starts, ends, flags), glued(text, starts, flags),
                          following_glued)

    def _keep_joined(self, ids: np.ndarray, texts: list[str], lengths: np.ndarray, painted: np.ndarray) -> None:
        """Ids under the text: an id between two Arabic letters that join would cut the word into
        isolated letters; a zero-width joiner on each side of it keeps their joined forms."""
        for index in np.flatnonzero(self.joins_next[ids[:-1]] & self.joins_previous[ids[1:]]).tolist():
            sub = subscript(int(ids[index]))
            if texts[index].endswith(sub):
                texts[index] = texts[index][:-len(sub)] + ZWJ + sub
                texts[index + 1] = ZWJ + texts[index + 1]
                lengths[index:index + 2] += 1
                painted[index:index + 2] += 1


def _forced_breaks(ends: np.ndarray, breaks: np.ndarray, carry: int, held: np.ndarray | None = None) -> np.ndarray:
    """Tokens after which a line is broken because it has run past LONG_LINE characters.

    `ends` are the display ends of the tokens, `breaks` marks tokens that end a line anyway and
    `carry` is the length of the line the first token continues; a token `held` keeps the one
    before it on its line (the break moves past it); `held` has one more entry, for the token
    after the last (held: no break after the last, the next piece breaks the line). Only lines
    that are too long are walked, one forced break at a time.
    """
    count = len(ends)
    ended = np.flatnonzero(breaks)
    before = np.searchsorted(ended, np.arange(count), side="left")  # line breaks before each token
    begins = np.concatenate([[-carry], ends[ended]])[before]  # where each token's line begins
    too_long = np.flatnonzero((ends - begins > LONG_LINE) & ~breaks)
    forced: list[int] = []
    done = -1
    for first in too_long.tolist():
        if first <= done:
            continue
        line_end = int(ended[before[first]]) if before[first] < len(ended) else count
        begin = int(begins[first])
        while True:
            over = int(np.searchsorted(ends, begin + LONG_LINE, side="right"))  # the first token past the limit
            while held is not None and over + 1 < len(held) and held[over + 1]:
                over += 1
            if over >= line_end:
                break
            forced.append(over)
            begin = int(ends[over])
        done = line_end
    return np.asarray(forced, np.int64)


def _line_after(ends: np.ndarray, breaks: np.ndarray, carry: int) -> int:
    """Display characters since the last line break, after a piece."""
    ended = np.flatnonzero(breaks)
    if not len(ends):
        return carry
    if len(ended):
        return int(ends[-1] - ends[ended[-1]])
    return carry + int(ends[-1])


def join_pieces(pieces: Sequence[DisplayPiece]) -> DisplayPiece:
    """Consecutive pieces as one (for one insertion into the view)."""
    if len(pieces) == 1:
        return pieces[0]
    offsets = np.cumsum([0, *(piece.length for piece in pieces[:-1])])
    return DisplayPiece("".join(piece.text for piece in pieces),
                        np.concatenate([piece.starts + offset for piece, offset in zip(pieces, offsets)]),
                        np.concatenate([piece.painted for piece in pieces]), sum(piece.length for piece in pieces))
