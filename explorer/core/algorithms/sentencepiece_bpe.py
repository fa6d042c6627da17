"""SentencePiece's BPE merge loop (bpe_model.cc `Model::SampleEncode` without dropout), on strings.

The text is split into symbols (characters, or a user-defined piece matched whole and never
merged). Every adjacent pair whose concatenation is a piece goes on an agenda; the pair with
the highest score is merged first, the leftmost on a tie, and the two pairs around the new
symbol are looked up again. Scores are turned into ranks once (rank 0 = the best score, equal
scores share a rank), so "highest score, then leftmost" is "lowest rank, then leftmost", the
same loop as byte-level BPE's in bpe.py.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from itertools import repeat

NEVER = 1 << 62  # the rank of a pair that is not a piece
_LONG = 48  # symbols; longer runs use the heap, as bpe.BPE does


def score_ranks(scores: dict[str, float]) -> dict[str, int]:
    """piece -> rank of its score, best (highest) score first; equal scores share a rank."""
    order = {score: rank for rank, score in enumerate(sorted(set(scores.values()), reverse=True))}
    return {piece: order[score] for piece, score in scores.items()}


Step = tuple[int, int, str, str]  # (rank, position in the symbols, left, right) of one merge


def merge(symbols: list[str], rank_of: dict[str, int], frozen: frozenset[str] = frozenset(),
          steps: list[Step] | None = None) -> list[str]:
    """Merge `symbols` in place as SentencePiece does and return them; with `steps`, record
    every merge in order (for traces and for recovering a piece's parents).

    >>> merge(list("▁aab"), {"aa": 0, "▁a": 1, "ab": 2})  # `aa` is the best pair, though `▁a` comes first
    ['▁', 'aa', 'b']
    """
    if frozen:
        def pair(left: str, right: str) -> int:
            return NEVER if left in frozen or right in frozen else rank_of.get(left + right, NEVER)
    else:
        def pair(left: str, right: str) -> int:
            return rank_of.get(left + right, NEVER)
    if len(symbols) > _LONG and steps is None:
        return _merge_long(symbols, pair)
    if frozen:
        ranks = list(map(pair, symbols, symbols[1:]))
    else:  # one C-level pass over the concatenated pairs
        ranks = list(map(rank_of.get, map(str.__add__, symbols, symbols[1:]), repeat(NEVER)))
    while ranks:
        best = min(ranks)
        if best == NEVER:
            break
        i = ranks.index(best)  # the leftmost of the best
        if steps is not None:
            steps.append((best, i, symbols[i], symbols[i + 1]))
        merged = symbols[i] + symbols[i + 1]
        symbols[i:i + 2] = (merged,)
        del ranks[i]
        if i < len(ranks):
            ranks[i] = pair(merged, symbols[i + 1])
        if i:
            ranks[i - 1] = pair(symbols[i - 1], merged)
    return symbols


def _merge_long(symbols: list[str], pair: Callable[[str, str], int]) -> list[str]:
    """The same merges with a linked list and a heap of (rank, position): SentencePiece's agenda.
    An entry is stale when either side has changed since it was pushed."""
    n = len(symbols)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    heap = [(rank, i) for i, rank in enumerate(map(pair, symbols, symbols[1:])) if rank != NEVER]
    heapq.heapify(heap)
    alive = [True] * n
    while heap:
        rank, i = heapq.heappop(heap)
        j = nxt[i]
        if not alive[i] or j >= n or pair(symbols[i], symbols[j]) != rank:
            continue
        symbols[i] += symbols[j]
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prv[nxt[i]] = i
        if prv[i] >= 0 and (left := pair(symbols[prv[i]], symbols[i])) != NEVER:
            heapq.heappush(heap, (left, prv[i]))
        if nxt[i] < n and (right := pair(symbols[i], symbols[nxt[i]])) != NEVER:
            heapq.heappush(heap, (right, i))
    return [symbol for symbol, live in zip(symbols, alive) if live]


def recover_parents(pieces: Sequence[str], symbolize: Callable[[str], list[str]], rank_of: dict[str, int],
                    frozen: frozenset[str] = frozenset()) -> dict[str, tuple[str, str]]:
    """piece -> (left, right): the last merge when the piece's own text is encoded alone.

    Inside a finished token, the merges never depend on the text around it (its edges were
    never taken by a neighbour), so this is the merge that makes the piece in any text. A
    piece that does not come out whole (unreachable) has no parents.
    """
    parents: dict[str, tuple[str, str]] = {}
    for piece in pieces:
        steps: list[Step] = []
        if merge(symbolize(piece), rank_of, frozen, steps) == [piece] and steps:
            _, _, left, right = steps[-1]
            parents[piece] = (left, right)
    return parents
