"""The main window (a placeholder until the panes arrive)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMainWindow

from explorer import __version__


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle(f"Tokenizer Explorer {__version__}")
        label = QLabel("Tokenizer Explorer\n\nThe panes are on their way; the command line works today:\n"
                       "tokenizer-explorer --help")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setCentralWidget(label)
        self.resize(900, 600)
