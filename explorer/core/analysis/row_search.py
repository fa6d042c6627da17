"""Searching 200,000 short strings (a vocabulary's tokens) with one regex, fast, and never for ever.

Calling `search` once per string costs ~70 ms for o200k_base in call overhead alone, so sparse
patterns scan one joined string (`RegexIndex`), and dense ones go row by row in slices that let the
window's thread take the interpreter lock between them (`rows_searched`).

A regex typed into the filter can backtrack without end: `(a|aa)+x` takes seconds on one token of
60 letters, and the stdlib `re` does the same with `(.*.*)*x` (so only `regex` runs it, whose
optimisations spare many such patterns). `RegexIndex.check_tame` runs a pattern that
`may_backtrack` once over the joined rows with a timeout before any search without one, and lets
go of the interpreter lock while it does.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate, compress

import regex

_SEARCH_SLICE = 4096
SEARCH_SECONDS = 2.0  # a filter regex still searching after this long is refused


class SearchTimeoutError(Exception):
    """The regex took longer than SEARCH_SECONDS on the rows."""


def may_backtrack(pattern: str) -> bool:
    """Whether a pattern may backtrack for long: a repeated group (`(a|aa)+`) or three repetitions
    (`.*.*.*`) can take time exponential or cubic in a token's length. Others need no trial run
    (one costs up to a second for a pattern matching everywhere, such as `.`)."""
    return bool(_REPEATED_GROUP.search(pattern)) or len(_REPETITION.findall(pattern)) >= 3


_REPEATED_GROUP = re.compile(r"\)[*+?{]")
_REPETITION = re.compile(r"[*+}]")


class RegexIndex:
    """Runs a regex over every row at the cost of one pass over one string, when matches are sparse.

    Calling `search` 200,000 times costs ~40 ms in call overhead alone. Instead the rows are
    joined with newlines and searched once in MULTILINE mode, where `^` and `$` match at row
    edges exactly as they do at a lone row's edges. Each row a match touches is then checked on
    its own, so the answer is exactly "rows where pattern.search(row) matches". Rows that
    contain a newline are left out of the joined text and checked one by one. Patterns whose
    meaning could change across a row edge (lookaround, \\A, \\Z, inline flags turned off)
    and patterns that match most rows fall back to searching every row.
    """

    _UNSAFE = ("(?=", "(?!", "(?<", "(?-", "(?^", "\\A", "\\Z", "\\z", "\\G")
    _DENSE = 0.1  # past this share of matching rows, row-by-row search is cheaper

    def __init__(self, strings: Sequence[str]) -> None:
        self.strings = strings
        self.multiline_rows = [row for row, text in enumerate(strings) if "\n" in text]
        skip = set(self.multiline_rows)
        parts = ["" if row in skip else text for row, text in enumerate(strings)]
        self.joined = "\n".join(parts)
        self.starts = list(accumulate((len(part) + 1 for part in parts[:-1]), initial=0))

    def check_tame(self, pattern: regex.Pattern[str]) -> None:
        """Raise SearchTimeoutError if `pattern` backtracks for over SEARCH_SECONDS on these rows.

        One pass over the joined rows tries it where a row-by-row search starts, with more text
        after each (but not inside a match that runs on past a row's end), so a pattern that
        passes does not stall a later search. A
        pattern whose meaning changes at a row's edge (`_UNSAFE`: `\\A(a|aa)+x` tries only
        the first row of the joined text) is tried row by row instead, a timeout on each call:
        about a second for 200,000 rows."""
        if not may_backtrack(pattern.pattern):
            return
        seconds = SEARCH_SECONDS
        try:
            if not self._is_unsafe(pattern):
                regex.compile(pattern.pattern, pattern.flags | regex.MULTILINE).findall(
                    self.joined, concurrent=True, timeout=seconds)
                return
            deadline = time.monotonic() + seconds
            for text in self.strings:
                pattern.search(text, concurrent=True, timeout=max(deadline - time.monotonic(), 1e-3))
        except TimeoutError:
            raise SearchTimeoutError(f"the regex was still searching after {seconds:g} s") from None

    def _is_unsafe(self, pattern: regex.Pattern[str]) -> bool:
        return any(marker in pattern.pattern for marker in self._UNSAFE)

    def rows_matching(self, pattern: regex.Pattern[str]) -> list[int]:
        strings, rows = self.strings, len(self.strings)
        if self._is_unsafe(pattern) or self._looks_dense(pattern):
            return rows_searched(pattern, strings)
        joined_search = regex.compile(pattern.pattern, pattern.flags | regex.MULTILINE).search
        skip = set(self.multiline_rows)
        hits: list[int] = []
        position = row = steps = 0
        while row < rows:
            match = joined_search(self.joined, position, concurrent=True)
            if match is None:
                break
            first = bisect_right(self.starts, match.start()) - 1
            last = bisect_right(self.starts, match.end()) - 1 if match.end() > match.start() else first
            hits.extend(r for r in range(first, last + 1) if r not in skip and pattern.search(strings[r]))
            row, steps = last + 1, steps + 1
            if steps > 500 and steps > self._DENSE * row:
                hits.extend(rows_searched(pattern, strings, row))
                break
            position = self.starts[row] if row < rows else len(self.joined)
        hits.extend(r for r in self.multiline_rows if pattern.search(strings[r]))
        return sorted(set(hits))

    def _looks_dense(self, pattern: regex.Pattern[str]) -> bool:
        """Whether the pattern matches more than _DENSE of a sample of 1,000 rows spread over the table."""
        sample = self.strings[:: max(1, len(self.strings) // 1000)]
        return sum(map(bool, map(pattern.search, sample))) > self._DENSE * len(sample)


def rows_searched(pattern: regex.Pattern[str], strings: Sequence[str], first: int = 0) -> list[int]:
    """Rows from `first` on where `pattern.search` matches, a slice at a time.

    One C-level pass over 200,000 rows holds the interpreter lock for its whole 70 ms; between
    slices of 4,096 the window's thread can take it.
    """
    hits: list[int] = []
    for start in range(first, len(strings), _SEARCH_SLICE):
        hits.extend(compress(range(start, start + _SEARCH_SLICE), map(pattern.search, strings[start : start + _SEARCH_SLICE])))
    return hits
