"""The encode trace: type a word and step through the merges BPE applies to it, lowest rank
first, from its bytes to its final tokens (seed 001's stepper: Step, Play, Reset).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QKeySequence, QMouseEvent, QPainter, QPaintEvent, QPen, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QCheckBox, QLineEdit, QListWidget, QListWidgetItem, QPushButton, QSizePolicy, QVBoxLayout,
    QWidget)

from explorer.core.algorithms.bpe import TraceStep
from explorer.core.errors import ExplorerError
from explorer.core.plural import plural
from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.text.bidi import has_right_to_left, isolated, joined_pieces, label_direction, visual_order
from explorer.ui.flow import FlowLayout
from explorer.ui.pane import WrappingLabel
from explorer.ui.qt_text import qt_text
from explorer.ui.theme import token_color

MAX_CHARS = 200
NEWLINE, TAB = "\u21b5", "\u2192"
PLAY_MS = 700


@dataclass
class Trace:
    """Every chunk's starting bytes and the merges applied, in the order BPE applies them."""

    chunks: list[str]
    start: list[tuple[int, ...]]  # byte token ids of each chunk
    steps: list[tuple[int, TraceStep]]  # (chunk index, step)

    def state(self, done: int) -> tuple[list[tuple[int, ...]], tuple[int, set[int]] | None]:
        """Each chunk's ids after `done` steps, and (chunk, positions of the new tokens) of the last step."""
        ids = list(self.start)
        last = None
        for chunk, step in self.steps[:done]:
            ids[chunk] = step.ids
            last = (chunk, _new_positions(step))
        return ids, last

    @property
    def final(self) -> list[int]:
        return [token for chunk in self.state(len(self.steps))[0] for token in chunk]


def _new_positions(step: TraceStep) -> set[int]:
    """Positions of the merged tokens in `step.ids` (each merge before them shortened the list by one)."""
    return {position - offset for offset, position in enumerate(step.positions)}


def build_trace(tokenizer: Tokenizer, text: str) -> Trace:
    """Split `text` as the tokenizer does, then trace each chunk; raises ExplorerError if it cannot."""
    pretokenizer = tokenizer.pretokenizer
    chunks = [chunk.text for chunk in pretokenizer.chunks(text)] if pretokenizer is not None else [text]
    chunks = [chunk for chunk in chunks if chunk]
    start = [tuple(tokenizer.trace_start(chunk)) for chunk in chunks]  # raises first if it cannot trace
    steps: list[tuple[int, TraceStep]] = []
    for index, chunk in enumerate(chunks):
        steps.extend((index, step) for step in tokenizer.trace(chunk))
    return Trace(chunks, start, steps)


