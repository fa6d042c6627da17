"""The main window: six panes one click apart, the tokenizer picker, and window-wide actions."""

from __future__ import annotations

import importlib

from collections.abc import Callable, Iterator

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (QApplication, QFileDialog, QLabel, QMainWindow, QMessageBox, QToolBar,
                               QVBoxLayout, QWidget)

from explorer.core.errors import ExplorerError
from explorer.ui.font_warmup import warm_steps
from explorer.ui.menus import MenuBar, about_text  # noqa: F401 (about_text: tests and callers import it here)
from explorer.ui.pane import PAINT_BANDS, Pane, PlaceholderPane, paint_band
from explorer.ui.pane_tabs import PaneTabs
from explorer.ui.picker import TokenizerPicker
from explorer.ui.session import Session
from explorer.ui.theme import BASE_POINT_SIZE, PRESENTATION_POINT_SIZE, apply_theme, is_dark
from explorer.ui.timers import call_later
from explorer.ui.workers import ProcessJob, failure_message
from explorer.ui.zoom import add_keeping_fonts, apply_zoom, fit_rows

# (name, title, what its empty state says until the pane exists)
PANES = [
    ("corpus", "Corpus", "Add text files, folders or pasted text to train on."),
    ("training", "Training", "Pick a corpus, then press Train and watch merges stream in."),
    ("tokens", "Tokens", "Type or paste a prompt to see every token."),
    ("merges", "Merges", "Pick a token to see the merges that built it."),
    ("chunks", "Chunks", "See how the pre-tokenizer regex cuts text into chunks."),
    ("bytes", "Bytes", "See the UTF-8 bytes of every character, and tokens that cut characters."),
    ("chat", "Chat", "See a conversation rendered by a chat template, control tokens marked."),
]

PANE_NAMES = [name for name, _, _ in PANES]
MINIMUM_SIZE = (800, 560)  # the smallest window offered; what a pane shows never makes the window bigger


def create_pane(session: Session, name: str, title: str, hint: str) -> Pane:
    """The pane from `explorer.ui.<name>` if it is built, else a placeholder saying what it will do."""
    try:
        module = importlib.import_module(f"explorer.ui.{name}")
        if not hasattr(module, "create_pane"):
            return PlaceholderPane(session, name, title, hint)
        return module.create_pane(session)
    except ModuleNotFoundError as exc:
        if exc.name != f"explorer.ui.{name}":
            raise
        return PlaceholderPane(session, name, title, hint)
    except Exception as exc:  # one broken pane must not take the window down
        import traceback

        traceback.print_exc()
        return PlaceholderPane(session, name, title, f"This pane could not be built: {exc!r}")


# How long closing the window waits for workers to stop: a thread still inside one long step
# finishes it after the window has gone (the app waits for it before exiting).
CLOSE_WAIT_MS = 150
# Between the steps of building a pane in the background: a zero-delay timer can run in the same
# pass of the event loop as the step that started it, and two steps back to back (build, then lay
# out) froze the window for their sum; this leaves a repaint and a key press room in between.
STEP_PAUSE_MS = 15
# A step also waits, up to QUIET_WAIT_MS, until no worker thread runs: a thread busy in Python
# (the merge forest, the findings, a vocabulary read) takes the interpreter lock between the GUI
# thread's calls into Python and doubled how long a build step froze the window.
QUIET_POLL_MS, QUIET_WAIT_MS = 40, 1500


def prepare_pane(name: str) -> None:
    """Off the GUI thread, before a pane is built in the background: import its modules (the
    Training pane brings pyqtgraph and numpy, ~1 s) and fill the caches its constructor and first
    paint need (the Unicode script patterns the Bytes and Chunks panes look characters up in,
    ~0.1 s; the pre-tokenizer the Training pane's live sentence splits with, ~20 ms in `regex`'s
    own cache; the UTF-16 codec token texts are measured with). Pure Python: no widget here."""
    import codecs

    importlib.import_module(f"explorer.ui.{name}.pane")
    codecs.lookup("utf-16-le")
    if name in ("bytes", "chunks"):
        from explorer.core.text.chars import script_of, scripts_used_with

        script_of("a")
        scripts_used_with(" ")  # a Common character: compiles the Script_Extensions patterns (a Latin one does not)
    if name == "training":
        from explorer.core.pretokenization.pretokenize import Pretokenizer

        Pretokenizer("cl100k", "tokenizers")  # the live sentence's first pattern (explorer/ui/training/demo.py)


