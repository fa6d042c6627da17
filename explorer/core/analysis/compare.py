"""Counts for a tokenized text, and where two to four tokenizers cut the same text differently.

Boundaries are compared in bytes (a token may end inside a character), then reported as
character spans: each span runs between two boundaries that every tokenizer shares and
contains at least one boundary that some tokenizer lacks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from explorer.core.algorithms.incremental import TokenizedText
from explorer.core.plural import plural
from explorer.core.sources.tokenizer import SpecialMode, Tokenizer
from explorer.core.text.utf8 import char_offsets

# Letters with their marks, digits, and inner apostrophes: "don't" is one word, "नमस्ते" too.


class TokenRates:
    """bytes/token and tokens/word, for records with `bytes`, `tokens` and `words` fields."""

    __slots__ = ()
    bytes: int
    tokens: int
    words: int

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words if self.words else 0.0


@dataclass(frozen=True, slots=True)
class Counts(TokenRates):
    """What the counts row shows for one text under one tokenizer."""

    chars: int
    bytes: int
    tokens: int
    words: int


    def summary(self) -> str:
        """'12 chars · 14 bytes · 4 tokens · 3.50 bytes/token · 3 words · 1.33 tokens/word'"""
        return (f"{plural(self.chars, 'char')} · {plural(self.bytes, 'byte')} · {plural(self.tokens, 'token')} · "
                f"{self.bytes_per_token:.2f} bytes/token · {plural(self.words, 'word')} · "
                f"{self.tokens_per_word:.2f} tokens/word")


def count_words(text: str) -> int:
    """Whitespace-separated words, as seed 000's tokens-per-word table counts them (the one
    definition every pane uses).

    >>> count_words("In 1969, 600,000,000 people watched."), count_words("日本語のテキスト")
    (5, 1)
    """
    return len(text.split())


def count(text: str, tokens: int, words: int | None = None) -> Counts:
    """Counts for `text` encoded as `tokens` tokens.

    >>> count("one egg", 2).summary()
    '7 chars · 7 bytes · 2 tokens · 3.50 bytes/token · 2 words · 1.00 tokens/word'
    """
    return Counts(len(text), len(text.encode("utf-8", errors="surrogatepass")), tokens,
                  count_words(text) if words is None else words)


def boundary_differences(text: str, boundaries: Sequence[Iterable[int]]) -> list[tuple[int, int]]:
    """Character spans where the tokenizations whose byte boundaries are given (sets, or arrays
    such as TokenizedText.byte_boundaries) disagree. In numpy: 10 MB of prose has 2.3 million
    boundaries a tokenizer, and a loop over them took 3.7 s.

    >>> boundary_differences("a bc", [{0, 1, 4}, {0, 1, 2, 4}])
    [(1, 4)]
    """
    if len(boundaries) < 2:
        return []
    cuts = [_sorted_set(np.asarray(b if isinstance(b, np.ndarray) else list(b), np.int64)) for b in boundaries]
    shared = cuts[0]
    for other in cuts[1:]:
        shared = shared[_found_in(shared, other)]
    differing = _sorted_set(np.concatenate([each[~_found_in(each, shared)] for each in cuts]))
    if not len(differing):
        return []
    offsets = char_offsets(text)  # byte -> character, and the end
    end = len(offsets) - 1
    shared = _sorted_set(np.concatenate((shared, [0, end])))
    # Each differing cut lies between two shared ones, `low` and `high`: its span runs from low's
    # character to high's. A shared cut inside a character still ends the span after that
    # character, so a difference inside one emoji is that emoji, not an empty span.
    after = np.searchsorted(shared, differing, "right")
    low, high = shared[after - 1], np.minimum(shared[np.minimum(after, len(shared) - 1)], end)
    starts = offsets[low]
    ends = np.where(high > low, offsets[np.maximum(high - 1, 0)] + 1, offsets[high])
    # Spans come in order of their starts; one that starts before all earlier ones end joins them.
    joins = np.zeros(len(starts), bool)
    joins[1:] = starts[1:] <= np.maximum.accumulate(ends)[:-1]
    first = np.flatnonzero(~joins)
    return list(zip(starts[first].tolist(), np.maximum.reduceat(ends, first).tolist()))


def _sorted_set(values: np.ndarray) -> np.ndarray:
    """`values` sorted, without repeats. (np.unique hashes int64 arrays in numpy 2.3: 1 s for
    the 2.3 million boundaries of 10 MB, against a few milliseconds to sort sorted ones.)"""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if len(values) else values


def _found_in(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Whether each of `values` is in `sorted_set`, by binary search."""
    if not len(sorted_set):
        return np.zeros(len(values), bool)
    return sorted_set[np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)] == values


@dataclass(frozen=True, slots=True)
class Comparison:
    """One tokenizer's reading of the compared text: its tokens as columns, as the Tokens pane
    holds them (a `Token` object each took 4 s and 1 GB for the 2.3 million tokens of 10 MB)."""

    tokenizer: Tokenizer
    tokens: TokenizedText
    counts: Counts


def compare(text: str, tokenizers: Sequence[Tokenizer], special: SpecialMode = "plain"
            ) -> tuple[list[Comparison], list[tuple[int, int]]]:
    """Encode `text` with each tokenizer; return each reading and the spans where boundaries differ.

    >>> from explorer.core.algorithms.bpe import BPE
    >>> readings, spans = compare("cat", [BPE([], "gpt2"), BPE([(97, 116, 256)], "gpt2")])
    >>> [r.counts.tokens for r in readings], spans
    ([3, 2], [(1, 3)])
    """
    words = count_words(text)
    readings = []
    for tokenizer in tokenizers:
        tokens = TokenizedText(tokenizer, text, special)
        readings.append(Comparison(tokenizer, tokens, count(text, len(tokens), words)))
    return readings, boundary_differences(text, [r.tokens.byte_boundaries() for r in readings])
