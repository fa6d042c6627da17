"""Which pair merges next: the two tie-breaking rules, as priority queues over live pair counts.

Both queues are lazy heaps over the trainer's `pair_counts`, as in Hugging Face's `trainer.rs`:
an entry whose count went stale is refreshed when it reaches the top. They differ only in how
pairs with equal counts are ordered:

- `HfQueue` ("hf" rules): the smaller pair of ids in Hugging Face's id space, as its `BpeTrainer`;
- `FirstSeenQueue` ("minbpe" rules): the pair seen first, as the tutorials' and minbpe's
  `max(counts, key=counts.get)` over pair counts recounted from scratch at every merge.

Both also report a `Tie`: the other pairs that had the winning count, and which one each rule picks.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from typing import NamedTuple

SHIFT = 21  # a pair (left, right) is the int left << SHIFT | right: cheaper to hash than a tuple
MASK = (1 << SHIFT) - 1
TIE_LIMIT = 16  # tied pairs a merge lists at most (ties late in a small corpus can number thousands)
QUICK_TIE_LIMIT = 4  # ... when the other rule's pick is not asked for (the command line's count of ties)
VISIT_LIMIT = 6 * TIE_LIMIT  # heap entries read looking for them (stale ones are read and passed over)

Entry = tuple[int, int, int, int, int, set[int]]  # (-count, order key 1, order key 2, serial, pair, chunks)


class Tie(NamedTuple):
    """The pairs that shared the winning count when a merge was chosen, the winner first.

    Stored packed (`left << SHIFT | right`), as the trainer has them, in a named tuple (quick to
    make): most merges of a long run are ties. `complete` is False when more than TIE_LIMIT pairs
    tied (QUICK_TIE_LIMIT without `explain`: only the first are listed); the picks are then among the
    listed pairs.
    """

    packed: tuple[int, ...]
    hf_index: int  # which of them Hugging Face's rule picks: the smaller pair of ids in its id space
    minbpe_index: int  # which one the tutorials' rule picks: the pair seen first (-1: not worked out)
    complete: bool = True

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        return tuple(map(split, self.packed))

    @property
    def hf_pick(self) -> tuple[int, int]:
        return split(self.packed[self.hf_index])

    @property
    def minbpe_pick(self) -> tuple[int, int] | None:
        return split(self.packed[self.minbpe_index]) if self.minbpe_index >= 0 else None


def split(pair: int) -> tuple[int, int]:
    return pair >> SHIFT, pair & MASK


def first_occurrence(pair: int, chunks: set[int], words: list[list[int]], vocab: list[bytes],
                     prune: bool = False, known: int = -1) -> tuple[int, int] | None:
    """(chunk index, byte offset in the chunk) of the pair's first occurrence among `chunks`.

    Recounting walks the chunks in the order first seen and each chunk left to right, so a pair
    enters the tutorials' dict at this occurrence. Merges never reorder tokens, so a byte offset
    orders occurrences as their positions in the current sequence do, and never goes stale.
    With `prune`, chunks that no longer hold the pair are dropped from `chunks` on the way.
    `known` is a chunk no later than the first that holds the pair (where it was first before):
    if it still holds it, that is the answer without looking for the smallest index.
    """
    left, right = split(pair)
    if known in chunks:
        word = words[known]
        position = _find(word, left, right)
        if position >= 0:
            return known, sum(len(vocab[token]) for token in word[:position])
    for index in (_smallest_first(chunks) if prune else sorted(chunks)):
        word = words[index]
        position = _find(word, left, right)
        if position >= 0:
            return index, sum(len(vocab[token]) for token in word[:position])
    return None


def _first_chunk(pair: int, chunks: set[int], words: list[list[int]]) -> int:
    """The index of the first chunk among `chunks` that holds `pair` (len(words) if none does)."""
    left, right = split(pair)
    index = min(chunks)
    if _find(words[index], left, right) >= 0:  # usual: the set is stale only where merges took the pair
        return index
    return next((i for i in sorted(chunks) if _find(words[i], left, right) >= 0), len(words))


def _smallest_first(chunks: set[int]) -> Iterator[int]:
    """The chunk indices from the smallest, dropping each one the caller moves past. Usually the
    smallest is the answer, so it is found alone first; sorting is for when it is not."""
    if not chunks:
        return
    index = min(chunks)
    yield index
    chunks.discard(index)
    for index in sorted(chunks):
        yield index
        chunks.discard(index)


def _find(word: list[int], left: int, right: int) -> int:
    """The first position where `left` is followed by `right`, or -1."""
    i, last = 0, len(word) - 1
    try:
        while True:
            i = word.index(left, i)
            if i < last and word[i + 1] == right:
                return i
            i += 1
    except ValueError:
        return -1


class HfQueue:
    """Most frequent first; ties to the smaller pair of ids in Hugging Face's id space (`key`)."""

    def __init__(self, pair_counts: dict[int, int], where: dict[int, set[int]], key: list[int],
                 words: list[list[int]], vocab: list[bytes], explain: bool = False) -> None:
        self.pair_counts, self.key, self.words, self.vocab = pair_counts, key, words, vocab
        self.explain = explain  # also find the pair the other rule picks in a tie (a scan per tied pair)
        self.tie_limit = TIE_LIMIT if explain else QUICK_TIE_LIMIT
        self.serial = itertools.count()
        self.heap: list[Entry] = [self._entry(p, held) for p, held in where.items()]
        heapq.heapify(self.heap)

    def _entry(self, pair: int, chunks: set[int]) -> Entry:
        return (-self.pair_counts[pair], self.key[pair >> SHIFT], self.key[pair & MASK], next(self.serial),
                pair, chunks)

    def pop(self) -> tuple[int, int, set[int]] | None:
        """The next pair to merge, its count and the chunks that may hold it; None when no pair is left."""
        heap, pair_counts, serial = self.heap, self.pair_counts, self.serial
        while heap:
            neg_count, order_1, order_2, _, pair, held = heapq.heappop(heap)
            count = pair_counts[pair]
            if -neg_count != count:
                heapq.heappush(heap, (-count, order_1, order_2, next(serial), pair, held))
                continue
            return (pair, count, held) if count > 0 else None
        return None

    def push(self, new_pairs: dict[int, set[int]]) -> None:
        """Queue the pairs a merge created, with the chunks it created them in."""
        for pair, chunks in new_pairs.items():
            if self.pair_counts[pair] > 0:
                heapq.heappush(self.heap, self._entry(pair, chunks))

    def tie(self, pair: int, count: int, held: set[int]) -> Tie | None:
        """The pairs tied with the winner `pair` (call before merging it); None without a tie.

        One comparison when there is no tie. Otherwise the entries whose stored count equals the
        winner's form the top of the heap (no entry's stored count is higher), so they are read
        in place, without popping, and those whose count is current are the tie.
        """
        heap, pair_counts = self.heap, self.pair_counts
        neg_count = -count
        # Stale entries on top are refreshed now, as the next `pop` would do anyway.
        while heap and heap[0][0] == neg_count and pair_counts[heap[0][4]] != count:
            entry = heap[0]
            heapq.heapreplace(heap, (-pair_counts[entry[4]], entry[1], entry[2], next(self.serial), entry[4], entry[5]))
        if not heap or heap[0][0] != neg_count:
            return None
        size, limit = len(heap), self.tie_limit
        packed, chunks = [pair], [held]
        todo, complete = [0], True
        append = todo.append
        for position in todo:  # grows while it is read: a walk down the heap's top
            entry = heap[position]
            other = entry[4]
            if pair_counts[other] == count and other != pair:
                if len(packed) == limit:
                    complete = False
                    break
                packed.append(other)
                chunks.append(entry[5])
            child = position + position + 1
            if child < size:
                if heap[child][0] == neg_count:
                    append(child)
                child += 1
                if child < size and heap[child][0] == neg_count:
                    append(child)
                if len(todo) > VISIT_LIMIT and len(packed) > 1:  # enough to show, and a tie for sure
                    complete = False
                    break
        if len(packed) == 1:
            return None
        if len(set(packed)) < len(packed):  # a pair queued twice (Hugging Face reuses ids for equal bytes)
            first = {p: c for p, c in zip(packed, chunks)}
            packed, chunks = list(first), list(first.values())
        return self._tie(packed, chunks, complete)

    def _tie(self, packed: list[int], chunks: list[set[int]], complete: bool) -> Tie:
        minbpe = self._minbpe_index(packed, chunks) if self.explain else -1
        return Tie(tuple(packed), 0, minbpe, complete)

    def _hf_index(self, packed: list[int]) -> int:
        key = self.key
        return min(range(len(packed)), key=lambda i: (key[packed[i] >> SHIFT], key[packed[i] & MASK]))

    def _minbpe_index(self, packed: list[int], chunks: list[set[int]]) -> int:
        """The pair seen first: the first chunk holding it, then (in one chunk, at one moment)
        token positions order occurrences as well as byte offsets do."""
        words = self.words
        firsts = [_first_chunk(pair, held, words) for pair, held in zip(packed, chunks)]
        first = min(firsts)
        among = [i for i, index in enumerate(firsts) if index == first]
        if len(among) > 1 and first < len(words):
            word = words[first]
            among.sort(key=lambda i: _find(word, packed[i] >> SHIFT, packed[i] & MASK))
        return among[0]


