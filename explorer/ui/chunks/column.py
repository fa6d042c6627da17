"""One pattern's column in the Chunks pane: picker, custom editor, chunk count and boxes (the
legend, shared by every column, is the pane's)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (QComboBox, QFrame, QLabel, QLineEdit, QSizePolicy, QToolButton, QVBoxLayout,
                               QWidget)

from explorer.core.plural import plural
from explorer.core.pretokenization.chunk_diff import PatternRun
from explorer.core.pretokenization.pretokenize import NAMED_PATTERNS, PATTERN_DESCRIPTIONS
from explorer.ui.chunks.view import ChunkView, accent
from explorer.ui.combo import TextWideCombo
from explorer.ui.flow import FlowLayout

CUSTOM = "custom"
MAX_NOTED = 5  # characters listed in the note on tiktoken and tokenizers


class PatternColumn(QFrame):
    """Shows one pattern's chunks; the pane runs the matching and hands results in."""

    pattern_edited = Signal()  # the pattern to run changed (pick or keystroke)
    remove_requested = Signal(object)
    header_resized = Signal()  # its header's height for its width may have changed (the pane lines them up)

    def __init__(self, pattern: str = "gpt2", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.run: PatternRun | None = None  # the last good result
        self.dark = False

        self.combo = TextWideCombo()  # (whole: the count and ✕ go under it when the column is narrow)
        for name in NAMED_PATTERNS:
            self.combo.addItem(PATTERN_DESCRIPTIONS.get(name, name), name)
        self.combo.addItem("Custom pattern…", CUSTOM)
        self.combo.setToolTip("The pre-tokenizer pattern of this column")
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(8)
        self.count = QLabel()  # its minimum width follows the zoom (set_text_font)
        self.count.setObjectName("chunkCount")
        self.count.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.remove = QToolButton()
        self.remove.setText("✕")
        self.remove.setAutoRaise(True)
        self.remove.setToolTip("Remove this pattern")
        self.remove.clicked.connect(lambda: self.remove_requested.emit(self))
        self.combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.header = QWidget()  # (it shared a line with them and elided "GPT-4o / o200k_b…" at 1280 px, F5)
        header = FlowLayout(self.header)
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.combo)
        header.add_together(self.count, self.remove)

        self.editor = QLineEdit()
        self.editor.setPlaceholderText(r"a regex for the regex module, e.g. \p{L}+|\p{N}+|\s+")
        self.editor.setToolTip("Edit the pattern: chunks update as you type")
        self.editor.setClearButtonEnabled(True)
        self.editor.setVisible(False)
        self.message = QLabel()
        self.message.setObjectName("patternMessage")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.RichText)
        self.message.setVisible(False)
        self.reference_note = QLabel()  # where tiktoken and tokenizers classify the text apart
        self.reference_note.setObjectName("referenceNote")
        self.reference_note.setWordWrap(True)
        self.reference_note.setTextFormat(Qt.TextFormat.RichText)
        self.reference_note.setVisible(False)

        # As tall as its boxes: the pane scrolls every column together, so no column cuts its last
        # row while another leaves its space empty.
        self.view = ChunkView()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addWidget(self.header)
        layout.addWidget(self.editor)
        layout.addWidget(self.message)
        layout.addWidget(self.reference_note)
        layout.addWidget(self.view)
        layout.addStretch(1)

        self.combo.currentIndexChanged.connect(self._on_combo_changed)
        self.editor.textChanged.connect(lambda _: self.pattern_edited.emit())
        self.set_pattern(pattern)

    # The pattern

    @property
    def is_custom(self) -> bool:
        return self.combo.currentData() == CUSTOM

    def pattern(self) -> str:
        """A pattern name ("gpt2") or the custom regex being edited."""
        return self.editor.text() if self.is_custom else str(self.combo.currentData())

    def title(self) -> str:
        return "custom" if self.is_custom else self.combo.currentText().split(" / ")[0]

    def set_pattern(self, pattern: str) -> None:
        """Pick a named pattern, or switch to a custom one showing `pattern`."""
        index = self.combo.findData(pattern)
        if index >= 0:
            self.combo.setCurrentIndex(index)
        else:
            self.editor.setText(pattern)
            self.combo.setCurrentIndex(self.combo.findData(CUSTOM))
        self._on_combo_changed()

    def _on_combo_changed(self, _index: int = -1) -> None:
        custom = self.is_custom
        if custom and not self.editor.text():
            # Start from the pattern shown before, so a small edit is one keystroke away.
            previous = self.run.pattern if self.run is not None else "gpt2"
            self.editor.setText(NAMED_PATTERNS.get(previous, previous))
        self.editor.setVisible(custom)
        if not custom:
            self.message.setVisible(False)
        self.pattern_edited.emit()

    # Results

    def set_running(self) -> None:
        self.count.setText("…")

    def set_result(self, run: PatternRun) -> None:
        """Show a new result, or its error above the last good view (which is kept, dimmed)."""
        if not run.ok:
            self._show_error(run)
            self.view.set_stale(self.run is not None)
            if self.run is not None:
                self.count.setText(f"{plural(len(self.run.chunks), 'chunk')} (last valid)")
            else:
                self.count.setText("no chunks")
            return
        self.message.setVisible(False)
        self.run = run
        self.view.set_chunks(run.text, run.chunks, run.labels, run.sources)
        gaps = sum(1 for c in run.chunks if c.is_gap)
        self.count.setText(plural(len(run.chunks), "chunk") + (f", {plural(gaps, 'gap')}" if gaps else ""))
        self.count.setToolTip(f"Unicode classes as {run.reference} reads them")
        self._show_reference_note(run)

    def _show_reference_note(self, run: PatternRun) -> None:
        """Say which characters tiktoken and tokenizers classify apart, and what that does here."""
        self.reference_note.setVisible(bool(run.disagreements))
        if not run.disagreements:
            return
        shown = run.disagreements[:MAX_NOTED]
        items = "".join(f"<li>{html.escape(d.describe())}</li>" for d in shown)
        more = f"<br>and {len(run.disagreements) - MAX_NOTED} more" if len(run.disagreements) > MAX_NOTED else ""
        other = "tokenizers" if run.reference == "tiktoken" else "tiktoken"
        effect = (f"{other} would cut this text into {plural(len(run.other_chunks), 'chunk')}." if run.other_chunks is not None
                  else f"{other} cuts this text the same way all the same.")
        self.reference_note.setText(f"<b>tiktoken and tokenizers classify {plural(len(run.disagreements), 'character')} "
                                    "differently</b>"
                                    f"<ul style='margin:0'>{items}</ul>{more}Chunks shown follow {run.reference}; "
                                    f"{effect}")

    def _show_error(self, run: PatternRun) -> None:
        color = accent(self.dark).name()
        if run.timed_out:
            text = f"<b>Stopped:</b> {html.escape(run.error)}"
        else:
            where = f" at position {run.position}" if run.position is not None else ""
            text = f"<b>Invalid pattern{where}:</b> {html.escape(run.error)}"
            if run.position is not None:
                text += "<br>" + _pointed(run.pattern, run.position, color)
        if self.run is not None:
            text += "<br><i>Showing the last valid pattern's chunks.</i>"
        self.message.setText(f"<span style='color:{color}'>{text}</span>")
        self.message.setVisible(True)

    # Presentation

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self.view.set_dark(dark)

    def header_height(self) -> int:
        """Pixels its header takes at its width: one line, or two when the count goes under the picker."""
        return self.header.layout().heightForWidth(max(1, self.header.width()))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.header_resized.emit()

    def set_text_font(self, font: QFont) -> None:
        # Room for a usual count, so the picker beside it does not jump as counts change; a longer
        # one ("…, 12 gaps") takes its own. (Room for that one at 20 pt left the picker ~180 px.)
        self.count.setMinimumWidth(self.count.fontMetrics().horizontalAdvance("00,000 chunks"))
        self.view.setFont(font)
        mono = QFont(font)
        mono.setPointSizeF(max(8.0, font.pointSizeF() * 0.9))
        self.editor.setFont(mono)


def _pointed(pattern: str, position: int, color: str) -> str:
    """The pattern around `position`, with the offending character marked."""
    start = max(0, position - 30)
    before = html.escape(pattern[start:position])
    at = html.escape(pattern[position:position + 1]) or "&nbsp;"
    after = html.escape(pattern[position + 1:position + 30])
    return (f"<code>{'…' if start else ''}{before}<span style='background:{color}; color:white'>{at}</span>"
            f"{after}{'…' if position + 30 < len(pattern) else ''}</code>")
