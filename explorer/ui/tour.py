"""A short, dismissable first-run tour: one page per pane, showing that pane as it speaks."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.ui.session import Session

SHOWN_KEY = "tour/shown"
STOPS = [
    ("tokens", "Tokens", "Type or paste a prompt: every token is coloured, with visible spaces (·) and newlines (↵). "
     "Hover a token for its id, bytes and parents; the Findings list points at what is odd (a trailing space, "
     "<|endoftext|> in the text, a number split in pieces)."),
    ("corpus", "Corpus", "The text a tokenizer learns from. A sample in four languages and some Python is loaded; "
     "add your own files or folders, and compare what each tokenizer costs per language."),
    ("training", "Training", "Press Train to learn merges from the corpus and watch them stream in, or Step (F9) "
     "and Play (F8) to show them one at a time. The result appears in the toolbar picker."),
    ("merges", "Merges", "Every token of the vocabulary, with the tree of merges that built it down to the "
     "bytes, and a step-by-step trace of how a word is encoded."),
    ("chunks", "Chunks", "Before BPE, a regex cuts text into chunks and merges never cross them. Compare GPT-2, "
     "GPT-4 and GPT-4o side by side."),
    ("bytes", "Bytes", "The UTF-8 bytes and bits of each character, the tokens over them, and a token-by-token "
     "stream where a naive decoder prints U+FFFD. F5 is presentation mode; Ctrl +/- zooms."),
    ("chat", "Chat", "A conversation as the model sees it: the chat template's control tokens drawn inverted, "
     "each message's tokens labelled, and findings such as a control string typed in a message."),
]


class Tour(QDialog):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Welcome to Tokenizer Explorer")
        self.index = 0
        self.heading = QLabel()
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setMinimumWidth(460)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.again = QCheckBox("Show this tour at the next start")
        self.back_button = QPushButton("Back")
        self.next_button = QPushButton("Next")
        self.next_button.setDefault(True)
        close = QPushButton("Close")
        self.back_button.clicked.connect(lambda: self.go(self.index - 1))
        self.next_button.clicked.connect(self._on_next_clicked)
        close.clicked.connect(self.accept)
        buttons = QHBoxLayout()
        buttons.addWidget(self.again)
        buttons.addStretch(1)
        for button in (self.back_button, self.next_button, close):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.body, 1)
        layout.addLayout(buttons)
        self.finished.connect(self._on_finished)
        self.go(0)

    def go(self, index: int) -> None:
        self.index = max(0, min(index, len(STOPS) - 1))
        pane, title, text = STOPS[self.index]
        self.heading.setText(f"<h2>{title}</h2><small>{self.index + 1} of {len(STOPS)}</small>")
        self.body.setText(f"<p style='font-size:large'>{html.escape(text)}</p>")
        self.back_button.setEnabled(self.index > 0)
        self.next_button.setText("Done" if self.index == len(STOPS) - 1 else "Next")
        self.session.show_pane(pane)

    def _on_next_clicked(self) -> None:
        if self.index == len(STOPS) - 1:
            self.accept()
        else:
            self.go(self.index + 1)

    def _on_finished(self, _result: int) -> None:
        self.session.settings.store.setValue(SHOWN_KEY, not self.again.isChecked())
        self.session.show_pane("tokens")


def should_show(session: Session) -> bool:
    return str(session.settings.store.value(SHOWN_KEY, "false")).lower() not in ("true", "1")
