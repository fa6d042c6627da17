"""BPE for many chunks at once, in numpy: the cold-cache half of encoding.

A text of 10 MB holds some 80,000 distinct chunks that the chunk cache has not seen. Merging
them one by one costs a few microseconds of Python each, more than cutting the text into
chunks; here all of them advance together, one round per step. In each round every chunk
merges all occurrences of its lowest-ranked pair, left to right without overlaps, which is
what merging the leftmost lowest-ranked pair one at a time comes to when a merge only creates
pairs of later ranks (as in a merge list): the chunk's next merge is the same pair until none
is left. Under tiktoken's rule a new token can join a neighbour into a lower-ranked token; the
pairs that make such tokens merge at their leftmost place only, one per round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np

NEVER = np.int64(1 << 62)  # the rank of a pair that was never merged
END = NEVER + 1  # the "pair" starting at a chunk's last token
_FEW = 32  # when fewer chunks are still merging, a round costs more than finishing them one by one


class IntTable:
    """int64 keys -> int64 values, looked up a whole array at a time, in a hash table with
    linear probing.

    A key's home slot is a multiplicative hash of it, and it sits there or in the first free
    slot after it (the table runs on past its last home slot rather than wrapping round). At
    most a quarter of the slots are taken, so a lookup mostly reads one: several times quicker
    than a binary search of sorted keys, whose every step misses the processor's cache.
    """

    _MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio: spreads nearby keys apart

    def __init__(self, keys: np.ndarray, values: np.ndarray, missing: int) -> None:
        """`keys` distinct; `missing` is the value of a key not in the table (not in `values`)."""
        self.missing = missing
        self._bits = max(4, (4 * len(keys)).bit_length())
        # In order of home slot, each key takes the first free slot from its home: the later of
        # its home and the slot after the previous key's.
        homes = self._home(keys)
        order = np.argsort(homes)  # (keys of one home may come in any order)
        index = np.arange(len(keys))
        slots = np.maximum.accumulate(homes[order] - index) + index
        size = max(1 << self._bits, int(slots.max(initial=0)) + 1) + 1  # the last slot stays free
        self._keys = np.zeros(size, dtype=np.int64)
        self._values = np.full(size, missing, dtype=np.int64)  # `missing`: a free slot
        self._keys[slots], self._values[slots] = keys[order], values[order]

    def _home(self, keys: np.ndarray) -> np.ndarray:
        return ((keys.view(np.uint64) * self._MULTIPLIER) >> np.uint64(64 - self._bits)).view(np.int64)

    def __call__(self, keys: np.ndarray) -> np.ndarray:
        """The value of each key (int64), `missing` where it is not in the table."""
        slots = self._home(keys)
        found = self._values[slots]
        hit = self._keys[slots] == keys
        out = np.where(hit, found, self.missing)
        pending = np.flatnonzero(~hit & (found != self.missing))  # a key of another home sits there
        keys, slots = keys[pending], slots[pending] + 1
        while len(pending):  # probe on until the key or a free slot turns up
            found = self._values[slots]
            hit = (self._keys[slots] == keys) & (found != self.missing)
            out[pending[hit]] = found[hit]
            going_on = ~hit & (found != self.missing)
            pending, keys, slots = pending[going_on], keys[going_on], slots[going_on] + 1
        return out


class PairRanks:
    """Rank lookups of whole arrays of pairs (left, right), and the token each rank makes.

    `one_at_a_time[rank]` is True where the token that rank makes can join a neighbour into a
    token of a lower rank (tiktoken's vocabularies have such tokens): merging every occurrence
    of its pair at once could then differ from merging the leftmost, looking again, and so on.
    """

    def __init__(self, pairs: np.ndarray, ranks: np.ndarray, new_ids: np.ndarray, vocab_size: int,
                 one_at_a_time: np.ndarray | None = None) -> None:
        """`pairs` (n, 2) of ids, `ranks` the rank of each, `new_ids[rank]` the token it makes."""
        self._width = vocab_size
        self.new_ids = new_ids
        self.one_at_a_time = one_at_a_time
        self._table = IntTable(pairs[:, 0] * vocab_size + pairs[:, 1], ranks, int(NEVER))
        self._byte_pairs: np.ndarray | None = None

    @classmethod
    def of_merges(cls, merges: Sequence[tuple[int, int, int]], vocab_size: int) -> PairRanks:
        """A merge list, ranked by place: a merge only creates pairs of later ranks."""
        table = np.fromiter(chain.from_iterable(merges), dtype=np.int64, count=3 * len(merges)).reshape(-1, 3)
        return cls(table[:, :2], np.arange(len(table)), table[:, 2].copy(), vocab_size)

    @classmethod
    def of_joins(cls, joins: np.ndarray, vocab_size: int) -> PairRanks:
        """tiktoken's rule: (left, right, joined) for every pair whose bytes are a token, ranked by
        that token's id (see rank_pairs)."""
        joined = joins[:, 2]
        lowest = np.full(vocab_size, NEVER)  # the lowest rank each token can join into
        np.minimum.at(lowest, joins[:, 0], joined)
        np.minimum.at(lowest, joins[:, 1], joined)
        return cls(joins[:, :2], joined, np.arange(vocab_size), vocab_size, lowest < np.arange(vocab_size))

    def byte_pairs(self, byte_ids: np.ndarray) -> np.ndarray:
        """The rank of every pair of bytes, at 256 * first + second (`byte_ids`: each byte's id,
        the same at every call): the first round, on the most pairs, reads this, not the hash table."""
        if self._byte_pairs is None:
            self._byte_pairs = self(np.repeat(byte_ids, 256), np.tile(byte_ids, 256))
        return self._byte_pairs

    def __call__(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The rank of each pair (left[i], right[i]), NEVER where it was never merged."""
        return self._table(left * self._width + right)


def merge_chunks(chunks: Sequence[bytes], byte_ids: np.ndarray, ranks: PairRanks,
                 finish: Callable[[list[int]], list[int]]) -> list[tuple[int, ...]]:
    """The ids of each chunk: its bytes (as `byte_ids`) merged by rank. When only a few chunks
    are left, `finish` (the one-chunk merge loop) takes each from where it stands.

    The chunks lie one after another in `ids`; `pair_ranks[i]` ranks the pair starting at i,
    END at a chunk's last position, so no other array has to say where chunks start.
    """
    if not chunks:
        return []
    lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    data = np.frombuffer(b"".join(chunks), dtype=np.uint8)
    ids = byte_ids[data]
    pair_ranks = np.empty(len(ids), dtype=np.int64)
    pair_ranks[:-1] = ranks.byte_pairs(byte_ids)[(data[:-1].astype(np.int64) << 8) | data[1:]]
    pair_ranks[np.cumsum(lengths) - 1] = END
    chunk = np.arange(len(chunks))  # the input chunk of each chunk still merging
    finished: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (chunk, lengths, ids) set aside
    while True:
        starts = np.cumsum(lengths) - lengths
        best = np.minimum.reduceat(pair_ranks, starts)
        done = best >= NEVER
        if len(chunk) - np.count_nonzero(done) < _FEW:  # the last few (long) chunks: one by one
            finished.append((chunk, lengths, ids))
            break
        kept = np.ones(len(ids), dtype=bool)
        if done.any():  # set the finished chunks aside, below: later rounds work on fewer
            theirs = ranges(starts[done], lengths[done])
            finished.append((chunk[done], lengths[done], ids[theirs]))
            kept[theirs] = False
            best[done] = -1  # a rank no pair has
        at = _leftmost(np.flatnonzero(pair_ranks == np.repeat(best, lengths)))
        owner = np.searchsorted(starts, at, "right") - 1  # the chunk of each
        if ranks.one_at_a_time is not None:  # those pairs merge at their leftmost place only, this round
            again = ranks.one_at_a_time[pair_ranks[at]]
            again[1:] &= owner[1:] == owner[:-1]
            again[0] = False
            at, owner = at[~again], owner[~again]
        ids[at] = ranks.new_ids[pair_ranks[at]]
        pair_ranks[at] = pair_ranks[at + 1]  # the new token's pair on the right: END, or ranked below
        kept[at + 1] = False
        ids, pair_ranks = ids[kept], pair_ranks[kept]
        # Where the new tokens are now: before each, one token fewer per merge, and the finished chunks gone.
        gone = np.cumsum(done * lengths) - done * lengths
        _rerank(ids, pair_ranks, at - np.arange(len(at)) - gone[owner], ranks)
        lengths = (lengths - np.bincount(owner, minlength=len(lengths)))[~done]
        chunk = chunk[~done]
    out: list[tuple[int, ...]] = [()] * len(chunks)
    for part in finished:
        _collect(out, *part)
    for index in chunk[best < NEVER].tolist():
        out[index] = tuple(finish(list(out[index])))
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


def _rerank(ids: np.ndarray, pair_ranks: np.ndarray, merged: np.ndarray, ranks: PairRanks) -> None:
    """Rank again the pairs that the new tokens at `merged` start or end; the others stand."""
    ending = merged[merged > 0]
    ending = ending[pair_ranks[ending - 1] != END] - 1  # (not after the end of the chunk before)
    starting = merged[pair_ranks[merged] != END]
    pairs = np.concatenate((ending, starting))
    pair_ranks[pairs] = ranks(ids[pairs], ids[pairs + 1])


def ranges(begins: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The ranges begins[i], begins[i] + 1, ... (counts[i] of them), one after another."""
    return np.arange(int(counts.sum())) + np.repeat(begins - (np.cumsum(counts) - counts), counts)


def _collect(out: list[tuple[int, ...]], chunk: np.ndarray, lengths: np.ndarray, ids: np.ndarray) -> None:
    """Put the ids of finished chunks (`ids`, one after another) into `out`."""
    flat = tuple(ids.tolist())  # whose slices are tuples, as the chunk cache keeps them
    position = 0
    for index, length in zip(chunk.tolist(), lengths.tolist()):
        out[index] = flat[position:position + length]
        position += length
