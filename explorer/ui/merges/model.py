"""Models of the Merges pane: the vocabulary table (200,000 rows, filtered and sorted by index
arrays) and the "used by" list of a token's children. Both compute `data()` on demand from a
`VocabTable` built by the core.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QAbstractListModel, QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics

from explorer.core.algorithms.merges import MergeForest
from explorer.core.analysis.vocab_filter import (
    FLAG_HELP, FLAG_NAMES, IMPOSSIBLE, NEVER_SEEN, NO_VALUE, RARE, SPECIAL, UNDECODABLE, UNREACHABLE, SortKey,
    VocabQuery, VocabTable)
from explorer.core.text.bidi import isolated
from explorer.core.text.scripts import SCRIPT_NAMES

TOKEN_ID_ROLE = Qt.ItemDataRole.UserRole + 1  # the token id of a row (both models)
SORT_ROLE = Qt.ItemDataRole.UserRole + 2  # the raw value a column sorts by
CHECK = "\u2713"

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True, slots=True)
class Column:
    key: SortKey
    title: str
    tooltip: str
    flag: int = 0  # for audit-flag columns: the bit shown


COLUMNS: list[Column] = [
    Column("id", "ID", "Token id"),
    Column("token", "Token", "The token's bytes: · space, → tab, ↵ newline, <E0 A4> bytes that are not a whole character"),
    Column("length", "Bytes", "Length in bytes"),
    Column("rank", "Rank", "Merge rank: 0 is the first merge learned; empty for bytes and special tokens"),
    Column("left", "Left parent", "The left token of the merge that made this one"),
    Column("right", "Right parent", "The right token of the merge that made this one"),
    Column("count", "Merge count", "How often the pair was seen when the merge was learned (tokenizers trained here)"),
    Column("seen", "Seen", "How often the token occurs when the loaded corpus is encoded"),
    Column("script", "Script", "Writing system of the token's letters"),
    *(Column("flags", FLAG_NAMES[bit].capitalize(), FLAG_HELP[bit], bit)
      for bit in (UNREACHABLE, UNDECODABLE, IMPOSSIBLE, SPECIAL, NEVER_SEEN, RARE)),
]
COLUMN_INDEX = {column.title: index for index, column in enumerate(COLUMNS)}
TOKEN_COLUMN = 1
_NUMERIC = {"id", "length", "rank", "count", "seen"}
_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, TOKEN_ID_ROLE, SORT_ROLE, Qt.ItemDataRole.TextAlignmentRole,
                    Qt.ItemDataRole.FontRole, Qt.ItemDataRole.ToolTipRole})
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_CENTER = int(Qt.AlignmentFlag.AlignCenter)


class VocabModel(QAbstractTableModel):
    """One row per token id that exists; `visible` maps view rows to table rows."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.table: VocabTable | None = None
        self.query = VocabQuery()
        self.visible = np.zeros(0, dtype=np.int64)
        self.sort_column, self.sort_order = 0, Qt.SortOrder.AscendingOrder
        self._mask: np.ndarray | None = None
        self.font = QFont()

    # Feeding the model

    def set_table(self, table: VocabTable | None) -> None:
        self.beginResetModel()
        self.table = table
        self._mask = None if table is None else np.ones(table.rows, dtype=bool)
        self._refresh()
        self.endResetModel()

    def set_query(self, query: VocabQuery, mask: np.ndarray | None = None) -> None:
        """Filter the rows (by `mask`, when it was computed elsewhere); raises FilterError (and keeps
        the old rows) for a query that cannot be read."""
        if mask is None and self.table is not None:
            mask = self.table.matches(query)
        self.beginResetModel()
        self.query, self._mask = query, mask
        self._refresh()
        self.endResetModel()

    def columns_changed(self) -> None:
        """The table gained merges, audit flags or corpus counts: re-filter and repaint."""
        mask = None if self.table is None else self.table.matches(self.query)
        self.beginResetModel()
        self._mask = mask
        self._refresh()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.beginResetModel()
        self.sort_column, self.sort_order = column, order
        self._refresh()
        self.endResetModel()

    def _refresh(self) -> None:
        table = self.table
        if table is None or self._mask is None:
            self.visible = np.zeros(0, dtype=np.int64)
            return
        column = COLUMNS[self.sort_column]
        order = table.order(column.key, self.sort_order == Qt.SortOrder.DescendingOrder)
        self.visible = order[self._mask[order]]

    # Lookups

    def row_of_token(self, token_id: int) -> int:
        """The view row showing `token_id`, or -1 when it is filtered out."""
        if self.table is None or token_id not in self.table.row_of:
            return -1
        hits = np.flatnonzero(self.visible == self.table.row_of[token_id])
        return int(hits[0]) if len(hits) else -1

    def token_at(self, row: int) -> int:
        return int(self.table.ids[self.visible[row]]) if self.table is not None else -1

    def table_rows(self) -> list[int]:
        return self.visible.tolist()

    # Qt model interface

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self.visible)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].title
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section].tooltip
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        # A repaint asks each visible cell for a dozen roles: the ones this model never answers
        # return before any lookup (4,000 calls per repaint, under the GIL, add up).
        if role not in _ROLES:
            return None
        table = self.table
        position = index.row()
        if table is None or not 0 <= position < len(self.visible):
            return None
        row = int(self.visible[position])
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(table, row, column)
        if role == TOKEN_ID_ROLE:
            return int(table.ids[row])
        if role == SORT_ROLE:
            values = table.column(column.key)
            return None if values is None else int(values[row])
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if column.key in _NUMERIC:
                return _RIGHT
            return _CENTER if column.flag else None
        if role == Qt.ItemDataRole.FontRole:
            return self.font if column.key in ("token", "left", "right") else None
        return self._tooltip(table, row)  # ToolTipRole

    def _display(self, table: VocabTable, row: int, column: Column) -> str | None:
        key = column.key
        if key == "token":  # (in its own direction, as in the parent columns and the tree: '·مرح' reads 'مرح·')
            return isolated(table.visible[row])
        if key == "script":
            return SCRIPT_NAMES[int(table.script[row])]
        if column.flag:
            return CHECK if int(table.flags[row]) & column.flag else ""
        if key in ("left", "right"):
            values = table.column(key)
            if values is None or values[row] == NO_VALUE:
                return ""
            parent = int(values[row])
            parent_row = table.row_of.get(parent)
            text = table.visible[parent_row] if parent_row is not None else "?"
            return f"{isolated(text)}  ({parent})"
        values = table.column(key)
        if values is None or values[row] == NO_VALUE:
            return ""
        return f"{int(values[row]):,}" if key != "id" else str(int(values[row]))

    def _tooltip(self, table: VocabTable, row: int) -> str:
        data = table.data[row]
        lines = [f"id {int(table.ids[row])}: {isolated(table.visible[row])}", f"bytes: {data.hex(' ').upper()}"]
        flags = table.row_flags(row)
        if flags:
            lines.append("flags: " + ", ".join(flags))
        return "\n".join(lines)


