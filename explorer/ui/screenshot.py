"""`tokenizer-explorer screenshot`: render a pane (or the whole window) to a PNG (README, slides, tests).

The pane is built alone with a throw-away settings file, given the tokenizer and text, and
grabbed once every worker has finished. A pane can implement `prepare_screenshot(text)` (see
explorer/ui/pane.py) to show something worth a picture; without it, it shows its own state.
A `Shooter` renders many `Shot`s in one process (packaging/screenshot_matrix.py): the Qt start-up
and the tokenizers are paid once. Offscreen by default; under QT_QPA_PLATFORM=xcb the same window
is a real one on the display, and gives the same picture.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from explorer.core.errors import ExplorerError
from explorer.core.files import display_path, write_atomic

PANE_NAMES = ("corpus", "training", "tokens", "merges", "chunks", "bytes", "chat")
# A view of a pane that takes a step more than the pane's own picture: the pane it belongs to.
VIEWS = {"efficiency": "corpus", "findings": "tokens"}
MENUS = ("File", "Edit", "View", "Help")


@dataclass(frozen=True)
class Shot:
    """One picture: which pane, in which state, at which size, theme and zoom."""

    pane: str
    out: str
    tokenizer: str | None = None
    text: str | None = None
    size: tuple[int, int] = (1200, 800)
    theme: str = "light"
    presentation: bool = False  # presentation mode (F5) turned on once the pane shows its content
    compare: tuple[str, ...] = ()  # tokenizers the Tokens pane compares with
    corpus: tuple[str, ...] = ()  # files or folders for the Corpus and Training panes
    view: str | None = None  # "efficiency" (Corpus) or "findings" (Tokens, the first finding selected)
    window: bool = False  # the whole main window (menu bar, toolbar, tabs), this pane current
    menu: str | None = None  # a menu of the window opened (implies window)
    tour: bool = False  # the first-run tour's card for this pane (implies window)

    def check(self) -> None:
        if self.pane not in PANE_NAMES:
            raise ExplorerError(f"unknown pane {self.pane!r}; choose one of {', '.join(PANE_NAMES)}")
        if self.view is not None and VIEWS.get(self.view) != self.pane:
            raise ExplorerError(f"--view {self.view}: a view of the {VIEWS.get(self.view, '?')} pane, "
                                f"not of {self.pane}; choose " + ", ".join(f"{v} ({p})" for v, p in VIEWS.items()))
        if self.menu is not None and self.menu not in MENUS:
            raise ExplorerError(f"--menu {self.menu!r}: choose one of {', '.join(MENUS)}")
        if self.compare and self.pane != "tokens":
            raise ExplorerError("--compare is for the tokens pane")
        for path in self.corpus:
            if not Path(path).exists():
                raise ExplorerError(f"--corpus {path}: no such file or folder")


def parse_size(size: str) -> tuple[int, int]:
    """WIDTHxHEIGHT in the digits 0-9 (`int` alone also took '١٢٠٠', '1_200' and ' 1200 ')."""
    parts = size.lower().split("x")
    if len(parts) != 2 or not all(part.isascii() and part.isdigit() and len(part) < 6 for part in parts):
        raise ExplorerError(f"--size {size!r}: give it as WIDTHxHEIGHT, e.g. 1200x800")
    width, height = map(int, parts)
    if not (200 <= width <= 8000 and 150 <= height <= 8000):
        raise ExplorerError(f"--size {size!r}: width and height must be between 200x150 and 8000x8000")
    return width, height


def render_pane(pane_name: str, out: str, tokenizer: str | None = None, text: str | None = None,
                size: tuple[int, int] = (1200, 800), theme: str = "light", timeout: float = 60.0,
                **options: Any) -> Path:
    """Render `pane_name` to the PNG file `out`; returns its path. `options` are Shot's other fields."""
    shot = Shot(pane_name, out, tokenizer, text, size, theme, **options)
    return Shooter(timeout).render(shot)


