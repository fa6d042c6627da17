"""BPE for many chunks at once, in numpy: the cold-cache half of encoding.

A text of 10 MB holds some 80,000 distinct chunks that the chunk cache has not seen. Merging
them one by one costs a few microseconds of Python each, more than cutting the text into
chunks; here all of them advance together, one round per step. In each round every chunk
merges all occurrences of its lowest-ranked pair, left to right without overlaps, which is
what merging the leftmost lowest-ranked pair one at a time comes to: a merge only creates
pairs of later ranks, so the chunk's next merge is the same pair until none is left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

NEVER = np.int64(1 << 62)  # the rank of a pair that was never merged
_FEW = 32  # when fewer chunks are still merging, a round costs more than finishing them one by one


class PairRanks:
    """Rank lookups of whole arrays of pairs, in a hash table with open addressing.

    A pair (left, right) has the key left * vocab_size + right; its slot is a multiplicative
    hash of the key, or the next free slot after it. The table is at most a quarter full, so a
    lookup mostly reads one slot: several times quicker than a binary search of sorted keys,
    whose every step misses the processor's cache.
    """

    _MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio: spreads nearby keys apart

    def __init__(self, merges: Sequence[tuple[int, int, int]], vocab_size: int) -> None:
        self._width = vocab_size
        self._bits = max(4, (4 * len(merges)).bit_length())
        self._keys = np.full(1 << self._bits, -1, dtype=np.int64)  # -1: an empty slot
        self._ranks = np.full(1 << self._bits, NEVER, dtype=np.int64)
        self.new_ids = np.array([new_id for _, _, new_id in merges], dtype=np.int64)
        keys = np.array([left * vocab_size + right for left, right, _ in merges], dtype=np.int64)
        ranks = np.arange(len(keys), dtype=np.int64)  # a merge's rank is its place in `merges`
        slots = self._slots(keys)
        while len(keys):  # each key takes its slot if free and no other key claims it, else tries the next
            free = self._keys[slots] == -1
            _, claim = np.unique(slots, return_index=True)
            takes = np.zeros(len(keys), dtype=bool)
            takes[claim] = True
            takes &= free
            self._keys[slots[takes]], self._ranks[slots[takes]] = keys[takes], ranks[takes]
            keys, ranks, slots = keys[~takes], ranks[~takes], (slots[~takes] + 1) & ((1 << self._bits) - 1)

    def _slots(self, keys: np.ndarray) -> np.ndarray:
        return ((keys.astype(np.uint64) * self._MULTIPLIER) >> np.uint64(64 - self._bits)).astype(np.int64)

    def __call__(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The rank of each pair (left[i], right[i]), NEVER where it was never merged."""
        keys = left * self._width + right
        out = np.full(len(keys), NEVER)
        pending = np.arange(len(keys))
        slots = self._slots(keys)
        while len(pending):  # probe until the key or an empty slot turns up
            found = self._keys[slots]
            hit = found == keys
            out[pending[hit]] = self._ranks[slots[hit]]
            going_on = ~hit & (found != -1)
            pending, keys = pending[going_on], keys[going_on]
            slots = (slots[going_on] + 1) & ((1 << self._bits) - 1)
        return out


def merge_chunks(chunks: Sequence[bytes], byte_ids: np.ndarray, ranks: PairRanks,
                 finish: Callable[[list[int]], list[int]]) -> list[tuple[int, ...]]:
    """The ids of each chunk: its bytes (as `byte_ids`) merged by rank. When only a few chunks
    are left, `finish` (the one-chunk merge loop) takes each from where it stands."""
    lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    ids = byte_ids[np.frombuffer(b"".join(chunks), dtype=np.uint8)]
    first = np.zeros(len(ids), dtype=bool)  # where each chunk starts
    first[np.cumsum(lengths) - lengths] = True
    pair_ranks = _pair_ranks(ids, first, ranks)
    chunk = np.arange(len(chunks))  # the input chunk of each chunk still merging
    out: list[tuple[int, ...]] = [()] * len(chunks)
    while len(chunk):
        starts = np.flatnonzero(first)
        best = np.minimum.reduceat(pair_ranks, starts)
        done = best == NEVER
        if len(chunk) - done.sum() < _FEW:  # the last few (long) chunks: one by one
            _collect(out, chunk, lengths, ids)
            for index in chunk[~done].tolist():
                out[index] = tuple(finish(list(out[index])))
            break
        if done.any():  # set the finished chunks aside: later rounds work on fewer
            _collect(out, chunk[done], lengths[done], ids[np.repeat(done, lengths)])
            merging = ~done
            kept = np.repeat(merging, lengths)
            ids, pair_ranks, first = ids[kept], pair_ranks[kept], first[kept]
            chunk, lengths, best = chunk[merging], lengths[merging], best[merging]
            starts = np.flatnonzero(first)
        at = _leftmost(np.flatnonzero(pair_ranks == np.repeat(best, lengths)))
        ids[at] = ranks.new_ids[pair_ranks[at]]
        kept = np.ones(len(ids), dtype=bool)
        kept[at + 1] = False
        ids, pair_ranks, first = ids[kept], pair_ranks[kept], first[kept]
        lengths = lengths - np.bincount(np.searchsorted(starts, at, "right") - 1, minlength=len(lengths))
        _rerank(ids, first, pair_ranks, at - np.arange(len(at)), ranks)  # where the new tokens are now
    return out


def _pair_ranks(ids: np.ndarray, first: np.ndarray, ranks: PairRanks) -> np.ndarray:
    """The rank of the pair that starts at each position (NEVER at the end of a chunk)."""
    out = np.full(len(ids), NEVER)
    out[:-1] = ranks(ids[:-1], ids[1:])
    out[:-1][first[1:]] = NEVER
    return out


def _leftmost(at: np.ndarray) -> np.ndarray:
    """Of overlapping occurrences of a pair (`a a a` for the pair `a a`) keep every other one,
    from the left of each run of adjacent positions, as merging left to right does."""
    follows = at[1:] == at[:-1] + 1
    if not follows.any():
        return at
    index = np.arange(len(at))
    run_start = np.maximum.accumulate(np.where(np.concatenate(([True], ~follows)), index, 0))
    return at[(index - run_start) % 2 == 0]


def _rerank(ids: np.ndarray, first: np.ndarray, pair_ranks: np.ndarray, merged: np.ndarray,
            ranks: PairRanks) -> None:
    """Rank again the pairs that the new tokens at `merged` start or end; the others stand."""
    after = merged + 1
    ends_chunk = np.ones(len(merged), dtype=bool)
    inside = after < len(ids)
    ends_chunk[inside] = first[after[inside]]
    pair_ranks[merged] = NEVER
    right = merged[~ends_chunk]
    pair_ranks[right] = ranks(ids[right], ids[right + 1])
    left = merged[~first[merged]] - 1
    pair_ranks[left] = ranks(ids[left], ids[left + 1])


def _collect(out: list[tuple[int, ...]], chunk: np.ndarray, lengths: np.ndarray, ids: np.ndarray) -> None:
    """Put the ids of finished chunks (`ids`, one after another) into `out`."""
    flat = tuple(ids.tolist())  # whose slices are tuples, as the chunk cache keeps them
    position = 0
    for index, length in zip(chunk.tolist(), lengths.tolist()):
        out[index] = flat[position:position + length]
        position += length
