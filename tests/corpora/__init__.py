"""Seeded corpora for the tests: English prose, Python-like code and multilingual text of any size.

A fresh clone has no big corpora beside it (only the benchmarks use those), so the parity tests make
their own text here. Words come from Zipf-distributed lexicons (thousands of distinct words, a few
very frequent ones), so BPE meets real ties and real merges; lines carry the edges real text has:
CRLF, tabs, long runs of spaces, digits, contractions, combining marks, emoji, seven scripts.
Only `random.Random.random()` is drawn and only lists are iterated, so the text is the same on
every machine and Python version. A corpus of one size is a prefix of a bigger one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator
from functools import cache

from tests.corpora.multilingual import multi_lines
from tests.corpora.prose import prose_lines
from tests.corpora.source_code import code_lines
from tests.corpora.words import Source

GENERATORS: dict[str, Callable[[Source], Iterator[str]]] = {
    "prose": prose_lines, "code": code_lines, "multi": multi_lines}
KINDS = tuple(GENERATORS)


def corpus_lines(kind: str, size: int, seed: int = 0) -> list[str]:
    """Lines (each with its ending) of a `kind` corpus, as many as fit in `size` bytes of UTF-8.

    >>> len("".join(corpus_lines("multi", 10_000)).encode()) <= 10_000
    True
    """
    return _made(kind, seed).first(size)


def corpus_text(kind: str, size: int, seed: int = 0) -> str:
    """One text of about `size` bytes: long enough to be encoded in several windows."""
    return "".join(_made(kind, seed).first(size))


class _Made:
    """The lines of one corpus made so far: every size is served from one stream, as a prefix."""

    def __init__(self, kind: str, seed: int) -> None:
        self._more = GENERATORS[kind](Source(seed))
        self._lines: list[str] = []
        self._ends = [0]  # UTF-8 bytes up to the end of each line

    def first(self, size: int) -> list[str]:
        while self._ends[-1] <= size:
            line = next(self._more)
            self._lines.append(line)
            self._ends.append(self._ends[-1] + len(line.encode()))
        return self._lines[: bisect_right(self._ends, size) - 1]  # a copy: the made lines stay as made


@cache
def _made(kind: str, seed: int) -> _Made:
    return _Made(kind, seed)
