"""Counts for a tokenized text, and where two to four tokenizers cut the same text differently.

Boundaries are compared in bytes (a token may end inside a character), then reported as
character spans: each span runs between two boundaries that every tokenizer shares and
contains at least one boundary that some tokenizer lacks.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass


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


def boundary_differences(text: str, boundaries: Sequence[set[int]]) -> list[tuple[int, int]]:
    """Character spans where the tokenizations whose byte boundaries are given disagree.

    >>> boundary_differences("a bc", [{0, 1, 4}, {0, 1, 2, 4}])
    [(1, 4)]
    """
    if len(boundaries) < 2:
        return []
    shared = set.intersection(*boundaries)
    differing = set.union(*boundaries) - shared
    if not differing:
        return []
    offsets = char_offsets(text)
    shared_sorted = sorted(shared | {0, len(offsets) - 1})
    spans: list[tuple[int, int]] = []
    for cut in sorted(differing):
        i = bisect.bisect_right(shared_sorted, cut)
        low, high = shared_sorted[i - 1], shared_sorted[min(i, len(shared_sorted) - 1)]
        high = min(high, len(offsets) - 1)
        # A shared cut inside a character still ends the span after that character, so a
        # difference inside one emoji is that emoji, not an empty span.
        span = (offsets[low], offsets[high - 1] + 1 if high > low else offsets[high])
        if spans and span[0] <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], span[1]))
        else:
            spans.append(span)
    return spans


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
