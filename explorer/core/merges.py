"""The merge forest: bytes at the bottom, each merge joining two tokens into one above them.

For every token: its two parents (none for a byte), its merge rank, its training count when
known, and the tokens built on top of it. Works for any byte-level BPE: trained here, loaded
from tokenizer.json, or recovered from a tiktoken encoding's ranks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property


class MergeForest:
    """Parents, ranks and children of every token of a byte-level BPE vocabulary."""

    def __init__(self, merges: Sequence[tuple[int, int, int]], vocab: Sequence[bytes],
                 counts: Sequence[int] | None = None) -> None:
        self.merges = merges
        self.vocab = vocab
        self.counts = counts
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