class _Panes(dict[str, Pane]):
    """name -> pane; a pane not built yet is built on first access, and a pane taken from here is
    whole (its deferred parts built: see MainWindow). The background builder reads the dict itself."""

    def __init__(self, build: Callable[[str], Pane]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, name: str) -> Pane:
        if name not in PANE_NAMES:
            raise KeyError(name)
        return self._build(name)

    def __getitem__(self, name: str) -> Pane:
        pane = super().__getitem__(name)
        pane.finish_building()
        return pane


class MainWindow(QMainWindow):
    """The panes in tabs. Only the first pane shown is built at start-up (a fast first window).
    Once the window is up the others follow in the background, one at a time: a worker imports
    the pane's modules, then the GUI thread builds it in steps, one event-loop turn each (its
    skeleton, each part it deferred, its layout, its first paint off-screen in bands: see
    `_steps_of`), so no turn blocks the window for long and a first switch to the pane costs no
    more than any other. A pane asked for earlier is built (or finished) at once. The same steps
    later hand a new tokenizer to the hidden panes, one pane per turn (see Pane.take_up_tokenizer)."""

    def __init__(self, session: Session | None = None, first_pane: str | None = None) -> None:
        super().__init__()
        self.session = session or Session(parent=self)
        self.setWindowTitle("Tokenizer Explorer")
        self.setAcceptDrops(True)
        apply_zoom(self.session.point_size)  # a zoom kept from the last run: every font at that size
        self.panes = _Panes(self._build_pane)
        self.tabs = PaneTabs(self)
        self.tabs.setDocumentMode(True)
        self._slots: dict[str, QWidget] = {}
        self._closing = False
        self._building: Iterator[str] | None = None  # the steps left of the pane built in the background
        self._builder_idle = False  # every pane built and caught up: the next tokenizer restarts the steps
        self.last_step = ""  # what the last background step did (benchmarks label stalls with it)
        for name, title, _ in PANES:
            slot = QWidget(self.tabs)
            QVBoxLayout(slot).setContentsMargins(0, 0, 0, 0)
            self._slots[name] = slot
            self.tabs.addTab(slot, title)
        first = first_pane or self.session.settings.last_pane
        first = first if first in PANE_NAMES else "tokens"
        self.panes[first]  # noqa: B018 (builds it)
        self.tabs.setCurrentWidget(self._slots[first])
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.setCentralWidget(self.tabs)
        call_later(self, self._prepare_next_pane, 300)
        self._font_steps = warm_steps([self.session.font, QApplication.font()])  # (every view draws with one)
        call_later(self, self._warm_fonts, 300)
        self.menus = MenuBar(self, [(name, title) for name, title, _ in PANES])
        self.menus.show_pane_checked(self.tabs.currentIndex())
        self.menus.dark_theme.setChecked(self.session.dark)
        self.menus.colour_blind.setChecked(self.session.palette == "colour-blind")
        self._build_toolbar()
        # Merges must exist before a token is sent to it (the request arrives before the tab switch).
        self.session.token_requested.connect(self._on_session_token_requested)
        self.session.tokenizer_changed.connect(self._on_session_tokenizer_changed)
        self.session.pane_requested.connect(self.show_pane)
        self.session.error_posted.connect(self._on_session_error_posted)
        self.session.status_posted.connect(lambda text: self.statusBar().showMessage(text, 8000))
        # The status bar from the start: made by the first message (a trained tokenizer's, with no
        # tokenizer loaded before), it took 22 px from the shown pane, whose plots laid out and
        # painted again in that turn (~20 ms of the 40-57 ms the end of a run took, issue 16).
        self.statusBar()
        # An explicit minimum: without one, Qt raises the window's minimum to its panes' minimum,
        # so a widget that asks for more width (a long pasted text) would widen the window for good.
        self.setMinimumSize(*MINIMUM_SIZE)
        self.resize(1200, 800)
        geometry, state = self.session.settings.window_geometry(), self.session.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    # Panes

    def _build_pane(self, name: str) -> Pane:
        title, hint = next((t, h) for n, t, h in PANES if n == name)
        pane = create_pane(self.session, name, title, hint)
        dict.__setitem__(self.panes, name, pane)
        add_keeping_fonts(self._slots[name].layout(), pane)
        fit_rows(pane)
        return pane

    @property
    def building_in_background(self) -> bool:
        """Whether panes are still being built (or laid out and painted) in the background."""
        return not self._closing and (self._building is not None or len(self.panes) < len(PANE_NAMES))

    def _prepare_next_pane(self) -> None:
        self._building = None
        missing = [name for name in PANE_NAMES if name not in self.panes]
        if self._closing:
            return
        if not missing:
            behind = [name for name in PANE_NAMES if dict.__getitem__(self.panes, name).has_deferred_parts]
            self._builder_idle = not behind
            if behind:  # a pane's take-up of a new tokenizer (or another part it deferred)
                self._building = self._steps_of(behind[0], first_paint=False)
                self._when_quiet(self._build_step)
            return
        job = self.session.workers.start_call(f"preparing the {missing[0]} pane",
                                              lambda name=missing[0]: prepare_pane(name))
        self._building = self._steps_of(missing[0])
        job.on("finished", self._on_prepare_job_ended)
        job.on("failed", self._on_prepare_job_ended)  # built anyway: the pane then says what failed

    def _on_session_tokenizer_changed(self, _tokenizer: object) -> None:
        """The hidden panes deferred taking it up (Pane.take_up_tokenizer): the background steps
        hand it to them from the next turn on, if they had stopped."""
        if self._builder_idle:
            self._builder_idle = False
            call_later(self, self._prepare_next_pane, STEP_PAUSE_MS)

    def _on_prepare_job_ended(self, _job: object, _value: object = None) -> None:
        call_later(self, lambda: self._when_quiet(self._build_step))

    def _warm_fonts(self) -> None:
        """One step of font_warmup, the next after a pause: beside the panes' steps, not after
        them, whose wait for a quiet moment could put the last steps in the busiest frames."""
        if not self._closing and next(self._font_steps, None) is not None:
            call_later(self, self._warm_fonts, STEP_PAUSE_MS)

    def _when_quiet(self, step: Callable[[], None], waited: int = 0) -> None:
        """Run `step` once no worker thread is busy (child processes do not count), or after
        QUIET_WAIT_MS at most: a job that runs for long must not keep the panes from being built."""
        busy = any(not isinstance(job, ProcessJob) for job in self.session.workers.running)
        if busy and waited < QUIET_WAIT_MS and not self._closing:
            call_later(self, lambda: self._when_quiet(step, waited + QUIET_POLL_MS), QUIET_POLL_MS)
            return
        step()

    def _build_step(self) -> None:
        """One step of the pane being built in the background; the next after a pause."""
        if self._closing or self._building is None:
            return
        self.last_step = next(self._building, "")
        if self.last_step:
            call_later(self, lambda: self._when_quiet(self._build_step), STEP_PAUSE_MS)
        else:
            call_later(self, self._prepare_next_pane, STEP_PAUSE_MS)

    def _steps_of(self, name: str, first_paint: bool = True) -> Iterator[str]:
        """Build pane `name` hidden, one step per `next`: its skeleton, then each part it deferred,
        then its polish and layout at the size it will be shown at, then its first paint in
        PAINT_BANDS bands (else all of that happens in the turn the user switches to it, ~100-200
        ms: the first paint shapes its texts and fills its delegates' caches). A pane shown or used
        in the meantime is finished at once (`_Panes`), and a shown pane is not painted here; nor
        one only catching up (`first_paint` False: its first paint is behind it)."""
        if name not in self.panes:
            with Pane.built_in_steps():
                self._build_pane(name)
            yield f"{name}: built"
        pane = dict.__getitem__(self.panes, name)
        while pane.build_next_part():
            yield f"{name}: a deferred part"
        slot = self._slots[name]
        if slot.isVisible() or not first_paint:
            return
        slot.resize(self.tabs.currentWidget().size())
        slot.ensurePolished()
        slot.layout().activate()
        yield f"{name}: laid out"
        for band in range(PAINT_BANDS):
            if slot.isVisible():
                return
            paint_band(slot, band)
            yield f"{name}: painted band {band + 1}"

    def _on_tabs_current_changed(self, index: int) -> None:
        name = PANE_NAMES[index] if 0 <= index < len(PANE_NAMES) else ""
        if name:
            self.panes[name]  # noqa: B018
            self.session.settings.last_pane = name
            self.menus.show_pane_checked(index)

    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Tokenizer", self)
        toolbar.setObjectName("tokenizerToolbar")
        toolbar.setMovable(False)
        toolbar.addWidget(QLabel(" Tokenizer: "))
        self.picker = TokenizerPicker(self.session, toolbar)
        toolbar.addWidget(self.picker)
        toolbar.addSeparator()
        for action in (self.menus.open_tokenizer, self.menus.presentation, self.menus.dark_theme, self.menus.about):
            toolbar.addAction(action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar

    # Window-wide actions (the menus call these)

    def show_pane(self, name: str) -> None:
        if name in PANE_NAMES:
            self.panes[name]  # noqa: B018
            self.tabs.setCurrentWidget(self._slots[name])

    def current_pane(self) -> str:
        return PANE_NAMES[self.tabs.currentIndex()]

    def _on_session_token_requested(self, token_id: int) -> None:
        if "merges" not in self.panes:
            self.panes["merges"]  # noqa: B018 (built now, it missed this request: ask again)
            call_later(self, lambda: self.session.token_requested.emit(token_id))

    def open_tokenizer_file(self) -> None:
        self.picker.open_file()

    def open_corpus_files(self) -> None:
        self.show_pane("corpus")
        self.panes["corpus"].ask_for_files()  # type: ignore[attr-defined]

    def save_trained(self) -> None:
        self._training_result("save")

    def export_trained_hf(self) -> None:
        self._training_result("export_hf")

    def _training_result(self, method: str) -> None:
        box = getattr(self.panes["training"], "result_box", None)
        if box is None or box.tokenizer is None:
            self.statusBar().showMessage("Nothing trained yet: press Train in the Training pane first.", 8000)
            return
        getattr(box, method)()

    def export_vocabulary(self) -> None:
        self.show_pane("merges")
        pane = self.panes["merges"]
        if getattr(pane, "table", None) is None:
            self.statusBar().showMessage("The vocabulary is still loading; try again in a moment.", 8000)
            return
        pane.export_csv()  # type: ignore[attr-defined]

    def find(self) -> None:
        """Find a token: the Merges pane's filter, focused with its text selected."""
        self.show_pane("merges")
        bar = getattr(self.panes["merges"], "filter_bar", None)
        if bar is not None:
            bar.text.setFocus()
            bar.text.selectAll()

    def zoom(self, step: int) -> None:
        # Zooming during a talk is for the talk: the next launch starts at the user's own size.
        self.session.set_point_size(self.session.point_size + step, remember=not self.menus.presentation.isChecked())

    def reset_zoom(self) -> None:
        self.session.set_point_size(BASE_POINT_SIZE, remember=not self.menus.presentation.isChecked())

    def toggle_presentation(self, on: bool) -> None:
        if on:
            self._normal_size = self.session.point_size
            self.session.set_point_size(PRESENTATION_POINT_SIZE, remember=False)
            self.showFullScreen()
        else:
            self.session.set_point_size(getattr(self, "_normal_size", BASE_POINT_SIZE))
            self.showNormal()

    def toggle_theme(self, dark: bool) -> None:
        theme = "dark" if dark else "light"
        self.session.settings.theme = theme
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, theme)
        self.session.set_dark(is_dark(theme))

    def toggle_colour_blind(self, on: bool) -> None:
        self.session.set_palette("colour-blind" if on else "default")

    def show_tour(self) -> None:
        from explorer.ui.tour import Tour

        Tour(self.session, self).show()

    def show_about(self) -> None:
        QMessageBox.about(self, "About Tokenizer Explorer", about_text())

    def _on_session_error_posted(self, title: str, message: str) -> None:
        QMessageBox.warning(self, title, message)

    # Drag and drop a tokenizer file anywhere on the window

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt override)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.picker.open_file(url.toLocalFile())
                break

    # Closing: nothing trained is lost, and the window goes at once

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if self.session.unsaved and not self._ask_about_unsaved():
            event.ignore()
            return
        self._closing = True
        self.session.settings.save_window(self.saveGeometry(), self.saveState())
        self.session.shutdown(CLOSE_WAIT_MS)
        event.accept()

    def _ask_about_unsaved(self) -> bool:
        """Save, quit without saving, or stay: True if the window may close."""
        names = sorted(self.session.unsaved)
        box = QMessageBox(QMessageBox.Icon.Question, "Unsaved tokenizers",
                          f"These tokenizers were trained in this session and are not saved: {', '.join(names)}.",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("unsavedBox")
        box.setInformativeText("Save them before quitting?")
        box.button(QMessageBox.StandardButton.Discard).setText("Quit without saving")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Discard:
            return True
        if answer != QMessageBox.StandardButton.Save:
            return False
        return all(self._save_trained_now(name) for name in names)

    def _save_trained_now(self, name: str) -> bool:
        """Ask where to save `name` and write it here (a close cannot wait for a worker); False
        if the user cancelled or the file could not be written (the window then stays)."""
        path, _ = QFileDialog.getSaveFileName(self, f"Save {name}", f"{name}.json", "Tokenizer Explorer JSON (*.json)")
        if not path:
            return False
        from explorer.core.formats import own  # (with the trainer behind it: not on the way to the first tokens)

        try:
            own.save(self.session.trained[name], path)  # type: ignore[arg-type]
        except (ExplorerError, OSError) as exc:
            QMessageBox.warning(self, "Could not save the tokenizer", failure_message(exc))
            return False
        self.session.mark_saved(name)
        return True


def widget_for_tests(window: MainWindow, name: str) -> QWidget:
    return window.panes[name]
