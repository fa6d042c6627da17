"""A vocabulary as columns, for a table of 200,000 rows that filters and sorts at once.

Everything a row shows or is filtered by is computed once per tokenizer, in the background
(`build_table` is a generator of progress records): the token as shown, the text filters
search, byte length, script, merge rank and parents, audit flags, corpus counts. Filtering
is then a few vectorised comparisons plus one C-level pass of a regex over a list of strings:
tens of milliseconds for o200k_base.
"""

from __future__ import annotations

import csv
import heapq
import operator
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from typing import TYPE_CHECKING, Literal

import numpy as np
import regex

from explorer.core.errors import ExplorerError
from explorer.core.analysis.row_search import RegexIndex, SearchTimeoutError
from explorer.core.text.render import hex_bytes, shown_text, split_valid
from explorer.core.text.scripts import SCRIPT_NAMES, ScriptClassifier

if TYPE_CHECKING:
    from explorer.core.algorithms.merges import MergeForest
    from explorer.core.sources.tokenizer import Tokenizer

# Audit flags, one bit each (see explorer.core.analysis.audit for how the first four are found).
UNREACHABLE, UNDECODABLE, IMPOSSIBLE, SPECIAL, NEVER_SEEN, RARE = (1 << bit for bit in range(6))
FLAG_NAMES = {
    UNREACHABLE: "unreachable", UNDECODABLE: "undecodable alone", IMPOSSIBLE: "impossible in UTF-8",
    SPECIAL: "special", NEVER_SEEN: "never seen", RARE: "rare",
}
FLAG_HELP = {
    UNREACHABLE: "Encoding the token's own text never gives this token: a longer merge swallows it first, "
                 "or the pre-tokenizer never cuts text that way",
    UNDECODABLE: "Holds part of a UTF-8 character: decoding it alone gives \ufffd",
    IMPOSSIBLE: "Contains a byte that never occurs in UTF-8 (C0, C1, F5-FF)",
    SPECIAL: "A special (control) token, never produced from ordinary text",
    NEVER_SEEN: "Does not occur when the loaded corpus is encoded",
    RARE: "Occurs fewer times than the rarity threshold in the loaded corpus",
}
NO_VALUE = -1  # rank, parents, counts of rows that have none
_STEP = 2000  # rows per progress record: a few milliseconds of work between yields
_CACHED_MASKS = 16
_SORT_SLICE = 16_384

SortKey = Literal["id", "token", "length", "rank", "left", "right", "count", "seen", "script", "flags"]


_FROM_VISIBLE = str.maketrans({"\u00b7": " ", "\u2192": "\t", "\u21b5": "\n", "\u240d": "\r"})


def search_text(data: bytes) -> str:
    """What text and regex filters match: real whitespace, and hex for bytes that are not characters.

    >>> search_text(b" the\\n"), search_text(b"\\xe0\\xa4")
    (' the\\n', '<E0 A4>')
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(part.decode("utf-8") if ok else f"<{hex_bytes(part)}>" for ok, part in split_valid(data))


def from_visible(query: str) -> str:
    """A query typed with the visible symbols ('·the') means the characters they stand for."""
    return query.translate(_FROM_VISIBLE)


class FilterError(ExplorerError):
    """A filter the user typed that cannot be applied (a broken regex, a bad id range)."""


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a background computation over the vocabulary has got."""

    stage: str
    done: int
    total: int


@dataclass(frozen=True, slots=True)
class MergeColumns:
    """Per-row merge rank, parents and training count (NO_VALUE where a row has none)."""

    rank: np.ndarray
    left: np.ndarray
    right: np.ndarray
    count: np.ndarray | None


@dataclass(frozen=True, slots=True)
class VocabQuery:
    """One filter: every field left at its default matches everything; fields combine with AND."""

    text: str = ""
    mode: Literal["text", "regex", "id"] = "text"
    min_length: int = 0
    max_length: int = 0  # 0: no upper limit
    script: int = -1  # index into SCRIPT_NAMES, -1: any
    flags: int = 0  # rows must have all these flag bits
    exclude_flags: int = 0  # rows must have none of these


