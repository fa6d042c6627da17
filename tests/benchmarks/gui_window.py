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


class SlowCollections:
    """Records garbage collections over 10 ms as (seconds since `origin`, generation, ms): a full
    collection holds the interpreter lock, so it is a stall of the window whatever thread ran it."""

    def __init__(self) -> None:
        import gc
        import time

        self.origin = time.perf_counter()
        self.found: list[tuple[float, int, int]] = []
        self._clock = time.perf_counter
        self._started = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        now = self._clock()
        if phase == "start":
            self._started = now
        elif now - self._started > 0.01:
            self.found.append((round(self._started - self.origin, 2), info["generation"],
                               round((now - self._started) * 1000)))
