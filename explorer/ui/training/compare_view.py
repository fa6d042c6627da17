"""Compare rules: the corpus trained under hf and minbpe rules, merge lists side by side.

The window runs `compare_rules` in a child process (two pure-Python trainings), then shows where
the lists part (seed 000's "drift from merge 311") and how many tokens both learned; the table
opens at the first differing merge, every differing row marked.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QDialog, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from explorer.core.plural import plural
from explorer.core.algorithms.train import Merge
from explorer.core.algorithms.training_run import TrainingSettings
from explorer.core.analysis.rules_compare import Comparing, RulesComparison, compare_rules
from explorer.core.corpora.corpus_sources import Corpus
from explorer.core.text.render import shown_text
from explorer.ui.training.model import TIE_MARK
from explorer.ui.workers import ProcessJob, Workers

ModelIndex = QModelIndex | QPersistentModelIndex
HEADERS = ("#", "hf rules", "minbpe rules")


class ComparisonModel(QAbstractTableModel):
    """Row k: merge k+1 under each rules; rows where the tokens differ are marked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison: RulesComparison | None = None
        self.marked = QColor("#ffd7d1")
        self._bold = QFont()
        self._bold.setBold(True)

    def set_comparison(self, comparison: RulesComparison | None) -> None:
        self.beginResetModel()
        self.comparison = comparison
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        c = self.comparison
        return 0 if parent.isValid() or c is None else max(len(c.hf), len(c.minbpe))

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        c = self.comparison
        if c is None or not index.isValid():
            return None
        row, column = index.row(), index.column()
        merges = (c.hf, c.minbpe)
        cells = [m[row] if row < len(m) else None for m in merges]
        differs = cells[0] is None or cells[1] is None or cells[0].token != cells[1].token
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return f"{row + 1:,}"
            return _cell(cells[column - 1])
        if role == Qt.ItemDataRole.BackgroundRole:
            return self.marked if differs else None
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if row == c.first_difference else None
        if role == Qt.ItemDataRole.ToolTipRole and column and cells[column - 1] is not None:
            merge = cells[column - 1]
            tie = "" if merge.tie is None else f"; won a tie among {len(merge.tie.packed)} pairs"  # type: ignore[union-attr]
            return f"seen {merge.count:,} times{tie}"  # type: ignore[union-attr]
        return None


def _cell(merge: Merge | None) -> str:
    if merge is None:
        return ""
    mark = f"  {TIE_MARK}" if merge.tie is not None else ""
    return f"{shown_text(merge.token, True)}  ({merge.count:,}){mark}"


class RulesCompareView(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare rules: hf and minbpe on the same corpus")
        self.resize(620, 560)
        layout = QVBoxLayout(self)
        self.summary = QLabel()
        self.summary.setObjectName("compareSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.model = ComparisonModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        self.job: ProcessJob | None = None

    def start(self, workers: Workers, corpus: Corpus, settings: TrainingSettings) -> None:
        """Train both rules in a child process; the view fills in when both are done."""
        self.model.set_comparison(None)
        self.summary.setText(f"Training {plural(settings.target_merges, 'merge')} with hf rules, then with minbpe rules...")
        self.job = workers.start_process("comparing rules", compare_rules, (corpus, settings), key="compare-rules")
        self.job.batch_ready.connect(self._on_job_batch_ready)
        self.job.finished.connect(self._on_job_finished)
        self.job.failed.connect(self._on_job_failed)  # (bound: dropped with the view)

    def _on_job_failed(self, message: str) -> None:
        self.summary.setText(f"<b>Could not compare.</b> {message}")

    def _on_job_batch_ready(self, items: list[object]) -> None:
        last = next((item for item in reversed(items) if isinstance(item, Comparing)), None)
        if last is not None:
            self.summary.setText(f"Training with {last.rules} rules: merge {last.merges:,} of {last.target:,}...")

    def _on_job_finished(self, comparison: object) -> None:
        if not isinstance(comparison, RulesComparison):
            return
        self.show_comparison(comparison)

    def show_comparison(self, comparison: RulesComparison) -> None:
        self.model.set_comparison(comparison)
        self.summary.setText(comparison.summary())
        row = comparison.first_difference
        if row >= 0:
            self.table.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtCenter)
            self.table.selectRow(row)

    def closeEvent(self, event: object) -> None:  # noqa: N802 (Qt override)
        if self.job is not None:
            self.job.cancel()
        super().closeEvent(event)  # type: ignore[arg-type]
