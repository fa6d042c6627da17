"""The merge tree's boxes laid out for drawing: each box's lines of text and width, in the
tree's fonts. Two layouts: roomy, and compact for a tree too wide for its view (closer, narrower
boxes, and bytes without the word "byte" under them), which the view picks between.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QFont, QFontMetricsF

from explorer.core.algorithms.merges import MergeForest
from explorer.core.analysis.merge_tree import MergeTree, merge_tree
from explorer.core.text.bidi import ZWJ, joins_across, label_direction

H_GAP = 10.0  # between two boxes side by side
PADDING = 7.0  # around a box's text
COMPACT_GAP, COMPACT_PADDING = 4.0, 4.0  # ... in the compact layout


@dataclass(frozen=True, slots=True)
class TreeLayout:
    """A tree laid out for drawing: where each box goes, what it says, how tall boxes are."""

    tree: MergeTree
    texts: list[list[str]]  # each node's lines
    box_height: float
    mirrored: bool  # drawn from the right (an Arabic or Hebrew token)


def lay_out(forest: MergeForest, token_id: int, label: Callable[[int], str], fonts: tuple[QFont, QFont],
            compact: bool) -> TreeLayout:
    """`token_id`'s tree in `fonts`; compact: boxes closer and narrower, and the bytes without the
    word "byte" under them (the legend says what grey is), about half as wide for a long word."""
    big_metrics, small_metrics = QFontMetricsF(fonts[0]), QFontMetricsF(fonts[1])
    has_counts = bool(forest.counts)
    padding, gap = (COMPACT_PADDING, COMPACT_GAP) if compact else (PADDING, H_GAP)
    cache: dict[int, list[str]] = {}

    def lines_of(token: int) -> list[str]:
        if token not in cache:
            rank = forest.rank(token)
            text = [label(token) or " "]
            if rank is None:
                short = forest.parents(token) is None and len(text[0]) <= 6
                text.append(forest.leaf if short and not compact else "")
            else:
                text.append(f"#{rank:,}")
                count = forest.count(token)
                if has_counts and count is not None:
                    text.append(f"\u00d7{count:,}")
            cache[token] = [line for line in text if line] or [" "]
        return cache[token]

    def width(token: int) -> float:
        text = lines_of(token)
        widths = [big_metrics.horizontalAdvance(text[0])] + [small_metrics.horizontalAdvance(t) for t in text[1:]]
        return max(widths) + 2 * padding

    tree = merge_tree(forest, token_id, width, gap=gap)
    box_height = big_metrics.height() + small_metrics.height() * (2 if has_counts else 1) + PADDING
    # An Arabic or Hebrew token's tree reads from the right: its first parent on the right.
    mirrored = label_direction(label(token_id)) == "R"
    return TreeLayout(tree, _joined_labels(tree, lines_of), box_height, mirrored)


def _joined_labels(tree: MergeTree, lines_of: Callable[[int], list[str]]) -> list[list[str]]:
    """Each node's lines; the two parents of a merge are the two halves of one text, so where
    their letters join (Arabic, Syriac...) each keeps its joined form (a zero-width joiner)."""
    texts = [list(lines_of(node.token_id)) for node in tree.nodes]
    for node in tree.nodes:
        if len(node.children) == 2:
            left, right = node.children
            if joins_across(texts[left][0], texts[right][0]):
                texts[left][0] += ZWJ
                texts[right][0] = ZWJ + texts[right][0]
    return texts
