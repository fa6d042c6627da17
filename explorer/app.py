"""Starting the window: QApplication set-up and the main window."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def run_gui(args: Sequence[str] = ()) -> int:
    from PySide6.QtWidgets import QApplication

    from explorer.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0], *args])
    app.setApplicationName("Tokenizer Explorer")
    app.setOrganizationName("tokenizer-explorer")
    app.setDesktopFileName("tokenizer-explorer")
    window = MainWindow()
    window.show()
    return int(app.exec())
