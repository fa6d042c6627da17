"""The Merges pane: where every token came from.

Left, the whole vocabulary as a table (filter, sort, audit flags, corpus counts). Right, the
selected token's merge tree down to its bytes, the tokens built on it ("used by"), and an
encode trace that steps through the merges of a typed word. Back and forward (Alt+Left/Right)
walk the tokens visited, as in a browser. Everything slow (reading 200,000 tokens, recovering
a tiktoken encoding's merges, the audit, counting a corpus) runs in the session's workers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QListView, QProgressBar, QPushButton,
    QSplitter, QStackedWidget, QTableView, QToolButton, QVBoxLayout, QWidget)

from explorer.core.audit import Audit, audit_vocabulary
from explorer.core.errors import ExplorerError
from explorer.core.merges import MergeForest
from explorer.core.occurrences import corpus_texts, count_occurrences
from explorer.core.tokenizer import VIEW_MERGES, Tokenizer
from explorer.core.vocab_filter import (
    IMPOSSIBLE, NEVER_SEEN, RARE, SPECIAL, UNDECODABLE, UNREACHABLE, FilterError, MergeColumns, VocabQuery, VocabTable,
    build_table, shown_text)
from explorer.ui.merges.filter_bar import FilterBar
from explorer.ui.merges.history import History
from explorer.ui.merges.model import COLUMNS, TOKEN_ID_ROLE, ChildrenModel, VocabModel
from explorer.ui.merges.trace import TracePanel
from explorer.ui.merges.tree_view import DEPTH_COLORS, MergeTreeView, depth_color, text_color_on
from explorer.ui.pane import Pane
from explorer.ui.session import Session
from explorer.ui.workers import Job

KEY = "merges:"  # worker keys of this pane: a new tokenizer cancels the old jobs
PAINT_FIRST_MS = 150


class MergesPane(Pane):
    name = "merges"
    title = "Merges"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self.tokenizer: Tokenizer | None = None
        self.table: VocabTable | None = None
        self.forest: MergeForest | None = None
        self.audit: Audit | None = None
        self.history = History()
        self.current: int | None = None
        self.filter_ms = 0.0  # the last filter's time, shown and reported
        self.forest_seconds: float | None = None
        self._pending: int | None = None  # a token asked for before the table was ready
        self._syncing = False
        self._jobs: dict[str, Job] = {}
        self._queued = False  # a stage waits to start
        self._build()
        session.tokenizer_changed.connect(self._on_session_tokenizer_changed)
        session.token_requested.connect(self._on_session_token_requested)
        session.corpus_changed.connect(self._on_session_corpus_changed)
        session.font_changed.connect(self._on_session_font_changed)
        session.theme_changed.connect(self._on_session_theme_changed)
        self._on_session_font_changed(session.font)
        if session.tokenizer is not None:
            self._on_session_tokenizer_changed(session.tokenizer)
        else:
            self.show_empty("Merges", "Pick a tokenizer in the toolbar to browse its vocabulary and merge trees.")

    # Building the widgets

    def _build(self) -> None:
        self.filter_bar = FilterBar()
        self.result_label = QLabel()
        self.result_label.setMinimumWidth(220)
        self.error_label = QLabel()
        self.error_label.setStyleSheet("color: #d93025;")
        self.error_label.setWordWrap(True)
        self.export_csv_button = QPushButton("Export CSV...")
        self.export_csv_button.setToolTip("Save the rows the filter shows, in this order, as CSV")
        top = QHBoxLayout()
        top.addWidget(self.filter_bar, 1)
        top.addWidget(self.result_label)
        top.addWidget(self.export_csv_button)

        self.progress = QProgressBar()
        self.progress.setMaximumHeight(16)
        self.progress_label = QLabel()
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress_label)
        progress_row.addWidget(self.progress, 1)
        self.progress_box = QWidget()
        self.progress_box.setLayout(progress_row)
        progress_row.setContentsMargins(0, 0, 0, 0)

        self.model = VocabModel(self)
        self.table_view = QTableView()
        self.table_view.setModel(self.model)
        self.table_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table_view.setSortingEnabled(True)
        self.table_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table_view.setAlternatingRowColors(True)
        self.table_view.setWordWrap(False)
        self.table_view.verticalHeader().setVisible(False)
        self.table_view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table_view.horizontalHeader().setStretchLastSection(False)
        self.table_view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        for column, width in enumerate([64, 150, 48, 64, 120, 120, 90, 72, 96]):
            self.table_view.setColumnWidth(column, width)
        for column in range(9, len(COLUMNS)):
            self.table_view.setColumnWidth(column, 92)
        self.table_view.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)

        # The tree, with its toolbar and legend
        self.back_button = self._tool_button("\u2190", "Back to the previous token (Alt+Left)", self.go_back)
        self.forward_button = self._tool_button("\u2192", "Forward (Alt+Right)", self.go_forward)
        self.title_label = QLabel()
        self.title_label.setTextFormat(Qt.TextFormat.RichText)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tree_view = MergeTreeView()
        zoom_out = self._tool_button("\u2212", "Zoom out (wheel, or - with the tree focused)",
                                     lambda: self.tree_view.zoom(1 / 1.2))
        zoom_in = self._tool_button("+", "Zoom in (wheel, or + with the tree focused)", lambda: self.tree_view.zoom(1.2))
        fit = self._tool_button("Fit", "Show the whole tree (F with the tree focused)", self.tree_view.fit)
        self.export_png_button = self._tool_button("PNG...", "Save the tree as a PNG image", self.export_tree_png)
        self.export_svg_button = self._tool_button("SVG...", "Save the tree as an SVG drawing", self.export_tree_svg)
        bar = QHBoxLayout()
        for widget in (self.back_button, self.forward_button):
            bar.addWidget(widget)
        bar.addWidget(self.title_label, 1)
        for widget in (zoom_out, zoom_in, fit, self.export_png_button, self.export_svg_button):
            bar.addWidget(widget)
        self.info_label = QLabel()
        self.info_label.setTextFormat(Qt.TextFormat.RichText)
        self.info_label.setWordWrap(True)
        self.info_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tree_message = QLabel()
        self.tree_message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.tree_message.setWordWrap(True)
        self.tree_stack = QStackedWidget()
        self.tree_stack.addWidget(self.tree_message)
        self.tree_stack.addWidget(self.tree_view)
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        tree_panel = QWidget()
        tree_layout = QVBoxLayout(tree_panel)
        tree_layout.setContentsMargins(4, 0, 4, 0)
        tree_layout.addLayout(bar)
        tree_layout.addWidget(self.info_label)
        tree_layout.addWidget(self.tree_stack, 1)
        tree_layout.addWidget(self.legend)

        # "Used by"
        self.children_model = ChildrenModel(self)
        self.children_view = QListView()
        self.children_view.setModel(self.children_model)
        self.children_view.setUniformItemSizes(True)
        self.children_view.setToolTip("Tokens made by a merge that uses this token; click one to go there")
        self.children_label = QLabel("Used by")
        self.children_label.setWordWrap(True)
        used_by = QWidget()
        used_by.setMinimumWidth(190)
        used_layout = QVBoxLayout(used_by)
        used_layout.setContentsMargins(4, 0, 0, 0)
        used_layout.addWidget(self.children_label)
        used_layout.addWidget(self.children_view, 1)
        self.children_view.clicked.connect(self._on_children_view_clicked)
        self.children_view.activated.connect(self._on_children_view_clicked)

        self.trace_panel = TracePanel()
        self.trace_panel.token_clicked.connect(self.navigate)

        tree_and_children = QSplitter(Qt.Orientation.Horizontal)
        tree_and_children.addWidget(tree_panel)
        tree_and_children.addWidget(used_by)
        tree_and_children.setStretchFactor(0, 4)
        tree_and_children.setStretchFactor(1, 1)
        trace_box = QWidget()
        trace_layout = QVBoxLayout(trace_box)
        trace_layout.setContentsMargins(0, 0, 0, 0)
        trace_title = QLabel("<b>Encode trace</b>: which merge applies at each step")
        trace_layout.addWidget(trace_title)
        trace_layout.addWidget(self.trace_panel, 1)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(tree_and_children)
        right.addWidget(trace_box)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(self.table_view)
        main.addWidget(right)
        main.setStretchFactor(0, 2)
        main.setStretchFactor(1, 3)
        main.setSizes([560, 840])
        right.setSizes([540, 300])
        tree_and_children.setSizes([720, 250])
        self.splitter = main

        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.error_label)
        layout.addWidget(self.progress_box)
        layout.addWidget(main, 1)
        self.set_content(content)
        self.error_label.hide()
        self.progress_box.hide()

        self.filter_bar.query_changed.connect(self._on_filter_bar_query_changed)
        self.filter_bar.rare_below.valueChanged.connect(self._on_rare_below_changed)
        self.export_csv_button.clicked.connect(lambda: self.export_csv())
        self.tree_view.node_clicked.connect(self.navigate)
        for keys, slot in (("Alt+Left", self.go_back), ("Alt+Right", self.go_forward)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self._update_legend()
        self._update_history_buttons()

    @property
    def busy(self) -> bool:
        """Still reading, recovering, auditing or counting in the background."""
        return bool(self._jobs) or self._queued

    def _tool_button(self, text: str, tip: str, slot: Callable[[], object]) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(lambda: slot())
        return button

    # A new tokenizer: read its vocabulary, then its merges, then audit it

    def _on_session_tokenizer_changed(self, tokenizer: Tokenizer) -> None:
        for job in self._jobs.values():
            job.cancel()
        self._jobs.clear()
        self.tokenizer, self.table, self.forest, self.audit = tokenizer, None, None, None
        self.forest_seconds = None
        self.history.clear()
        self.current = None
        self.model.set_table(None)
        self.children_model.set_token(None, None, None)
        self.tree_view.clear_tree()
        self._tree_message("Reading the vocabulary\u2026")
        self.title_label.setText("")
        self.info_label.setText("")
        self.trace_panel.set_tokenizer(None, str)
        self.filter_bar.set_counts(None)
        self.show_content()
        # One stage at a time: pure-Python workers share the interpreter lock with the GUI thread,
        # so running them side by side would only make the window stutter more.
        self._start("table", f"reading {tokenizer.name}'s vocabulary", lambda: build_table(tokenizer),
                    lambda table: self._on_table_ready(tokenizer, table))

    def _start_forest(self, tokenizer: Tokenizer) -> None:
        self._queued = False
        if tokenizer is not self.tokenizer or self.forest_seconds is not None:
            return  # another tokenizer since, or the forest is known already (screenshots)
        started = time.perf_counter()
        self._start("forest", "recovering the merges (the first time only; then cached)",
                    _value_job(lambda: _ready_forest(tokenizer)),
                    lambda forest: self._on_forest_ready(tokenizer, forest, time.perf_counter() - started))

    def _start(self, name: str, label: str, work: Callable[[], Iterator[Any]],
               on_done: Callable[[Any], None]) -> Job:
        # A job can end before start() returns; holding it until its signals are connected keeps
        # a fast job's `finished` from being emitted to nobody.
        connected = threading.Event()

        def gated() -> Generator[Any, None, Any]:
            connected.wait()
            return (yield from work())

        job = self.session.workers.start(label, gated, key=KEY + name)
        self._jobs[name] = job
        job.batch_ready.connect(lambda batch: self._on_job_progress(label, batch))
        job.finished.connect(lambda value: (self._job_done(name, job), on_done(value)))
        job.failed.connect(lambda message: (self._job_done(name, job), self._on_job_failed(label, message)))
        job.cancelled.connect(lambda: self._job_done(name, job))
        connected.set()
        self._show_progress(label, None)
        return job

    def _job_done(self, name: str, job: Job) -> None:
        if self._jobs.get(name) is job:
            del self._jobs[name]
        if not self.busy:
            self.progress_box.hide()

    def _on_job_progress(self, label: str, batch: list[Any]) -> None:
        record = batch[-1] if batch else None
        done, total = getattr(record, "done", None), getattr(record, "total", None)
        fraction = getattr(record, "fraction", None)
        if done is not None and total:
            self._show_progress(f"{label} ({total:,})", done / total)
        elif fraction is not None:
            self._show_progress(label, fraction)
        elif hasattr(record, "texts"):
            self._show_progress(f"{label}: {record.texts:,} texts, {record.tokens:,} tokens", None)

    def _show_progress(self, label: str, fraction: float | None) -> None:
        """Only touch the widgets when what they show changes (every call costs the GUI thread)."""
        value = -1 if fraction is None else int(fraction * 100)
        if (label, value) == getattr(self, "_shown_progress", None):
            return
        self._shown_progress = (label, value)
        self.progress_box.show()
        if self.progress_label.text() != label:
            self.progress_label.setText(label)
        if fraction is None:
            self.progress.setRange(0, 0)  # busy
        else:
            if self.progress.maximum() != 100:
                self.progress.setRange(0, 100)
            self.progress.setValue(value)

    def _on_job_failed(self, label: str, message: str) -> None:
        self.session.post_error(f"Merges: {label} failed", message)

    def _on_table_ready(self, tokenizer: Tokenizer, table: VocabTable) -> None:
        if tokenizer is not self.tokenizer:
            return
        self.table = table
        self.model.set_table(table)
        self.filter_bar.set_counts(table)
        self._apply_query(self.filter_bar.query())
        self._update_columns()
        # Let the table paint before the next stage competes with the GUI thread for the lock.
        self._queued = True
        QTimer.singleShot(PAINT_FIRST_MS, self, lambda: self._start_forest(tokenizer))
        pending, self._pending = self._pending, None
        self.navigate(pending if pending is not None else self._default_token())

    def _on_forest_ready(self, tokenizer: Tokenizer, forest: MergeForest | None, seconds: float) -> None:
        if tokenizer is not self.tokenizer:
            return
        self.forest = forest
        self.forest_seconds = seconds
        if forest is None:
            reason = tokenizer.unsupported.get(VIEW_MERGES, f"{tokenizer.name} ({tokenizer.kind}) has no merges")
            self._tree_message(f"<h3>No merge tree</h3><p>{_html(reason)}</p>"
                               "<p>The table still lists the whole vocabulary.</p>")
            self.trace_panel.set_tokenizer(None, str)
        else:
            self.session.status_posted.emit(f"Merges: {len(forest.merges):,} merges of {tokenizer.name} "
                                            f"ready in {seconds:.1f} s")
            self.trace_panel.set_tokenizer(tokenizer, self._label)
        if forest is not None:
            self._start_merge_columns()
        else:
            self._start_audit()
        if self.current is not None:
            self._show_token(self.current)

    def _start_merge_columns(self) -> None:
        table, forest, tokenizer = self.table, self.forest, self.tokenizer
        if table is None or forest is None:
            return
        self._start("columns", "reading the merges", lambda: table.compute_merges(forest),
                    lambda columns: self._on_merge_columns_ready(tokenizer, table, columns))

    def _on_merge_columns_ready(self, tokenizer: Tokenizer | None, table: VocabTable, columns: MergeColumns) -> None:
        if table is not self.table:
            return
        table.set_merges(columns)
        self._columns_changed()
        self._start_audit()

    def _start_audit(self) -> None:
        tokenizer, table = self.tokenizer, self.table
        if tokenizer is None or table is None:
            return
        self._start("audit", "auditing the vocabulary", lambda: audit_vocabulary(tokenizer),
                    lambda audit: self._on_audit_ready(table, audit))

    def _on_audit_ready(self, table: VocabTable, audit: Audit) -> None:
        if table is not self.table:
            return
        self.audit = audit
        flags: dict[int, int] = {}
        for bit, ids in ((UNREACHABLE, audit.unreachable), (UNDECODABLE, audit.undecodable),
                         (IMPOSSIBLE, audit.impossible), (SPECIAL, audit.special)):
            for token_id in ids:
                flags[token_id] = flags.get(token_id, 0) | bit
        table.set_audit(flags)
        table.audited = audit.unreachable_checked
        self._columns_changed()
        self._count_corpus()

    # The corpus: how often each token occurs

    def _on_session_corpus_changed(self, corpus: object) -> None:
        self._count_corpus()

    def _count_corpus(self) -> None:
        tokenizer, table, corpus = self.tokenizer, self.table, self.session.corpus
        if tokenizer is None or table is None:
            return
        if corpus is None:
            table.set_seen(None)
            self._columns_changed()
            return
        self._start("corpus", "counting tokens in the corpus",
                    lambda: count_occurrences(tokenizer, corpus_texts(corpus)),
                    lambda counts: self._on_counts_ready(table, counts))

    def _on_counts_ready(self, table: VocabTable, counts: Any) -> None:
        if table is not self.table:
            return
        table.set_seen(counts, self.filter_bar.rare_below.value())
        self._columns_changed()

    def _on_rare_below_changed(self, value: int) -> None:
        if self.table is not None and self.table.seen is not None:
            self.table.apply_rare_threshold(value)
            self._columns_changed()

    def _columns_changed(self) -> None:
        if self.table is None:
            return
        self.filter_bar.set_counts(self.table)
        try:
            self.model.query = self.filter_bar.query()
            self.model.columns_changed()
        except FilterError:
            self.model.set_query(VocabQuery())
        self._update_columns()
        self._update_result_label()
        if self.current is not None:
            self._select_row(self.current)
            self._show_info(self.current)

    def _update_columns(self) -> None:
        table = self.table
        hidden = {
            "rank": table is None or (self.forest is None and "forest" not in self._jobs),
            "count": table is None or table.count is None,
            "seen": table is None or table.seen is None,
        }
        hidden["left"] = hidden["right"] = hidden["rank"]
        for index, column in enumerate(COLUMNS):
            if column.flag in (NEVER_SEEN, RARE):
                hide = hidden["seen"]
            elif column.flag == UNREACHABLE:
                hide = table is None or not table.audited
            elif column.flag in (UNDECODABLE, IMPOSSIBLE):
                hide = self.audit is None
            else:
                hide = hidden.get(column.key, False)
            self.table_view.setColumnHidden(index, hide)

    # Filtering

    def _on_filter_bar_query_changed(self, query: VocabQuery) -> None:
        self._apply_query(query)

    def _apply_query(self, query: VocabQuery) -> None:
        if self.table is None:
            return
        started = time.perf_counter()
        try:
            self.model.set_query(query)
        except FilterError as error:
            self.error_label.setText(str(error))
            self.error_label.show()
            return
        self.filter_ms = (time.perf_counter() - started) * 1000
        self.error_label.hide()
        self._update_result_label()
        if self.current is not None:
            self._select_row(self.current)

    def _update_result_label(self) -> None:
        if self.table is None:
            self.result_label.setText("")
            return
        shown, total = self.model.rowCount(), self.table.rows
        self.result_label.setText(f"{shown:,} of {total:,} tokens  ({self.filter_ms:.0f} ms)")
        self.result_label.setToolTip("Tokens the filter keeps, and how long filtering took")

    # Navigation

    def _on_session_token_requested(self, token_id: int) -> None:
        self.navigate(token_id)

    def navigate(self, token_id: int) -> None:
        """Show `token_id` and remember it in the history."""
        if self.table is None:
            self._pending = token_id
            return
        if token_id not in self.table.row_of:
            self.session.status_posted.emit(f"Merges: {self.tokenizer.name if self.tokenizer else ''} "
                                            f"has no token {token_id}")
            return
        self.history.visit(token_id)
        self._show_token(token_id)

    def go_back(self) -> None:
        token_id = self.history.back()
        if token_id is not None:
            self._show_token(token_id)

    def go_forward(self) -> None:
        token_id = self.history.forward()
        if token_id is not None:
            self._show_token(token_id)

    def _show_token(self, token_id: int) -> None:
        self.current = token_id
        self._select_row(token_id)
        self._show_info(token_id)
        self.children_model.set_token(self.table, self.forest, token_id)
        count = self.children_model.rowCount()
        if self.forest is None:
            self.children_label.setText("<b>Used by</b>")
        elif count:
            self.children_label.setText(f"<b>Used by</b> {count:,} token{'s' if count != 1 else ''}")
        else:
            self.children_label.setText("<b>Used by</b> none: no merge builds on it")
        self._draw_tree()
        self._update_history_buttons()

    def _select_row(self, token_id: int) -> None:
        row = self.model.row_of_token(token_id)
        self._syncing = True
        try:
            selection = self.table_view.selectionModel()
            if row < 0:
                selection.clearSelection()
            else:
                index = self.model.index(row, 1)
                selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                          | QItemSelectionModel.SelectionFlag.Rows)
                self.table_view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        finally:
            self._syncing = False

    def _on_table_current_row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        token_id = current.data(TOKEN_ID_ROLE)
        if token_id is not None and token_id != self.current:
            self.navigate(int(token_id))

    def _on_children_view_clicked(self, index: QModelIndex) -> None:
        token_id = index.data(TOKEN_ID_ROLE)
        if token_id is not None:
            self.navigate(int(token_id))

    def _update_history_buttons(self) -> None:
        self.back_button.setEnabled(self.history.can_go_back)
        self.forward_button.setEnabled(self.history.can_go_forward)

    def _default_token(self) -> int:
        """Something worth looking at first: the longest token made by a merge among the first thousand."""
        table = self.table
        if table is None or table.rows == 0:
            return 0
        candidates = [int(i) for i in table.ids[: min(table.rows, 2000)]]
        return max(candidates, key=lambda i: (len(table.data[table.row_of[i]]) if i not in table.special_ids else 0, -i))

    # The token's description and tree

    def _label(self, token_id: int) -> str:
        table = self.table
        if table is not None and token_id in table.row_of:
            return table.visible[table.row_of[token_id]]
        if self.tokenizer is not None:
            try:
                return shown_text(self.tokenizer.token_bytes(token_id))
            except ExplorerError:
                pass
        return f"#{token_id}"

    def _describe(self, token_id: int) -> str:
        lines = [f"{self._label(token_id)}   id {token_id}"]
        if self.table is not None and token_id in self.table.row_of:
            row = self.table.row_of[token_id]
            lines.append("bytes " + self.table.data[row].hex(" ").upper())
            flags = self.table.row_flags(row)
            if flags:
                lines.append("flags: " + ", ".join(flags))
        if self.forest is not None:
            rank = self.forest.rank(token_id)
            if rank is not None:
                count = self.forest.count(token_id)
                lines.append(f"merge #{rank:,}" + (f", seen {count:,} times in training" if count else ""))
        lines.append("Click to go to this token")
        return "\n".join(lines)

    def _show_info(self, token_id: int) -> None:
        table, forest = self.table, self.forest
        if table is None:
            return
        row = table.row_of[token_id]
        data = table.data[row]
        self.title_label.setText(f"<span style='font-size:large'><b>{_html(self._label(token_id))}</b></span>"
                                 f"&nbsp;&nbsp;id {token_id} · {len(data)} byte{'s' if len(data) != 1 else ''}")
        parts: list[str] = []
        if forest is not None:
            rank, pair = forest.rank(token_id), forest.parents(token_id)
            if pair is not None:
                parts.append(f"merge #{rank:,}: <code>{_html(self._label(pair[0]))}</code> + "
                             f"<code>{_html(self._label(pair[1]))}</code>, depth {forest.depth(token_id)}")
                count = forest.count(token_id)
                if count is not None:
                    parts.append(f"pair seen {count:,} times in training")
            elif token_id in table.special_ids:
                parts.append("a special token: added whole, never made by a merge")
            elif len(data) == 1:
                parts.append(f"a single byte (0x{data[0]:02X}): the bottom of every tree")
        if table.seen is not None:
            parts.append(f"seen {int(table.seen[row]):,} times in the corpus")
        flags = table.row_flags(row)
        if flags:
            parts.append("<b>flags:</b> " + ", ".join(flags))
        explanation = self._unreachable_note(token_id, data) if "unreachable" in flags else ""
        self.info_label.setText(" · ".join(parts) + explanation)

    def _unreachable_note(self, token_id: int, data: bytes) -> str:
        tokenizer = self.tokenizer
        if tokenizer is None:
            return ""
        try:
            alone = tokenizer.encode(data.decode("utf-8"), "plain")
        except (UnicodeDecodeError, ExplorerError):
            return ""
        pieces = " + ".join(f"<code>{_html(self._label(i))}</code>" for i in alone)
        return (f"<br>Unreachable: encoding its own text gives {pieces}, never this token. "
                "A longer merge or the pre-tokenizer takes its bytes first, so a model rarely if ever sees it.")

    def _draw_tree(self) -> None:
        token_id, forest = self.current, self.forest
        if token_id is None or self.table is None:
            return
        if forest is None:
            if "forest" in self._jobs:
                self._tree_message("Recovering the merges from the encoding's ranks\u2026 "
                                   "(the first time only; they are cached afterwards)")
            return
        self.tree_view.show_tree(forest, token_id, self._label, self.session.font, self.session.dark, self._describe)
        self.tree_stack.setCurrentWidget(self.tree_view)

    def _tree_message(self, html: str) -> None:
        self.tree_message.setText(html)
        self.tree_stack.setCurrentWidget(self.tree_message)

    def _update_legend(self) -> None:
        dark = self.session.dark
        cells = []
        for height in range(len(DEPTH_COLORS) + 1):
            fill = depth_color(height, dark)
            text = text_color_on(fill)
            label = "byte" if height == 0 else (str(height) if height < len(DEPTH_COLORS) else f"{height}+")
            cells.append(f"<span style='background:{fill.name()}; color:{text.name()}'>&nbsp;{label}&nbsp;</span>")
        self.legend.setText("Colour = depth (merges down to a byte): " + "".join(cells)
                            + "&nbsp;&nbsp; #n = merge rank. Wheel zooms, drag pans, click a box to go there.")

    # Session presentation

    def _on_session_font_changed(self, font: QFont) -> None:
        self.model.font = font
        self.children_model.font = font
        height = QFontMetrics(font).height() + 6
        self.table_view.verticalHeader().setDefaultSectionSize(max(height, self.fontMetrics().height() + 6))
        self.trace_panel.set_look(font, self.session.dark)
        self.model.layoutChanged.emit()
        self._draw_tree()

    def _on_session_theme_changed(self, dark: bool) -> None:
        self.trace_panel.set_look(self.session.font, dark)
        self._update_legend()
        self._draw_tree()

    # Export

    def export_csv(self, path: str | None = None) -> int:
        """Save the rows shown (filtered, in the current order) as CSV; returns how many."""
        if self.table is None:
            return 0
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the table as CSV", "vocabulary.csv", "CSV (*.csv)")
            if not path:
                return 0
        try:
            written = self.table.write_csv(path, self.model.table_rows())
        except OSError as error:
            self.session.post_error("Could not save the CSV file", f"{path}: {error.strerror}")
            return 0
        self.session.status_posted.emit(f"Saved {written:,} rows to {path}")
        return written

    def export_tree_png(self, path: str | None = None) -> bool:
        return self._export_tree(path, "PNG image (*.png)", "png", self.tree_view.export_png)

    def export_tree_svg(self, path: str | None = None) -> bool:
        return self._export_tree(path, "SVG drawing (*.svg)", "svg",
                                 lambda target: self.tree_view.export_svg(target, f"Merge tree of token {self.current}"))

    def _export_tree(self, path: str | None, file_filter: str, suffix: str, save: Callable[[str], bool]) -> bool:
        if self.tree_view.tree is None:
            self.session.status_posted.emit("Select a token with a merge tree first")
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the merge tree", f"token-{self.current}.{suffix}",
                                                  file_filter)
            if not path:
                return False
        if not save(path):
            self.session.post_error("Could not save the tree", f"{path} could not be written")
            return False
        self.session.status_posted.emit(f"Saved the tree to {path}")
        return True

    # The screenshot command's hook (see explorer/ui/pane.py)

    def prepare_screenshot(self, text: str | None = None) -> None:
        """Compute everything now and show the longest token of `text` (or a default) with its trace."""
        tokenizer = self.tokenizer or self.session.tokenizer
        if tokenizer is None:
            return
        if tokenizer is not self.tokenizer:
            self._on_session_tokenizer_changed(tokenizer)
        for job in list(self._jobs.values()):
            job.cancel()
        self._jobs.clear()
        if self.table is None:
            self._on_table_ready(tokenizer, _drain(build_table(tokenizer)))
        if self.forest is None:
            self._on_forest_ready(tokenizer, tokenizer.forest, 0.0)
        if self.table is not None and self.forest is not None and self.table.rank is None:
            self.table.set_merges(_drain(self.table.compute_merges(self.forest)))
        if self.audit is None and self.table is not None:
            self._on_audit_ready(self.table, _drain(audit_vocabulary(tokenizer)))
        for job in list(self._jobs.values()):
            job.cancel()
        self._jobs.clear()
        self.progress_box.hide()
        word = (text or "").split()[0] if (text or "").split() else "ingredients"
        try:
            ids = tokenizer.encode(" " + word, "plain")
        except ExplorerError:
            ids = []
        if ids:
            self.navigate(max(ids, key=lambda i: len(self._label(i))))
        self.trace_panel.set_text(word)
        self.trace_panel.go_to(self.trace_panel.total)
        self._columns_changed()


def _ready_forest(tokenizer: Tokenizer) -> MergeForest | None:
    """The forest with its lazy parts built here, off the GUI thread ("used by" indexes 200,000 merges)."""
    forest = tokenizer.forest
    if forest is not None:
        forest.children(0)
    return forest


def _value_job(compute: Callable[[], object]) -> Callable[[], Generator[None, None, object]]:
    """A generator function for the workers that computes one value (no progress to report)."""

    def work() -> Generator[None, None, object]:
        return compute()
        yield  # makes this a generator, as the workers expect

    return work


def _drain(progress: Iterator[Any]) -> Any:
    """Run a progress generator to its end on this thread and return its value (screenshots only)."""
    while True:
        try:
            next(progress)
        except StopIteration as stop:
            return stop.value


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