class TokenStrip(QWidget):
    """Tokens as coloured boxes, chunks apart; the tokens the last merge made are outlined."""

    token_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chunks: list[tuple[int, ...]] = []
        self.highlight: tuple[int, set[int]] | None = None
        self.label: Callable[[int], str] = str
        self.dark = False
        self._boxes: list[tuple[QRectF, int, bool, str, int]] = []  # rect, token, made by the last merge, text, chunk
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.setMouseTracking(True)

    def set_tokens(self, chunks: list[tuple[int, ...]], highlight: tuple[int, set[int]] | None) -> None:
        self.chunks, self.highlight = chunks, highlight
        self._layout()
        self.updateGeometry()
        self.update()

    def _layout(self) -> None:
        metrics = QFontMetricsF(self.font())
        x = y = 4.0
        height = metrics.height() + 8
        self._boxes = []
        width = max(100, self.width() - 8)
        for chunk_index, chunk in enumerate(self.chunks):
            # Each box is drawn alone: zero-width joiners keep an Arabic letter's joined form.
            texts = joined_pieces([self.label(token) for token in chunk])
            for position, (token, text) in enumerate(zip(chunk, texts)):
                box_width = metrics.horizontalAdvance(text) + 12
                if x + box_width > width and x > 4:
                    x, y = 4.0, y + height + 6
                new = self.highlight is not None and self.highlight[0] == chunk_index and position in self.highlight[1]
                self._boxes.append((QRectF(x, y, box_width, height), token, new, text, chunk_index))
                x += box_width + 2
            x += 12  # the gap between chunks: merges never cross it
        if any(has_right_to_left(text) for _, _, _, text, _ in self._boxes):
            self._order_right_to_left(width)
        self._height = int(y + height + 6)

    def _order_right_to_left(self, width: float) -> None:
        """Each line's boxes in the bidi algorithm's order: an Arabic word's tokens run from the right."""
        kinds = [label_direction(text) for _, _, _, text, _ in self._boxes]
        rtl = next((kind for kind in kinds if kind in ("R", "L")), "L") == "R"
        first = 0
        while first < len(self._boxes):
            last = first
            while last + 1 < len(self._boxes) and self._boxes[last + 1][0].top() == self._boxes[first][0].top():
                last += 1
            row = self._boxes[first:last + 1]
            order = visual_order(kinds[first:last + 1], rtl)
            gaps = [2.0 if row[a][4] == row[b][4] else 14.0 for a, b in zip(order, order[1:])]
            total = sum(box[0].width() for box in row) + sum(gaps)
            x = max(4.0, width - total) if rtl else 4.0
            for index, gap in zip(order, [*gaps, 0.0]):
                row[index][0].moveLeft(x)
                x += row[index][0].width() + gap
            first = last + 1

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(300, getattr(self, "_height", 40))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(100, getattr(self, "_height", 40))

    def resizeEvent(self, event: object) -> None:  # noqa: N802
        self._layout()
        self.updateGeometry()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text_pen = QColor("#e8eaed" if self.dark else "#1f1f1f")
        for rect, token, new, text, _ in self._boxes:
            painter.setBrush(token_color(token, self.dark))
            painter.setPen(QPen(text_pen, 2.5) if new else QPen(QColor("#9aa0a6" if self.dark else "#80868b"), 1))
            painter.drawRoundedRect(rect, 4, 4)
            painter.setPen(text_pen)
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        point = QPointF(event.position())
        for rect, token, *_ in self._boxes:
            if rect.contains(point):
                self.token_clicked.emit(token)
                return

    def tokens_shown(self) -> list[str]:
        return [self.label(token) for _, token, *_ in self._boxes]


