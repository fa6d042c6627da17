"""Starting the window: QApplication set-up, theme, the first tokenizer and a sample prompt.

`--measure-startup` prints the seconds from process start until the Tokens pane shows the
sample's coloured tokens, then quits (the start-up figure in the README comes from it).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from typing import Any


def _process_age() -> float:
    """Seconds since this process started (Linux /proc; falls back to time since import)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            started_ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        return uptime - started_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - _IMPORTED


_IMPORTED = time.perf_counter()
# How long the window waits, once built, for the last tokenizer before it shows without it (a big
# tokenizer.json takes seconds: the window then shows and the Tokens pane says it is loading).
FIRST_TOKENIZER_WAIT_SECONDS = 1.0


def no_display_reason() -> str | None:
    """Why the window cannot open here, or None. Without a display Qt aborts the process with
    advice about xcb-cursor0 that does not help: say what is wrong and what to do instead."""
    if sys.platform in ("win32", "darwin") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("WAYLAND_DISPLAY"):
        return None
    display = os.environ.get("DISPLAY")
    if display:
        if _x_server_answers(display):
            return None
        return (f"the display {display!r} (DISPLAY) does not answer: is the X server running, or the ssh -X "
                "session still open? Run a command instead, e.g. tokenizer-explorer encode --tokenizer "
                "o200k_base --text hello (tokenizer-explorer --help lists them)")
    return ("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set); run a command "
            "instead, e.g. tokenizer-explorer encode --tokenizer o200k_base --text hello "
            "(tokenizer-explorer --help lists them), or log in with a desktop or X forwarding (ssh -X)")


def _x_server_answers(display: str) -> bool:
    """Whether an X server listens at `display` (":0", "unix:1", "localhost:10.0"): Qt aborts the
    process on one that does not. Anything this cannot parse is left for Qt to try."""
    import socket

    host, _, rest = display.rpartition(":")
    number = rest.split(".", 1)[0]
    if not number.isdigit():
        return True
    try:
        if host in ("", "unix"):
            with socket.socket(socket.AF_UNIX) as unix:
                unix.settimeout(1.0)
                unix.connect(f"/tmp/.X11-unix/X{number}")
        else:
            socket.create_connection((host, 6000 + int(number)), timeout=1.0).close()
    except OSError:
        return False
    return True


def run_gui(args: Sequence[str] = ()) -> int:
    reason = no_display_reason()
    if reason:
        print(f"tokenizer-explorer: error: {reason}", file=sys.stderr)
        return 1
    measure = "--measure-startup" in args
    app, session, window = open_main_window([a for a in args if a != "--measure-startup"], tour=not measure)
    if measure:
        _quit_when_tokens_shown(app, window)
    code = int(app.exec())
    session.shutdown()  # the window has gone: a worker still inside one long step ends it unseen
    return code


def open_main_window(args: Sequence[str] = (), tour: bool = True) -> tuple[Any, Any, Any]:
    """(app, session, window): the window shown and the last tokenizer loading, as a start
    leaves them before the event loop runs (the start-up benchmark drives this too)."""
    from PySide6.QtCore import QCoreApplication

    from explorer.core.sources.early_load import load_in_background
    from explorer.ui.settings import Settings

    QCoreApplication.setOrganizationName("tokenizer-explorer")  # where Settings() reads, before any app
    QCoreApplication.setApplicationName("tokenizer-explorer")  # (also the X11 window class, as the .desktop file)
    settings = Settings()
    first_spec = settings.last_tokenizer or "o200k_base"
    # The last tokenizer starts loading now, on a plain thread, so it overlaps the window's imports
    # (0.3-0.8 s, most of it on the disk at a cold start) instead of waiting for them.
    early = load_in_background(first_spec)

    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    from explorer.core.corpora.corpus_sources import Corpus, sample_sources
    from explorer.ui.crash import install_excepthook, restore_recovery
    from explorer.ui.main_window import MainWindow
    from explorer.ui.session import Session
    from explorer.ui.theme import apply_theme, is_dark
    from explorer.ui.tokens.export_button import release_clipboard
    from explorer.ui.tour import Tour, should_show

    app = QApplication.instance() or QApplication([sys.argv[0], *args])
    app.setApplicationDisplayName("Tokenizer Explorer")
    app.setDesktopFileName("tokenizer-explorer")
    apply_theme(app, settings.theme)  # type: ignore[arg-type]
    session = Session(settings)
    session.set_dark(is_dark(settings.theme))

    def follow_system(_: object = None) -> None:
        if settings.theme == "system":  # an explicit choice in the View menu wins over the system
            apply_theme(app, "system")  # type: ignore[arg-type]
            session.set_dark(is_dark("system"))

    QGuiApplication.styleHints().colorSchemeChanged.connect(follow_system)
    # The window shows once the last tokenizer is there: building tiktoken's encoder holds the
    # interpreter lock for 0.1-0.2 s (its Rust constructor does not let go of it), which after the
    # first paint would freeze the window.
    first = session.load_tokenizer(first_spec, early=early)
    app.processEvents()  # jobs start on the next event-loop turn: this one
    started = time.perf_counter()
    window = MainWindow(session)
    install_excepthook(session, window)
    if first is not None:
        first.wait(max(0.0, FIRST_TOKENIZER_WAIT_SECONDS - (time.perf_counter() - started)))
        app.processEvents()  # delivers the loaded tokenizer: the Tokens pane encodes its prompt now
    window.show()
    if session.corpus is None:  # a corpus ready to train on, from the first second
        session.set_corpus(Corpus(tuple(s for s in sample_sources() if not s.whole)))
    if tour and should_show(session):
        QTimer.singleShot(600, lambda: Tour(session, window).show())
    restored = restore_recovery(session)
    if restored:
        session.status_posted.emit("Recovered after a crash: " + ", ".join(restored))
    app.aboutToQuit.connect(release_clipboard)
    return app, session, window


def _quit_when_tokens_shown(app: object, window: object) -> None:
    """For --measure-startup: report when the Tokens pane first shows tokens, then quit."""
    from PySide6.QtCore import QTimer

    pane = window.panes.get("tokens")  # type: ignore[attr-defined]
    timer = QTimer(window)  # type: ignore[call-overload]

    def check() -> None:
        lane = getattr(pane, "main_lane", None)
        if lane is not None and lane.complete and len(lane.view.ids):
            timer.stop()
            print(f"start-up to coloured tokens: {_process_age():.2f} s "
                  f"({len(lane.view.ids)} tokens, {lane.tokenizer.name})", flush=True)
            window.session.unsaved.clear()  # type: ignore[attr-defined]
            window.close()  # type: ignore[attr-defined]
            app.quit()  # type: ignore[attr-defined]

    timer.timeout.connect(check)
    timer.start(5)
