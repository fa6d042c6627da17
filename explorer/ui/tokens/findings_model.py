"""The findings list as a table model: kind, where, what (data() computed from the core records)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from explorer.core.analysis.findings import Finding

FINDING_ROLE = Qt.ItemDataRole.UserRole + 1  # the Finding record of a row
HEADERS = ("Kind", "Where", "Finding")
Index = QModelIndex | QPersistentModelIndex


class FindingsModel(QAbstractTableModel):
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.findings: list[Finding] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self.findings)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self.findings):
            return None
        finding = self.findings[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return _cell_text(finding, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"<b>{finding.title}</b><br>{finding.detail}"
        if role == FINDING_ROLE:
            return finding
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    def column_texts(self, column: int) -> list[str]:
        """Every row's text in `column` (the panel sizes its columns by them)."""
        return [_cell_text(finding, column) for finding in self.findings]

    def clear(self) -> None:
        self.beginResetModel()
        self.findings = []
        self.endResetModel()

    def add(self, findings: list[Finding]) -> None:
        if not findings:
            return
        self.beginInsertRows(QModelIndex(), len(self.findings), len(self.findings) + len(findings) - 1)
        self.findings.extend(findings)
        self.endInsertRows()


def _cell_text(finding: Finding, column: int) -> str:
    return (finding.kind, f"{finding.start}-{finding.end}", finding.title)[column]
