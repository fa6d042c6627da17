"""The Training pane's Result box: the trained tokenizer in a sentence, Save and Export HF."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFileDialog, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.core.plural import plural
from explorer.core.algorithms.bpe import BPE
from explorer.core.formats import hf, own
from explorer.ui.session import Session
from explorer.ui.workers import Job


class ResultBox(QGroupBox):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__("Result", parent)
        self.session = session
        self.tokenizer: BPE | None = None
        self.saved_path = ""
        layout = QVBoxLayout(self)
        self.label = QLabel("Nothing trained yet.")
        self.label.setWordWrap(True)
        layout.addWidget(self.label)
        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save...")
        self.save_button.setToolTip("Save as a tokenizer-explorer JSON file (merges with their counts)")
        self.save_button.clicked.connect(lambda: self.save())
        self.export_button = QPushButton("Export HF...")
        self.export_button.setToolTip("Write a tokenizer.json that Hugging Face tokenizers loads")
        self.export_button.clicked.connect(lambda: self.export_hf())
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.export_button)
        layout.addLayout(buttons)
        self.show_tokenizer(None)

    def show_tokenizer(self, tokenizer: BPE | None, building: bool = False) -> None:
        """Describe `tokenizer` (None: nothing yet, or still `building` it from a run's merges)."""
        self.tokenizer = tokenizer
        self.save_button.setEnabled(tokenizer is not None)
        self.export_button.setEnabled(tokenizer is not None)
        if tokenizer is None:
            self.label.setText("Building the tokenizer..." if building else "Nothing trained yet.")
            return
        state = "unsaved" if tokenizer.name in self.session.unsaved else f"saved to {self.saved_path}"
        complete = "" if tokenizer.metadata.get("complete", True) else " (cancelled early)"
        self.label.setText(
            f"<b>{tokenizer.name}</b>{complete}: {plural(len(tokenizer.merges), 'merge')}, vocabulary "
            f"{tokenizer.vocab_size:,}. It is in the toolbar picker for every pane ({state}).")

    def save(self, path: str | None = None) -> Job | None:
        """Save as our JSON (merges with their counts); asks for a file when `path` is None."""
        if self.tokenizer is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save tokenizer", f"{self.tokenizer.name}.json",
                                                  "Tokenizer Explorer JSON (*.json)")
        return self._write(path, own.save, "Could not save the tokenizer") if path else None

    def export_hf(self, path: str | None = None) -> Job | None:
        """Write a tokenizer.json for Hugging Face tokenizers; asks for a file when `path` is None."""
        if self.tokenizer is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export Hugging Face tokenizer.json", "tokenizer.json",
                                                  "tokenizer.json (*.json)")
        return self._write(path, hf.export, "Could not export the tokenizer") if path else None

    def _write(self, path: str, write: Callable[[BPE, str], None], failure: str) -> Job:
        """Write on a worker (0.1 s for 30,000 merges, more for a big vocabulary), then say so."""
        tokenizer = self.tokenizer
        assert tokenizer is not None
        job = self.session.workers.start_call(f"saving {tokenizer.name}", lambda: write(tokenizer, path))
        job.on("finished", self._on_saved, tokenizer, path)  # (not called once this box is gone)
        job.failed.connect(lambda message: self.session.post_error(failure, message))
        return job

    def _on_saved(self, _job: Job, tokenizer: BPE, path: str, _written: object) -> None:
        self.session.mark_saved(tokenizer.name)
        self.session.tokenizers_changed.emit()  # the picker drops "(unsaved)"
        self.saved_path = path
        if tokenizer is self.tokenizer:
            self.show_tokenizer(tokenizer)
        self.session.status_posted.emit(f"Saved {tokenizer.name} to {path}")
