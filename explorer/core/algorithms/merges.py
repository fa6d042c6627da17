"""The merge forest: bytes at the bottom, each merge joining two tokens into one above them.

For every token: its two parents (none for a byte), its merge rank, its training count when
known, and the tokens built on top of it. Works for any byte-level BPE: trained here, loaded
from tokenizer.json, or recovered from a tiktoken encoding's ranks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from operator import add


class MergeForest:
    """Parents, ranks and children of every token of a byte-level BPE vocabulary."""

    def __init__(self, merges: Sequence[tuple[int, int, int]], vocab: Sequence[bytes],
                 counts: Sequence[int] | None = None, leaf: str = "byte") -> None:
        self.merges = merges
        self.vocab = vocab
        self.counts = counts
        self.leaf = leaf  # what the bottom row is: bytes, or characters for SentencePiece
        self._made_by: dict[int, int] = {}  # token -> rank of the merge that made it (first one)
        for rank, (_, _, new_id) in enumerate(merges):
            self._made_by.setdefault(new_id, rank)

    def rank(self, token_id: int) -> int | None:
        """The merge rank that created `token_id` (0 = first merge); None for bytes and specials."""
        return self._made_by.get(token_id)

    def parents(self, token_id: int) -> tuple[int, int] | None:
        rank = self._made_by.get(token_id)
        if rank is None:
            return None
        left, right, _ = self.merges[rank]
        return left, right

    def count(self, token_id: int) -> int | None:
        """How often the merge that made `token_id` occurred in training, if known."""
        rank = self._made_by.get(token_id)
        if rank is None or not self.counts:
            return None
        return self.counts[rank]

    @cached_property
    def _children(self) -> dict[int, list[int]]:
        children: dict[int, list[int]] = {}
        for left, right, new_id in self.merges:
            children.setdefault(left, []).append(new_id)
            if right != left:
                children.setdefault(right, []).append(new_id)
        return children

    def children(self, token_id: int) -> list[int]:
        """Tokens built directly on top of `token_id` ("used by"), in merge order."""
        return self._children.get(token_id, [])

    def depth(self, token_id: int) -> int:
        """Merges on the longest path from `token_id` down to a byte (0 for a byte)."""
        depth, stack, seen = 0, [(token_id, 0)], 0
        while stack:
            token, level = stack.pop()
            seen += 1
            depth = max(depth, level)
            pair = self.parents(token)
            if pair is not None:
                stack.extend((parent, level + 1) for parent in pair)
        return depth

    def leaves(self, token_id: int) -> list[int]:
        """The bytes at the bottom of `token_id`'s tree, left to right."""
        pair = self.parents(token_id)
        if pair is None:
            return [token_id]
        return self.leaves(pair[0]) + self.leaves(pair[1])


def recover_merges(vocab: Sequence[bytes]) -> list[tuple[int, int, int]]:
    """The merges of a ranked vocabulary (tiktoken's), as (left, right, new_id) in rank order.

    A tiktoken file lists tokens by rank and nothing else. Rank order is merge order, so a
    token's parents are the two pieces that BPE over its own bytes ends with when it may use
    only tokens of lower rank (minbpe's `recover_merges` does the same). A token that BPE
    cannot build so (none in OpenAI's encodings, 678 of Llama 3's, added after its training)
    still forms in tiktoken whenever two adjacent pieces spell it; its merge is then the split
    into two tokens whose later piece is earliest. A token no two tokens spell gets no merge.

    >>> recover_merges([b"a", b"b", b"ab", b"aab"])
    [(0, 1, 2), (0, 2, 3)]
    """
    rank_of = {data: rank for rank, data in enumerate(vocab) if data}
    get = rank_of.get
    merges: list[tuple[int, int, int]] = []
    for rank, token in enumerate(vocab):
        if len(token) < 2:
            continue
        if len(token) == 2:  # half the work: two bytes are their own parents
            left, right = get(token[:1]), get(token[1:])
            if left is not None and right is not None and max(left, right) < rank:
                merges.append((left, right, rank))
                continue
        else:
            parts = _merge_below(token, rank, get)
            if len(parts) == 2:
                merges.append((rank_of[parts[0]], rank_of[parts[1]], rank))
                continue
        pair = _earliest_split(token, get)
        if pair is not None:
            merges.append((*pair, rank))
    return merges


def _earliest_split(token: bytes, get: object) -> tuple[int, int] | None:
    """The two tokens that spell `token` with the lowest later rank, if any two do."""
    splits = [(get(token[:cut]), get(token[cut:])) for cut in range(1, len(token))]  # type: ignore[operator]
    found = [(max(left, right), left, right) for left, right in splits if left is not None and right is not None]
    return min(found)[1:] if found else None


def _merge_below(token: bytes, limit: int, get: object) -> list[bytes]:
    """tiktoken's byte-pair merge of `token`, using only ranks below `limit`: the pieces left.

    The rank of each adjacent pair is looked up once (in C, with `map`), and after a merge
    only the two pairs around it change, as in `bpe.BPE.encode_bytes`.
    """
    rank_of = get  # bytes -> rank or the default
    never = limit
    parts = [token[i : i + 1] for i in range(len(token))]
    ranks = list(map(rank_of, map(add, parts, parts[1:]), [never] * (len(parts) - 1)))  # type: ignore[call-overload]
    while len(parts) > 2:
        best = min(ranks)
        if best >= limit:
            break
        i = ranks.index(best)
        parts[i : i + 2] = (parts[i] + parts[i + 1],)
        del ranks[i]
        if i < len(ranks):
            ranks[i] = rank_of(parts[i] + parts[i + 1], never)  # type: ignore[operator]
        if i:
            ranks[i - 1] = rank_of(parts[i - 1] + parts[i], never)  # type: ignore[operator]
    return parts
