"""Seeded corpora for the tests: English prose, Python-like code and multilingual text of any size.

A fresh clone has no ../shared corpora (only the benchmarks use those), so the parity tests make
their own text here. Words come from Zipf-distributed lexicons (thousands of distinct words, a few
very frequent ones), so BPE meets real ties and real merges; lines carry the edges real text has:
CRLF, tabs, long runs of spaces, digits, contractions, combining marks, emoji, seven scripts.
Only `random.Random.random()` is drawn and only lists are iterated, so the text is the same on
every machine and Python version. A corpus of one size is a prefix of a bigger one.
"""

from __future__ import annotations

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
    return list(_lines(kind, size, seed))  # a copy: the cached lines stay as made


def corpus_text(kind: str, size: int, seed: int = 0) -> str:
    """One text of about `size` bytes: long enough to be encoded in several windows."""
    return "".join(_lines(kind, size, seed))


@cache
def _lines(kind: str, size: int, seed: int) -> tuple[str, ...]:
    lines, total = [], 0
    for line in GENERATORS[kind](Source(seed)):
        total += len(line.encode())
        if total > size:
            break
        lines.append(line)
    return tuple(lines)
