"""Real main windows for the layout tests: opened at a size, theme and mode, settled, closed.

One way to do it for every layout test module: the windows they measure must be opened the same
way (presentation mode entered as F5 does, then the size put back: the offscreen screen is
smaller than a projector) and settled the same way (no worker still tokenizing or loading).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from explorer.core.sources.tokenizer import Tokenizer
from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from explorer.ui.settings import Settings
from explorer.ui.theme import BASE_POINT_SIZE, apply_theme

Configuration = tuple[int, int, str, bool]  # width, height, theme, presentation mode


def configuration_id(configuration: Configuration) -> str:
    width, height, theme, presenting = configuration
    return f"{width}x{height}-{theme}{'-presentation' if presenting else ''}"


QUIET_MS = 10  # see settle


def settle(app: QApplication, window: MainWindow | None = None, seconds: float = 60.0) -> None:
    """Process events until no worker of `window`'s session runs (tokenizing, the merge table, a
    training run), or only once without a window."""
    deadline = time.monotonic() + seconds
    app.processEvents()
    while window is not None and time.monotonic() < deadline:
        while window.session.workers.running and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.005)
        # A step that ends a job may start the next on a short timer (a trained tokenizer is
        # published over three turns 1 ms apart): idle means no job for QUIET_MS on end.
        quiet = time.monotonic() + QUIET_MS / 1000
        while not window.session.workers.running and time.monotonic() < quiet:
            app.processEvents()
            time.sleep(0.002)
        if not window.session.workers.running:
            break
    app.processEvents()


def eventually(app: QApplication, condition: Callable[[], bool], seconds: float = 2.0) -> bool:
    """Whether `condition` holds once the event loop has caught up (a label given new text is
    laid out again at the next pass, not at once), waiting up to `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.005)
    return condition()


def open_window(app: QApplication, session: Session, configuration: Configuration, first_pane: str) -> MainWindow:
    """The main window on `first_pane`, shown at the configuration's size, theme and mode, settled."""
    width, height, theme, presenting = configuration
    apply_theme(app, theme)
    session.set_dark(theme == "dark")
    window = MainWindow(session, first_pane=first_pane)
    window.resize(width, height)
    window.show()
    if presenting:  # F5: its large fonts, at this size
        window.menus.presentation.trigger()
        window.showNormal()
        window.resize(width, height)
    settle(app, window)
    return window


def close_window(app: QApplication, window: MainWindow) -> None:
    """Close `window` without questions and put the application's font and theme back (the
    session's shutdown is left to whoever made the session)."""
    settle(app, window)  # (no pane is still being built in the background)
    window.session.set_point_size(BASE_POINT_SIZE)
    window.session.unsaved.clear()  # (a Training run: else closing asks about it and waits for an answer)
    window.close()
    apply_theme(app, "light")


@contextmanager
def session_window(app: QApplication, settings: Path, configuration: Configuration, pane: str,
                   tokenizer: Tokenizer | None = None, spec: str = "") -> Iterator[MainWindow]:
    """A window with a session of its own (settings in the file `settings`), opened at
    `configuration` on `pane`. Both are deleted after: a session left alive keeps its panes alive
    through the lambdas on its signals, a cycle through C++ that the collector cannot see."""
    session = Session(Settings(QSettings(str(settings), QSettings.Format.IniFormat)))
    if tokenizer is not None:
        session.set_tokenizer(tokenizer, spec)
    window = open_window(app, session, configuration, pane)
    try:
        yield window
    finally:
        close_window(app, window)
        session.shutdown()
        session.deleteLater()  # (with the window, after the test: tests/ui/conftest.py)
