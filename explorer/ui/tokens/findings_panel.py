"""The Tokens pane's findings list: what is odd about the prompt, looked for after typing stops.

The same background job counts the words and finds where compared tokenizers cut the text
differently, since all three read the same snapshot of every lane.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QSize, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (QLabel, QStyledItemDelegate, QStyleOptionViewItem, QTableView,
                               QVBoxLayout, QWidget)

from explorer.core.analysis.compare import boundary_differences, count_words
from explorer.core.analysis.findings import audit_check, iter_findings
from explorer.ui.cell_width import column_width
from explorer.ui.timers import call_later, once_next_turn
from explorer.ui.tokens.findings_model import FINDING_ROLE, FindingsModel
from explorer.ui.workers import Workers


FIT_AHEAD = 10  # rows below the view fitted with those in it (a scroll by a few lines shows them fitted)


class WrappedRowDelegate(QStyledItemDelegate):
    """A wrapped cell a little taller than Qt measures it: Qt measures its lines tightly, then
    paints them a pixel smaller (inside the grid line), centred, and elides a last line that does
    not fit: '"안녕하세요" is 2 tokens in NFC, 37 token...' in a row measured for two lines."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:  # noqa: N802
        size = super().sizeHint(option, index)
        line = QFontMetrics(option.font).lineSpacing()
        if size.height() > 1.5 * line:  # wrapped: room for a taller line
            size.setHeight(size.height() + line // 4)
        return size


class FindingsPanel(QWidget):
    words_counted = Signal(int)
    differences_found = Signal(list)  # (lane, boolean mask over its tokens) pairs
    span_clicked = Signal(int, int)  # character start and end of a clicked finding
    looked = Signal()  # the findings of the last look are all in the table
    rows_fitted = Signal()  # rows took new heights (their finding wrapped anew at a new width)

    def __init__(self, workers: Workers, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workers = workers
        self._job: object = None
        self.model = FindingsModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        # A finding longer than its column wraps onto more lines in a taller row (in presentation
        # mode at 1280 px, "NFC vs NFD" read '"안녕하세요" is 2 tokens in NFC, 37 token...'). Only
        # the rows in view are fitted to their text, as they come into view: fitting all 700 rows
        # (ResizeToContents) took 200 ms at every resize of the panel.
        self.table.setWordWrap(True)
        self.table.setItemDelegate(WrappedRowDelegate(self.table))
        self.table.verticalHeader().hide()
        # Kind and Where as wide as their texts at any zoom (fixed widths cut "Special-token string"
        # to "Special-token ..." in presentation mode), measured when rows come and at a zoom
        # (cell_width.py: not Qt's ResizeToContents); the finding itself takes the rest.
        self.table.horizontalHeader().setStretchLastSection(True)
        self._fit_rows_soon = once_next_turn(self, self._fit_rows)
        self._fitted: set[int] = set()  # rows fitted to their text at the finding column's width now
        self.table.horizontalHeader().sectionResized.connect(self._on_header_section_resized)
        self.table.verticalScrollBar().valueChanged.connect(self._fit_rows_soon.start)
        self.table.clicked.connect(self._on_table_clicked)
        self.table.activated.connect(self._on_table_clicked)
        self.label = QLabel("Findings", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.table, 1)
        layout.addStretch(0)  # (no findings: the title at the top, not in the middle)

    def look(self, state: Any, others: Sequence[tuple[object, Any]]) -> None:
        """Look again at the main lane's `state`; `others` are (lane, state) of every complete lane."""
        self.model.clear()
        self._fitted.clear()
        self.label.setText("Findings (looking...)")

        def work() -> Generator[object, None, None]:
            yield ("words", count_words(state.text))
            if len(others) > 1 and all(other.text == state.text for _, other in others):
                spans = boundary_differences(state.text, [other.byte_boundaries() for _, other in others])
                masks = []
                for lane, other in others:
                    mask = np.zeros(len(other), bool)
                    for start, end in spans:
                        found = other.tokens_in(start, end)
                        mask[found.start:found.stop] = True
                    masks.append((lane, mask))
                yield ("diff", masks)
            yield from iter_findings(state, flagged=audit_check(state.tokenizer))

        job = self.workers.start("finding what is odd", work, key=f"findings:{id(self)}")
        job.on("batch_ready", self._on_job_batch)
        job.on("finished", self._on_job_finished)
        job.on("failed", self._on_job_failed)
        self._job = job

    def _on_job_batch(self, job: object, items: list[object]) -> None:
        if job is not self._job:
            return
        findings = []
        for item in items:
            if isinstance(item, tuple) and item[0] == "words":
                self.words_counted.emit(item[1])
            elif isinstance(item, tuple) and item[0] == "diff":
                self.differences_found.emit(item[1])
            else:
                findings.append(item)
        self.model.add(findings)  # type: ignore[arg-type]
        if findings:
            self.table.show()
            self._fit_columns()
            self._fit_rows_soon.start()

    def _fit_columns(self) -> None:
        """Kind and Where as wide as their widest text."""
        for column in (0, 1):
            self.table.setColumnWidth(column, column_width(self.table, column, self.model.column_texts(column)))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a zoom: measured again once the table has its font too
            call_later(self, self._fit_columns)

    def _on_header_section_resized(self, column: int, _old: int, _new: int) -> None:
        if column == self.model.columnCount() - 1:  # the findings wrap anew
            self._fitted.clear()
            self._fit_rows_soon.start()

    def _fit_rows(self) -> None:
        """Each row in view (and a few below) as tall as its cells' wrapped text."""
        table, rows = self.table, self.model.rowCount()
        first = max(0, table.rowAt(0))
        last = table.rowAt(table.viewport().height() - 1)
        last = rows - 1 if last < 0 else last
        changed = False
        for row in range(first, min(rows, last + 1 + FIT_AHEAD)):
            if row not in self._fitted:
                self._fitted.add(row)
                height = table.rowHeight(row)
                table.resizeRowToContents(row)  # (never below the table's usual row height)
                table.setRowHeight(row, max(table.rowHeight(row), table.verticalHeader().defaultSectionSize()))
                changed = changed or table.rowHeight(row) != height
        if changed:
            self.rows_fitted.emit()

    def _on_job_finished(self, job: object, _: object) -> None:
        if job is self._job:
            rows = self.model.rowCount()
            # None: the empty table goes, its room to the details and the token lanes.
            self.label.setText(f"Findings ({rows:,})" if rows else "Findings: none")
            self.table.setVisible(rows > 0)
            self.looked.emit()

    def _on_job_failed(self, job: object, message: str) -> None:
        if job is self._job:
            self.label.setText(f"Findings could not be computed: {message}")

    def wanted_height(self, rows: int) -> int:
        """Pixels the panel needs to show `rows` rows of its table without scrolling (no findings:
        its title only)."""
        table = self.table
        if table.isHidden():
            return self.label.sizeHint().height()
        header = table.horizontalHeader().sizeHint().height()
        shown = min(rows, self.model.rowCount())
        heights = sum(table.rowHeight(row) for row in range(shown))
        heights += (rows - shown) * table.verticalHeader().defaultSectionSize()
        scroll = table.horizontalScrollBar().sizeHint().height() if table.horizontalScrollBar().isVisible() else 0
        return (self.label.sizeHint().height() + self.layout().spacing() + header + heights + scroll
                + 2 * table.frameWidth() + 2)

    def wanted_width(self) -> int:
        """Pixels the panel needs for its columns' texts (no findings: its title)."""
        table = self.table
        if table.isHidden():
            return self.label.sizeHint().width()
        columns = sum(column_width(table, c, self.model.column_texts(c)) for c in range(self.model.columnCount()))
        return max(self.label.sizeHint().width(), columns + table.verticalScrollBar().sizeHint().width()
                   + 2 * table.frameWidth() + 2)

    def _on_table_clicked(self, index: QModelIndex) -> None:
        finding = self.model.data(index, FINDING_ROLE)
        if finding is not None:
            self.span_clicked.emit(finding.start, finding.end)