class VocabTable:
    """Per-row columns of one vocabulary (rows are the ids that exist, in id order)."""

    def __init__(self, ids: Sequence[int], data: Sequence[bytes], special_ids: set[int]) -> None:
        self.ids = np.asarray(ids, dtype=np.int64)
        self.data = list(data)
        self.rows = len(self.ids)
        self.row_of = {int(token_id): row for row, token_id in enumerate(self.ids)}
        self.visible: list[str] = []
        self.search: list[str] = []
        self.folded: list[str] = []
        self.length = np.fromiter(map(len, self.data), dtype=np.int32, count=self.rows)
        self.script = np.zeros(self.rows, dtype=np.int16)
        self.flags = np.zeros(self.rows, dtype=np.uint8)
        self.flags[[self.row_of[i] for i in special_ids if i in self.row_of]] |= SPECIAL
        self.special_ids = special_ids
        self.rank = self.left = self.right = self.count = None  # type: np.ndarray | None
        self.seen: np.ndarray | None = None
        self.audited = False  # flags from explorer.core.analysis.audit are in
        self._orders: dict[str, np.ndarray] = {}
        self._regex: RegexIndex | None = None
        self._text_masks: dict[tuple[str, str], np.ndarray] = {}  # recent text/regex results over all rows

    # Columns filled in stages

    def compute_text(self) -> Iterator[Progress]:
        """Shown text, searched text and script of every row (about a second for 200,000 rows)."""
        classify = ScriptClassifier().classify
        special = self.special_ids
        for start in range(0, self.rows, _STEP):
            for row in range(start, min(start + _STEP, self.rows)):
                data = self.data[row]
                is_special = int(self.ids[row]) in special
                if is_special:
                    text = data.decode("utf-8", errors="replace")
                    shown, searched = text, text
                else:
                    shown, searched = shown_text(data), search_text(data)
                self.visible.append(shown)
                self.search.append(searched)
                self.folded.append(searched.casefold())
                self.script[row] = classify(data, is_special)
            yield Progress("reading the vocabulary", min(start + _STEP, self.rows), self.rows)
        self._regex = RegexIndex(self.search)
        yield Progress("sorting the tokens", self.rows, self.rows)
        self._orders["token:False"] = text_order(self.folded)  # ready before anyone sorts by token

    def compute_merges(self, forest: MergeForest) -> Iterator[Progress]:
        """Merge rank, parents and training count of every row; returns MergeColumns for `set_merges`.

        Runs off the GUI thread, so it only reads the table; the caller applies the result.
        """
        rank = np.full(self.rows, NO_VALUE, dtype=np.int64)
        left, right, count = rank.copy(), rank.copy(), rank.copy()
        has_counts = bool(forest.counts)
        step = _STEP * 5
        for start in range(0, self.rows, step):
            for row in range(start, min(start + step, self.rows)):
                token_id = int(self.ids[row])
                made_by = forest.rank(token_id)
                if made_by is None:
                    continue
                rank[row] = made_by
                left[row], right[row] = forest.parents(token_id)  # type: ignore[misc]
                if has_counts:
                    count[row] = forest.count(token_id) or 0
            yield Progress("reading the merges", min(start + step, self.rows), self.rows)
        return MergeColumns(rank, left, right, count if has_counts else None)

    def set_merges(self, columns: MergeColumns | None) -> None:
        if columns is None:
            self.rank = self.left = self.right = self.count = None
        else:
            self.rank, self.left, self.right, self.count = columns.rank, columns.left, columns.right, columns.count
        for key in [key for key in self._orders if key.split(":")[0] in ("rank", "left", "right", "count")]:
            del self._orders[key]  # the token order (120 ms to redo for o200k_base) stays

    def set_audit(self, flags_by_id: dict[int, int]) -> None:
        """Merge audit flags (id -> UNREACHABLE | UNDECODABLE | ...) into the flag column."""
        keep = NEVER_SEEN | RARE | SPECIAL
        self.flags &= keep
        for token_id, bits in flags_by_id.items():
            row = self.row_of.get(token_id)
            if row is not None:
                self.flags[row] |= bits & ~(NEVER_SEEN | RARE)
        self.audited = True
        self._orders.pop("flags", None)

    def set_seen(self, counts: np.ndarray | None, rare_below: int = 10) -> None:
        """Corpus occurrence counts (indexed by id), and the never-seen and rare flags they imply."""
        self.flags &= ~np.uint8(NEVER_SEEN | RARE)
        if counts is None:
            self.seen = None
        else:
            padded = np.zeros(max(len(counts), int(self.ids.max()) + 1 if self.rows else 0), dtype=np.int64)
            padded[: len(counts)] = counts
            self.seen = padded[self.ids]
            self.apply_rare_threshold(rare_below)
        for key in ("seen", "flags"):
            self._orders.pop(key, None)

    def apply_rare_threshold(self, rare_below: int) -> None:
        if self.seen is None:
            return
        ordinary = (self.flags & SPECIAL) == 0
        self.flags &= ~np.uint8(NEVER_SEEN | RARE)
        self.flags[(self.seen == 0) & ordinary] |= NEVER_SEEN
        self.flags[(self.seen > 0) & (self.seen < rare_below) & ordinary] |= RARE
        self._orders.pop("flags", None)

    # Counts the filter menus show

    def flag_counts(self) -> dict[int, int]:
        return {bit: int(np.count_nonzero(self.flags & bit)) for bit in FLAG_NAMES}

    def script_counts(self) -> list[int]:
        return np.bincount(self.script, minlength=len(SCRIPT_NAMES)).tolist()

    # Filtering and sorting

    def needs_search(self, query: VocabQuery) -> bool:
        """Whether `matches(query)` may run a regex over every row (tens of ms: off the GUI thread)."""
        return query.mode == "regex" and bool(query.text) and (query.mode, query.text) not in self._text_masks

    @staticmethod
    def check(query: VocabQuery) -> None:
        """Raise FilterError now for a regex that cannot be compiled (before searching anywhere)."""
        if query.mode == "regex" and query.text:
            _compiled(query.text)

    def matches(self, query: VocabQuery) -> np.ndarray:
        """A boolean mask over rows; raises FilterError for a query that cannot be read."""
        mask = np.ones(self.rows, dtype=bool)
        if query.min_length:
            mask &= self.length >= query.min_length
        if query.max_length:
            mask &= self.length <= query.max_length
        if query.script >= 0:
            mask &= self.script == query.script
        if query.flags:
            mask &= (self.flags & query.flags) == query.flags
        if query.exclude_flags:
            mask &= (self.flags & query.exclude_flags) == 0
        text = query.text
        if not text:
            return mask
        if query.mode == "id":
            return mask & self._id_mask(text)
        cached = self._text_masks.get((query.mode, text))
        if cached is not None:  # the same text with other filters changed: no second search
            return mask & cached
        candidates = np.flatnonzero(mask)
        few = len(candidates) < self.rows // 4
        if query.mode == "regex":
            pattern = _compiled(text)
            try:
                self._regex_index().check_tame(pattern)
            except SearchTimeoutError as error:
                raise FilterError(f"{error}: it backtracks without end on some tokens (nested repetition "
                                  "such as (a|aa)+ does); simplify it") from None
            if few:
                hits = [row for row in candidates.tolist() if pattern.search(self.search[row])]
            else:
                hits = self._regex_index().rows_matching(pattern)
        else:
            needle = from_visible(text).casefold()
            if few:
                hits = [row for row in candidates.tolist() if needle in self.folded[row]]
            else:  # map() and compress() keep the loop over 200,000 strings in C
                hits = list(compress(range(self.rows), map(operator.contains, self.folded, repeat(needle))))
        result = np.zeros(self.rows, dtype=bool)
        result[hits] = True
        if not few:  # searched every row: worth keeping
            if len(self._text_masks) >= _CACHED_MASKS:
                del self._text_masks[next(iter(self._text_masks))]
            self._text_masks[query.mode, text] = result
        return mask & result

    def _regex_index(self) -> RegexIndex:
        if self._regex is None:
            self._regex = RegexIndex(self.search)
        return self._regex

    def _id_mask(self, text: str) -> np.ndarray:
        """Ids and ranges: '42', '100-200', '1, 5, 10-20'."""
        mask = np.zeros(self.rows, dtype=bool)
        for part in text.replace(";", ",").split(","):
            part = part.strip()
            if not part:
                continue
            low, dash, high = part.partition("-")
            try:
                first = int(low)
                last = int(high) if dash else first
            except ValueError:
                raise FilterError(f"{part!r} is not an id or a range of ids (examples: 42, 100-200, 1, 5, 9)") from None
            mask |= (self.ids >= first) & (self.ids <= last)
        return mask

    def column(self, key: SortKey) -> np.ndarray | None:
        return {"id": self.ids, "length": self.length, "rank": self.rank, "left": self.left, "right": self.right,
                "count": self.count, "seen": self.seen, "script": self.script, "flags": self.flags}.get(key)

    def order(self, key: SortKey, descending: bool = False) -> np.ndarray:
        """Rows sorted by `key` (ties by id); rows without a value (no rank) come last either way."""
        cache_key = f"{key}:{descending}"
        cached = self._orders.get(cache_key)
        if cached is not None:
            return cached
        if key == "token":
            rows = self.order("token") if descending else text_order(self.folded)
            result = rows[::-1].copy() if descending else rows
        else:
            values = self.column(key)
            if values is None:
                values = self.ids
            values = values.astype(np.int64)
            missing = values == NO_VALUE
            keys = -values if descending else values
            order = np.lexsort((self.ids, keys, missing))
            result = order.astype(np.int64)
        self._orders[cache_key] = result
        return result

    def row_flags(self, row: int) -> list[str]:
        bits = int(self.flags[row])
        return [name for bit, name in FLAG_NAMES.items() if bits & bit]

    # Export

    def write_csv(self, path: str | os.PathLike[str], rows: Sequence[int]) -> int:
        """The given rows as CSV (UTF-8, header line); the bytes column is exact, the token column readable."""
        header = ["id", "token", "bytes_hex", "length", "rank", "left", "right", "script", "flags"]
        if self.count is not None:
            header.insert(7, "merge_count")
        if self.seen is not None:
            header.insert(-1, "seen")
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            for row in rows:
                record: list[object] = [int(self.ids[row]), self.visible[row], self.data[row].hex(),
                                        int(self.length[row])]
                for column in (self.rank, self.left, self.right):
                    value = NO_VALUE if column is None else int(column[row])
                    record.append("" if value == NO_VALUE else value)
                if self.count is not None:
                    record.append(int(self.count[row]))
                record.append(SCRIPT_NAMES[int(self.script[row])])
                if self.seen is not None:
                    record.append(int(self.seen[row]))
                record.append("; ".join(self.row_flags(row)))
                writer.writerow(record)
        return len(rows)


