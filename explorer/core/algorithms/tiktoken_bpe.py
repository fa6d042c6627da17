"""Our BPE with tiktoken's merge rule, for the encode trace and the audit of a rank file.

tiktoken never looks at a merge list: two adjacent pieces join whenever their bytes are a token,
the lowest-ranked such token first (leftmost on a tie), and a chunk that is itself a token is
taken whole. The merges recovered from the ranks name one pair per token, which is the merge tree;
but tiktoken also joins other pairs into the same token, and a vocabulary grown after training
(Llama 3's 28,000 tokens appended to cl100k_base's) relies on it. So this encoder follows the
ranks of the joined bytes, as tiktoken does, and gives its ids on any text.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from functools import cached_property
from itertools import accumulate

from explorer.core.algorithms.bpe import BPE, TraceStep
from explorer.core.text.utf8 import utf8

_NEVER = 1 << 62
_LONG_CHUNK = 256  # bytes; longer chunks use the heap, shorter ones tiktoken's linear scan


class TiktokenBPE(BPE):
    """A BPE whose pairs are ranked by the token their bytes make (`ranks`: bytes -> id)."""

    def __init__(self, merges: Sequence[tuple[int, int, int]], pattern: str, special_tokens: dict[str, int],
                 name: str, source: str, vocab: Sequence[bytes], ranks: dict[bytes, int],
                 sha256: str | None = None) -> None:
        """`sha256`: the rank file's, under which its pair table is cached (None: not cached)."""
        super().__init__(merges, pattern, special_tokens, name, source=source, vocab=vocab, ignore_merges=True,
                         reference="tiktoken", specials_may_share=True)  # as tiktoken allows
        self._rank_of = ranks
        self._sha256 = sha256

    def encode_bytes(self, data: bytes) -> list[int]:
        whole = self._rank_of.get(data)
        if whole is not None:
            return [whole]
        bounds = _merge_long(data, self._rank_of) if len(data) > _LONG_CHUNK else _merge(data, self._rank_of)
        rank_of = self._rank_of
        return [rank_of[data[start:end]] for start, end in zip(bounds, bounds[1:])]

    def _merges_together(self) -> bool:
        return True  # `_batch_tables` rank every pair by the token its bytes make, as encode_bytes does

    @cached_property
    def _whole_tokens(self) -> dict[bytes, int]:
        return self._rank_of

    @cached_property
    def _batch_tables(self) -> tuple[object, object]:
        """Each byte's id, and every pair whose bytes are a token ranked by it (rank_pairs)."""
        import numpy as np

        from explorer.core.algorithms.merge_batch import PairRanks
        from explorer.core.algorithms.rank_pairs import cached_joinable_pairs, joinable_pairs

        byte_ids = np.array(self.byte_ids if self.byte_ids is not None else range(256), dtype=np.int64)
        joins = joinable_pairs(self._rank_of) if self._sha256 is None else \
            cached_joinable_pairs(self._rank_of, self._sha256)
        return byte_ids, PairRanks.of_joins(joins, len(self.vocab))

    def _merge(self, ids: list[int]) -> list[int]:
        """Go on joining from the pieces `ids` (a chunk part way through the batch merge)."""
        vocab = self.vocab
        data = b"".join(map(vocab.__getitem__, ids))
        bounds = list(accumulate(map(len, map(vocab.__getitem__, ids)), initial=0))
        for _, bounds, _, _ in _joins(data, self._rank_of, bounds):
            pass
        rank_of = self._rank_of
        return [rank_of[data[start:end]] for start, end in zip(bounds, bounds[1:])]

    def trace(self, chunk: str | bytes) -> list[TraceStep]:
        """Every join, one at a time, in tiktoken's order; `rank` is the merge that makes the
        token in the merge tree (its id when the tree has none)."""
        data = utf8(chunk) if isinstance(chunk, str) else chunk
        rank_of, made_by = self._rank_of, self.forest.rank
        steps: list[TraceStep] = []
        for i, bounds, left, right in _joins(data, rank_of):
            ids = tuple(rank_of[data[start:end]] for start, end in zip(bounds, bounds[1:]))
            rank = made_by(ids[i])
            steps.append(TraceStep(ids[i] if rank is None else rank, left, right, ids[i], (i,), ids))
        whole = rank_of.get(data)
        if whole is not None and len(data) > 1 and (not steps or steps[-1].ids != (whole,)):
            return self._tree_trace(data, whole)
        return steps

    def _tree_trace(self, data: bytes, token: int) -> list[TraceStep]:
        """A chunk that is a token is taken whole, even where the joins end elsewhere (some of
        Llama 3's): show its merge tree instead, built left to right, so the trace ends in it."""
        forest = self.forest
        ids = self.byte_tokens(data)
        steps: list[TraceStep] = []

        def build(token_id: int, at: int) -> None:  # the token's first byte is ids[at]
            parents = forest.parents(token_id)
            if parents is None:
                return
            build(parents[0], at)
            build(parents[1], at + 1)
            ids[at:at + 2] = [token_id]
            steps.append(TraceStep(forest.rank(token_id) or 0, *parents, token_id, (at,), tuple(ids)))

        build(token, 0)
        return steps


