"""The filter row above the vocabulary table: text / regex / id, byte length, script, audit flag.

The row flows onto a second line when the pane is too narrow for it (presentation mode at 1280 px):
in one row the script and audit combos were squeezed to "Any …" and "Any a…".
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QSpinBox, QWidget

from explorer.core.analysis.vocab_filter import (
    FLAG_HELP, FLAG_NAMES, NEVER_SEEN, RARE, UNREACHABLE, VocabQuery, VocabTable)
from explorer.core.text.scripts import SCRIPT_NAMES
from explorer.ui.combo import TextWideCombo
from explorer.ui.flow import FlowLayout

MODES = [("text", "Text"), ("regex", "Regex"), ("id", "Id")]
PLACEHOLDERS = {
    "text": "Filter by text (· for a space, ↵ for a newline)",
    "regex": r"Regex over the token's text, e.g. ^\s\p{Lu} or ing$",
    "id": "Ids or ranges: 42, 100-200",
}
DEBOUNCE_MS = 120
NOT_FLAGGED = -1


class FilterEdit(QLineEdit):
    """The filter box asks for the width of its hint ("Filter by text (· for a space, ...)"): a
    line edit's default asks for 17 characters, which at 20 pt cut the hint to its first words."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        wanted = self.fontMetrics().horizontalAdvance(self.placeholderText()) + 2 * hint.height()  # (the clear button)
        return QSize(max(hint.width(), wanted), hint.height())


class FilterBar(QWidget):
    """Emits `query_changed` with a VocabQuery whenever a control changes (typing is debounced)."""

    query_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = FilterEdit()
        self.text.setClearButtonEnabled(True)
        self.mode = QComboBox()
        for key, title in MODES:
            self.mode.addItem(title, key)
        self.mode.setToolTip("What the filter box means: a piece of text, a regular expression, or token ids")
        self.min_length = QSpinBox()
        self.max_length = QSpinBox()
        for box, tip in ((self.min_length, "At least this many bytes (0: any)"),
                         (self.max_length, "At most this many bytes (0: any)")):
            box.setRange(0, 1024)
            box.setSpecialValueText("any")
            box.setToolTip(tip)
        self.script = TextWideCombo()
        self.script.setToolTip("Writing system of the token's letters")
        self.flag = TextWideCombo()
        self.flag.setToolTip("Audit flags: tokens a model rarely or never sees")
        self.rare_below = QSpinBox()
        self.rare_below.setRange(1, 1_000_000)
        self.rare_below.setValue(10)
        self.rare_below.setPrefix("rare < ")
        self.rare_below.setToolTip("A token seen fewer times than this in the loaded corpus is flagged rare")
        self.rare_below.setVisible(False)
        # Each combo as wide as its longest entry or the line, whichever is less; what does not fit
        # goes to the next line (the text box takes what its line leaves).
        layout = FlowLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.add_together(self.text, self.mode, expanding=True)
        layout.add_together(QLabel("Bytes"), self.min_length, QLabel("to"), self.max_length)
        layout.addWidget(self.script)
        layout.addWidget(self.flag)
        layout.addWidget(self.rare_below)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._emit)
        self.text.textChanged.connect(lambda _: self._timer.start())
        self.text.returnPressed.connect(self._emit)
        self.mode.currentIndexChanged.connect(self._on_mode_changed)
        for box in (self.min_length, self.max_length):
            box.valueChanged.connect(lambda _: self._emit())
        self.script.currentIndexChanged.connect(lambda _: self._emit())
        self.flag.currentIndexChanged.connect(lambda _: self._emit())
        self._on_mode_changed()
        self.set_counts(None)

    def set_counts(self, table: VocabTable | None) -> None:
        """List scripts and flags with how many tokens have each (only those that occur)."""
        script_key, flag_key = self.script.currentData(), self.flag.currentData()
        for box in (self.script, self.flag):
            box.blockSignals(True)
            box.clear()
        self.script.addItem("Any script", -1)
        self.flag.addItem("Any audit flag", 0)
        if table is not None:
            for index, count in enumerate(table.script_counts()):
                if count:
                    self.script.addItem(f"{SCRIPT_NAMES[index]} ({count:,})", index)
            counts = table.flag_counts()
            for bit, name in FLAG_NAMES.items():
                if bit == UNREACHABLE and not table.audited:
                    continue
                if bit in (NEVER_SEEN, RARE) and table.seen is None:
                    continue
                self.flag.addItem(f"{name.capitalize()} ({counts[bit]:,})", bit)
                self.flag.setItemData(self.flag.count() - 1, FLAG_HELP[bit], Qt.ItemDataRole.ToolTipRole)
            self.flag.addItem("No flag", NOT_FLAGGED)
        for box, key in ((self.script, script_key), (self.flag, flag_key)):
            found = box.findData(key)
            box.setCurrentIndex(max(0, found))
            box.blockSignals(False)
            box.updateGeometry()  # (its text may have changed with the counts, unsignalled)
        self.rare_below.setVisible(table is not None and table.seen is not None)

    def query(self) -> VocabQuery:
        flag = self.flag.currentData() or 0
        return VocabQuery(
            text=self.text.text(), mode=self.mode.currentData(), min_length=self.min_length.value(),
            max_length=self.max_length.value(), script=self.script.currentData() if self.script.count() else -1,
            flags=flag if flag > 0 else 0, exclude_flags=sum(FLAG_NAMES) if flag == NOT_FLAGGED else 0)

    def _on_mode_changed(self, _: int = 0) -> None:
        self.text.setPlaceholderText(PLACEHOLDERS[self.mode.currentData()])
        self.text.updateGeometry()
        self._emit()

    def _emit(self) -> None:
        self._timer.stop()
        self.query_changed.emit(self.query())
