"""`tokenizer-explorer screenshot`: render one pane offscreen to a PNG (README, slides, tests).

The pane is built alone with a throw-away settings file, given the tokenizer and text, and
grabbed once every worker has finished. A pane can implement `prepare_screenshot(text)` (see
explorer/ui/pane.py) to show something worth a picture; without it, it shows its own state.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from explorer.core.errors import ExplorerError
from explorer.core.files import display_path, write_atomic

PANE_NAMES = ("corpus", "training", "tokens", "merges", "chunks", "bytes", "chat")


def parse_size(size: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in size.lower().split("x"))
    except ValueError:
        raise ExplorerError(f"--size {size!r}: give it as WIDTHxHEIGHT, e.g. 1200x800") from None
    if not (200 <= width <= 8000 and 150 <= height <= 8000):
        raise ExplorerError(f"--size {size!r}: width and height must be between 200x150 and 8000x8000")
    return width, height


def render_pane(pane_name: str, out: str, tokenizer: str | None = None, text: str | None = None,
                size: tuple[int, int] = (1200, 800), theme: str = "light", timeout: float = 60.0) -> Path:
    """Render `pane_name` to the PNG file `out`; returns its path."""
    if pane_name not in PANE_NAMES:
        raise ExplorerError(f"unknown pane {pane_name!r}; choose one of {', '.join(PANE_NAMES)}")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QIODevice, QSettings
    from PySide6.QtWidgets import QApplication

    from explorer.core.sources.load import load_tokenizer
    from explorer.ui.main_window import PANES, create_pane
    from explorer.ui.session import Session
    from explorer.ui.settings import Settings
    from explorer.ui.theme import apply_theme

    _drop_qt_noise()
    app = QApplication.instance() or QApplication(["tokenizer-explorer"])
    apply_theme(app, theme)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as folder:
        store = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
        session = Session(Settings(store))
        session.set_dark(theme == "dark")
        if tokenizer:
            session.set_tokenizer(load_tokenizer(tokenizer), tokenizer)
        title, hint = next((t, h) for n, t, h in PANES if n == pane_name)
        pane = create_pane(session, pane_name, title, hint)
        pane.resize(*size)
        pane.show()
        prepare = getattr(pane, "prepare_screenshot", None)
        if callable(prepare):
            prepare(text)
        _settle(app, session, timeout)
        image = pane.grab()
        session.shutdown()
        path = Path(out)
        buffer = QBuffer()  # encoded here, written by Python: Qt would mangle a file name that is not UTF-8
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, "PNG"):
            raise ExplorerError(f"{display_path(out)}: could not encode the image")
        write_atomic(path, bytes(buffer.data()))
        pane.close()
        return path


# Warnings of the offscreen platform about what a window manager would do: not the user's business.
_QT_NOISE = ("propagateSizeHints",)


def _drop_qt_noise() -> None:
    """Keep the command's output to its own lines: drop Qt's offscreen-platform noise, pass the rest on."""
    from PySide6.QtCore import qInstallMessageHandler

    previous = None

    def handler(mode: object, context: object, message: str) -> None:
        if any(noise in message for noise in _QT_NOISE):
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            sys.stderr.write(message + "\n")

    previous = qInstallMessageHandler(handler)


def _settle(app: object, session: object, timeout: float) -> None:
    """Process events until no worker has run for 300 ms (or `timeout` seconds pass)."""
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        app.processEvents()  # type: ignore[attr-defined]
        if session.workers.running:  # type: ignore[attr-defined]
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 0.3:
            break
        time.sleep(0.01)
    app.processEvents()  # type: ignore[attr-defined]
