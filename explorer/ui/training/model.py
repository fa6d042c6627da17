"""The merges table: a lazy model over the merge records, appended in batches, newest highlighted.

`data()` formats a row only when the view asks for it, so 100,000 merges cost a list of records
and nothing more; rows arrive in batches (one `beginInsertRows` per batch, every 30-50 ms).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from explorer.core.algorithms.train import BYTE_VOCAB, Merge
from explorer.core.text.bidi import isolated
from explorer.core.text.render import shown_text

ModelIndex = QModelIndex | QPersistentModelIndex

COLUMNS = ("#", "Left", "Right", "New token", "Id", "Count", "Tie")
RANK, LEFT, RIGHT, NEW, ID, COUNT, TIE = range(len(COLUMNS))
TIE_MARK = "⚖"
TIE_HELP = ("⚖ n: n pairs had the winning count, and the rules chose one of them (select the row for which one "
            "each rule picks)")
PAIR_COUNT_HELP = "How often the pair occurred when it was merged"
APPLIED_COUNT_HELP = ("How many times the merge applied, measured after Hugging Face tokenizers trained (it does not "
                      "report counts). For a pair of one token repeated (aaa), fewer than the pair's places")
MergeRole = Qt.ItemDataRole.UserRole + 1  # the Merge record of a row
TokenIdRole = Qt.ItemDataRole.UserRole + 2  # the token id a cell shows (left, right or new)


class MergesModel(QAbstractTableModel):
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.merges: list[Merge] = []
        self.vocab: list[bytes] = [bytes([b]) for b in range(BYTE_VOCAB)]
        self.count_help = PAIR_COUNT_HELP
        self.highlight = QColor("#fff2a8")
        self._bold = QFont()
        self._bold.setBold(True)
        self._text_font: QFont | None = None
        self._shown: dict[int, tuple[str, ...]] = {}  # row -> its cells' text

    # Feeding

    def append(self, merges: Sequence[Merge]) -> None:
        """Add a batch of merges at the end: one insertion for the whole batch."""
        if not merges:
            return
        first = len(self.merges)
        previous_last = first - 1
        self.beginInsertRows(QModelIndex(), first, first + len(merges) - 1)
        ids = list(map(_NEW_ID, merges))
        if ids == list(range(len(self.vocab), len(self.vocab) + len(ids))):  # (the usual: each a new id, in order)
            self.vocab += map(_TOKEN, merges)  # in C: Hugging Face's 32,768 merges come in a few big batches
        else:
            for new_id, merge in zip(ids, merges):
                if new_id >= len(self.vocab):
                    self.vocab.extend([b""] * (new_id + 1 - len(self.vocab)))
                if not self.vocab[new_id]:
                    self.vocab[new_id] = merge.token
        self.merges.extend(merges)
        self.endInsertRows()
        if previous_last >= 0:  # the old newest row loses its highlight
            self.dataChanged.emit(self.index(previous_last, 0), self.index(previous_last, len(COLUMNS) - 1))

    def clear(self) -> None:
        self.beginResetModel()
        self._shown.clear()
        self.merges = []
        self.vocab = [bytes([b]) for b in range(BYTE_VOCAB)]
        self.endResetModel()

    def set_text_font(self, font: QFont) -> None:
        self._text_font = QFont(font)
        if self.merges:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.merges) - 1, len(COLUMNS) - 1))

    def set_highlight(self, color: QColor) -> None:
        self.highlight = QColor(color)

    # Qt model interface

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self.merges)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return {RANK: "Merge number (1 = first learned)", COUNT: self.count_help, TIE: TIE_HELP,
                    ID: "The new token's id", NEW: "The new token (· space, → tab, ↵ newline, <E0> a partial byte)"
                    }.get(section)
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role not in _ROLES or not index.isValid():
            return None
        row, column = index.row(), index.column()
        if not 0 <= row < len(self.merges):
            return None
        merge = self.merges[row]
        newest = row == len(self.merges) - 1
        if role == Qt.ItemDataRole.DisplayRole:
            texts = self._shown.get(row)
            if texts is None:  # the visible rows are asked for again on every repaint: format once
                if len(self._shown) > _SHOWN_LIMIT:
                    self._shown.clear()
                texts = self._shown[row] = (
                    f"{merge.rank + 1:,}", *(isolated(shown_text(data, True)) for data in
                                             (self.vocab[merge.left], self.vocab[merge.right], merge.token)),
                    str(merge.new_id),
                    f"{merge.count:,}", _tie_text(merge))
            return texts[column]
        if role == Qt.ItemDataRole.BackgroundRole:
            return self.highlight if newest else None
        if role == Qt.ItemDataRole.FontRole:
            # The newest merge's number in bold, its tokens in the text font as every row's: in bold
            # they were a tenth wider, and at 1280x800 in presentation mode ' neighbours' pushed
            # the new token under the cut-column cover (its highlight marks the row).
            if column in (LEFT, RIGHT, NEW):
                return self._text_font
            return self._bold if newest else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if column in (RANK, ID, COUNT) else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == TIE and merge.tie is not None:
                return tie_summary(merge, self.vocab)
            if column not in (LEFT, RIGHT, NEW):
                return None
            token_id = {LEFT: merge.left, RIGHT: merge.right, NEW: merge.new_id}[column]
            data = self.vocab[token_id]
            # Then the text whole, should the user narrow the column until it elides (on a line of
            # its own after the id: first, a token such as '<b>' or '<DD 8A>' would make Qt take it for HTML)
            return (f"id {token_id}: {len(data)} byte{'s' if len(data) != 1 else ''} ({data.hex(' ').upper()})\n"
                    f"{self.data(index)}")
        if role == MergeRole:
            return merge
        return {LEFT: merge.left, RIGHT: merge.right}.get(column, merge.new_id)  # TokenIdRole


def _tie_text(merge: Merge) -> str:
    tie = merge.tie
    if tie is None:
        return ""
    return f"{TIE_MARK} {len(tie.packed)}{'' if tie.complete else '+'}"


def pair_text(pair: tuple[int, int] | None, vocab: Sequence[bytes]) -> str:
    """`'Y' + 'our·'`: a pair of tokens as the table shows them."""
    if pair is None:
        return "?"
    return f"{shown_text(vocab[pair[0]])} + {shown_text(vocab[pair[1]])}"


def tie_summary(merge: Merge, vocab: Sequence[bytes]) -> str:
    """One line: how many pairs tied, and which each rule picks."""
    tie = merge.tie
    if tie is None:
        return ""
    many = f"{len(tie.packed)}{'' if tie.complete else ' or more'}"
    return (f"{many} pairs had {merge.count:,} occurrences: hf rules pick {pair_text(tie.hf_pick, vocab)}, "
            f"minbpe rules pick {pair_text(tie.minbpe_pick, vocab)}")


_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.FontRole,
                    Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.ToolTipRole, MergeRole, TokenIdRole})
_SHOWN_LIMIT = 4096
_NEW_ID, _TOKEN = attrgetter("new_id"), attrgetter("token")
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
