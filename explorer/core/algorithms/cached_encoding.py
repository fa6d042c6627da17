"""Encoding a text through a cache of chunk ids, a window of pieces at a time.

Most chunks repeat ("the" occurs a million times), so each distinct chunk is merged once and its
ids kept. The chunks a text brings that the cache has not seen are gathered and merged together
(in numpy when they are many: merge_batch), which is what makes a cold cache fast.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import reduce
from itertools import compress, islice, repeat
from operator import iconcat, is_, itemgetter, not_

from explorer.core.algorithms.special_tokens import SpecialTokens
from explorer.core.collector import collector_paused
from explorer.core.pretokenization.pretokenize import Pretokenizer
from explorer.core.sources.tokenizer import SpecialMode
from explorer.core.text.utf8 import utf8

_CACHE_LIMIT = 1 << 20
_MANY = 512  # unseen chunks worth merging together in numpy (fewer go one by one)
_TOGETHER = 1 << 14  # unseen chunks that windows wait for, to be merged in one numpy call
_WAITING = 1 << 19  # pieces that may wait for them (their ids: 4 MB)
_LOCK_WAIT = 0.002  # seconds an encode waits for the cache another thread holds, then does without it
_BATCH_LONGEST = 256  # bytes; longer chunks take as many rounds as they have merges: the heap is quicker


def new_cache() -> defaultdict[str, Sequence[int]]:
    """chunk -> ids (a tuple). A chunk not seen before gets an empty list at once (in C, no
    Python call), which `CachedEncoding._fill` fills when its window has been looked up: so a
    window is looked up in one C-level pass, and its new chunks, the last keys in the dict's
    order, are encoded together. The cache then keeps a tuple: its ids lie in it, one memory
    read fewer than a list's. A plain defaultdict, not a subclass: each lookup in a subclass
    defined in Python costs more (0.19 s against 0.15 s for the 2.2 million chunks of 10 MB
    of prose)."""
    return defaultdict(list)


def newest(cache: dict[str, Sequence[int]], count: int) -> list[str]:
    """The last `count` chunks added to `cache`."""
    return list(islice(reversed(cache), count))


def _look_up(cache: dict[str, Sequence[int]], pieces: list[str]) -> Sequence[Sequence[int]]:
    """The cache's entry of each piece, in order. `itemgetter` reads the dict directly, where
    mapping `cache.__getitem__` makes a method call per piece: 0.17 s against 0.20 s for the
    2.2 million chunks of 10 MB of prose (its result is a tuple; for one piece, not a tuple)."""
    if len(pieces) < 2:
        return list(map(cache.__getitem__, pieces))
    return itemgetter(*pieces)(cache)


class CachedEncoding:
    """`encode` for a BPE: pre-tokenize, look every chunk up in the cache, merge the new ones.

    The BPE supplies the merge rule: `encode_bytes` (one chunk), `_merge` (one chunk from where
    it stands), `_batch_tables` and `_merges_together` (many chunks in numpy), `_whole_tokens`.
    """

    special: SpecialTokens
    ignore_merges: bool
    _pretokenizer: Pretokenizer

    def _start_cache(self) -> None:
        self._cache = new_cache()
        self._cache_lock = threading.Lock()  # held while a call's new chunks wait unfilled in it

    def __getstate__(self) -> dict[str, object]:
        """Pickled (for a child process) without the cache's lock, which belongs to this process."""
        state = self.__dict__.copy()
        del state["_cache_lock"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._cache_lock = threading.Lock()

    # The merge rule, from the BPE.

    def encode_bytes(self, data: bytes) -> list[int]:
        raise NotImplementedError

    def _merge(self, ids: list[int]) -> list[int]:
        raise NotImplementedError

    def _merges_together(self) -> bool:
        raise NotImplementedError

    _batch_tables: tuple[object, object]
    _whole_tokens: dict[bytes, int]

    # Encoding

    def prepare(self) -> None:
        """Build now what merging many new chunks together needs besides the cache: the pair
        tables (25-55 ms for cl100k_base), which the first big encode would otherwise build.
        tiktoken builds its own when its Encoding is made; bench_tiktoken_encode calls this
        before timing a cold cache, so both encoders' one-time work stays outside the timing."""
        if self._merges_together():
            byte_ids, ranks = self._batch_tables
            ranks.byte_pairs(byte_ids)  # type: ignore[attr-defined]

    def encode(self, text: str, special: SpecialMode = "disallowed") -> list[int]:
        """Token ids of `text`.

        >>> from explorer.core.algorithms.bpe import BPE
        >>> BPE([(97, 116, 256)], "gpt2").encode("cat")
        [99, 256]
        """
        # (On a cold cache, 80,000 new chunks of 10 MB make as many lists and tuples: collections
        # walking them were a third of the cold encode; the GUI encodes in blocks, so the pause is short.)
        with collector_paused():
            return self._encode(text, special)

    def _encode(self, text: str, special: SpecialMode) -> list[int]:
        out: list[int] = []
        for _, segment, special_id in self.special.segments(text, special):
            if special_id is not None:
                out.append(special_id)
            else:
                self._encode_segment(segment, out)
        return out

    def _encode_segment(self, text: str, out: list[int]) -> None:
        """Append the ids of `text` (no special tokens) to `out`, a window of pieces at a time.

        A window's new chunks get empty lists (see new_cache). The windows that met them wait
        until _TOGETHER new chunks have come (or _WAITING pieces, or the text ends), so that
        they are merged in fewer, bigger numpy calls (0.03 s less on 10 MB); then the lists are
        filled and the waiting windows go out.
        """
        cache, lock = self._cache, self._cache_lock
        waiting: list[Sequence[Sequence[int]]] = []
        waited = 0  # pieces in the waiting windows
        known = 0  # the chunks before the waiting windows
        held = False  # the lock: another thread must not meet (or add to) this call's empty lists
        try:
            for pieces in self._pretokenizer.iter_pieces(text):
                if not held:
                    held = lock.acquire(timeout=_LOCK_WAIT)
                    if not held:  # another thread's new chunks wait in the cache: do without it
                        out += self._without_cache(pieces)
                        continue
                    known = len(cache)
                    if known > _CACHE_LIMIT:
                        cache.clear()
                        known = 0
                found = _look_up(cache, pieces)  # a new chunk: an empty list, for now
                if len(cache) > known or waiting:
                    waiting.append(found)
                    waited += len(found)
                    if len(cache) - known < _TOGETHER and waited < _WAITING:
                        continue
                    self._flush(waiting, known, out)
                    waited = 0
                else:
                    reduce(iconcat, found, out)  # (a warm cache; list += tuple, in C)
                lock.release()
                held = False
            if waiting:
                self._flush(waiting, known, out)
        except BaseException:  # (a pattern's timeout, an interrupt)
            if held:
                list(map(cache.pop, newest(cache, len(cache) - known)))  # no empty list may stay behind
            raise
        finally:
            if held:
                lock.release()

    def _without_cache(self, pieces: list[str]) -> list[int]:
        """The ids of `pieces`, for a thread that finds the cache held: the filled entries read,
        the others (missing, or another call's empty list) merged here and not kept. So the
        window's encode of a word never waits for a worker's cold encode of a corpus, whose
        waiting windows hold the cache for up to a few hundred milliseconds."""
        get, ids = self._cache.get, []
        for piece in pieces:
            ids += get(piece) or self.encode_bytes(utf8(piece))
        return ids

    def _flush(self, waiting: list[Sequence[Sequence[int]]], known: int, out: list[int]) -> None:
        """Encode the new chunks of the `waiting` windows (those after the first `known` of the
        cache), append the windows' ids to `out`."""
        self._fill(len(self._cache) - known)
        for found in waiting:
            reduce(iconcat, found, out)
        waiting.clear()

    def _fill(self, count: int) -> None:
        """Encode the `count` newest chunks into the empty lists the cache gave them (and keep
        them in the cache as tuples): together in numpy when they are many (a cold cache; see
        merge_batch), else one by one."""
        new = newest(self._cache, count)
        slots = list(islice(reversed(self._cache.values()), count))  # (no lookup again)
        try:
            data = list(map(str.encode, new))
        except UnicodeEncodeError:  # a lone surrogate
            data = list(map(utf8, new))
        if len(new) < _MANY or not self._merges_together():
            ids = list(map(tuple, map(self.encode_bytes, data)))
        else:
            ids = self._learn(data)
        list(map(list.extend, slots, ids))  # for the windows that met them
        self._cache.update(zip(new, ids))

    def _learn(self, data: list[bytes]) -> list[tuple[int, ...]]:
        """The ids of many chunks (`data`), merged in numpy all at once: one by one, each costs
        microseconds. Those that are a token whole (`ignore_merges`) come from the vocabulary,
        the rare long ones from the one-chunk merge loop. Each kind is put in its chunks'
        places, so that the caller stores them all in one pass."""
        from explorer.core.algorithms.merge_batch import merge_chunks  # numpy: imported when first needed

        ids: list[tuple[int, ...]] = [()] * len(data)
        places: Iterable[int] = range(len(data))  # of the chunks still to merge
        if self.ignore_merges:
            tokens = list(map(self._whole_tokens.get, data))
            ids = list(zip(tokens))  # (None,) where a chunk is no token: merged below
            merging = list(map(is_, tokens, repeat(None)))
            places, data = list(compress(places, merging)), list(compress(data, merging))
        if max(map(len, data), default=0) > _BATCH_LONGEST:  # rare: leave the long ones to the heap
            long = [len(chunk_bytes) > _BATCH_LONGEST for chunk_bytes in data]
            list(map(ids.__setitem__, compress(places, long),
                     [tuple(self.encode_bytes(chunk_bytes)) for chunk_bytes in compress(data, long)]))
            short = list(map(not_, long))
            places, data = list(compress(places, short)), list(compress(data, short))
        byte_ids, ranks = self._batch_tables
        list(map(ids.__setitem__, places, merge_chunks(data, byte_ids, ranks, self._merge)))
        return ids

    def encode_chunk(self, chunk: str) -> tuple[int, ...]:
        """The ids of one pre-tokenized chunk (cached)."""
        ids = self._cache.get(chunk)
        if not ids:  # (an empty list: another thread's encode is about to fill it)
            ids = tuple(self.encode_bytes(utf8(chunk)))
            if self._cache_lock.acquire(timeout=_LOCK_WAIT):  # (held by a cold encode: not kept)
                try:
                    self._cache.setdefault(chunk, ids)
                finally:
                    self._cache_lock.release()
        return tuple(ids)
