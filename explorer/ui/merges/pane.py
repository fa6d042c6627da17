"""The Merges pane: where every token came from.

Left, the whole vocabulary as a table (filter, sort, audit flags, corpus counts). Right, the
selected token's merge tree down to its bytes, the tokens built on it ("used by"), and an
encode trace that steps through the merges of a typed word. Back and forward (Alt+Left/Right)
walk the tokens visited, as in a browser. Everything slow (reading 200,000 tokens, recovering
a tiktoken encoding's merges, the audit, counting a corpus) runs in the session's workers.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt
from PySide6.QtGui import QFont, QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView, QFileDialog, QFrame, QHBoxLayout, QHeaderView, QLabel, QPushButton, QScrollArea,
    QSplitter, QStyle, QVBoxLayout, QWidget)

from explorer.core.analysis.audit import Audit
from explorer.core.errors import ExplorerError
from explorer.core.algorithms.merges import MergeForest
from explorer.core.sources.tokenizer import VIEW_MERGES, Tokenizer
from explorer.core.analysis.vocab_filter import (
    IMPOSSIBLE, NEVER_SEEN, RARE, UNDECODABLE, UNREACHABLE, FilterError, VocabQuery, VocabTable)
from explorer.ui.fitted_splitter import FittedSplitter
from explorer.ui.merges.filter_bar import FilterBar
from explorer.ui.merges.history import History
from explorer.ui.merges.loader import VocabLoader
from explorer.ui.merges.model import COLUMNS, TOKEN_ID_ROLE, VocabModel
from explorer.ui.pinned import SORT_ARROW, PinnedColumnTable
from explorer.ui.merges.trace import TracePanel
from explorer.ui.merges.token_panel import TokenContext, TokenPanel
from explorer.ui.pane import Pane
from explorer.ui.session import Session
from explorer.ui.progress import ProgressBar
from explorer.ui.timers import call_later
from explorer.ui.workers import Job

TABLE_ROWS = 7  # rows of the vocabulary table the encode trace under it leaves in view
TABLE_LEAST_ROWS = 2  # ... when the trace would not fit beside TABLE_ROWS (1280x800 in presentation mode)


class MergesPane(Pane):
    name = "merges"
    title = "Merges"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self.loader = VocabLoader(session.workers, self)
        self.history = History()
        self.current: int | None = None
        self.filter_ms = 0.0  # the last filter's time, shown and reported
        self._pending: int | None = None  # a token asked for before the table was ready
        self._syncing = False
        self._build()
        self.loader.table_ready.connect(self._on_loader_table_ready)
        self.loader.forest_ready.connect(self._on_loader_forest_ready)
        self.loader.columns_changed.connect(self._columns_changed)
        self.loader.progress.connect(self._show_progress)
        self.loader.idle.connect(self.progress_box.hide)
        self.loader.failed.connect(lambda label, message: session.post_error(f"Merges: {label} failed", message))
        session.tokenizer_changed.connect(self.take_up_tokenizer)
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
        top.addWidget(self.result_label, 0, Qt.AlignmentFlag.AlignTop)  # (beside the bar's first line when it wraps)
        top.addWidget(self.export_csv_button, 0, Qt.AlignmentFlag.AlignTop)

        self.progress = ProgressBar()
        self.progress.setMaximumHeight(16)
        self.progress_label = QLabel()
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress_label)
        progress_row.addWidget(self.progress, 1)
        self.progress_box = QWidget()
        self.progress_box.setLayout(progress_row)
        progress_row.setContentsMargins(0, 0, 0, 0)

        self.model = VocabModel(self)
        self.table_view = PinnedColumnTable()  # the id column stays at the left, never cut
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
        self.table_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # "·inter…  (12345)": the id stays whole
        self.table_view.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)

        self.token_panel = TokenPanel()
        self.trace_panel = TracePanel()
        self.trace_panel.token_clicked.connect(self.navigate)

        trace_box = QWidget()
        trace_layout = QVBoxLayout(trace_box)
        trace_layout.setContentsMargins(0, 0, 0, 0)
        trace_title = QLabel("<b>Encode trace</b>: which merge applies at each step")
        trace_layout.addWidget(trace_title)
        trace_layout.addWidget(self.trace_panel, 1)
        # The trace scrolls when it is taller than its room (a long word's steps at 20 pt).
        self.trace_scroll = QScrollArea()
        self.trace_scroll.setWidget(trace_box)
        self.trace_scroll.setWidgetResizable(True)
        self.trace_scroll.setFrameShape(QFrame.Shape.NoFrame)
        # The trace goes under the table and the token's panel has the whole height on the right:
        # under the tree it left the tree 184 px at 1280x800 in presentation mode, and a tree of
        # depth 2 had its byte row cut in half. The table scrolls anyway; the tree needs the rows.
        left = FittedSplitter(Qt.Orientation.Vertical)  # (a drag of the handle between table and trace is kept)
        left.addWidget(self.table_view)
        left.addWidget(self.trace_scroll)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 2)
        left.setChildrenCollapsible(False)
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(left)
        main.addWidget(self.token_panel)
        main.setStretchFactor(0, 2)
        main.setStretchFactor(1, 3)
        main.setChildrenCollapsible(False)
        main.setSizes([560, 840])
        left.setSizes([540, 300])
        self.splitter, self.left = main, left
        left.installEventFilter(self)
        trace_box.installEventFilter(self)  # (its text wraps anew after a step: the scroll area keeps that to itself)

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
        self.token_panel.token_activated.connect(self.navigate)
        self.token_panel.back_requested.connect(self.go_back)
        self.token_panel.forward_requested.connect(self.go_forward)
        self.token_panel.message_posted.connect(self.session.status_posted)
        for keys, slot in (("Alt+Left", self.go_back), ("Alt+Right", self.go_forward)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self._update_history_buttons()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched in (self.left, self.trace_scroll.widget()) and event.type() in (QEvent.Type.Resize,
                                                                                   QEvent.Type.LayoutRequest):
            self._fit_trace()
        return False

    def _fit_trace(self) -> None:
        """The trace as tall as its content while the table keeps TABLE_ROWS rows; when that is
        not room enough, the table gives rows down to TABLE_LEAST_ROWS and the list of merges
        keeps two rows, or one (the status above it says the step too), not three; past that the
        trace scrolls. A scrolled trace showed its list cut mid-row at the pane's edge (21 px short
        at 1280x800, 173 px in presentation mode). (Its content's minimum as the splitter's minimum
        squeezed its neighbour to 70 px.)"""
        view = self.table_view

        chrome = view.height() - view.viewport().height()  # (its header, its scroll bar, its frame)
        if view.viewport().height() <= 0:  # (not laid out yet)
            chrome = view.horizontalHeader().sizeHint().height() + view.horizontalScrollBar().sizeHint().height() \
                + 2 * view.frameWidth()

        def room(rows: int) -> int:  # for the trace, beside `rows` rows of the table
            return self.left.height() - self.left.handleWidth() - chrome - rows * view.verticalHeader().defaultSectionSize()

        steps, content = self.trace_panel.steps, self.trace_scroll.widget()
        width = self.trace_scroll.viewport().width()  # (the status wraps: its height is the width's)
        now = max(content.minimumSizeHint().height(), content.heightForWidth(width) if content.hasHeightForWidth() else 0)

        def wanted(rows: int) -> int:  # the trace's height with `rows` rows of merges
            return now + round((rows - steps.least_rows) * steps.row_height())

        rows = next((rows for rows in (3, 2) if wanted(rows) <= room(TABLE_LEAST_ROWS)), 1)
        steps.set_least_rows(rows)
        height = max(0, min(wanted(rows), room(TABLE_LEAST_ROWS)))
        if self.trace_scroll.minimumHeight() != height:
            self.trace_scroll.setMinimumHeight(height)
        call_later(self, self._whole_table_rows)  # (once the splitter has shared the new minimum out)

    def _whole_table_rows(self) -> None:
        """The table as tall as a whole number of rows, the nearest the trace's minimum allows (at
        least TABLE_LEAST_ROWS): its last row was cut in half by the handle, ids and all (an id cut
        off is a wrong id)."""
        view, sizes = self.table_view, self.left.sizes()
        row, shown = view.verticalHeader().defaultSectionSize(), view.viewport().height()
        if self.left.dragged or len(sizes) != 2 or row <= 0 or shown <= 0 or shown % row == 0:
            return
        down, up = -(shown % row), row - shown % row  # pixels the table would change by
        fits_up = sizes[1] - up >= self.trace_scroll.minimumHeight()
        change = up if fits_up and (up < -down or shown + down < TABLE_LEAST_ROWS * row) else down
        if shown + change >= min(shown, TABLE_LEAST_ROWS * row):
            self.left.setSizes([sizes[0] + change, sizes[1] - change])

    # What the loader knows (see loader.py)

    @property
    def tokenizer(self) -> Tokenizer | None:
        return self.loader.tokenizer

    @property
    def table(self) -> VocabTable | None:
        return self.loader.table

    @property
    def forest(self) -> MergeForest | None:
        return self.loader.forest

    @property
    def audit(self) -> Audit | None:
        return self.loader.audit

    @property
    def forest_seconds(self) -> float | None:
        """How long the merge forest took to arrive (recovered or read from the cache)."""
        return self.loader.forest_seconds

    @property
    def busy(self) -> bool:
        return self.loader.busy

    # A new tokenizer

    def _on_session_tokenizer_changed(self, tokenizer: Tokenizer) -> None:
        self.history.clear()
        self.current = None
        self.model.set_table(None)
        self.token_panel.clear("Reading the vocabulary\u2026")
        self.trace_panel.set_tokenizer(None, str)
        self.filter_bar.set_counts(None)
        self.show_content()
        self.loader.rare_below = self.filter_bar.rare_below.value()
        self.loader.load(tokenizer, self.session.corpus, self.session.tokenizer_spec)

    def _on_loader_table_ready(self, table: VocabTable) -> None:
        self.model.set_table(table)
        self._fit_columns()
        self.filter_bar.set_counts(table)
        self._apply_query(self.filter_bar.query())
        self._update_columns()
        pending, self._pending = self._pending, None
        self.navigate(pending if pending is not None else self._default_token())

    def _on_loader_forest_ready(self, forest: MergeForest | None, seconds: float) -> None:
        tokenizer = self.tokenizer
        if tokenizer is None:
            return
        if forest is None:
            reason = tokenizer.unsupported.get(VIEW_MERGES, f"{tokenizer.name} ({tokenizer.kind}) has no merges")
            self.token_panel.show_message(f"<h3>No merge tree</h3><p>{_html(reason)}</p>"
                                          "<p>The table still lists the whole vocabulary.</p>")
            self.trace_panel.set_tokenizer(None, str)
        else:
            self.session.status_posted.emit(f"Merges: {len(forest.merges):,} merges of {tokenizer.name} "
                                            f"ready in {seconds:.1f} s")
            self.trace_panel.set_tokenizer(tokenizer, self._label)
        self._update_columns()
        if self.current is not None:
            self._show_token(self.current)

    def _show_progress(self, label: str, fraction: float | None) -> None:
        """Only touch the widgets when what they show changes (every call costs the GUI thread)."""
        value = -1 if fraction is None else int(fraction * 100)
        if self.progress_box.isVisible() and (label, value) == getattr(self, "_shown_progress", None):
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

    def _on_session_corpus_changed(self, corpus: object) -> None:
        self.loader.count_corpus(corpus)

    def _on_rare_below_changed(self, value: int) -> None:
        self.loader.set_rare_below(value)

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
            self.token_panel.refresh_info(self._context())

    def _update_columns(self) -> None:
        table = self.table
        hidden = {
            "rank": table is None or (self.forest is None and self.loader.forest_seconds is not None),
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
        table = self.table
        if table is None:
            return
        started = time.perf_counter()
        try:
            table.check(query)
            if not table.needs_search(query):
                self._show_query(query, table.matches(query), started)
                return
        except FilterError as error:
            self._show_filter_error(str(error))
            return
        # A regex over every row takes tens of milliseconds: searched on a worker, latest query wins.
        self.result_label.setText("filtering...")
        job = self.session.workers.start_call("filtering the vocabulary", lambda: table.matches(query),
                                         key="merges:filter")
        job.on("finished", self._on_filter_finished, query, started, table)
        job.failed.connect(self._show_filter_error)

    def _on_filter_finished(self, _job: Job, query: VocabQuery, started: float, table: object, mask: object) -> None:
        if table is self.table:  # (not a table the pane has since let go)
            self._show_query(query, mask, started)

    def _show_query(self, query: VocabQuery, mask: object, started: float) -> None:
        self.model.set_query(query, mask)  # type: ignore[arg-type]
        self.filter_ms = (time.perf_counter() - started) * 1000
        self.error_label.hide()
        self._update_result_label()
        if self.current is not None:
            self._select_row(self.current)

    def _show_filter_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.show()
        self._update_result_label()

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
        self.token_panel.show_token(self._context(), token_id)
        if self.forest is None and self.loader.forest_seconds is None:
            self.token_panel.show_message("Loading the merge forest\u2026 (a .tiktoken file that is not bundled "
                                          "has its merges recovered from the ranks the first time, then cached)")
        self._update_history_buttons()

    def _context(self) -> TokenContext:
        return TokenContext(self.tokenizer, self.table, self.forest)

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

    def _update_history_buttons(self) -> None:
        self.token_panel.set_history(self.history.can_go_back, self.history.can_go_forward)

    def _default_token(self) -> int:
        """Something worth looking at first: the longest word among the first 2,000 tokens (a run of
        spaces is longer in cl100k_base, but says little), else the longest token."""
        table = self.table
        if table is None or table.rows == 0:
            return 0

        def interest(row: int) -> tuple[bool, int, int]:
            token_id = int(table.ids[row])
            if token_id in table.special_ids:
                return False, 0, -token_id
            return any(c.isalpha() for c in table.search[row]), len(table.data[row]), -token_id

        return int(table.ids[max(range(min(table.rows, 2000)), key=interest)])

    def _fit_columns(self) -> None:
        """Every column as wide as its title (with the sort arrow) or a typical value, at the current
        fonts; the id column as wide as the largest id. The user can still drag them wider."""
        view, table = self.table_view, self.table
        largest = int(table.ids.max()) if table is not None and table.rows else 199_999
        grouped = f"{largest:,}"
        samples = {"id": str(largest), "token": "·international", "length": "128", "rank": grouped,
                   "left": f"·inter  ({largest})", "right": f"·national  ({largest})", "count": "99,999,999",
                   "seen": "99,999,999", "script": "Symbols & punctuation", "flags": "\u2713"}
        header = QFontMetrics(view.horizontalHeader().font())
        for index, column in enumerate(COLUMNS):
            if index == 0:
                continue
            font = self.model.font if column.key in ("token", "left", "right") else view.font()
            value = QFontMetrics(font).horizontalAdvance(samples[column.key]) + 16
            view.setColumnWidth(index, max(value, header.horizontalAdvance(column.title) + SORT_ARROW + 12))
        view.set_widest(str(largest))
        # The table never narrower than its first columns, up to the rank: scrolled off at 1280 px
        # in presentation mode, the rank was the one fact about a token the table then did not show.
        rank = next(index for index, column in enumerate(COLUMNS) if column.key == "rank")
        first = sum(view.columnWidth(index) for index in range(rank + 1))
        bar = view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, view)
        view.setMinimumWidth(first + bar + 2 * view.frameWidth() + 2)

    def _label(self, token_id: int) -> str:
        return self._context().label(token_id)

    # Session presentation

    def _on_session_font_changed(self, font: QFont) -> None:
        self.model.font = font
        height = QFontMetrics(font).height() + 6
        self.table_view.verticalHeader().setDefaultSectionSize(max(height, self.fontMetrics().height() + 6))
        self._fit_columns()
        self.trace_panel.set_look(font, self.session.dark)
        self.model.layoutChanged.emit()
        self.token_panel.set_look(font, self.session.dark)

    def _on_session_theme_changed(self, dark: bool) -> None:
        self.trace_panel.set_look(self.session.font, dark)
        self.token_panel.set_look(self.session.font, dark)

    # Export

    def export_csv(self, path: str | None = None) -> Job | None:
        """Save the rows shown (filtered, in the current order) as CSV, on a worker (200,000 rows take
        about a second); the status line says how many when it is done."""
        table = self.table
        if table is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the table as CSV", "vocabulary.csv", "CSV (*.csv)")
            if not path:
                return None
        rows = self.model.table_rows()
        job = self.session.workers.start_call("saving the table as CSV", lambda: table.write_csv(path, rows))
        job.finished.connect(lambda written: self.session.status_posted.emit(f"Saved {written:,} rows to {path}"))
        job.failed.connect(lambda message: self.session.post_error("Could not save the CSV file", message))
        return job

    def export_tree_png(self, path: str | None = None) -> bool:
        return self.token_panel.export_png(path)

    def export_tree_svg(self, path: str | None = None) -> bool:
        return self.token_panel.export_svg(path)

    # The screenshot command's hook (see explorer/ui/pane.py)

    def prepare_screenshot(self, text: str | None = None) -> None:
        """Compute everything now and show the longest token of `text` (or a default) with its trace."""
        tokenizer = self.tokenizer or self.session.tokenizer
        if tokenizer is None:
            return
        if tokenizer is not self.tokenizer:
            self._on_session_tokenizer_changed(tokenizer)
        self.loader.finish_now()
        word = (text or "").split()[0] if (text or "").split() else "ingredients"
        try:
            ids = tokenizer.encode(" " + word, "plain")
        except ExplorerError:
            ids = []
        if ids:
            self.navigate(max(ids, key=lambda i: len(self._label(i))))
        self.trace_panel.set_text(" " + word)  # as the tree's token, with its leading space
        self.trace_panel.go_to(self.trace_panel.total)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