class ChildrenModel(QAbstractListModel):
    """The tokens built directly on top of one token ("used by"), in merge order."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.children: list[int] = []
        self.table: VocabTable | None = None
        self.forest: MergeForest | None = None
        self.font = QFont()

    def set_token(self, table: VocabTable | None, forest: MergeForest | None, token_id: int | None) -> None:
        self.beginResetModel()
        self.table, self.forest = table, forest
        self.children = list(forest.children(token_id)) if forest is not None and token_id is not None else []
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.children)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self.children):
            return None
        token_id = self.children[index.row()]
        if role == TOKEN_ID_ROLE:
            return token_id
        if role == Qt.ItemDataRole.FontRole:
            return self.font
        if role == Qt.ItemDataRole.SizeHintRole:
            # No width of its own: a row is as wide as the list and elides its token in the middle,
            # "·initializ…on   #12345"; a row as wide as its text scrolled the list sideways, the id off.
            return QSize(1, QFontMetrics(self.font).height() + 4)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            table, forest = self.table, self.forest
            row = table.row_of.get(token_id) if table is not None else None
            text = table.visible[row] if table is not None and row is not None else str(token_id)
            if role == Qt.ItemDataRole.ToolTipRole:
                rank = forest.rank(token_id) if forest is not None else None
                return f"id {token_id}, merge rank {rank}: {isolated(text)}"
            return f"{isolated(text)}   #{token_id}"
        return None


def flag_columns() -> list[int]:
    """View columns that show one audit flag each."""
    return [index for index, column in enumerate(COLUMNS) if column.flag]