def _merge(data: bytes, rank_of: dict[bytes, int]) -> list[int]:
    """tiktoken's byte-pair merge: the boundaries of the pieces `data` ends in."""
    bounds = list(range(len(data) + 1))
    for _, bounds, _, _ in _joins(data, rank_of):
        pass
    return bounds


def _joins(data: bytes, rank_of: dict[bytes, int],
           bounds: list[int] | None = None) -> Iterator[tuple[int, list[int], int, int]]:
    """Join the lowest-ranked adjacent pair, leftmost first, until none is a token; yield
    (position, boundaries after the join, left id, right id) after each join. The pieces start
    as single bytes, or at `bounds`.

    A piece and the next one are `data[bounds[i]:bounds[i + 2]]` joined, so every lookup is a
    slice of the chunk; after a join only the two neighbouring pairs are ranked again.
    """
    get = rank_of.get
    if bounds is None:
        bounds = list(range(len(data) + 1))
        ranks = [get(data[i:i + 2], _NEVER) for i in range(len(data) - 1)]
    else:
        ranks = [get(data[start:end], _NEVER) for start, end in zip(bounds, bounds[2:])]
    while ranks:
        best = min(ranks)
        if best == _NEVER:
            break
        i = ranks.index(best)
        left, right = rank_of[data[bounds[i]:bounds[i + 1]]], rank_of[data[bounds[i + 1]:bounds[i + 2]]]
        del bounds[i + 1]
        del ranks[i]
        if i < len(ranks):
            ranks[i] = get(data[bounds[i]:bounds[i + 2]], _NEVER)
        if i:
            ranks[i - 1] = get(data[bounds[i - 1]:bounds[i + 1]], _NEVER)
        yield i, bounds, left, right


def _merge_long(data: bytes, rank_of: dict[bytes, int]) -> list[int]:
    """The same joins in O(n log n), with a linked list of pieces and a heap of (rank, start)."""
    n = len(data)
    following = list(range(1, n + 1))  # piece starting at i ends where the piece following[i] starts
    previous = list(range(-1, n - 1))
    alive = [True] * n
    get = rank_of.get
    heap = [(rank, i) for i in range(n - 1) if (rank := get(data[i:i + 2])) is not None]
    heapq.heapify(heap)
    while heap:
        rank, i = heapq.heappop(heap)
        j = following[i]
        if not alive[i] or j >= n or get(data[i:following[j]]) != rank:
            continue  # stale: a piece on either side has grown since this entry was pushed
        alive[j] = False
        following[i] = following[j]
        if following[i] < n:
            previous[following[i]] = i
        if (p := previous[i]) >= 0 and (r := get(data[p:following[i]])) is not None:
            heapq.heappush(heap, (r, p))
        if following[i] < n and (r := get(data[i:following[following[i]]])) is not None:
            heapq.heappush(heap, (r, i))
    return [i for i in range(n) if alive[i]] + [n]
