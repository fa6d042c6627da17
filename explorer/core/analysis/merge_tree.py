"""One token's merge tree, laid out for drawing: the token at the top, its bytes along the bottom.

Each node sits on the row of its height (merges on the longest path down to a byte), so every
byte is on the bottom row, as in seed 002's forest. Horizontally each subtree gets an interval
wide enough for its own label and for its two subtrees side by side; intervals of different
subtrees never overlap, so no two labels collide.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explorer.core.algorithms.merges import MergeForest


@dataclass(frozen=True, slots=True)
class TreeNode:
    """One drawn node; the same token can appear several times (` a` + `a` + ...)."""

    index: int  # position in the node list; the root is 0
    token_id: int
    rank: int | None  # merge rank, None for a byte
    height: int  # 0 for a byte
    x: float  # centre, in the units of `label_width`
    width: float  # the label's width
    children: tuple[int, ...]  # node indices of the left and right parents (empty for a byte)


@dataclass(frozen=True, slots=True)
class MergeTree:
    token_id: int
    nodes: list[TreeNode]
    height: int  # rows above the bytes
    width: float  # total width

    @property
    def root(self) -> TreeNode:
        return self.nodes[0]

    def leaves(self) -> list[TreeNode]:
        return [node for node in self.nodes if not node.children]


def merge_tree(forest: MergeForest, token_id: int, label_width: Callable[[int], float], gap: float = 8.0) -> MergeTree:
    """Lay out `token_id`'s tree; `label_width(id)` is how wide that token's box is drawn.

    >>> from explorer.core.algorithms.merges import MergeForest
    >>> forest = MergeForest([(97, 98, 256), (256, 99, 257)], [bytes([i]) for i in range(256)] + [b"ab", b"abc"])
    >>> tree = merge_tree(forest, 257, lambda token: 10)
    >>> [(forest.vocab[n.token_id], n.height) for n in tree.nodes]
    [(b'abc', 2), (b'ab', 1), (b'a', 0), (b'b', 0), (b'c', 0)]
    """
    heights: dict[int, int] = {}

    def height(token: int) -> int:
        if token not in heights:
            pair = forest.parents(token)
            heights[token] = 0 if pair is None else 1 + max(height(pair[0]), height(pair[1]))
        return heights[token]

    spans: dict[int, float] = {}

    def span(token: int) -> float:
        """The width a subtree needs: its label, or its two subtrees side by side."""
        if token not in spans:
            pair = forest.parents(token)
            own = label_width(token)
            spans[token] = own if pair is None else max(own, span(pair[0]) + gap + span(pair[1]))
        return spans[token]

    nodes: list[TreeNode | None] = []

    def place(token: int, left: float) -> tuple[int, float]:
        """Put `token`'s subtree in the interval starting at `left`; return (node index, centre)."""
        index = len(nodes)
        nodes.append(None)  # reserve the slot so a parent comes before its children
        pair = forest.parents(token)
        width, total = label_width(token), span(token)
        children: tuple[int, ...] = ()
        if pair is None:
            centre = left + total / 2
        else:
            block = span(pair[0]) + gap + span(pair[1])
            start = left + (total - block) / 2
            left_index, left_centre = place(pair[0], start)
            right_index, right_centre = place(pair[1], start + span(pair[0]) + gap)
            children = (left_index, right_index)
            # Over the middle of its parents, but never past its own interval.
            centre = min(max((left_centre + right_centre) / 2, left + width / 2), left + total - width / 2)
        nodes[index] = TreeNode(index, token, forest.rank(token), height(token), centre, width, children)
        return index, centre

    place(token_id, 0.0)
    placed = [node for node in nodes if node is not None]
    return MergeTree(token_id, placed, height(token_id), span(token_id))