class WordEdit(QLineEdit):
    """The word box: asks for the width of its text, or ten characters' for a short one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.textChanged.connect(lambda _: self.updateGeometry())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint, metrics = super().sizeHint(), self.fontMetrics()
        text = max(metrics.horizontalAdvance(self.text()), 10 * metrics.averageCharWidth())
        return QSize(text + 2 * hint.height(), hint.height())  # (+ margins and the clear button)


class StepList(QListWidget):
    """The list of merges applied: it asks for its minimum (three rows) and takes what is left. In
    the pane's scroll area a list asking for Qt's default 192 px made the trace scroll at 1280x800
    while the window had room for it."""

    least_rows = 3

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(super().sizeHint().width(), max(self.minimumHeight(), 40))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        """Its least rows (a layout takes the larger of this and the size hint: Qt's own, room
        for the scroll bar's arrows, kept a one-row list 70 px tall in presentation mode)."""
        return QSize(super().minimumSizeHint().width(), self.minimumHeight())

    def set_least_rows(self, rows: int) -> None:
        """Rows of merges the list keeps whatever the room (the pane asks two when it is short)."""
        if rows != self.least_rows:
            self.least_rows = rows
            self.fit_minimum()

    def row_height(self) -> float:
        return QFontMetricsF(self.font()).height() + 4

    def fit_minimum(self) -> None:
        self.setMinimumHeight(int(self.least_rows * self.row_height() + 2 * self.frameWidth()))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        """The current merge stays in view when the list is made smaller (Qt keeps its top row)."""
        super().resizeEvent(event)
        if self.currentItem() is not None:
            self.scrollToItem(self.currentItem())


class TracePanel(QWidget):
    """Type a word; Step, Play and Reset walk through its merges."""

    token_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tokenizer: Tokenizer | None = None
        self.trace: Trace | None = None
        self.done = 0
        self.label: Callable[[int], str] = str
        self.input = WordEdit()
        self.input.setPlaceholderText("Type a word to watch BPE encode it, e.g. ingredients (↵ for a newline)")
        self.input.setMaxLength(MAX_CHARS)
        self.input.setClearButtonEnabled(True)
        self.step_button = QPushButton("&Step")
        self.step_button.setToolTip("Apply the next merge: the lowest-ranked pair present (Alt+S or F9)")
        self.play_button = QPushButton("&Play")
        self.play_button.setToolTip("Apply the merges one after another (Alt+P or F8)")
        self.play_button.setCheckable(True)
        self.reset_button = QPushButton("&Reset")
        self.reset_button.setToolTip("Back to the bytes (Alt+R or F6)")
        self.naive_check = QCheckBox("Naive encode beside it")
        self.naive_check.setToolTip("Seed 004's bug: take the most frequent pair of this text instead of the "
                                    "earliest merge, and watch it go wrong on the same word")
        # The word box as wide as its text (up to the whole line): the buttons go to the next line
        # when there is no room beside it (at 20 pt in 1280 px they left it ~200 px).
        top = FlowLayout()
        top.addWidget(self.input)
        top.add_together(self.step_button, self.play_button, self.reset_button)
        top.addWidget(self.naive_check)
        from explorer.ui.merges.naive_trace import NaiveTraceView  # it builds on this module's strip

        self.naive = NaiveTraceView()
        self.naive.hide()
        self.status = WrappingLabel()  # its last line is never hidden, however small the panel
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.strip = TokenStrip()
        self.steps = StepList()
        self.steps.setToolTip("Every merge applied, in order; click one to jump there")
        # A long step wraps: under the table (520 px at 1280x800 in presentation mode) it was cut
        # at the right mid-glyph, "·<E0 A4> + <A".
        self.steps.setWordWrap(True)
        self.steps.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.steps.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.strip)
        layout.addWidget(self.status)
        layout.addWidget(self.naive)
        layout.addWidget(self.steps, 1)
        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_MS)
        self.timer.timeout.connect(self._on_timer_timeout)
        self.input.textChanged.connect(self._on_input_text_changed)
        self.step_button.clicked.connect(self.step)
        self.play_button.toggled.connect(self._on_play_toggled)
        self.reset_button.clicked.connect(self.reset)
        self.naive_check.toggled.connect(self._on_naive_check_toggled)
        self.steps.currentRowChanged.connect(self._on_steps_current_row_changed)
        self.strip.token_clicked.connect(self.token_clicked)
        # The same stepping keys as the Bytes and Training panes: F6 reset, F8 play/pause, F9 step.
        for key, slot in (("F9", self.step), ("F8", self.play_button.toggle), ("F6", self.reset)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self._refresh()

    # Inputs

    def set_tokenizer(self, tokenizer: Tokenizer | None, label: Callable[[int], str]) -> None:
        self.tokenizer, self.label = tokenizer, label
        self.strip.label = label
        self._rebuild()

    def set_look(self, font: QFont, dark: bool) -> None:
        for strip in (self.strip, self.naive.strip):
            strip.setFont(font)
            strip.dark = dark
        self.steps.setFont(font)
        self.steps.fit_minimum()  # (its least rows whatever the room: the trace's scroll area scrolls past them)
        self._refresh()

    def set_text(self, text: str) -> None:
        self.input.setText(qt_text(text.replace("\n", NEWLINE).replace("\t", TAB)))

    def text(self) -> str:
        """The word to trace: ↵ and → typed in the box stand for a newline and a tab."""
        return self.input.text().replace(NEWLINE, "\n").replace(TAB, "\t")

    # Stepping

    @property
    def total(self) -> int:
        return len(self.trace.steps) if self.trace is not None else 0

    def step(self) -> None:
        if self.done < self.total:
            self.done += 1
            self._refresh()
        if self.done >= self.total:
            self.play_button.setChecked(False)

    def reset(self) -> None:
        self.play_button.setChecked(False)
        self.done = 0
        self._refresh()

    def go_to(self, done: int) -> None:
        self.done = max(0, min(done, self.total))
        self._refresh()

    def _on_play_toggled(self, playing: bool) -> None:
        self.play_button.setText("&Pause" if playing else "&Play")
        if playing:
            if self.done >= self.total:
                self.done = 0
                self._refresh()
            self.timer.start()
        else:
            self.timer.stop()

    def _on_timer_timeout(self) -> None:
        self.step()

    def _on_input_text_changed(self, _: str) -> None:
        self._rebuild()

    def _on_naive_check_toggled(self, shown: bool) -> None:
        self.naive.setVisible(shown)
        self._rebuild_naive()
        self._refresh()

    def _rebuild_naive(self) -> None:
        chunks = self.trace.chunks if self.trace is not None and self.naive_check.isChecked() else []
        self.naive.set_trace(self.tokenizer, chunks, self.label)

    def _on_steps_current_row_changed(self, row: int) -> None:
        if row >= 0 and row + 1 != self.done:
            self.go_to(row + 1)

    def _rebuild(self) -> None:
        self.play_button.setChecked(False)
        self.trace, self.done, self.error = None, 0, ""
        text = self.text()
        if self.tokenizer is not None and text:
            try:
                self.trace = build_trace(self.tokenizer, text)
            except ExplorerError as error:
                self.error = html.escape(str(error))  # (the status is rich text: '<|endoftext|>' vanished)
        self.steps.blockSignals(True)
        self.steps.clear()
        if self.trace is not None:
            for number, (_, step) in enumerate(self.trace.steps, start=1):
                left, right, new = (isolated(self.label(token)) for token in (step.left, step.right, step.new_id))
                item = QListWidgetItem(f"{number}. merge #{step.rank:,}: {left} + {right} \u2192 {new}"
                                       + (f"  (\u00d7{len(step.positions)})" if len(step.positions) > 1 else ""))
                item.setData(Qt.ItemDataRole.UserRole, step.new_id)
                self.steps.addItem(item)
        self.steps.blockSignals(False)
        self._rebuild_naive()
        self._refresh()

    def _refresh(self) -> None:
        trace = self.trace
        has_steps = trace is not None and self.total > 0
        self.step_button.setEnabled(has_steps and self.done < self.total)
        self.play_button.setEnabled(has_steps)
        self.reset_button.setEnabled(has_steps and self.done > 0)
        if trace is None:
            self.strip.set_tokens([], None)
            self.status.setText(getattr(self, "error", "") or "Type a word above. Each step merges the pair of "
                                "neighbours that was learned earliest (lowest rank), as encoding does.")
            return
        ids, last = trace.state(self.done)
        self.strip.set_tokens(ids, last)
        if self.naive_check.isChecked():
            self.naive.show_step(self.done, self.done == self.total)
        count = sum(len(chunk) for chunk in ids)
        self.steps.blockSignals(True)
        self.steps.setCurrentRow(self.done - 1)
        self.steps.blockSignals(False)
        if self.done == 0:
            message = (f"<b>Bytes:</b> {plural(count, 'byte token')} in {plural(len(trace.chunks), 'chunk')}. "
                       f"{plural(self.total, 'merge')} to go. Press Step.")
        else:
            _, step = trace.steps[self.done - 1]
            places = "once" if len(step.positions) == 1 else f"in {len(step.positions)} places"
            message = (f"<b>Step {self.done} of {self.total}:</b> merge #{step.rank:,} "
                       f"<code>{_html(self.label(step.left))}</code> + <code>{_html(self.label(step.right))}</code> "
                       f"\u2192 <code>{_html(self.label(step.new_id))}</code>, {places}: the lowest-ranked pair present.")
        if self.done == self.total:
            final = trace.final
            expected = self._expected()
            same = "" if expected is None else (" Same as encoding the text: \u2713" if expected == final
                                                 else f" Encoding the text gives {expected} (differs!)")
            message += f"<br><b>Done:</b> {plural(len(final), 'token')}: {', '.join(map(str, final))}.{same}"
        self.status.setText(message)

    def _expected(self) -> list[int] | None:
        if self.tokenizer is None:
            return None
        try:
            return self.tokenizer.encode(self.text(), "plain")
        except ExplorerError:
            return None


def _html(text: str) -> str:
    """A token's label in a rich-text sentence (isolated, so an Arabic token keeps its place)."""
    return isolated(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
