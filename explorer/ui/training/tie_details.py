"""The details of the selected merge under the merges table: its count and, for a tie, every pair
that shared the winning count and which one each rule picks.

Seed 000: "Merge 2 was a tie ... Ties like this are why two BPE implementations trained on the
same text can disagree." This is where a tie stops being invisible.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from explorer.core.algorithms.train import RULES, Merge
from explorer.core.text.render import shown_text
from explorer.ui.training.model import pair_text
from explorer.ui.training.status import escape

HINT = "Select a merge to see its details; ⚖ marks a merge that won a tie."


class TieDetails(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(HINT, parent)
        self.setObjectName("tieDetails")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def show_merge(self, merge: Merge | None, vocab: Sequence[bytes], rules: str) -> None:
        self.setText(HINT if merge is None else details_html(merge, vocab, rules))


def details_html(merge: Merge, vocab: Sequence[bytes], rules: str) -> str:
    """Rich text: the merge, then its tie with both rules' picks marked."""
    head = (f"<b>Merge {merge.rank + 1:,}</b>: {escape(pair_text((merge.left, merge.right), vocab))} → "
            f"{escape(shown_text(merge.token))}, {merge.count:,} times")
    tie = merge.tie
    if tie is None:
        return head + ". No tie: no other pair was as frequent."
    chosen = (merge.left, merge.right)
    other = "minbpe" if rules == "hf" else "hf"
    other_pick = tie.minbpe_pick if other == "minbpe" else tie.hf_pick
    many = f"{len(tie.packed)}{'' if tie.complete else ' or more'}"
    lines = [f"{head}. <b>A tie</b>: {many} pairs had {merge.count:,}. This run's {rules} rules took it"
             f" ({escape(RULES[rules].split('; ')[-1])})."]
    if other_pick is not None and other_pick != chosen:
        lines.append(f"The {other} rules would have taken {escape(pair_text(other_pick, vocab))} here: from this merge"
                     " on, the two can disagree.")
    elif other_pick is not None:
        lines.append(f"The {other} rules pick the same pair.")
    items = []
    for pair in tie.pairs:
        marks = [name for name, pick in (("hf", tie.hf_pick), ("minbpe", tie.minbpe_pick)) if pick == pair]
        mark = f" ← {' and '.join(marks)} rules" if marks else ""
        items.append(f"<li>{escape(pair_text(pair, vocab))}{mark}</li>")
    more = "" if tie.complete else "<li>… more pairs tied; the picks are among those listed</li>"
    return "<br>".join(lines) + f"<ul style='margin:0'>{''.join(items)}{more}</ul>"
