"""Encoding and decoding with a list of learned merges.

Encoding replays history: inside each chunk, apply the pair that was merged earliest in
training, and repeat until no learned pair remains. Results are cached per chunk, because
most chunks repeat ("the" occurs a million times), which makes pure Python fast enough.
"""

from __future__ import annotations

import gc
import heapq
import threading
from collections import defaultdict
from itertools import chain, compress, islice, repeat
from operator import is_, is_not, not_
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

import regex

from explorer.core.algorithms.bytelevel import to_chars
from explorer.core.algorithms.merges import MergeForest
from explorer.core.errors import ExplorerError, SpecialTokenError
from explorer.core.pretokenization.pretokenize import Pretokenizer
from explorer.core.pretokenization.unicode_classes import Reference
from explorer.core.sources.tokenizer import MAX_TOKEN_ID, SPECIAL_MODES, SpecialMode, Tokenizer, unknown_id

_LONG_CHUNK = 48  # bytes; longer chunks use the heap-based merge loop
_CACHE_LIMIT = 1 << 20
_BATCH = 1 << 16  # pieces looked up at a time, so that unseen chunks come many at once
_MANY = 512  # unseen chunks worth merging together in numpy (fewer go one by one)
_TOGETHER = 1 << 14  # unseen chunks that batches wait for, to be merged in one numpy call
_WAITING = 8  # batches that may wait for them (their ids: 4 MB)
_BATCH_LONGEST = 256  # bytes; longer chunks take as many rounds as they have merges: the heap is quicker
_NEVER = 1 << 62  # the rank of a pair that was never merged


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One step of encoding a chunk: `left`+`right` -> `new_id` (merge `rank`) at `positions`."""

    rank: int
    left: int
    right: int
    new_id: int
    positions: tuple[int, ...]
    ids: tuple[int, ...]  # the chunk's ids after this step


class SpecialTokens:
    """Finds special-token strings in text and applies a special-token mode."""

    def __init__(self, tokens: dict[str, int]) -> None:
        if "" in tokens:
            raise ExplorerError("a special token cannot be empty: it would be found at every position of every text")
        self.tokens = dict(tokens)
        self._regex = regex.compile(_longest_literal(self.tokens)) if tokens else None

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Every (start, end, token) occurrence in `text`."""
        if self._regex is None:
            return []
        return [(m.start(), m.end(), m.group()) for m in self._regex.finditer(text)]

    def check(self, text: str, mode: SpecialMode) -> list[tuple[int, int, str]]:
        """The occurrences that `mode` makes control tokens; raises if `mode` disallows them."""
        if mode not in SPECIAL_MODES:
            raise ExplorerError(f"unknown special-token mode {mode!r}; use one of {', '.join(SPECIAL_MODES)}")
        found = [] if mode == "plain" else self.find(text)
        if found and mode == "disallowed":
            start, _, token = found[0]
            raise SpecialTokenError(token, start)
        return found

    def segments(self, text: str, mode: SpecialMode) -> Iterator[tuple[int, str, int | None]]:
        """Yield (start, text, special id or None): ordinary text between control tokens."""
        found = self.check(text, mode)
        position = 0
        for start, end, token in found:
            if start > position:
                yield position, text[position:start], None
            yield start, token, self.tokens[token]
            position = end
        if position < len(text) or not text:
            yield position, text[position:], None


