"""The tokenizer picker in the toolbar, shared by every pane.

Lists bundled encodings grouped by family (OpenAI, Meta Llama, Qwen, Mistral), tokenizers found
in the Hugging Face cache, recent files, tokenizers trained in this session, and "Open tokenizer
file...". Choosing one asks the session to load it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QFileDialog, QWidget

from explorer.core.sources.load import TokenizerEntry, bundled_tokenizers
from explorer.ui.session import TRAINED_PREFIX, Session

OPEN_FILE = "__open__"
PICKER_CHARS = 42  # room for "gpt-oss, harmony format (o200k_harmony)"; longer labels elide, whole in the tooltip
# Newest first within each family, as people reach for them.
_ORDER = ["o200k_base", "o200k_harmony", "cl100k_base", "r50k_base", "llama4", "llama3", "qwen", "tekken", "mistral_v7",
          "mistral_v3", "mistral_v1"]
BUNDLED_ENTRIES: list[TokenizerEntry] = sorted(
    bundled_tokenizers(), key=lambda e: _ORDER.index(e.name) if e.name in _ORDER else len(_ORDER))
BUNDLED = [(entry.spec, f"{entry.description} ({entry.name})") for entry in BUNDLED_ENTRIES]
FILE_FILTER = "Tokenizers (*.json *.tiktoken *.model);;All files (*)"


def discovered_tokenizers() -> list[tuple[str, str]]:
    """(spec, label) for tokenizers found on this machine (the Hugging Face cache)."""
    try:
        from explorer.core.sources.load import discover_tokenizers  # type: ignore[attr-defined]
    except ImportError:
        return []
    try:
        return [(entry.spec, entry.name) for entry in discover_tokenizers()]
    except Exception:  # a broken cache must not break the toolbar
        return []


class TokenizerPicker(QComboBox):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setMinimumContentsLength(PICKER_CHARS)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setToolTip("The tokenizer every pane uses")
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self._discovered = discovered_tokenizers()
        self.rebuild()
        self.activated.connect(self._on_activated)
        session.tokenizers_changed.connect(self.rebuild)
        session.tokenizer_changed.connect(lambda _: self.rebuild())  # (a few dozen rows; "Loaded" follows)

    def _header(self, text: str) -> None:
        item = QStandardItem(text)
        item.setFlags(Qt.ItemFlag.NoItemFlags)
        font = item.font()
        font.setBold(True)
        item.setFont(font)
        self._model.appendRow(item)

    def _entry(self, label: str, spec: str, tooltip: str = "") -> None:
        item = QStandardItem("   " + label)
        item.setData(spec, Qt.ItemDataRole.UserRole)
        item.setToolTip(tooltip or spec)
        self._model.appendRow(item)

    def rebuild(self) -> None:
        self.blockSignals(True)
        self._model.clear()
        family = None
        for entry, (spec, label) in zip(BUNDLED_ENTRIES, BUNDLED):
            if entry.family != family:
                family = entry.family
                self._header(f"{family} (bundled)")
            self._entry(label, spec, f"{spec}: {entry.source}")
        if self._discovered:
            self._header("Hugging Face cache")
            for spec, label in self._discovered:
                self._entry(label, spec)
        recent = self.session.settings.recent_files
        if recent:
            self._header("Recent files")
            for path in recent:
                self._entry(Path(path).name, path)
        if self.session.trained:
            self._header("Trained in this session")
            for name in self.session.trained:
                self._entry(name + (" (unsaved)" if name in self.session.unsaved else ""), TRAINED_PREFIX + name)
        current = self.session.tokenizer_spec
        if current and self._row_of(current) is None:  # from elsewhere (`screenshot --tokenizer FILE`): listed
            self._header("Loaded")
            self._entry(Path(current).name if Path(current).is_file() else current, current)
        self._entry("Open tokenizer file...", OPEN_FILE)
        self.blockSignals(False)
        self._select(self.session.tokenizer_spec)

    def _row_of(self, spec: str) -> int | None:
        return next((row for row in range(self._model.rowCount())
                     if self._model.item(row).data(Qt.ItemDataRole.UserRole) == spec), None)

    def _select(self, spec: str) -> None:
        row = self._row_of(spec)
        if row is not None:
            self.blockSignals(True)
            self.setCurrentIndex(row)
            self.blockSignals(False)
            self.setToolTip(f"The tokenizer every pane uses: {self.currentText().strip()}")

    def _on_activated(self, row: int) -> None:
        spec = self._model.item(row).data(Qt.ItemDataRole.UserRole)
        if spec == OPEN_FILE:
            self._select(self.session.tokenizer_spec)
            self.open_file()
        elif spec:
            self.session.load_tokenizer(spec)

    def open_file(self, path: str | None = None) -> None:
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open tokenizer file", "", FILE_FILTER)
        if path:
            self.session.settings.add_recent_file(path)
            self.rebuild()
            self.session.load_tokenizer(path)
