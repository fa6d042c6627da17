"""Comparing how several pre-tokenizer patterns cut the same text, and which tokens sit in each chunk.

A boundary is a character offset where one chunk ends and the next begins. Where two patterns
disagree (GPT-2 keeps `'S` apart from `HOW'S`, GPT-4 does not), some boundary is present in one
and missing in another: those are the differences the Chunks pane highlights.
"""

from __future__ import annotations

from collections.abc import Sequence
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property, reduce

from explorer.core.errors import PatternError, PatternTimeoutError
from explorer.core.pretokenization.pretokenize import Chunk, Pretokenizer, natural_reference
from explorer.core.pretokenization.unicode_classes import REFERENCES, Disagreement, Reference, disagreements
from explorer.core.sources.tokenizer import Token


def boundaries(chunks: Sequence[Chunk]) -> frozenset[int]:
    """Every offset where a chunk starts or ends, the text's two ends included."""
    return frozenset(c.start for c in chunks) | frozenset(c.end for c in chunks)


@dataclass(frozen=True)
class Comparison:
    """Boundaries of each pattern, and the ones that not every pattern has."""

    boundaries: tuple[frozenset[int], ...]
    shared: frozenset[int]  # boundaries every pattern has

    @cached_property
    def _differing(self) -> tuple[frozenset[int], ...]:
        return tuple(own - self.shared for own in self.boundaries)

    @cached_property
    def _union(self) -> list[int]:
        """Every boundary of any pattern, sorted (to ask "is there one inside this span?")."""
        return sorted(reduce(frozenset.union, self.boundaries, frozenset()))

    def differing(self, pattern: int) -> frozenset[int]:
        """Boundaries of `pattern` that some other pattern lacks."""
        return self._differing[pattern]

    @property
    def all_differing(self) -> frozenset[int]:
        """Offsets where the patterns disagree: a boundary in some but not all."""
        return frozenset(self._union) - self.shared

    def edges(self, pattern: int, chunk: Chunk) -> tuple[bool, bool]:
        """Whether the chunk's start and end are boundaries other patterns do not have."""
        differing = self._differing[pattern]
        return chunk.start in differing, chunk.end in differing

    def same_chunk_everywhere(self, pattern: int, chunk: Chunk) -> bool:
        """True if every pattern has this exact chunk: both ends shared and nothing cuts it inside."""
        if chunk.start not in self.shared or chunk.end not in self.shared:
            return False
        inside = bisect_right(self._union, chunk.start)
        return inside >= len(self._union) or self._union[inside] >= chunk.end


def compare(chunk_lists: Sequence[Sequence[Chunk]]) -> Comparison:
    """Compare the chunks of several patterns on the same text.

    >>> from explorer.core.pretokenization.pretokenize import Pretokenizer
    >>> text = "HOW'S"
    >>> comparison = compare([Pretokenizer(p).chunks(text) for p in ("gpt2", "cl100k")])
    >>> sorted(comparison.all_differing)
    [4]
    """
    sets = tuple(boundaries(chunks) for chunks in chunk_lists)
    shared = reduce(frozenset.intersection, sets) if sets else frozenset()
    return Comparison(sets, shared)


@dataclass(frozen=True, slots=True)
class TokenPiece:
    """The part of one token inside one chunk, in character positions of the text.

    Positions are fractional where a token cuts a character: a token holding the first two
    of न's three bytes ends 2/3 of the way through it.
    """

    token_index: int
    token_id: int
    start: float
    end: float
    crosses_start: bool  # the token began in an earlier chunk
    crosses_end: bool  # the token goes on into a later chunk
    cuts_start: bool  # begins inside a character
    cuts_end: bool  # ends inside a character


def byte_positions(text: str) -> list[float]:
    """For every byte offset of the UTF-8 text (and its end), the character position it falls at.

    A byte inside a character gets a fraction: the second byte of न at character 3 is 3 + 1/3.

    >>> byte_positions("aन")
    [0.0, 1.0, 1.3333333333333333, 1.6666666666666665, 2.0]
    """
    if text.isascii():
        return [float(i) for i in range(len(text) + 1)]
    positions: list[float] = []
    for index, char in enumerate(text):
        size = len(char.encode("utf-8", errors="surrogatepass"))
        positions.extend(index + k / size for k in range(size))
    positions.append(float(len(text)))
    return positions