class Shooter:
    """Renders shots one after the other in this process, each in a fresh session and pane."""

    def __init__(self, timeout: float = 60.0) -> None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PySide6.QtWidgets import QApplication

        _drop_qt_noise()
        self.app = QApplication.instance() or QApplication(["tokenizer-explorer"])
        self.timeout = timeout
        self._tokenizers: dict[str, object] = {}

    def tokenizer(self, spec: str) -> Any:
        from explorer.core.sources.load import load_tokenizer

        if spec not in self._tokenizers:
            self._tokenizers[spec] = load_tokenizer(spec)
        return self._tokenizers[spec]

    def render(self, shot: Shot) -> Path:
        """Render `shot` to its PNG file; returns its path."""
        from PySide6.QtCore import QSettings

        from explorer.ui.session import Session
        from explorer.ui.settings import Settings
        from explorer.ui.theme import BASE_POINT_SIZE, apply_theme

        from explorer.core.sources.load import canonical_spec

        shot.check()
        # By the names the pickers list: `--compare gpt2` showed GPT-4o in its lane's picker.
        shot = replace(shot, tokenizer=shot.tokenizer and canonical_spec(shot.tokenizer),
                       compare=tuple(map(canonical_spec, shot.compare)))
        apply_theme(self.app, shot.theme)  # type: ignore[arg-type]
        with tempfile.TemporaryDirectory() as folder:
            store = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
            store.setValue("tour/shown", True)  # the tour only where a shot asks for it
            session = Session(Settings(store))
            session.set_point_size(BASE_POINT_SIZE, remember=False)  # the zoom a shot before left
            session.set_dark(shot.theme == "dark")
            if shot.tokenizer:
                session.set_tokenizer(self.tokenizer(shot.tokenizer), shot.tokenizer)
            for spec in shot.compare:
                session.loaded[spec] = self.tokenizer(spec)  # a compare lane finds it loaded
            if shot.corpus and shot.pane == "training":
                from explorer.core.corpora.corpus_sources import Corpus, record_source

                session.set_corpus(Corpus(tuple(map(record_source, shot.corpus))))
            widget, pane = self._build(session, shot)
            try:
                image = self._picture(session, shot, widget, pane)
            finally:
                session.unsaved.clear()  # a shot's training run is not the user's: closing must not ask to save it
                session.shutdown()
                widget.close()
                _destroy(widget, session)
        return _save(image, shot.out)

    def _build(self, session: Any, shot: Shot) -> tuple[Any, Any]:
        """The widget to grab (the pane, or the window holding it) and the pane."""
        if shot.window or shot.menu or shot.tour:
            from explorer.ui.main_window import MainWindow

            window = MainWindow(session, first_pane=shot.pane)
            window.resize(*shot.size)
            window.show()
            return window, window.panes[shot.pane]
        from explorer.ui.main_window import PANES, create_pane

        title, hint = next((t, h) for n, t, h in PANES if n == shot.pane)
        pane = create_pane(session, shot.pane, title, hint)
        pane.resize(*shot.size)
        pane.show()
        return pane, pane

    def _picture(self, session: Any, shot: Shot, widget: Any, pane: Any) -> Any:
        from explorer.ui.theme import PRESENTATION_POINT_SIZE

        if shot.tour:
            pass  # the tour is shown at the first start: every pane in its own first state
        elif shot.corpus and shot.pane == "corpus":
            from explorer.core.corpora.corpus_sources import record_source

            pane.add_sources(list(map(record_source, shot.corpus)))  # (add_paths would ask for a field)
        else:
            prepare = getattr(pane, "prepare_screenshot", None)
            if callable(prepare):
                prepare(shot.text)
        for spec in shot.compare:
            pane.add_compare(spec)
        self._settle(session, pane)
        changed = False
        if shot.view == "efficiency":
            pane.tabs.setCurrentWidget(pane.efficiency)
            pane.efficiency.compute()
            changed = True
        if shot.presentation:  # as F5 does, at the shot's size (a projector's screen)
            menus = getattr(widget, "menus", None)
            if menus is not None:
                menus.presentation.blockSignals(True)
                menus.presentation.setChecked(True)
                menus.presentation.blockSignals(False)
            session.set_point_size(PRESENTATION_POINT_SIZE, remember=False)
            changed = True
        if shot.view == "findings":
            if changed:
                self._settle(session, pane)  # the findings of the text as it is shown
            _select_first_finding(pane)
            changed = True
        if shot.tour:
            from explorer.ui.tour import STOPS, Tour

            tour = Tour(session, widget)
            tour.show()
            tour.go(next(i for i, stop in enumerate(STOPS) if stop[0] == shot.pane))
            changed = True
        if changed:
            self._settle(session, pane)
        image = widget.grab()
        if (image.width(), image.height()) != shot.size:  # what a pane shows must never size the window
            sys.stderr.write(f"{display_path(shot.out)}: the {shot.pane} pane grew to "
                             f"{image.width()}x{image.height()} (asked {shot.size[0]}x{shot.size[1]})\n")
        if shot.menu:
            image = _with_menu(widget, shot.menu, image, self.app)
        return image

    def _settle(self, session: Any, pane: Any) -> None:
        """Process events until no worker has run (and the pane is not `busy`) for 300 ms, or
        until the timeout."""
        deadline = time.monotonic() + self.timeout
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            self.app.processEvents()  # type: ignore[attr-defined]
            if session.workers.running or getattr(pane, "busy", False):
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since > 0.3:
                break
            time.sleep(0.01)
        self.app.processEvents()  # type: ignore[attr-defined]


def _destroy(widget: Any, session: Any) -> None:
    """Delete the shot's widgets and session now: a batch of hundreds of shots must not keep them
    (their timers and signal connections slowed every later shot, and memory grew by GBs)."""
    import gc

    import shiboken6
    from PySide6.QtCore import QCoreApplication, QEvent

    for obj in (widget, session):  # the widgets first: their timers must not outlive the session's workers
        if shiboken6.isValid(obj):
            obj.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()


def _select_first_finding(pane: Any) -> None:
    """Click the first row of the Tokens pane's findings, as a reader would."""
    table = pane.findings_panel.table
    index = table.model().index(0, 0)
    if index.isValid():
        table.setCurrentIndex(index)
        table.clicked.emit(index)


def _with_menu(window: Any, title: str, image: Any, app: Any) -> Any:
    """`image` of `window` with its menu `title` drawn open under its menu bar entry (a popup
    is a window of its own: grabbing the main window leaves it out)."""
    from PySide6.QtGui import QPainter

    bar = window.menuBar()
    action = next(a for a in bar.actions() if a.text().replace("&", "") == title)
    menu = action.menu()
    menu.aboutToShow.emit()  # what the menu does before it opens (File enables its save actions)
    place = bar.actionGeometry(action).bottomLeft()
    menu.popup(bar.mapToGlobal(place))
    app.processEvents()
    picture = menu.grab()
    menu.hide()
    painter = QPainter(image)
    painter.drawPixmap(bar.mapTo(window, place), picture)
    painter.end()
    return image


def _save(image: Any, out: str) -> Path:
    from PySide6.QtCore import QBuffer, QIODevice

    buffer = QBuffer()  # encoded here, written by Python: Qt would mangle a file name that is not UTF-8
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise ExplorerError(f"{display_path(out)}: could not encode the image")
    path = Path(out)
    write_atomic(path, bytes(buffer.data()))
    return path


# Warnings of the offscreen platform about what a window manager would do: not the user's business.
_QT_NOISE = ("propagateSizeHints", "This plugin does not support")


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
