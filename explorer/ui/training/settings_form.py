"""The training settings: name, vocabulary size, pattern (or a custom regex checked as you type),
special tokens, rules and engine. `settings()` gives a TrainingSettings or raises with a message."""

from __future__ import annotations

import html
import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QSlider, QSpinBox, QVBoxLayout, QWidget)

from explorer.core.plural import plural
from explorer.core.algorithms.train import BYTE_VOCAB, RULES, check_vocab_size
from explorer.core.algorithms.training_run import ENGINES, TrainingSettings
from explorer.core.errors import ExplorerError, PatternError, TrainingError
from explorer.core.pretokenization.pretokenize import NAMED_PATTERNS, PATTERN_DESCRIPTIONS, Pretokenizer
from explorer.ui.combo import TextWideCombo

MAX_VOCAB = 200_000
SLIDER_STEPS = 1000
CUSTOM = "__custom__"


class SettingsForm(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # A field that does not fit beside its label (presentation mode's font in a third of 1280 px)
        # goes under it, at the column's full width, instead of being cut at the right or elided
        # (its choosers' least width is their entry's whole: TextWideCombo's whole_minimum).
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("named after the corpus")
        self.name_edit.setToolTip("The name the tokenizer gets in the toolbar picker")
        form.addRow("Name", self.name_edit)

        self.vocab_spin = QSpinBox()
        self.vocab_spin.setRange(BYTE_VOCAB, MAX_VOCAB)
        self.vocab_spin.setSingleStep(256)
        self.vocab_spin.setGroupSeparatorShown(True)
        self.vocab_spin.setToolTip("256 byte tokens + merges + special tokens")
        self.vocab_slider = QSlider(Qt.Orientation.Horizontal)
        self.vocab_slider.setRange(0, SLIDER_STEPS)
        self.vocab_slider.setToolTip("Vocabulary size, on a logarithmic scale from 256 to 200,000")
        vocab_row = QHBoxLayout()
        vocab_row.addWidget(self.vocab_slider, 1)
        vocab_row.addWidget(self.vocab_spin)
        form.addRow("Vocabulary", vocab_row)
        self.merges_label = QLabel()
        self.merges_label.setObjectName("hint")
        form.addRow("", self.merges_label)

        self.pattern_combo = TextWideCombo(whole_minimum=True)
        for name, description in PATTERN_DESCRIPTIONS.items():
            self.pattern_combo.addItem(f"{name}: {description}", name)
        self.pattern_combo.addItem("custom regex...", CUSTOM)
        self.pattern_edit = QLineEdit()
        self.pattern_edit.setPlaceholderText(r"a regex for the regex module, e.g. \p{L}+|\p{N}|\s+|[^\s\p{L}\p{N}]+")
        self.pattern_error = QLabel()
        self.pattern_error.setWordWrap(True)
        self.pattern_error.setTextFormat(Qt.TextFormat.RichText)
        pattern_box = QVBoxLayout()
        pattern_box.setContentsMargins(0, 0, 0, 0)
        pattern_box.addWidget(self.pattern_combo)
        pattern_box.addWidget(self.pattern_edit)
        pattern_box.addWidget(self.pattern_error)
        form.addRow("Pattern", pattern_box)

        self.specials_edit = QLineEdit()
        self.specials_edit.setPlaceholderText("none, e.g. <|endoftext|>")
        self.specials_edit.setToolTip("Special tokens, separated by spaces; they get the ids after the merges")
        form.addRow("Special tokens", self.specials_edit)

        self.rules_combo = TextWideCombo(whole_minimum=True)
        for rules, description in RULES.items():
            self.rules_combo.addItem(f"{rules}: {description.split(':', 1)[0]}", rules)
            self.rules_combo.setItemData(self.rules_combo.count() - 1, description, Qt.ItemDataRole.ToolTipRole)
        self.rules_combo.setToolTip("Which pair wins when several are equally frequent, and what one text is.\n"
                                    + "\n".join(f"{rules}: {text}" for rules, text in RULES.items()))
        self.rules_note = QLabel()
        self.rules_note.setObjectName("hint")
        self.rules_note.setWordWrap(True)
        self.rules_note.hide()
        rules_box = QVBoxLayout()
        rules_box.setContentsMargins(0, 0, 0, 0)
        rules_box.addWidget(self.rules_combo)
        rules_box.addWidget(self.rules_note)
        form.addRow("Rules", rules_box)

        self.engine_combo = TextWideCombo(whole_minimum=True)
        for combo in (self.pattern_combo, self.rules_combo, self.engine_combo):  # long entries must not widen the side panel
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(14)
        for engine, description in ENGINES.items():
            self.engine_combo.addItem(description, engine)
        self.engine_combo.setToolTip("With hf rules both give the same merges. Hugging Face is faster on very large corpora "
                                     "but shows them only at the end (no step or play).")
        form.addRow("Engine", self.engine_combo)

        self.vocab_slider.valueChanged.connect(self._on_vocab_slider_value_changed)
        self.vocab_spin.valueChanged.connect(self._on_vocab_spin_value_changed)
        self.pattern_combo.currentIndexChanged.connect(self._on_pattern_changed)
        self.pattern_edit.textChanged.connect(self._on_pattern_changed)
        for signal in (self.specials_edit.textChanged, self.engine_combo.currentIndexChanged,
                       self.rules_combo.currentIndexChanged, self.name_edit.textChanged):
            signal.connect(self._on_changed)
        self.set_vocab_size(1024)
        self.set_pattern("cl100k")

    # Values

    def set_vocab_size(self, size: int) -> None:
        self.vocab_spin.setValue(size)

    def vocab_size(self) -> int:
        return self.vocab_spin.value()

    def set_pattern(self, pattern: str) -> None:
        if pattern in NAMED_PATTERNS:
            self.pattern_combo.setCurrentIndex(self.pattern_combo.findData(pattern))
        else:
            self.pattern_combo.setCurrentIndex(self.pattern_combo.findData(CUSTOM))
            self.pattern_edit.setText(pattern)
        self._on_pattern_changed()

    def pattern(self) -> str:
        data = self.pattern_combo.currentData()
        return self.pattern_edit.text() if data == CUSTOM else str(data)

    def special_tokens(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.specials_edit.text().split()))

    def engine(self) -> str:
        return str(self.engine_combo.currentData())

    def rules(self) -> str:
        return str(self.rules_combo.currentData())

    def set_rules(self, rules: str, note: str = "") -> None:
        """Choose the rules; `note` (shown under them) says why they were chosen for the user."""
        self.rules_combo.setCurrentIndex(self.rules_combo.findData(rules))
        self.rules_note.setText(note)
        self.rules_note.setVisible(bool(note))

    def settings(self) -> TrainingSettings:
        """The settings, or ExplorerError with a message for a person (bad pattern, vocabulary too small)."""
        pattern = self.pattern()
        Pretokenizer(pattern)  # PatternError with the position
        check_vocab_size(self.vocab_size(), self.special_tokens())
        if self.rules() != "hf" and self.engine() == "hf":
            raise TrainingError(f"Hugging Face tokenizers trains with its own rules only: choose the built-in "
                                f"engine for {self.rules()} rules")
        return TrainingSettings(self.vocab_size(), pattern, self.special_tokens(), self.engine(),  # type: ignore[arg-type]
                                self.rules())  # type: ignore[arg-type]

    def problem(self) -> str:
        try:
            self.settings()
        except ExplorerError as exc:
            return str(exc)
        return ""

    def set_editable(self, editable: bool) -> None:
        for widget in (self.vocab_spin, self.vocab_slider, self.pattern_combo, self.pattern_edit,
                       self.specials_edit, self.rules_combo, self.engine_combo, self.name_edit):
            widget.setEnabled(editable)

    # Slots

    def _on_vocab_slider_value_changed(self, position: int) -> None:
        size = round(BYTE_VOCAB * (MAX_VOCAB / BYTE_VOCAB) ** (position / SLIDER_STEPS))
        if size > 2048:
            size = round(size / 256) * 256
        if abs(self._slider_position(self.vocab_spin.value()) - position) > 0:
            self.vocab_spin.setValue(size)

    def _on_vocab_spin_value_changed(self, size: int) -> None:
        self.vocab_slider.blockSignals(True)
        self.vocab_slider.setValue(self._slider_position(size))
        self.vocab_slider.blockSignals(False)
        merges = size - BYTE_VOCAB - len(self.special_tokens())
        self.merges_label.setText(plural(merges, "merge") if merges > 0 else
                                  "no room for merges: choose a larger vocabulary")
        self._on_changed()

    @staticmethod
    def _slider_position(size: int) -> int:
        return round(SLIDER_STEPS * math.log(max(size, BYTE_VOCAB) / BYTE_VOCAB) / math.log(MAX_VOCAB / BYTE_VOCAB))

    def _on_pattern_changed(self) -> None:
        custom = self.pattern_combo.currentData() == CUSTOM
        self.pattern_edit.setVisible(custom)
        if not custom:
            self.pattern_edit.setToolTip("")
            self.pattern_combo.setToolTip(NAMED_PATTERNS[str(self.pattern_combo.currentData())])
        self.pattern_error.setText(self._pattern_message())
        self.pattern_error.setVisible(bool(self.pattern_error.text()))
        self._on_changed()

    def _pattern_message(self) -> str:
        if self.pattern_combo.currentData() != CUSTOM:
            return ""
        pattern = self.pattern_edit.text()
        if not pattern:
            return "<span style='color:#b3261e'>Type a regex (chunks are what it matches).</span>"
        try:
            Pretokenizer(pattern)
        except PatternError as exc:
            return pattern_error_html(exc)
        return "<span style='color:#137333'>✓ valid pattern</span>"

    def _on_changed(self) -> None:
        merges = self.vocab_size() - BYTE_VOCAB - len(self.special_tokens())
        self.merges_label.setText(plural(merges, "merge") if merges > 0 else
                                  "no room for merges: choose a larger vocabulary")
        self.changed.emit()


def pattern_error_html(error: PatternError) -> str:
    """The error with the pattern shown and the offending character marked."""
    message = f"<span style='color:#b3261e'>✗ {html.escape(error.message)}"
    if error.position is None:
        return message + "</span>"
    position = min(error.position, len(error.pattern))
    before, at, after = error.pattern[:position], error.pattern[position:position + 1], error.pattern[position + 1:]
    marked = (f"{html.escape(before)}<span style='background:#b3261e;color:white'>{html.escape(at) or '&nbsp;'}"
              f"</span>{html.escape(after)}")
    return f"{message} at position {position}:</span><br><code>{marked}</code>"