def _longest_literal(words: Iterable[str]) -> str:
    """A regex matching the longest of `words` at each position, written as a trie.

    The plain alternation (longest first) takes 0.6 s to compile for Llama 4's 2,048 special
    tokens, which share long prefixes; the trie spells each prefix once and compiles in 0.1 s.
    A greedy `?` after a word's last character tries the longer words first, as the
    longest-first alternation does.
    """
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in filter(None, words):
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here

    def spelt(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
        branches = [regex.escape(char) + spelt(child) for char, child in node.items() if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" not in node:
            return body
        return f"(?:{body})?" if len(branches) == 1 else body + "?"

    return spelt(trie)


class _ChunkCache(defaultdict[str, Sequence[int]]):
    """chunk -> ids (a tuple). A chunk not seen before gets an empty list at once (in C, no
    Python call), which `BPE._fill` fills when its batch has been looked up: so a batch is looked
    up in one C-level pass, and its new chunks, the last keys in the dict's order, are encoded
    together. The cache then keeps a tuple: its ids lie in it, one memory read fewer than a list's."""

    def __init__(self) -> None:
        super().__init__(list)

    def newest(self, count: int) -> list[str]:
        """The last `count` chunks added."""
        return list(islice(reversed(self), count))

    def __reduce__(self) -> tuple[object, ...]:  # (defaultdict's passes its factory, which __init__ knows)
        return type(self), (), None, None, iter(self.items())


class BPE(Tokenizer):
    """A byte-level BPE tokenizer: pattern, ordered merges and special tokens.

    By default ids 0-255 are the bytes and merge number k creates id 256 + k (unless its bytes
    already exist, which Hugging Face's trainer allows); special tokens come after the merges.
    Real vocabularies number their bytes differently (tiktoken's r50k_base gives `!` id 0):
    pass `vocab`, the bytes of every id, and the bytes are looked up there. `ignore_merges`
    is Hugging Face's option (Llama 3 uses it): a chunk that is itself a token is taken whole.
    """

    def __init__(
        self,
        merges: Iterable[tuple[int, int, int]],
        pattern: str = "cl100k",
        special_tokens: dict[str, int] | None = None,
        name: str = "bpe",
        counts: Sequence[int] | None = None,
        metadata: dict[str, object] | None = None,
        source: str = "",
        vocab: Sequence[bytes] | None = None,
        ignore_merges: bool = False,
        reference: Reference = "tokenizers",
        specials_may_share: bool = False,
    ) -> None:
        self.name = name
        self.source = source
        self.metadata = dict(metadata or {})
        self._pretokenizer = Pretokenizer(pattern, reference)  # whose Unicode tables the pattern follows
        self.vocab: list[bytes] = list(vocab) if vocab is not None else [bytes([b]) for b in range(256)]
        self.byte_ids = _byte_ids(self.vocab)  # byte value -> its id; None when they are equal
        self.merges: list[tuple[int, int, int]] = []
        self.ranks: dict[tuple[int, int], int] = {}
        self.merged: dict[tuple[int, int], int] = {}
        self._merged_by_rank: list[int] = []
        for left, right, new_id in merges:
            self._add_merge(left, right, new_id)
        self.counts = list(counts) if counts is not None else None  # training count of each merge
        self.special = SpecialTokens(special_tokens or {})
        shared: set[int] = set()  # ids a special token may share (tiktoken's o200k_harmony names 200018 twice)
        for token, token_id in sorted(self.special.tokens.items(), key=lambda item: item[1]):
            self._set_special(token, token_id, shared)
            if specials_may_share:
                shared.add(token_id)
        self.ignore_merges = ignore_merges
        self._cache = _ChunkCache()
        self._cache_lock = threading.Lock()  # held while a call's new chunks wait unfilled in it

    def __getstate__(self) -> dict[str, object]:
        """Pickled (for a child process) without the cache's lock, which belongs to this process."""
        state = self.__dict__.copy()
        del state["_cache_lock"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._cache_lock = threading.Lock()

    def _set_bytes(self, token_id: int, data: bytes) -> None:
        if len(self.vocab) <= token_id:
            self.vocab.extend([b""] * (token_id + 1 - len(self.vocab)))
        self.vocab[token_id] = data

    def _set_special(self, token: str, token_id: int, special_ids: set[int]) -> None:
        """A special token may share an id only with a token of its bytes, with a byte or merged
        token spelt like it (`to_chars`, as Hugging Face's trainer shares them; see train.py), or
        with an earlier special token at an id in `shared` (the later name decodes); any other
        token at its id is a clash: the file is damaged."""
        data = token.encode("utf-8")
        if not 0 <= token_id < MAX_TOKEN_ID:
            raise ExplorerError(f"the special token {token!r} has id {token_id}, outside 0 to {MAX_TOKEN_ID - 1}; "
                                "the file is damaged")
        existing = self.vocab[token_id] if token_id < len(self.vocab) else b""
        if existing and to_chars(existing) == token:
            return  # a byte or merged token spelt like this special token: they share the id (train.py)
        if existing and existing != data and token_id not in special_ids:
            raise ExplorerError(f"the special token {token!r} has id {token_id}, which is already the token "
                                f"{existing!r}; give it an id of its own (such as {len(self.vocab)})")
        self._set_bytes(token_id, data)

    def _add_merge(self, left: int, right: int, new_id: int) -> None:
        rank = len(self.merges)
        if min(left, right) < 0 or max(left, right) >= len(self.vocab) or not self.vocab[left] or not self.vocab[right]:
            bad = left if left < 0 or left >= len(self.vocab) or not self.vocab[left] else right
            raise ExplorerError(f"merge {rank} ({left} + {right} -> {new_id}) uses token {bad} before it exists; "
                                "a merge may only join tokens made earlier: the file is damaged")
        if not 0 <= new_id < MAX_TOKEN_ID:
            raise ExplorerError(f"merge {rank} ({left} + {right} -> {new_id}) makes an id outside 0 to "
                                f"{MAX_TOKEN_ID - 1}; the file is damaged")
        joined = self.vocab[left] + self.vocab[right]
        existing = self.vocab[new_id] if new_id < len(self.vocab) else b""
        # A tokenizer.json may hold a special token spelt like the merge (`Ġth`) at the merge's id.
        if existing and existing != joined and existing != to_chars(joined).encode("utf-8"):
            raise ExplorerError(f"merge {rank} ({left} + {right} -> {new_id}) would make id {new_id} {joined!r}, "
                                f"but id {new_id} is already {existing!r}; the merges do not agree with the bytes "
                                "they claim: the file is damaged or was edited, train or export it again")
        if (left, right) in self.ranks:
            return  # a repeated pair never applies twice
        self.ranks[left, right] = len(self.merges)
        self.merged[left, right] = new_id
        self._merged_by_rank.append(new_id)
        self.merges.append((left, right, new_id))
        self._set_bytes(new_id, joined)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @property
    def special_tokens(self) -> dict[str, int]:
        return self.special.tokens

    @property
    def pretokenizer(self) -> Pretokenizer:
        return self._pretokenizer

    @property
    def pattern(self) -> str:
        return self._pretokenizer.regex

    @cached_property
    def forest(self) -> MergeForest:
        return MergeForest(self.merges, self.vocab, self.counts)

    def token_bytes(self, token_id: int) -> bytes:
        if not 0 <= token_id < len(self.vocab) or not self.vocab[token_id]:
            raise unknown_id(token_id, self.vocab, self.name)
        return self.vocab[token_id]

    # Encoding

    def encode(self, text: str, special: SpecialMode = "disallowed") -> list[int]:
        """Token ids of `text`.

        >>> BPE([(97, 116, 256)], "gpt2").encode("cat")
        [99, 256]
        """
        with _collector_paused():
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
        """Append the ids of `text` (no special tokens) to `out`, a batch of pieces at a time.

        A batch's new chunks get empty lists (see _ChunkCache). The batches that met them wait
        until _TOGETHER new chunks have come (or _WAITING batches, or the text ends), so that
        they are merged in fewer, bigger numpy calls (0.03 s less on 10 MB); then the lists are
        filled and the waiting batches go out.
        """
        cache, lock = self._cache, self._cache_lock
        waiting: list[list[Sequence[int]]] = []
        known = 0  # the chunks before the waiting batches
        held = False  # the lock: another thread must not meet (or add to) this call's empty lists
        try:
            for pieces in self._batches(text):
                if not held:
                    held = lock.acquire()
                    known = len(cache)
                    if known > _CACHE_LIMIT:
                        cache.clear()
                        known = 0
                found = list(map(cache.__getitem__, pieces))  # a new chunk: an empty list, for now
                if len(cache) > known or waiting:
                    waiting.append(found)
                    if len(cache) - known < _TOGETHER and len(waiting) < _WAITING:
                        continue
                    self._flush(waiting, known, out)
                else:
                    out.extend(chain.from_iterable(found))  # (a warm cache)
                lock.release()
                held = False
            if waiting:
                self._flush(waiting, known, out)
        except BaseException:  # (a lone surrogate, a pattern's timeout, an interrupt)
            if held:
                list(map(cache.pop, cache.newest(len(cache) - known)))  # no empty list may stay behind
            raise
        finally:
            if held:
                lock.release()

    def _flush(self, waiting: list[list[Sequence[int]]], known: int, out: list[int]) -> None:
        """Encode the new chunks of the `waiting` batches (those after the first `known` of the
        cache), append the batches' ids to `out`."""
        self._fill(self._cache.newest(len(self._cache) - known))
        for found in waiting:
            out.extend(chain.from_iterable(found))
        waiting.clear()

    def _batches(self, text: str) -> Iterator[list[str]]:
        """The pieces of `text` in lists of about _BATCH."""
        batch: list[str] = []
        for pieces in self._pretokenizer.iter_pieces(text):
            batch += pieces
            if len(batch) >= _BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    def _fill(self, new: list[str]) -> None:
        """Encode the `new` chunks into the empty lists the cache gave them (and keep them in
        the cache as tuples): together in numpy when they are many (a cold cache; see
        merge_batch), else one by one."""
        slots = list(map(self._cache.__getitem__, new))
        data = list(map(str.encode, new))
        if len(new) < _MANY or not self._merges_together():
            self._store(new, slots, list(map(tuple, map(self.encode_bytes, data))))
        else:
            self._learn(new, slots, data)

    def _store(self, chunks: Iterable[str], slots: Iterable[list[int]], ids: list[tuple[int, ...]]) -> None:
        """The ids of new chunks: into their slots (for the batch that met them) and the cache."""
        list(map(list.extend, slots, ids))
        self._cache.update(zip(chunks, ids))

    def _merges_together(self) -> bool:
        """Whether `_learn` gives `encode_bytes`'s ids: a subclass with a merge rule of its own
        keeps it, chunk by chunk, unless it says its `_batch_tables` follow that rule."""
        return type(self).encode_bytes is BPE.encode_bytes

    def _learn(self, chunks: list[str], slots: list[list[int]], data: list[bytes]) -> None:
        """Merge many chunks (`data`) in numpy all at once: one by one, each costs microseconds.
        Those that are a token whole (`ignore_merges`) come from the vocabulary, the rare long
        ones from the one-chunk merge loop."""
        from explorer.core.algorithms.merge_batch import merge_chunks  # numpy: imported when first needed

        if self.ignore_merges:
            tokens = list(map(self._whole_tokens.get, data))
            whole = list(map(is_not, tokens, repeat(None)))
            self._store(compress(chunks, whole), compress(slots, whole), list(zip(compress(tokens, whole))))
            merging = list(map(is_, tokens, repeat(None)))
            chunks, slots, data = list(compress(chunks, merging)), list(compress(slots, merging)), \
                list(compress(data, merging))
        if max(map(len, data), default=0) > _BATCH_LONGEST:  # rare: leave the long ones to the heap
            long = [len(chunk_bytes) > _BATCH_LONGEST for chunk_bytes in data]
            self._store(compress(chunks, long), compress(slots, long),
                        [tuple(self.encode_bytes(chunk_bytes)) for chunk_bytes in compress(data, long)])
            short = list(map(not_, long))
            chunks, slots, data = list(compress(chunks, short)), list(compress(slots, short)), \
                list(compress(data, short))
        byte_ids, ranks = self._batch_tables
        self._store(chunks, slots, merge_chunks(data, byte_ids, ranks, self._merge))

    @cached_property
    def _batch_tables(self) -> tuple[object, object]:
        """What `merge_chunks` needs: each byte's id as an array, and the pair ranks."""
        import numpy as np

        from explorer.core.algorithms.merge_batch import PairRanks

        byte_ids = np.array(self.byte_ids if self.byte_ids is not None else range(256), dtype=np.int64)
        return byte_ids, PairRanks.of_merges(self.merges, len(self.vocab))

    def encode_chunk(self, chunk: str) -> tuple[int, ...]:
        """The ids of one pre-tokenized chunk (cached)."""
        ids = self._cache.get(chunk)
        if not ids:  # (an empty list: another thread's encode is about to fill it)
            ids = tuple(self.encode_bytes(chunk.encode("utf-8")))
            with self._cache_lock:
                self._cache.setdefault(chunk, ids)
        return tuple(ids)

    def byte_tokens(self, data: bytes) -> list[int]:
        """The id of each byte of `data`: where every encoding starts."""
        return list(data) if self.byte_ids is None else list(map(self.byte_ids.__getitem__, data))

    @cached_property
    def special_only_ids(self) -> frozenset[int]:
        """The ids of special tokens that are not also a byte or a merged token (a special token
        spelt like one shares its id, as Hugging Face's trainer does; see train.py)."""
        built = set(self._merged_by_rank).union(self.byte_ids if self.byte_ids is not None else range(256))
        return frozenset(token_id for token_id in self.special.tokens.values() if token_id not in built)

    @cached_property
    def _whole_tokens(self) -> dict[bytes, int]:
        specials = self.special_only_ids
        return {data: token_id for token_id, data in enumerate(self.vocab) if data and token_id not in specials}

    def encode_bytes(self, data: bytes) -> list[int]:
        """Apply merges to raw bytes, earliest-learned pair first (leftmost on a tie)."""
        if self.ignore_merges and (whole := self._whole_tokens.get(data)) is not None:
            return [whole]
        return self._merge(self.byte_tokens(data))

    def _merge(self, ids: list[int]) -> list[int]:
        """Apply merges to `ids` (bytes, or a chunk part way through), earliest-learned pair first."""
        if len(ids) > _LONG_CHUNK:
            return self._merge_long(ids)
        if len(ids) == 1:
            return ids
        rank_of, merged_at = self.ranks.get, self._merged_by_rank
        # Rank every adjacent pair once (a C-level pass), then merge the leftmost lowest-ranked
        # pair and re-rank only its two neighbours. One merge at a time, leftmost first, gives
        # the same result as merging all occurrences of a pair at once.
        ranks = list(map(rank_of, zip(ids, ids[1:]), repeat(_NEVER)))
        best = min(ranks)
        while best != _NEVER:
            i = ranks.index(best)
            new_id = merged_at[best]
            ids[i : i + 2] = (new_id,)
            if len(ids) == 1:
                break
            del ranks[i]
            if i < len(ranks):
                ranks[i] = rank_of((new_id, ids[i + 1]), _NEVER)
            if i:
                ranks[i - 1] = rank_of((ids[i - 1], new_id), _NEVER)
            best = min(ranks)
        return ids

    def _merge_long(self, ids: list[int]) -> list[int]:
        """The same merges in O(n log n) with a linked list and a heap, for long chunks."""
        ranks, merged = self.ranks, self.merged
        n = len(ids)
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        alive = [True] * n
        heap = [(ranks[p], i) for i, p in enumerate(zip(ids, ids[1:])) if p in ranks]
        heapq.heapify(heap)
        while heap:
            rank, i = heapq.heappop(heap)
            j = nxt[i]
            if not alive[i] or j >= n or ranks.get((ids[i], ids[j])) != rank:
                continue  # stale: one side was merged since this entry was pushed
            ids[i] = merged[ids[i], ids[j]]
            alive[j] = False
            nxt[i] = nxt[j]
            if nxt[i] < n:
                prv[nxt[i]] = i
            if prv[i] >= 0 and (r := ranks.get((ids[prv[i]], ids[i]))) is not None:
                heapq.heappush(heap, (r, prv[i]))
            if nxt[i] < n and (r := ranks.get((ids[i], ids[nxt[i]]))) is not None:
                heapq.heappush(heap, (r, i))
        return [ids[i] for i in range(n) if alive[i]]

    def trace(self, chunk: str | bytes) -> list[TraceStep]:
        """The merges applied to one chunk, in order, for step-through views."""
        ids = self.byte_tokens(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        steps: list[TraceStep] = []
        while len(ids) >= 2:
            pair = min(zip(ids, ids[1:]), key=lambda p: self.ranks.get(p, 1 << 62))
            if pair not in self.ranks:
                break
            positions = tuple(_pair_positions(ids, pair))
            ids = _replace_pair(ids, pair, self.merged[pair])
            steps.append(TraceStep(self.ranks[pair], pair[0], pair[1], self.merged[pair], positions, tuple(ids)))
        return steps

    # Decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return join_token_bytes(self.vocab, ids, self.name)

    def as_bpe(self) -> BPE:
        return self


def join_token_bytes(vocab: Sequence[bytes], ids: Iterable[int], name: str = "this tokenizer") -> bytes:
    """The bytes of `ids` joined, with a clear error for an id the vocabulary does not have:
    too large, negative (Python would index from the end) or in a gap (its bytes are b"")."""
    ids = ids if isinstance(ids, (list, tuple)) else list(ids)
    try:
        parts = [vocab[i] for i in ids]
        if all(parts) and min(ids, default=0) >= 0:  # two C-level passes: no hole, no negative id
            return b"".join(parts)
    except (IndexError, TypeError):
        pass
    bad = next(i for i in ids if not isinstance(i, int) or not 0 <= i < len(vocab) or not vocab[i])
    raise unknown_id(bad, vocab, name) from None


def _byte_ids(vocab: Sequence[bytes]) -> list[int] | None:
    """Where each of the 256 bytes sits in `vocab`: None if byte b is id b, as in our own files."""
    if all(vocab[b] == bytes([b]) for b in range(min(256, len(vocab)))) and len(vocab) >= 256:
        return None
    position = {data: token_id for token_id, data in enumerate(vocab) if len(data) == 1}
    missing = [b for b in range(256) if bytes([b]) not in position]
    if missing:
        raise ExplorerError(f"the vocabulary has no token for byte 0x{missing[0]:02X}, so it is not byte-level BPE")
    return [position[bytes([b])] for b in range(256)]


def _pair_positions(ids: Sequence[int], pair: tuple[int, int]) -> Iterator[int]:
    """Where `pair` would be merged, left to right without overlaps (positions in `ids`)."""
    i = 0
    while i < len(ids) - 1:
        if ids[i] == pair[0] and ids[i + 1] == pair[1]:
            yield i
            i += 2
        else:
            i += 1


def _replace_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace every occurrence of `pair` with `new_id`, left to right (so `aaa` -> `[aa, a]`)."""
    out: list[int] = []
    i, n = 0, len(ids)
    left, right = pair
    while i < n:
        if i + 1 < n and ids[i] == left and ids[i + 1] == right:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while a text is encoded. On a cold cache, 80,000 new
    chunks of 10 MB make as many lists and tuples; every 700 new objects started a collection
    that walked the young ones (and the batch's 65,000 pieces and ids with them), every tenth
    the older ones, and now and then the whole heap: a third of the cold encode. Encoding makes
    no reference cycles, and the first collection after it finds whatever there is. (The GUI
    encodes in blocks, so the pause is short there.)"""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
