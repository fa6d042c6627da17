"""The efficiency table: chosen tokenizers against every corpus source, computed in a child process.

Shown as a pivot (sources x tokenizers, one figure) with a bar chart to export for a slide, and as
the full table of every figure.

Bundled and file tokenizers are loaded by the child from their spec; tokenizers trained in this
session travel as their JSON document. The premium column compares each source with a reference
source (for parallel texts: the same content in English).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QFileDialog, QFrame, QHBoxLayout, QHeaderView, QLabel, QListWidget, QListWidgetItem,
    QPushButton, QSplitter, QStyledItemDelegate, QStyleOptionViewItem, QTableView, QTabWidget, QVBoxLayout, QWidget)

from explorer.core.algorithms.bpe import BPE
from explorer.core.corpora.corpus_sources import Source
from explorer.core.analysis.efficiency import (
    METRICS, EfficiencyProgress, Measurement, TokenizerRef, measure_all, pivot, to_csv)
from explorer.core.files import write_atomic
from explorer.core.formats import own
from explorer.core.plural import plural
from explorer.ui.corpus.efficiency_chart import EfficiencyChart, PivotModel
from explorer.ui.corpus.models import EfficiencyModel, SortRole
from explorer.ui.combo import TextWideCombo
from explorer.ui.picker import BUNDLED
from explorer.ui.session import TRAINED_PREFIX, Session
from explorer.ui.side_column import SideColumn
from explorer.ui.workers import ProcessJob
from explorer.ui.progress import ProgressBar

SpecRole = Qt.ItemDataRole.UserRole + 20


class EfficiencyPanel(QWidget):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.sources: list[Source] = []
        self.job: ProcessJob | None = None
        self._checked: set[str] = {"o200k_base", "cl100k_base", "r50k_base"}
        layout = QHBoxLayout(self)
        split = QSplitter(Qt.Orientation.Horizontal)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("Tokenizers to compare:"))
        self.tokenizer_list = QListWidget()
        # A long name is elided at the list's width, whole in its tooltip (it scrolled sideways and
        # was cut mid-word: "gpt-oss, harmony format (o20")
        self.tokenizer_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tokenizer_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tokenizer_list.setItemDelegate(_ViewWide(self.tokenizer_list))
        self.tokenizer_list.setResizeMode(QListWidget.ResizeMode.Adjust)  # (laid out again at a new width)
        self.tokenizer_list.itemChanged.connect(self._on_tokenizer_list_item_changed)
        left_layout.addWidget(self.tokenizer_list, 1)
        left_layout.addWidget(QLabel("Premium against:"))
        self.reference = TextWideCombo()  # (whole: the column widens for it, up to a third of the window)
        self.reference.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.reference.setMinimumContentsLength(14)
        self.reference.setToolTip("The source the others are compared with, per tokenizer")
        self.reference.currentIndexChanged.connect(self._on_reference_changed)
        left_layout.addWidget(self.reference)
        buttons = QHBoxLayout()
        self.compute_button = QPushButton("Compute")
        self.compute_button.clicked.connect(lambda: self.compute())
        self.export_button = QPushButton("Export CSV...")
        self.export_button.clicked.connect(lambda: self.export_csv())
        buttons.addWidget(self.compute_button)
        buttons.addWidget(self.export_button)
        left_layout.addLayout(buttons)
        self.side = SideColumn(left, least=240)
        self.side.setFrameShape(QFrame.Shape.NoFrame)
        split.addWidget(self.side)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        self.progress = ProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.progress.hide()
        right_layout.addWidget(self.progress)
        self.model = EfficiencyModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SortRole)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the source's name
        self.table.setAlternatingRowColors(True)
        self.views = QTabWidget()
        self.views.addTab(self._build_pivot(), "Pivot and chart")
        self.views.addTab(self.table, "All figures")
        right_layout.addWidget(self.views, 1)
        self.note = QLabel("Pick tokenizers and press Compute: tokens, bytes per token, tokens per word and "
                           "the premium of each source over the reference.")
        self.note.setWordWrap(True)
        right_layout.addWidget(self.note)
        split.addWidget(right)
        split.setSizes([240, 700])
        layout.addWidget(split)
        session.theme_changed.connect(self._on_session_theme_changed)  # (bound: dropped with the panel)
        session.tokenizers_changed.connect(self.rebuild_tokenizers)
        session.tokenizer_changed.connect(self._on_session_tokenizer_changed)
        self.rebuild_tokenizers()

    def _build_pivot(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        row = QHBoxLayout()
        row.addWidget(QLabel("Figure:"))
        self.metric_box = QComboBox()  # (not `metric`: that name is QPaintDevice's, Qt calls it)
        for key, name in METRICS.items():
            self.metric_box.addItem(name, key)
        self.metric_box.setToolTip("Tokens per word or per character: lower is cheaper; bytes per token: higher is better")
        self.metric_box.currentIndexChanged.connect(lambda _: self._update_pivot())
        row.addWidget(self.metric_box)
        row.addStretch(1)
        self.export_png_button = QPushButton("Export PNG...")
        self.export_png_button.setToolTip("Save the bar chart as a picture for a slide")
        self.export_png_button.setEnabled(False)
        self.export_png_button.clicked.connect(lambda: self.export_png())
        row.addWidget(self.export_png_button)
        layout.addLayout(row)
        self.pivot_model = PivotModel(self)
        self.pivot_table = QTableView()
        self.pivot_table.setObjectName("efficiencyPivot")
        self.pivot_table.setModel(self.pivot_model)
        self.pivot_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.pivot_table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.chart = EfficiencyChart()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.pivot_table)
        split.addWidget(self.chart)
        split.setSizes([160, 400])
        layout.addWidget(split, 1)
        return tab

    def _update_pivot(self) -> None:
        """The pivot of the figures so far (a few dozen rows: no need for a worker)."""
        table = pivot(self.model.rows, str(self.metric_box.currentData()))
        self.pivot_model.set_pivot(table)
        self.export_png_button.setEnabled(bool(table.sources))
        if table.sources:
            self.chart.set_pivot(table, self.session.dark)

    def export_png(self, path: str | None = None) -> bool:
        if not self.model.rows:
            self.note.setText("Nothing to export yet: press Compute first.")
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the chart", "efficiency.png", "PNG (*.png)")
        if not path:
            return False
        try:
            self.chart.export_png(path)
        except OSError as exc:
            self.session.post_error("Could not export", f"{path}: {exc.strerror or exc}")
            return False
        self.session.status_posted.emit(f"Exported the efficiency chart to {path}")
        return True

    # Choices

    def rebuild_tokenizers(self) -> None:
        self.tokenizer_list.blockSignals(True)
        self.tokenizer_list.clear()
        entries = [(label, spec) for spec, label in BUNDLED]
        entries += [(f"{name} (trained)", TRAINED_PREFIX + name) for name in self.session.trained]
        current = self.session.tokenizer_spec
        if current and all(spec != current for _, spec in entries) and self.session.tokenizer is not None:
            entries.append((f"{self.session.tokenizer.name} (current)", current))
        for label, spec in entries:
            item = QListWidgetItem(label)
            item.setToolTip(label)
            item.setData(SpecRole, spec)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if spec in self._checked else Qt.CheckState.Unchecked)
            self.tokenizer_list.addItem(item)
        self.tokenizer_list.blockSignals(False)

    def _on_tokenizer_list_item_changed(self, item: QListWidgetItem) -> None:
        spec = item.data(SpecRole)
        if item.checkState() == Qt.CheckState.Checked:
            self._checked.add(spec)
        else:
            self._checked.discard(spec)

    def set_checked(self, specs: list[str]) -> None:
        self._checked = set(specs)
        self.rebuild_tokenizers()

    def set_sources(self, sources: list[Source]) -> None:
        self.sources = list(sources)
        previous = self.reference.currentText()
        self.reference.blockSignals(True)
        self.reference.clear()
        self.reference.addItem("(none)", "")
        for source in sources:
            self.reference.addItem(source.name, source.name)
        index = self.reference.findText(previous)
        if index < 0:  # an English source is the natural reference for parallel texts
            index = next((i for i in range(self.reference.count()) if "English" in self.reference.itemText(i)), 0)
        self.reference.setCurrentIndex(index)
        self.reference.blockSignals(False)
        self.reference.updateGeometry()  # (its width is its entry's: TextWideCombo)
        self.model.set_reference(self.reference.currentData() or "")

    def _on_reference_changed(self) -> None:
        self.model.set_reference(self.reference.currentData() or "")

    def refs(self) -> list[TokenizerRef]:
        refs = []
        for row in range(self.tokenizer_list.count()):
            item = self.tokenizer_list.item(row)
            if item.checkState() != Qt.CheckState.Checked:
                continue
            spec = str(item.data(SpecRole))
            label = item.text().replace(" (trained)", "").replace(" (current)", "")
            tokenizer = self.session.trained.get(spec[len(TRAINED_PREFIX):]) if spec.startswith(TRAINED_PREFIX) \
                else None
            if tokenizer is None and spec == self.session.tokenizer_spec and isinstance(self.session.tokenizer, BPE) \
                    and not spec.startswith(TRAINED_PREFIX):
                tokenizer = None  # a file: the child loads it by its spec
            if isinstance(tokenizer, BPE):
                refs.append(TokenizerRef(label, document=own.to_json(tokenizer)))
            else:
                refs.append(TokenizerRef(label, spec=spec))
        return refs

    # Work

    def compute(self) -> bool:
        refs = self.refs()
        if not refs or not self.sources:
            self.note.setText("Choose at least one tokenizer, and add sources to the corpus first.")
            return False
        self.model.clear()
        self._update_pivot()
        self.progress.setValue(0)
        self.progress.setFormat("starting")
        self.progress.show()
        self.job = self.session.workers.start_process("measuring efficiency", measure_all, (refs, self.sources),
                                                      key="corpus-efficiency")
        # Bound methods, not lambdas: Qt drops them with the panel, so a job cancelled when the window
        # closes does not reach a panel already deleted
        self.job.batch_ready.connect(self._on_job_batch_ready)
        self.job.finished.connect(self._on_job_finished)
        self.job.failed.connect(self._on_job_failed)
        self.job.cancelled.connect(self._on_job_cancelled)
        self.note.setText(f"Encoding {plural(len(self.sources), 'source')} with {plural(len(refs), 'tokenizer')}...")
        return True

    def _on_session_theme_changed(self, _dark: bool) -> None:
        self._update_pivot()

    def _on_session_tokenizer_changed(self, _tokenizer: object) -> None:
        self.rebuild_tokenizers()

    def _on_job_finished(self, _result: object) -> None:
        self._on_job_ended("Done.")

    def _on_job_failed(self, message: str) -> None:
        self._on_job_ended(f"Failed: {message}")

    def _on_job_cancelled(self) -> None:
        self._on_job_ended("Cancelled.")

    def _on_job_batch_ready(self, items: list[object]) -> None:
        measured = [item for item in items if isinstance(item, Measurement)]
        self.model.add(measured)
        if measured:
            self._update_pivot()
        progress = [item for item in items if isinstance(item, EfficiencyProgress)]
        if progress:
            last = progress[-1]
            done = (last.pairs_done + last.fraction) / max(last.pairs_total, 1)
            self.progress.setValue(int(1000 * done))
            self.progress.setFormat(f"{last.tokenizer} on {last.source}: {last.fraction:.0%}")

    def _on_job_ended(self, message: str) -> None:
        self.progress.hide()
        errors = [row for row in self.model.rows if row.error]
        extra = f" {plural(len(errors), 'row')} failed: {errors[0].error}" if errors else ""
        self.note.setText(message + extra)

    def export_csv(self, path: str | None = None) -> bool:
        if not self.model.rows:
            self.note.setText("Nothing to export yet: press Compute first.")
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export efficiency table", "efficiency.csv", "CSV (*.csv)")
        if not path:
            return False
        try:
            write_atomic(path, to_csv(self.model.rows, self.model.reference))
        except OSError as exc:
            self.session.post_error("Could not export", f"{path}: {exc.strerror or exc}")
            return False
        self.session.status_posted.emit(f"Exported the efficiency table to {path}")
        return True


class _ViewWide(QStyledItemDelegate):
    """Items no wider than their list's viewport, so their text elides instead of running past it."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:  # noqa: N802
        hint = super().sizeHint(option, index)
        view = self.parent()
        if isinstance(view, QListWidget):
            hint.setWidth(min(hint.width(), view.viewport().width()))
        return hint