class FirstSeenQueue(HfQueue):
    """Most frequent first; ties to the pair whose first occurrence comes first.

    Entries are ordered by (-count, chunk index, byte offset) of the first occurrence. Only pairs
    holding the newest token gain occurrences (the rules mint a fresh id for every merge), so an
    entry's count only falls and its first occurrence only moves later: the heap is optimistic,
    and the top is checked and pushed back until both are current, exactly the tutorials' choice.
    """

    def __init__(self, pair_counts: dict[int, int], where: dict[int, set[int]], key: list[int],
                 words: list[list[int]], vocab: list[bytes], explain: bool = True) -> None:
        first: dict[int, tuple[int, int]] = {}
        for index, word in enumerate(words):  # bytes still: an offset is a position
            for position in range(len(word) - 1):
                pair = word[position] << SHIFT | word[position + 1]
                if pair not in first:
                    first[pair] = (index, position)
        self.first = first
        super().__init__(pair_counts, where, key, words, vocab, explain=True)  # its own pick is free
        del self.first

    def _entry(self, pair: int, chunks: set[int]) -> Entry:
        index, offset = self.first[pair]
        return (-self.pair_counts[pair], index, offset, next(self.serial), pair, chunks)

    def pop(self) -> tuple[int, int, set[int]] | None:
        heap, pair_counts, serial, words, vocab = self.heap, self.pair_counts, self.serial, self.words, self.vocab
        while heap:
            neg_count, index, offset, _, pair, held = heapq.heappop(heap)
            count = pair_counts[pair]
            if -neg_count != count:
                heapq.heappush(heap, (-count, index, offset, next(serial), pair, held))
                continue
            if count < 1:
                return None
            first = first_occurrence(pair, held, words, vocab, prune=True, known=index)
            if first is not None and first != (index, offset):
                heapq.heappush(heap, (-count, first[0], first[1], next(serial), pair, held))
                continue
            return pair, count, held
        return None

    def push(self, new_pairs: dict[int, set[int]]) -> None:
        # Queued as if first seen at the very start, which is optimistic: `pop` finds where a new
        # pair really is first when it reaches the top, and most new pairs never do.
        heap, pair_counts, serial = self.heap, self.pair_counts, self.serial
        for pair, chunks in new_pairs.items():
            count = pair_counts[pair]
            if count > 0:
                heapq.heappush(heap, (-count, 0, 0, next(serial), pair, chunks))

    def _tie(self, packed: list[int], chunks: list[set[int]], complete: bool) -> Tie:
        return Tie(tuple(packed), self._hf_index(packed), 0, complete)  # the winner is this rule's pick
