"""Which pair merges next: the two tie-breaking rules, as priority queues over live pair counts.

Both queues are lazy heaps over the trainer's `pair_counts`, as in Hugging Face's `trainer.rs`:
an entry whose count went stale is refreshed when it reaches the top. An entry is one int packing
its whole order, its pair and the slot of `held` where the chunks it will merge in wait, as 4 bytes
each (or that chunk itself, when it is one): a heap of ints compares in one step, takes a third of
the memory of tuples of sets, and the garbage collector never walks it. The queues differ only in
how pairs with equal counts are ordered:

- `HfQueue` ("hf" rules): the smaller pair of ids in Hugging Face's id space, as its `BpeTrainer`;
- `FirstSeenQueue` ("minbpe" rules): the pair seen first, as the tutorials' and minbpe's
  `max(counts, key=counts.get)` over pair counts recounted from scratch at every merge.

Both also report a `Tie`: the other pairs that had the winning count, and which one each rule picks.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import NamedTuple

SHIFT = 21  # a pair (left, right) is the int left << SHIFT | right: cheaper to hash than a tuple
MASK = (1 << SHIFT) - 1
TIE_LIMIT = 16  # tied pairs a merge lists at most (ties late in a small corpus can number thousands)
QUICK_TIE_LIMIT = 4  # ... when the other rule's pick is not asked for (the command line's count of ties)
VISIT_LIMIT = 6 * TIE_LIMIT  # heap entries read looking for them (stale ones are read and passed over)

# A heap entry, from its low bits: pair, slot in `held` (or the one chunk itself, with the ALONE
# bit: most pairs a merge makes are made in one chunk), serial (which entry of a pair came first),
# two order keys, then minus the count: ints order as (-count, key 1, key 2, serial) would as a tuple.
PAIR_MASK = (1 << 2 * SHIFT) - 1
SLOT_BITS, FIELD = 32, 40  # FIELD: bits of the serial and of each order key (a chunk index or byte offset for "minbpe")
SLOT_AT = 2 * SHIFT
ALONE = 1 << SLOT_AT + SLOT_BITS
SERIAL_AT = SLOT_AT + SLOT_BITS + 1
KEY_2_AT, KEY_1_AT, COUNT_AT = SERIAL_AT + FIELD, SERIAL_AT + 2 * FIELD, SERIAL_AT + 3 * FIELD
SLOT_MASK, FIELD_MASK = (1 << SLOT_BITS) - 1, (1 << FIELD) - 1
KEYS = ((1 << 2 * FIELD) - 1) << KEY_2_AT  # the order keys' bits
KEY_OFFSET = 1 << SHIFT  # "hf" order keys are ids, or negative for special tokens: shifted to be positive
Held = Collection[int]  # the chunks an entry will merge in (an array; a set for "minbpe", which prunes it)
Words = Sequence[Sequence[int]]  # the ids of each chunk (the trainer's FlatWords)


def pack(count: int, key_1: int, key_2: int, serial: int, slot: int, pair: int) -> int:
    return (-count << COUNT_AT | key_1 << KEY_1_AT | key_2 << KEY_2_AT | serial << SERIAL_AT | slot << SLOT_AT
            | pair)


class Tie(NamedTuple):
    """The pairs that shared the winning count when a merge was chosen, the winner first.

    Stored packed (`left << SHIFT | right`), as the trainer has them, 8 bytes each in one bytes
    object, in a named tuple (quick to make): most merges of a long run are ties, and as a tuple of
    ints the pairs took over three times the memory (some 5 MB of 30,000 ties on 10 MB of code, a
    twentieth of training's peak). `complete` is False when more than TIE_LIMIT pairs tied
    (QUICK_TIE_LIMIT without `explain`: only the first are listed); the picks are then among the
    listed pairs.
    """

    data: bytes  # the packed pairs as 8-byte ints (`packed` reads them)
    hf_index: int  # which of them Hugging Face's rule picks: the smaller pair of ids in its id space
    minbpe_index: int  # which one the tutorials' rule picks: the pair seen first (-1: not worked out)
    complete: bool = True

    @classmethod
    def of(cls, packed: Sequence[int], hf_index: int, minbpe_index: int, complete: bool = True) -> Tie:
        return cls(array("q", packed).tobytes(), hf_index, minbpe_index, complete)

    @property
    def packed(self) -> tuple[int, ...]:
        return tuple(array("q", self.data))

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


def first_occurrence(pair: int, chunks: set[int], words: Words, vocab: list[bytes],
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


def _first_chunk(pair: int, chunks: Held, words: Words) -> int:
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


def _find(word: Sequence[int], left: int, right: int) -> int:
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

    def __init__(self, pair_counts: dict[int, int], where: dict[int, Held], key: list[int],
                 words: Words, vocab: list[bytes], explain: bool = False) -> None:
        self.pair_counts, self.key, self.words, self.vocab = pair_counts, key, words, vocab
        self.explain = explain  # also find the pair the other rule picks in a tie (a scan per tied pair)
        self.tie_limit = TIE_LIMIT if explain else QUICK_TIE_LIMIT
        self.serial = 0
        # The chunks of each entry, in the slot the entry names; a popped entry's slot is reused
        # (a dict keyed by entries would take three times the memory: it never shrinks).
        self.held: list[object] = []
        self.free: list[int] = []
        self.heap: list[int] = [self._entry(p, held) for p, held in where.items()]
        heapq.heapify(self.heap)

    def _entry(self, pair: int, chunks: Held) -> int:
        key = self.key
        count, key_1, key_2 = self.pair_counts[pair], key[pair >> SHIFT] + KEY_OFFSET, key[pair & MASK] + KEY_OFFSET
        if len(chunks) == 1:
            (chunk,) = chunks
            entry = pack(count, key_1, key_2, self.serial, chunk, pair) | ALONE
            self.serial += 1
            return entry
        return self._new(count, key_1, key_2, pair, self._stored(chunks))

    def _stored(self, chunks: Iterable[int]) -> object:
        """Chunk indices as they wait in `held`: 4 bytes each (a set takes ten times that)."""
        return array("i", chunks).tobytes()

    def _chunks(self, stored: object) -> Held:
        return array("i", stored)  # type: ignore[arg-type]

    def _new(self, count: int, key_1: int, key_2: int, pair: int, stored: object) -> int:
        """A new entry (the next serial) whose chunks wait in a free slot."""
        if self.free:
            slot = self.free.pop()
            self.held[slot] = stored
        else:
            slot = len(self.held)
            self.held.append(stored)
        entry = pack(count, key_1, key_2, self.serial, slot, pair)
        self.serial += 1
        return entry

    def _peek(self, entry: int) -> Held:
        """The chunks an entry will merge in."""
        if entry & ALONE:
            return (entry >> SLOT_AT & SLOT_MASK,)
        return self._chunks(self.held[entry >> SLOT_AT & SLOT_MASK])

    def _take(self, entry: int) -> Held:
        """The chunks of an entry leaving the heap; its slot becomes free."""
        chunks = self._peek(entry)
        if not entry & ALONE:
            slot = entry >> SLOT_AT & SLOT_MASK
            self.held[slot] = None
            self.free.append(slot)
        return chunks

    def _refresh(self, entry: int, count: int) -> int:
        """The entry again with its current count and a new serial (as if pushed now), same keys and chunks."""
        fresh = -count << COUNT_AT | entry & KEYS | self.serial << SERIAL_AT | entry & ~(-1 << SERIAL_AT)
        self.serial += 1
        return fresh

    def pop(self) -> tuple[int, int, Held] | None:
        """The next pair to merge, its count and the chunks that may hold it; None when no pair is left."""
        heap, pair_counts = self.heap, self.pair_counts
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            entry = pop(heap)
            pair = entry & PAIR_MASK
            count = pair_counts[pair]
            if -(entry >> COUNT_AT) != count:
                push(heap, self._refresh(entry, count))
                continue
            chunks = self._take(entry)
            return (pair, count, chunks) if count > 0 else None
        return None

    def push(self, new_pairs: dict[int, set[int]]) -> None:
        """Queue the pairs a merge created, with the chunks it created them in."""
        heap, pair_counts, key, held, free = self.heap, self.pair_counts, self.key, self.held, self.free
        serial, push = self.serial, heapq.heappush
        for pair, chunks in new_pairs.items():
            count = pair_counts[pair]
            if count > 0:  # `_entry`, inlined: a merge pushes tens of pairs
                if len(chunks) == 1:
                    (chunk,) = chunks
                    where = ALONE | chunk << SLOT_AT
                else:
                    stored = array("i", chunks).tobytes()
                    if free:
                        slot = free.pop()
                        held[slot] = stored
                    else:
                        slot = len(held)
                        held.append(stored)
                    where = slot << SLOT_AT
                push(heap, -count << COUNT_AT | (key[pair >> SHIFT] + KEY_OFFSET) << KEY_1_AT
                     | (key[pair & MASK] + KEY_OFFSET) << KEY_2_AT | serial << SERIAL_AT | where | pair)
                serial += 1
        self.serial = serial

    def tie(self, pair: int, count: int, held: Held) -> Tie | None:
        """The pairs tied with the winner `pair` (call before merging it); None without a tie.

        One comparison when there is no tie. Otherwise the entries whose stored count equals the
        winner's form the top of the heap (no entry's stored count is higher), so they are read
        in place, without popping, and those whose count is current are the tie.
        """
        heap, pair_counts = self.heap, self.pair_counts
        # No entry's stored count is above the winner's, so those that equal it are the ints below
        # `high`: compared as they are, without shifting each one (a new int per shift).
        high = -count + 1 << COUNT_AT
        # Stale entries on top are refreshed now, as the next `pop` would do anyway.
        while heap:
            top = heap[0]
            if top >= high:
                return None
            current = pair_counts[top & PAIR_MASK]
            if current == count:
                break
            heapq.heapreplace(heap, self._refresh(top, current))
        else:
            return None
        size, limit = len(heap), self.tie_limit
        packed, entries = [pair], [0]  # the winner's chunks are `held` (it left the heap; entries are < 0)
        todo, complete = [0], True
        append = todo.append
        for position in todo:  # grows while it is read: a walk down the heap's top
            entry = heap[position]
            other = entry & PAIR_MASK
            if pair_counts[other] == count and other != pair:
                if len(packed) == limit:
                    complete = False
                    break
                packed.append(other)
                entries.append(entry)
            child = position + position + 1
            if child < size:
                if heap[child] < high:
                    append(child)
                child += 1
                if child < size and heap[child] < high:
                    append(child)
                if len(todo) > VISIT_LIMIT and len(packed) > 1:  # enough to show, and a tie for sure
                    complete = False
                    break
        if len(packed) == 1:
            return None
        if len(set(packed)) < len(packed):  # a pair queued twice (Hugging Face reuses ids for equal bytes)
            first = dict(zip(packed, entries))  # in the order first listed, with the last entry's chunks
            packed, entries = list(first), list(first.values())
        if not self.explain:
            return Tie.of(packed, 0, -1, complete)
        return self._tie(packed, [self._peek(entry) if entry else held for entry in entries], complete)

    def _tie(self, packed: list[int], chunks: list[Held], complete: bool) -> Tie:
        minbpe = self._minbpe_index(packed, chunks) if self.explain else -1
        return Tie.of(packed, 0, minbpe, complete)

    def _hf_index(self, packed: list[int]) -> int:
        key = self.key
        return min(range(len(packed)), key=lambda i: (key[packed[i] >> SHIFT], key[packed[i] & MASK]))

    def _minbpe_index(self, packed: list[int], chunks: list[Held]) -> int:
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

    def __init__(self, pair_counts: dict[int, int], where: dict[int, Held], key: list[int],
                 words: Words, vocab: list[bytes], explain: bool = True) -> None:
        first: dict[int, tuple[int, int]] = {}
        for index, word in enumerate(words):  # bytes still: an offset is a position
            for position in range(len(word) - 1):
                pair = word[position] << SHIFT | word[position + 1]
                if pair not in first:
                    first[pair] = (index, position)
        self.first = first
        super().__init__(pair_counts, where, key, words, vocab, explain=True)  # its own pick is free
        del self.first

    def _entry(self, pair: int, chunks: Held) -> int:
        index, offset = self.first[pair]
        return self._new(self.pair_counts[pair], index, offset, pair, self._stored(chunks))

    def _stored(self, chunks: Iterable[int]) -> object:
        return set(chunks)  # as a set: `first_occurrence` prunes it

    def _chunks(self, stored: object) -> Held:
        return stored  # type: ignore[return-value]

    def pop(self) -> tuple[int, int, Held] | None:
        heap, pair_counts, words, vocab = self.heap, self.pair_counts, self.words, self.vocab
        while heap:
            entry = heapq.heappop(heap)
            pair = entry & PAIR_MASK
            count = pair_counts[pair]
            if -(entry >> COUNT_AT) != count:
                heapq.heappush(heap, self._refresh(entry, count))
                continue
            held: set[int] = self._take(entry)  # type: ignore[assignment]  # a set: this queue is never ALONE
            if count < 1:
                return None
            index, offset = entry >> KEY_1_AT & FIELD_MASK, entry >> KEY_2_AT & FIELD_MASK
            first = first_occurrence(pair, held, words, vocab, prune=True, known=index)
            if first is not None and first != (index, offset):
                heapq.heappush(heap, self._new(count, first[0], first[1], pair, held))
                continue
            return pair, count, held
        return None

    def push(self, new_pairs: dict[int, set[int]]) -> None:
        # Queued as if first seen at the very start, which is optimistic: `pop` finds where a new
        # pair really is first when it reaches the top, and most new pairs never do.
        heap, pair_counts = self.heap, self.pair_counts
        for pair, chunks in new_pairs.items():
            count = pair_counts[pair]
            if count > 0:
                heapq.heappush(heap, self._new(count, 0, 0, pair, chunks))

    def _tie(self, packed: list[int], chunks: list[Held], complete: bool) -> Tie:
        return Tie.of(packed, self._hf_index(packed), 0, complete)  # the winner is this rule's pick