def tokens_by_chunk(text: str, chunks: Sequence[Chunk], tokens: Sequence[Token]) -> list[list[TokenPiece]]:
    """For each chunk, the pieces of the tokens inside it, clipped to the chunk.

    A tokenizer's own pattern never lets a token cross a chunk; another pattern may, and the
    piece then says so (`crosses_start`/`crosses_end`). Returns empty lists if the tokens' bytes
    do not spell the text (a tokenizer that normalizes text).
    """
    positions = byte_positions(text)
    if not tokens or tokens[-1].byte_end != len(positions) - 1:
        return [[] for _ in chunks]
    out: list[list[TokenPiece]] = []
    first = 0  # the first token that may still reach the current chunk
    for chunk in chunks:
        pieces: list[TokenPiece] = []
        while first < len(tokens) and positions[tokens[first].byte_end] <= chunk.start:
            first += 1
        index = first
        while index < len(tokens) and positions[tokens[index].byte_start] < chunk.end:
            token = tokens[index]
            start, end = positions[token.byte_start], positions[token.byte_end]
            pieces.append(TokenPiece(index, token.id, max(start, chunk.start), min(end, chunk.end),
                                     start < chunk.start, end > chunk.end, token.cuts_start, token.cuts_end))
            index += 1
        out.append(pieces)
    return out


def crossing_tokens(pieces_by_chunk: Sequence[Sequence[TokenPiece]]) -> int:
    """How many tokens cross a chunk boundary (never for the tokenizer's own pattern)."""
    return len({p.token_index for pieces in pieces_by_chunk for p in pieces if p.crosses_end})


@dataclass(frozen=True, slots=True)
class PatternRun:
    """The chunks of one pattern on one text, or why there are none (for views that must not raise)."""

    pattern: str
    text: str
    chunks: tuple[Chunk, ...] = ()
    labels: tuple[str, ...] = ()  # a name for each top-level alternative
    sources: tuple[str, ...] = ()  # each alternative's regex
    error: str = ""
    position: int | None = None  # where in the pattern the error is, if known
    timed_out: bool = False
    reference: Reference = "tokenizers"  # whose Unicode tables made the chunks
    disagreements: tuple[Disagreement, ...] = ()  # characters tiktoken and tokenizers classify apart
    other_chunks: tuple[Chunk, ...] | None = None  # the other library's chunks, where they differ

    @property
    def ok(self) -> bool:
        return not self.error


def run_pattern(pattern: str, text: str, reference: Reference | None = None) -> PatternRun:
    """Chunk `text` with `pattern` (a name or a regex); errors and timeouts become a PatternRun too.

    The chunks follow `reference`'s Unicode tables (by default tiktoken's for OpenAI's patterns,
    tokenizers' for any other); where the two libraries classify a character of the text
    differently, the run lists it, and the other library's chunks if they differ.

    >>> run_pattern("gpt2", "hi there").labels[:2]
    ('contraction', 'letters')
    >>> run = run_pattern("(a", "aaa")
    >>> run.ok, run.position
    (False, 2)
    """
    reference = reference or natural_reference(pattern)
    try:
        pretokenizer = Pretokenizer(pattern, reference)
        chunks = pretokenizer.chunks(text)
        apart = tuple(disagreements(text, pretokenizer.classes))
        other = None
        if apart:
            other_reference = next(r for r in REFERENCES if r != reference)
            other_chunks = Pretokenizer(pattern, other_reference).chunks(text)
            other = tuple(other_chunks) if boundaries(other_chunks) != boundaries(chunks) else None
    except PatternTimeoutError as exc:
        return PatternRun(pattern, text, error=exc.message, timed_out=True, reference=reference)
    except PatternError as exc:
        return PatternRun(pattern, text, error=exc.message, position=exc.position, reference=reference)
    return PatternRun(pattern, text, tuple(chunks), tuple(pretokenizer.labels), tuple(pretokenizer.alternatives),
                      reference=reference, disagreements=apart, other_chunks=other)
