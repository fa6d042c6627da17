"""Starting the window: QApplication set-up, theme, and the first tokenizer."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def run_gui(args: Sequence[str] = ()) -> int:
    from PySide6.QtWidgets import QApplication

    from explorer.ui.main_window import MainWindow
    from explorer.ui.session import Session
    from explorer.ui.settings import Settings
    from explorer.ui.theme import apply_theme, is_dark

    app = QApplication.instance() or QApplication([sys.argv[0], *args])
    app.setApplicationName("Tokenizer Explorer")
    app.setOrganizationName("tokenizer-explorer")
    app.setDesktopFileName("tokenizer-explorer")
    settings = Settings()
    apply_theme(app, settings.theme)  # type: ignore[arg-type]
    session = Session(settings)
    session.set_dark(is_dark(settings.theme))
    window = MainWindow(session)
    window.show()
    session.load_tokenizer(settings.last_tokenizer)
    return int(app.exec())
