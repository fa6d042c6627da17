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
from itertools import chain

import numpy as np

NEVER = np.int64(1 << 62)  # the rank of a pair that was never merged
_FEW = 32  # when fewer chunks are still merging, a round costs more than finishing them one by one


class PairRanks:
    """Rank lookups of whole arrays of pairs, in a hash table with linear probing.

    A pair (left, right) has the key left * vocab_size + right; its home slot is a
    multiplicative hash of the key, and it sits there or in the first free slot after it
    (the table runs on past its last home slot rather than wrapping round). At most a quarter
    of the slots are taken, so a lookup mostly reads one: several times quicker than a binary
    search of sorted keys, whose every step misses the processor's cache.
    """

    _MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio: spreads nearby keys apart

    def __init__(self, merges: Sequence[tuple[int, int, int]], vocab_size: int) -> None:
        self._width = vocab_size
        self._bits = max(4, (4 * len(merges)).bit_length())
        table = np.fromiter(chain.from_iterable(merges), dtype=np.int64, count=3 * len(merges)).reshape(-1, 3)
        self.new_ids = table[:, 2].copy()
        keys = table[:, 0] * vocab_size + table[:, 1]
        # In order of home slot, each key takes the first free slot from its home: the later of
        # its home and the slot after the previous key's.
        homes = self._home(keys)
        order = np.argsort(homes, kind="stable")
        index = np.arange(len(keys))
        slots = np.maximum.accumulate(homes[order] - index) + index
        size = max(1 << self._bits, int(slots.max(initial=0)) + 1) + 1  # the last slot stays free
        self._keys = np.full(size, -1, dtype=np.int64)  # -1: a free slot
        self._ranks = np.full(size, NEVER, dtype=np.int64)
        self._keys[slots], self._ranks[slots] = keys[order], order  # a merge's rank is its place in `merges`

    def _home(self, keys: np.ndarray) -> np.ndarray:
        return ((keys.astype(np.uint64) * self._MULTIPLIER) >> np.uint64(64 - self._bits)).astype(np.int64)

    def __call__(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The rank of each pair (left[i], right[i]), NEVER where it was never merged."""
        keys = left * self._width + right
        out = np.full(len(keys), NEVER)
        pending = np.arange(len(keys))
        slots = self._home(keys)
        while len(pending):  # probe on until the key or a free slot turns up
            found = self._keys[slots]
            hit = found == keys
            out[pending[hit]] = self._ranks[slots[hit]]
            going_on = ~hit & (found != -1)
            pending, keys, slots = pending[going_on], keys[going_on], slots[going_on] + 1
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
    starts = np.concatenate((merged[~first[merged]] - 1, merged[~ends_chunk]))  # the pairs ending, starting there
    pair_ranks[starts] = ranks(ids[starts], ids[starts + 1])


def _collect(out: list[tuple[int, ...]], chunk: np.ndarray, lengths: np.ndarray, ids: np.ndarray) -> None:
    """Put the ids of finished chunks (`ids`, one after another) into `out`."""
    flat = tuple(ids.tolist())  # whose slices are tuples, as the chunk cache keeps them
    position = 0
    for index, length in zip(chunk.tolist(), lengths.tolist()):
        out[index] = flat[position:position + length]
        position += length
