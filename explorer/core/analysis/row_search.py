"""Searching 200,000 short strings (a vocabulary's tokens) with one regex, fast.

Calling `search` once per string costs ~70 ms for o200k_base in call overhead alone, so: the
stdlib `re` runs the pattern when it means the same there (twice as fast, `stdlib_spelling`),
sparse patterns scan one joined string (`RegexIndex`), and dense ones go row by row in slices
that let the window's thread take the interpreter lock between them (`rows_searched`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate, compress
from typing import Union

import regex

Searcher = Union["re.Pattern[str]", "regex.Pattern[str]"]  # a compiled pattern of either engine
_SEARCH_SLICE = 4096


def fastest(pattern: regex.Pattern[str]) -> Searcher:
    """The same pattern (compiled without flags), by the stdlib `re` when it means the same there."""
    spelled = stdlib_spelling(pattern.pattern)
    if spelled is not None:
        try:
            return re.compile(spelled)
        except re.error:
            pass
    return pattern


# `regex`'s \s: Unicode White_Space (the stdlib's \s also takes U+001C-U+001F). A test checks it.
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_SAME_ESCAPES = frozenset("ntrfv0123456789")  # escapes with one meaning in both engines, besides punctuation


def stdlib_spelling(pattern: str) -> str | None:
    r"""The pattern for the stdlib `re`, when every construct in it means the same there as in `regex`.

    The stdlib runs a search in half the time, which matters for a regex tried on 200,000 rows.
    Literals, `.`, `^`, `$`, classes of literals and ranges, groups `( )` and `(?: )`,
    quantifiers and alternation mean the same in both; `\s` is spelt out (the engines disagree
    on four control characters); other letter escapes (\w, \d, \b, \p...), flags and every
    other `(?` construct differ somewhere, and the pattern stays with `regex` (None).

    >>> stdlib_spelling(r"^\s+the$"), stdlib_spelling(r"\w+")
    ('^[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+the$', None)
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            following = pattern[i + 1 : i + 2]
            if following == "s":
                out.append(WHITE_SPACE if in_class else f"[{WHITE_SPACE}]")
            elif following == "S" and not in_class:
                out.append(f"[^{WHITE_SPACE}]")
            elif following and (following in _SAME_ESCAPES or not following.isalnum()) and following.isascii():
                out.append(char + following)
            else:
                return None
            i += 2
            continue
        if in_class:
            if char == "[" or pattern.startswith(("--", "&&", "||", "~~"), i):
                return None  # nested sets and set operations are `regex`'s own
            in_class = char != "]"
        elif char == "[":
            in_class = True
            out.append(pattern[i : i + 2] if pattern.startswith("[^", i) else char)
            i += len(out[-1])
            if pattern.startswith("]", i):  # a leading ] is a literal in both
                out.append("\\]")
                i += 1
            continue
        elif char == "(" and pattern.startswith("(?", i) and not pattern.startswith("(?:", i):
            return None
        elif char == "{" and pattern.startswith(("{e", "{i", "{d", "{s"), i):
            return None  # fuzzy matching
        out.append(char)
        i += 1
    return None if in_class else "".join(out)


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

    def rows_matching(self, pattern: Searcher) -> list[int]:
        strings, rows = self.strings, len(self.strings)
        if any(marker in pattern.pattern for marker in self._UNSAFE) or self._looks_dense(pattern):
            return rows_searched(pattern, strings)
        engine = re if isinstance(pattern, re.Pattern) else regex
        joined_search = engine.compile(pattern.pattern, pattern.flags | re.MULTILINE).search
        skip = set(self.multiline_rows)
        hits: list[int] = []
        position = row = steps = 0
        while row < rows:
            match = joined_search(self.joined, position)
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

    def _looks_dense(self, pattern: Searcher) -> bool:
        """Whether the pattern matches more than _DENSE of a sample of 1,000 rows spread over the table."""
        sample = self.strings[:: max(1, len(self.strings) // 1000)]
        return sum(map(bool, map(pattern.search, sample))) > self._DENSE * len(sample)


def rows_searched(pattern: Searcher, strings: Sequence[str], first: int = 0) -> list[int]:
    """Rows from `first` on where `pattern.search` matches, a slice at a time.

    One C-level pass over 200,000 rows holds the interpreter lock for its whole 70 ms; between
    slices of 4,096 the window's thread can take it.
    """
    hits: list[int] = []
    for start in range(first, len(strings), _SEARCH_SLICE):
        hits.extend(compress(range(start, start + _SEARCH_SLICE), map(pattern.search, strings[start : start + _SEARCH_SLICE])))
    return hits
