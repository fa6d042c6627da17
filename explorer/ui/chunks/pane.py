"""The Chunks pane: how two to four pre-tokenizer patterns cut the same text, side by side.

Matching runs in the session's workers, one job per column under its own key (latest wins), so
a slow custom pattern never freezes the window; the `regex` timeout stops it with a message.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (QCheckBox, QFrame, QLabel, QPlainTextEdit, QPushButton, QScrollArea,
                               QSplitter, QVBoxLayout, QWidget)

from explorer.core.algorithms.incremental import effective_mode
from explorer.core.pretokenization.chunk_diff import PatternRun, compare, crossing_tokens, run_pattern, tokens_by_chunk
from explorer.core.sources.tokenizer import Token, Tokenizer
from explorer.ui.chunks.categories import legend_html
from explorer.ui.chunks.column import PatternColumn
from explorer.ui.chunks.view import accent
from explorer.ui.chunks.examples import DEFAULT_TEXT, EXAMPLES
from explorer.ui.fitted_splitter import FittedSplitter
from explorer.ui.flow import FlowLayout
from explorer.ui.pane import Pane, WrappingLabel, align_to_text, editor_height, example_bar
from explorer.ui.qt_text import qt_text
from explorer.ui.session import Session
from explorer.ui.timers import call_later
from explorer.ui.workers import Job

DEFAULT_PATTERNS = ("gpt2", "cl100k", "o200k")
MIN_COLUMNS, MAX_COLUMNS = 2, 4
MAX_CHARS = 10_000  # more boxes than this is not something a person reads (and keeps layout < 50 ms)
DEBOUNCE_MS = 120
EDITOR_LINES = 2  # lines the text box keeps however short its text (its line and one to type into)
EDITOR_SHARE = 0.25  # of the pane's height the text box grows to with its text, then it scrolls


class ChunksPane(Pane):
    name = "chunks"
    title = "Chunks"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self.columns: list[PatternColumn] = []
        self.tokens: tuple[str, list[Token]] | None = None  # (text, tokens) of the current tokenizer
        self._column_ids: dict[PatternColumn, int] = {}
        self._next_id = 0
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.refresh)
        self._build()
        for pattern in DEFAULT_PATTERNS:
            self.add_column(pattern)
        self._apply_font(session.font)
        self._on_session_theme_changed(session.dark)
        self._on_session_tokenizer_changed(session.tokenizer)
        session.tokenizer_changed.connect(self.take_up_tokenizer)
        session.special_mode_changed.connect(lambda _: self._start_tokens())
        session.font_changed.connect(self._apply_font)
        session.theme_changed.connect(self._on_session_theme_changed)
        # Text sent here before this pane was built (panes are built lazily) wins over the example.
        self.editor.setPlainText(qt_text(session.sent_text.get(self.name, DEFAULT_TEXT)))
        self.refresh()

    def _build(self) -> None:
        content = QWidget()
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText("Type or paste text to see how each pattern cuts it into chunks")
        self.editor.setTabChangesFocus(False)
        self.editor.textChanged.connect(self._debounce.start)
        self.editor.textChanged.connect(self._fit_editor)

        examples, self.example_buttons = example_bar(EXAMPLES, self.set_text)

        options = FlowLayout()  # (flows onto a second line at presentation mode's font)
        self.add_button = QPushButton("Add pattern")
        self.add_button.setToolTip(f"Compare up to {MAX_COLUMNS} patterns")
        self.add_button.clicked.connect(lambda: self.add_column("llama3" if len(self.columns) == 3 else "digits"))
        self.differences = QCheckBox("Highlight differing boundaries")
        self.differences.setChecked(True)
        self.differences.toggled.connect(self._on_differences_toggled)
        self.show_tokens = QCheckBox("Tokens inside chunks")
        self.show_tokens.toggled.connect(lambda _: self._start_tokens())
        self.summary = QLabel()
        self.summary.setObjectName("chunksSummary")
        # Never wider than its line: a long message asked for 1,651 px and widened the pane.
        self.summary.setMinimumWidth(1)  # (the flow layout then gives it its line's width at most)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        options.addWidget(self.add_button)
        options.addWidget(self.differences)
        options.addWidget(self.show_tokens)
        options.addWidget(self.summary)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.editor)
        top_layout.addLayout(examples)
        top_layout.addLayout(options)
        self.legend = WrappingLabel()  # one legend for every column: a kind has one colour everywhere
        self.legend.setObjectName("chunkLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        self.columns_scroll = QScrollArea()  # the columns scroll together, each as tall as its chunks
        self.columns_scroll.setObjectName("chunkColumns")
        self.columns_scroll.setWidgetResizable(True)
        self.columns_scroll.setFrameShape(QFrame.Shape.NoFrame)
        # Always there, so a longer text never narrows the columns and lays the boxes out twice.
        self.columns_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.columns_scroll.setWidget(self.splitter)
        bottom_layout.addWidget(self.legend)  # above the columns: in sight however short or long the text
        bottom_layout.addWidget(self.columns_scroll, 1)
        vertical = FittedSplitter(Qt.Orientation.Vertical)  # (a drag of the handle under the text is kept)
        vertical.addWidget(top)
        vertical.addWidget(bottom)
        vertical.setStretchFactor(0, 0)
        vertical.setStretchFactor(1, 1)
        vertical.setSizes([150, 600])
        self.vertical = vertical
        layout = QVBoxLayout(content)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(vertical)
        self.set_content(content)

    # Columns

    def add_column(self, pattern: str = "cl100k") -> PatternColumn | None:
        if len(self.columns) >= MAX_COLUMNS:
            return None
        column = PatternColumn(pattern)
        column.set_dark(self.session.dark)
        column.set_text_font(self.session.font)
        column.pattern_edited.connect(lambda c=column: self._on_column_pattern_edited(c))
        column.remove_requested.connect(self.remove_column)
        column.header_resized.connect(self._line_up_headers)
        column.view.hovered.connect(lambda start, end, c=column: self._on_view_hovered(c, start, end))
        self._column_ids[column] = self._next_id
        self._next_id += 1
        self.columns.append(column)
        self.splitter.addWidget(column)
        self.splitter.setSizes([1000] * len(self.columns))
        self._update_column_buttons()
        self._run_column(column)
        return column

    def _line_up_headers(self) -> None:
        """Every column's header as tall as the tallest, so their first rows of boxes line up (a
        narrow column puts its count under its picker: its boxes started a line lower)."""
        tallest = max((column.header_height() for column in self.columns), default=0)
        for column in self.columns:
            if column.header.minimumHeight() != tallest:
                column.header.setMinimumHeight(tallest)

    def remove_column(self, column: PatternColumn) -> None:
        if len(self.columns) <= MIN_COLUMNS or column not in self.columns:
            return
        self.columns.remove(column)
        self._column_ids.pop(column, None)
        column.setParent(None)
        column.deleteLater()
        self._update_column_buttons()
        self._update_comparison()

    def _update_column_buttons(self) -> None:
        self.add_button.setEnabled(len(self.columns) < MAX_COLUMNS)
        for column in self.columns:
            column.remove.setVisible(len(self.columns) > MIN_COLUMNS)

    # Text

    def text(self) -> str:
        return self.editor.toPlainText()[:MAX_CHARS]

    def set_text(self, text: str) -> None:
        self.editor.setPlainText(qt_text(text))
        self.refresh()

    # Running patterns

    def refresh(self) -> None:
        """Run every column's pattern on the current text (and the tokenizer, if shown)."""
        self._debounce.stop()
        align_to_text(self.editor, self.text())  # as the columns' boxes below it
        for column in self.columns:
            self._run_column(column)
        self._start_tokens()

    def _on_column_pattern_edited(self, column: PatternColumn) -> None:
        if column in self._column_ids:  # not while the column is being built
            self._run_column(column)

    def _run_column(self, column: PatternColumn) -> None:
        pattern, text = column.pattern(), self.text()
        column.set_running()
        key = f"chunks-pane:{self._column_ids[column]}"
        job = self.session.workers.start_call(f"chunking with {column.title()}", lambda: run_pattern(pattern, text), key)
        # Through `Job.on`, which calls nothing once the pane is gone: a job that ended as the
        # pane was being destroyed had its column's widgets deleted under it.
        job.on("finished", self._on_run_finished, column)
        job.on("failed", self._on_run_failed, column, pattern, text)

    def _on_run_failed(self, job: Job, column: PatternColumn, pattern: str, text: str, message: str) -> None:
        self._on_run_finished(job, column, PatternRun(pattern, text, error=message))

    def _on_run_finished(self, _job: Job, column: PatternColumn, run: PatternRun) -> None:
        if column not in self.columns or run.pattern != column.pattern() or run.text != self.text():
            return  # a newer job is on its way
        column.set_result(run)
        self._update_comparison()
        self._place_tokens(column)

    def _current_runs(self) -> list[tuple[PatternColumn, PatternRun]]:
        text = self.text()
        return [(c, c.run) for c in self.columns if c.run is not None and c.run.text == text]

    def _update_legend(self) -> None:
        labels = {label for column in self.columns if column.run is not None for label in column.run.labels}
        gaps = any(c.is_gap for column in self.columns if column.run is not None for c in column.run.chunks)
        self.legend.setText(legend_html(labels, self.session.dark, accent(self.session.dark), gaps))

    def _update_comparison(self) -> None:
        self._update_legend()
        runs = self._current_runs()
        comparison = compare([run.chunks for _, run in runs]) if len(runs) >= 2 else None
        names = [c.title() for c, _ in runs]
        for index, (column, _) in enumerate(runs):
            column.view.set_comparison(comparison, index, names)
        counts = " · ".join(f"{c.title()}: <b>{len(r.chunks):,}</b>" for c, r in runs)
        if comparison is None:
            self.summary.setText(counts)
            return
        differing = len(comparison.all_differing)
        verdict = ("all patterns cut this text the same way" if not differing else
                   f"patterns disagree at <b>{differing}</b> boundar{'y' if differing == 1 else 'ies'}")
        self.summary.setText(f"{counts} &nbsp;—&nbsp; {verdict}")

    # Tokens of the current tokenizer inside the chunks

    def _on_session_tokenizer_changed(self, tokenizer: Tokenizer | None) -> None:
        self.show_tokens.setEnabled(tokenizer is not None)
        self.show_tokens.setText(f"Tokens of {tokenizer.name} inside chunks" if tokenizer else
                                 "Tokens inside chunks (pick a tokenizer)")
        self.tokens = None
        self._start_tokens()

    def _start_tokens(self) -> None:
        tokenizer, text = self.session.tokenizer, self.text()
        if not self.show_tokens.isChecked() or tokenizer is None:
            self.tokens = None
            for column in self.columns:
                column.view.set_tokens(None)
            return
        # A special-token string in 'disallowed' mode: the plain reading, as the Tokens pane shows it
        # (the error in its place said only that, with its '<|endoftext|>' eaten as a tag).
        mode, _ = effective_mode(tokenizer, text, self.session.special_mode)
        job = self.session.workers.start_call(f"encoding with {tokenizer.name}", lambda: (text, tokenizer.encode_tokens(text, mode)),
                          "chunks-pane:tokens")
        job.on("finished", self._on_tokens_finished)
        job.on("failed", self._on_tokens_failed)

    def _on_tokens_failed(self, _job: Job, message: str) -> None:
        self.summary.setText(f"Tokens: {html.escape(message)}")

    def _on_tokens_finished(self, _job: Job, result: tuple[str, list[Token]]) -> None:
        if result[0] != self.text():
            return
        self.tokens = result
        for column in self.columns:
            self._place_tokens(column)

    def _place_tokens(self, column: PatternColumn) -> None:
        run = column.run
        if self.tokens is None or run is None or not self.show_tokens.isChecked() or run.text != self.tokens[0]:
            column.view.set_tokens(None)
            return
        pieces = tokens_by_chunk(run.text, run.chunks, self.tokens[1])
        column.view.set_tokens(pieces)
        crossing = crossing_tokens(pieces)
        column.view.setToolTip(f"{crossing} tokens cross this pattern's chunk boundaries" if crossing else "")

    # Presentation

    def _on_view_hovered(self, source: PatternColumn, start: int, end: int) -> None:
        for column in self.columns:
            if column is not source:
                column.view.set_highlight(start, end)

    def _on_differences_toggled(self, on: bool) -> None:
        for column in self.columns:
            column.view.set_show_differences(on)

    def _apply_font(self, font: QFont) -> None:
        self.editor.setFont(font)
        self._fit_editor()
        for column in self.columns:
            column.set_text_font(font)
        call_later(self, self._line_up_headers)  # (once the headers are laid out in the new font)

    def _fit_editor(self) -> None:
        """The text box as tall as its text and a line more (EDITOR_LINES at least, EDITOR_SHARE
        of the pane at most), the columns the rest: a fixed four lines (~150 px in presentation
        mode at 1280x800) held one line of text over a lot of blank while the columns scrolled."""
        height = editor_height(self.editor, self.height(), EDITOR_SHARE, EDITOR_LINES)
        self.editor.setMinimumHeight(height)
        sizes = self.vertical.sizes()
        if self.vertical.dragged or len(sizes) != 2 or sum(sizes) <= 0:
            return
        top = self.vertical.widget(0).minimumSizeHint().height()
        if top != sizes[0]:
            self.vertical.setSizes([top, sum(sizes) - top])

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._fit_editor()

    def _on_session_theme_changed(self, dark: bool) -> None:
        for column in self.columns:
            column.set_dark(dark)
        self._update_legend()

    def prepare_screenshot(self, text: str | None = None) -> None:
        """Show `text` (or the default) with every column computed now, for the screenshot command."""
        if text:
            self.editor.blockSignals(True)
            self.editor.setPlainText(qt_text(text))
            self.editor.blockSignals(False)
        self._debounce.stop()
        for column in self.columns:
            column.set_result(run_pattern(column.pattern(), self.text()))
        self._update_comparison()
        if self.session.tokenizer is not None:
            self.show_tokens.setChecked(True)  # the tokens arrive through the workers

