"""The merges table's columns at any zoom: the new token takes the room the others leave, but never
less than a few characters; no text column is narrower than the texts of the rows in view, so no
cell elides ('<E0 …' for the piece of a Devanagari letter); and when that makes the table wider
than its view, it scrolls sideways with the merge number pinned at the left (a PinnedColumnTable:
a row is never read without knowing which merge it is).
"""

from __future__ import annotations

import time

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from explorer.ui.cell_width import column_width
from explorer.ui.timers import NEXT_FRAME_MS, call_later


class FittedColumns(QObject):
    """Column `stretch` of `table` fills the width left, at least `minimum` px; each of `parts`
    takes a quarter of the room the text columns share, at least `part_minimum` px (with the parts
    at their least, a wide table gave the new token 340 px beside parts cut to '<E8 …'); and each
    of these text columns at least as wide as the texts of the rows in view need.

    Rows are measured as they come into view (a run of 100,000 merges is never measured whole),
    and a column keeps the width it grew to until the font changes, the table is emptied or
    `refit` is asked for: it does not narrow and widen again under the reader's eyes as the table
    scrolls."""

    widened = Signal()  # a text column grew to the rows in view

    def __init__(self, table: QTableView, stretch: int, parts: tuple[int, ...] = ()) -> None:
        super().__init__(table)
        self.table = table
        self.stretch = stretch
        self.parts = parts
        self.minimum = 0
        self.part_minimum = 0
        self.content: dict[int, int] = {}  # text column -> pixels the rows measured so far need
        self._measured: set[int] = set()  # rows measured at this font (a row's texts never change)
        self._measure_due = False
        self.measured_at = 0.0  # (time.monotonic) when measured rows last widened the columns: see settling
        self._refit_due = False  # measured from scratch on the next turn: no measuring before it
        self.held = False  # rows go unmeasured until `refit` (see hold)
        header = table.horizontalHeader()
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Fixed)  # set here, to fit (see fit)
        header.setStretchLastSection(False)
        # By pixels: scrolled by whole columns, the first one shown would sit under the pinned one.
        table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header.sectionResized.connect(self._on_header_section_resized)
        table.viewport().installEventFilter(self)
        table.verticalScrollBar().valueChanged.connect(self.measure)  # (before the rows scrolled to are painted)
        table.model().rowsInserted.connect(self.measure_later)
        table.model().modelReset.connect(self._on_model_reset)

    def set_minimum(self, minimum: int, part_minimum: int = 0) -> None:
        """The least widths at a new font; the rows in view are measured again in it."""
        self.minimum, self.part_minimum = minimum, part_minimum
        self.refit()

    def hold(self) -> None:
        """Measure no rows until `refit`: Hugging Face's 32,768 merges pour through the view in a
        second, and measuring each screenful they scrolled past took 4-11 ms of a frame that also
        painted the table (stalls of 52-78 ms on 10 MB). The run's end refits to the rows then in view."""
        self.held = True

    def refit(self) -> None:
        """Fit the columns to the rows in view alone: at the end of a run its last merges, often
        short, beside parts widened to the longest rows that streamed past (at 1280x800 in
        presentation mode that pushed the new token under the cut-column cover). The rows are
        measured on the next turn, once the view is laid out again: at a new font, the rows in
        view at the old row height and the old table height were more, and longer."""
        self.held = False
        self.content.clear()
        self._measured.clear()
        self._share()
        self.fit()
        self._refit_due = True
        self.measure_later()

    def least_width(self) -> int:
        """Pixels the columns need side by side, the stretching one at its least."""
        return self._others_width() + max(self.minimum, self.content.get(self.stretch, 0))

    def content_width(self) -> int:
        """Pixels the columns need side by side, each text column at its least (its rows in view,
        or its minimum): `least_width` with the parts' share of the room left out."""
        parts = sum(max(self.part_minimum, self.content.get(c, 0)) for c in self.parts)
        return self._fixed_width() + parts + max(self.minimum, self.content.get(self.stretch, 0))

    def _fixed_width(self) -> int:
        """Pixels the shown columns other than the text columns take."""
        header = self.table.horizontalHeader()
        return sum(header.sectionSize(c) for c in range(header.count())
                   if c != self.stretch and c not in self.parts and not header.isSectionHidden(c))

    def _others_width(self) -> int:
        """Pixels the shown columns other than the stretching one take."""
        header = self.table.horizontalHeader()
        return sum(header.sectionSize(c) for c in range(header.count())
                   if c != self.stretch and not header.isSectionHidden(c))

    def measure_later(self, *_: object) -> None:
        """Measure in the next frame, once, and widen the columns in the frame after it: rows just
        inserted, or a viewport just resized, are laid out by the view after this signal. (Not on a
        zero timer: from the turn that ended a run, it ran in the same pass, one gap of 55-64 ms of
        a 400 MB run with the end's own work. And in two frames: measuring the rows of a
        multilingual run takes 10 ms, the repaint of the widened table 30-40 ms more.)"""
        if not self._measure_due:
            self._measure_due = True
            call_later(self, self._measure_now, NEXT_FRAME_MS)

    def _measure_now(self) -> None:
        self._refit_due = False
        needed = self._needed()
        call_later(self, lambda: self._widen_later(needed), NEXT_FRAME_MS)

    def _widen_later(self, needed: dict[int, int]) -> None:
        self._measure_due = False
        if self._refit_due:  # a refit since (a new font, an emptied table): its rows are measured afresh
            self.measure_later()
            return
        self._widen(needed)
        self.measured_at = time.monotonic()

    def settling(self, seconds: float) -> bool:
        """True while a measure is due or ran less than `seconds` ago: widened columns and the
        table's new width repaint it over the next turns, in which other heavy work would add up."""
        return self._measure_due or time.monotonic() - self.measured_at < seconds

    def measure(self, *_: object) -> None:
        """Widen each text column whose rows in view need more room than it has."""
        self._widen(self._needed())

    def _needed(self) -> dict[int, int]:
        """Pixels each text column needs for the rows in view not measured before (none of them)."""
        if self._refit_due or self.held:
            return {}  # (the rows in view before the view is laid out again: see refit)
        table, model = self.table, self.table.model()
        first = table.rowAt(0)
        if first < 0:
            return {}
        last = table.rowAt(table.viewport().height() - 1)
        last = model.rowCount() - 1 if last < 0 else last
        rows = [row for row in range(first, last + 1) if row not in self._measured]
        self._measured.update(rows)
        needed: dict[int, int] = {}
        for column in (*self.parts, self.stretch) if rows else ():
            by_font: dict[str, tuple[QFont | None, list[str]]] = {}
            for row in rows:
                index = model.index(row, column)
                font = index.data(Qt.ItemDataRole.FontRole)
                font = font if isinstance(font, QFont) else None
                by_font.setdefault(font.key() if font else "", (font, []))[1].append(str(index.data() or ""))
            needed[column] = max(column_width(table, column, texts, font) for font, texts in by_font.values())
        return needed

    def _widen(self, needed: dict[int, int]) -> None:
        """Each text column at least as wide as `needed` says (and as it was)."""
        grown = {column: width for column, width in needed.items() if width > self.content.get(column, 0)}
        self.content.update(grown)
        if grown:
            self._share()
            self.fit()
            self.widened.emit()

    def _on_model_reset(self) -> None:
        self.refit()

    def _share(self) -> None:
        """The parts' widths from the view's (at a resize or a new font, so a part the user widens
        keeps its width until then)."""
        if not self.parts:
            return
        header = self.table.horizontalHeader()
        share = max(self.part_minimum, (self.table.viewport().width() - self._fixed_width()) // 4)
        for column in self.parts:
            width = max(share, self.content.get(column, 0))
            if header.sectionSize(column) != width:
                header.resizeSection(column, width)

    def fit(self) -> None:
        """The stretching column's width from the view's width and the other columns'."""
        header = self.table.horizontalHeader()
        width = max(self.minimum, self.content.get(self.stretch, 0), self.table.viewport().width() - self._others_width())
        if header.sectionSize(self.stretch) != width:
            header.resizeSection(self.stretch, width)

    def _on_header_section_resized(self, column: int, _old: int, _new: int) -> None:
        if column != self.stretch:
            self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        # (events reach the filter while the table is being destroyed: then there is nothing to fit)
        if event.type() == QEvent.Type.Resize and shiboken6.isValid(self.table) and watched is self.table.viewport():
            self._share()
            self.fit()
            self.measure_later()  # (taller: more rows in view)
        return super().eventFilter(watched, event)
