"""The trainer's chunks as ids laid end to end, and the merge step over them, in Python or numpy.

A merge replaces `left right` by the new id in the chunks that hold it, left to right, as Hugging
Face's `Word::merge` does, and updates the counts of the pairs beside each occurrence. Chunk by
chunk in Python that costs a few steps per occurrence, which is where the early merges of
multilingual text go: the first thousand visit over a million chunks (a UTF-8 lead byte with its
continuation, a common syllable). A merge held by many chunks runs in numpy instead, with the
very same result: the same pair counts, ids and new pairs, each new pair's chunks added in the
same order (a set's order depends on it, and the queue's on that), so merges and ties are those
of the loop. One array of 4-byte ids costs a third of the memory of a list of ints per chunk.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Collection, Iterator, Sequence

import numpy as np

from explorer.core.algorithms.merge_batch import _leftmost, ranges
from explorer.core.algorithms.pair_queue import SHIFT

NewPairs = dict[int, set[int]]  # the pairs a merge made, with the chunks it made them in, in the order made
VECTOR_HELD = 400  # chunks a merge must hold to run in numpy (below, its fixed cost outweighs the loop's)


class FlatWords:
    """All chunks as ids one after another (`flat`), each from its own start, `lengths` ids long
    now and followed by -1 (so no pair of ids spans two chunks); the room merges freed stays at its
    end. Reads as a sequence of chunks (copies), which is all the pair queue asks of the words."""

    def __init__(self, chunks: Sequence[bytes], counts: Sequence[int]) -> None:
        lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        ends = np.cumsum(lengths + 1)  # each chunk's -1
        flat = np.frombuffer(b"\0".join(chunks) + b"\0", dtype=np.uint8).astype(np.int32)
        flat[ends - 1] = -1
        self.flat = array("i")
        self.flat.frombytes(memoryview(flat).cast("B"))  # no copy in between
        del flat
        self.starts = array("q", (ends - lengths - 1).tobytes())
        self.lengths = array("q", lengths.tobytes())
        self.counts = np.array(counts, dtype=np.int64)
        # numpy views of the same memory: what one side writes the other reads
        self._flat = np.frombuffer(self.flat, dtype=np.int32)
        self._starts = np.frombuffer(self.starts, dtype=np.int64)
        self._lengths = np.frombuffer(self.lengths, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: int) -> array[int]:
        start = self.starts[index]
        return self.flat[start : start + self.lengths[index]]

    def __iter__(self) -> Iterator[array[int]]:
        return map(self.__getitem__, range(len(self)))

    def merge(self, held: Collection[int], counts: Sequence[int], left: int, right: int, new_id: int,
              pair_counts: defaultdict[int, int]) -> tuple[NewPairs, int]:
        """Merge `left right` into `new_id` in the chunks `held`, left to right, updating the
        neighbours' pair counts exactly as HF's `Word::merge`; the new pairs and how many tokens went.
        In numpy when many chunks hold the pair."""
        if len(held) >= VECTOR_HELD:
            return self._merge_vectorised(held, left, right, new_id, pair_counts)
        return self._merge_in_place(held, counts, left, right, new_id, pair_counts)

    def _merge_in_place(self, held: Collection[int], counts: Sequence[int], left: int, right: int, new_id: int,
                        pair_counts: defaultdict[int, int]) -> tuple[NewPairs, int]:
        """The merge chunk by chunk in Python, in place in `flat` (as quick as lists of ints, and a
        third of their memory): this loop is where training on prose spends its time."""
        flat, starts, lengths = self.flat, self.starts, self.lengths
        new_high, right_high, twice = new_id << SHIFT, right << SHIFT, left == right
        new_pairs: defaultdict[int, set[int]] = defaultdict(set)
        removed = 0
        index_of = flat.index
        for index in held:
            start = starts[index]
            end = start + lengths[index]
            remaining = flat[start:end].count(left)
            if not remaining:
                continue
            times = counts[index]
            i = start
            while remaining > 0:
                i = index_of(left, i, end)
                remaining -= 1
                # The chunk's -1 follows its last id, and precedes its first (the chunk before ends
                # there, or the end of `flat` for the first chunk): neighbours need no bounds check.
                if flat[i + 1] == right:
                    if twice:
                        remaining -= 1
                    before = flat[i - 1]
                    if before >= 0:
                        before <<= SHIFT
                        pair_counts[before | left] -= times
                        before |= new_id
                        pair_counts[before] += times
                        new_pairs[before].add(index)
                    flat[i] = new_id
                    flat[i + 1 : end] = flat[i + 2 : end + 1]  # closes up, the -1 after the chunk too
                    removed += times
                    end -= 1
                    after = flat[i + 1]
                    if after >= 0:
                        pair_counts[right_high | after] -= times
                        after |= new_high
                        pair_counts[after] += times
                        new_pairs[after].add(index)
                i += 1
            lengths[index] = end - start
        return new_pairs, removed

    def _merge_vectorised(self, held: Collection[int], left: int, right: int, new_id: int,
                          pair_counts: defaultdict[int, int]) -> tuple[NewPairs, int]:
        """The merge of all chunks `held` at once. Chunk by chunk the loop merges at each
        occurrence in turn, so its neighbour on the left is the new token when the occurrence
        just before (two ids back) merged too; on the right it is still as it was."""
        chunk = (np.frombuffer(held, dtype=np.int32) if isinstance(held, array)
                 else np.fromiter(held, dtype=np.int32, count=len(held))).astype(np.int64)
        starts, lengths = self._starts[chunk], self._lengths[chunk]
        places = ranges(starts, lengths + 1)  # each chunk and its -1
        ids = self._flat[places]
        at = np.flatnonzero(ids[:-1] == left)
        at = at[ids[at + 1] == right]
        if left == right:  # a a a: the loop merges the first two, then looks on after them
            at = _leftmost(at)
        if not len(at):
            return {}, 0
        mine = np.searchsorted(np.cumsum(lengths + 1), at, "right")  # which of `chunk` each is in
        times = self.counts[chunk[mine]]
        has_before, has_after = ids[at - 1] >= 0, ids[at + 2] >= 0  # (ids[-1] is the last chunk's -1)
        follows = np.zeros(len(at), dtype=bool)  # the occurrence just before merged too
        follows[1:] = at[1:] - at[:-1] == 2
        b = np.where(follows, new_id, ids[at - 1])[has_before].astype(np.int64)
        a = ids[at + 2][has_after].astype(np.int64)
        tb, ta = times[has_before], times[has_after]
        # The pair counts, summed by the neighbour on each side (float64 sums are exact below 2 ** 53).
        for side, weights, on_the_left in ((b, tb, True), (a, ta, False)):
            sums = np.bincount(side, weights=weights)
            for neighbour, total in zip(np.flatnonzero(sums).tolist(), sums[sums != 0].astype(np.int64).tolist()):
                if on_the_left:
                    pair_counts[neighbour << SHIFT | left] -= total
                    pair_counts[neighbour << SHIFT | new_id] += total
                else:
                    pair_counts[right << SHIFT | neighbour] -= total
                    pair_counts[new_id << SHIFT | neighbour] += total
        new_pairs = self._new_pairs(b, a, new_id, chunk[mine], has_before, has_after)
        # Write back: the new token where each pair began, the chunks closed up over its right half.
        ids[at] = new_id
        keep = np.ones(len(ids), dtype=bool)
        keep[at + 1] = False
        left_now = lengths - np.bincount(mine, minlength=len(chunk))
        self._flat[ranges(starts, left_now + 1)] = ids[keep]
        self._lengths[chunk] = left_now
        return new_pairs, int(times.sum())

    @staticmethod
    def _new_pairs(before: np.ndarray, after: np.ndarray, new_id: int, chunks: np.ndarray,
                   has_before: np.ndarray, has_after: np.ndarray) -> NewPairs:
        """The new pairs (`before` new, new `after`) in the order the loop first makes each, with
        their chunks in the order it adds them: occurrence by occurrence, left pair first."""
        # Each pair as a small key: `before` ids, then `after` ids past them; (new, new) on either side is one.
        width = int(max(before.max(initial=0), after.max(initial=0), new_id)) + 1
        key = np.full((len(chunks), 2), -1, dtype=np.int64)
        key[has_before, 0] = np.where(before == new_id, 2 * width, before)
        key[has_after, 1] = np.where(after == new_id, 2 * width, width + after)
        key = key.ravel()  # in the loop's order
        owners = np.repeat(chunks, 2)[key >= 0]
        key = key[key >= 0]
        step = np.arange(len(key))
        ordered = np.sort(key * len(key) + step)  # by pair, then step (np.argsort is slower)
        key, step = ordered // len(key), ordered % len(key)
        owners = owners[step]
        # A chunk's occurrences come one after another, so its repeats of a pair are neighbours here.
        group = np.diff(key, prepend=-1) != 0
        fresh = group | (np.diff(owners, prepend=-1) != 0)
        key, owners, step, group = key[fresh], owners[fresh], step[fresh], group[fresh]
        firsts = np.flatnonzero(group)
        order = np.argsort(step[firsts])  # steps are distinct
        begins, ends = firsts[order].tolist(), np.append(firsts[1:], len(key))[order].tolist()
        codes = key[firsts][order]
        codes = np.where(codes < width, codes << SHIFT | new_id,
                         np.where(codes < 2 * width, new_id << SHIFT | (codes - width), new_id << SHIFT | new_id))
        owner_list = owners.tolist()
        return {code: set(owner_list[begin:end]) for code, begin, end in zip(codes.tolist(), begins, ends)}
