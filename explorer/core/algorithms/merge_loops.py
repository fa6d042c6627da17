"""The merge loops of one chunk: apply the earliest-learned pair, leftmost on a tie, until no
learned pair is left. A short chunk re-ranks its pairs in a list, a long one uses a heap; the
trace's step-by-step helpers show the same merges one pair at a time.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from itertools import repeat

LONG_CHUNK = 48  # ids; longer chunks use the heap-based merge loop
NEVER = 1 << 62  # the rank of a pair that was never merged


def merge_ids(ids: list[int], ranks: dict[tuple[int, int], int], merged_by_rank: Sequence[int]) -> list[int]:
    """Apply merges to `ids` (bytes, or a chunk part way through), earliest-learned pair first.
    `ranks`: pair -> merge rank; `merged_by_rank[rank]`: the id that merge makes."""
    if len(ids) > LONG_CHUNK:
        return merge_long(ids, ranks, merged_by_rank)
    if len(ids) == 1:
        return ids
    rank_of = ranks.get
    # Rank every adjacent pair once (a C-level pass), then merge the leftmost lowest-ranked
    # pair and re-rank only its two neighbours. One merge at a time, leftmost first, gives
    # the same result as merging all occurrences of a pair at once.
    pair_ranks = list(map(rank_of, zip(ids, ids[1:]), repeat(NEVER)))
    best = min(pair_ranks)
    while best != NEVER:
        i = pair_ranks.index(best)
        new_id = merged_by_rank[best]
        ids[i : i + 2] = (new_id,)
        if len(ids) == 1:
            break
        del pair_ranks[i]
        if i < len(pair_ranks):
            pair_ranks[i] = rank_of((new_id, ids[i + 1]), NEVER)
        if i:
            pair_ranks[i - 1] = rank_of((ids[i - 1], new_id), NEVER)
        best = min(pair_ranks)
    return ids


def merge_long(ids: list[int], ranks: dict[tuple[int, int], int], merged_by_rank: Sequence[int]) -> list[int]:
    """The same merges in O(n log n) with a linked list and a heap, for long chunks."""
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
        ids[i] = merged_by_rank[rank]
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prv[nxt[i]] = i
        if prv[i] >= 0 and (r := ranks.get((ids[prv[i]], ids[i]))) is not None:
            heapq.heappush(heap, (r, prv[i]))
        if nxt[i] < n and (r := ranks.get((ids[i], ids[nxt[i]]))) is not None:
            heapq.heappush(heap, (r, i))
    return [ids[i] for i in range(n) if alive[i]]


def pair_positions(ids: Sequence[int], pair: tuple[int, int]) -> Iterator[int]:
    """Where `pair` would be merged, left to right without overlaps (positions in `ids`)."""
    i = 0
    while i < len(ids) - 1:
        if ids[i] == pair[0] and ids[i + 1] == pair[1]:
            yield i
            i += 2
        else:
            i += 1


def replace_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
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