def text_order(strings: Sequence[str]) -> np.ndarray:
    """Rows sorted by their string, stably: what `sorted(range(n), key=strings.__getitem__)` gives.

    That one sort of 200,000 strings is a single C call holding the interpreter lock for ~120 ms.
    Slices of 16,384 sort in under 10 ms each and heapq.merge (Python) joins them, so another
    thread (the window's) can take the lock between steps.
    """
    key = strings.__getitem__
    slices = [sorted(range(start, min(start + _SORT_SLICE, len(strings))), key=key)
              for start in range(0, len(strings), _SORT_SLICE)]
    return np.fromiter(heapq.merge(*slices, key=key), dtype=np.int64, count=len(strings))


def _compiled(text: str) -> regex.Pattern[str]:
    try:
        return regex.compile(text)
    except regex.error as error:
        raise FilterError(f"not a valid regex: {error}") from None


def read_vocabulary(tokenizer: Tokenizer) -> Iterator[Progress]:
    """Yield progress while collecting (ids, bytes) of every id that exists; returns a VocabTable."""
    ids: list[int] = []
    data: list[bytes] = []
    size = tokenizer.vocab_size
    lookup = tokenizer.token_bytes
    for start in range(0, size, _STEP * 10):
        for token_id in range(start, min(start + _STEP * 10, size)):
            try:
                value = lookup(token_id)
            except ExplorerError:
                continue  # a hole in the id space (cl100k_base has some)
            ids.append(token_id)
            data.append(value)
        yield Progress("reading the vocabulary", min(start + _STEP * 10, size), size)
    return VocabTable(ids, data, set(tokenizer.special_tokens.values()))


def build_table(tokenizer: Tokenizer) -> Iterator[Progress]:
    """The whole table without merges or audit: bytes, shown text, script. Returns the VocabTable."""
    table = yield from read_vocabulary(tokenizer)
    yield from table.compute_text()
    return table

