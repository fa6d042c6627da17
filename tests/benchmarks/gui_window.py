"""The main window as a benchmark drives it: a fresh session with its own settings file."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any


def open_window(pane: str) -> tuple[Any, Any, Any]:
    """(app, session, window) with the window shown at 1400x900 on `pane`."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from explorer.ui.main_window import MainWindow
    from explorer.ui.session import Session
    from explorer.ui.settings import Settings

    app = QApplication.instance() or QApplication([])
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "bench.ini"), QSettings.Format.IniFormat)
    session = Session(Settings(settings))
    window = MainWindow(session)
    window.resize(1400, 900)
    window.show()
    window.show_pane(pane)
    return app, session, window
