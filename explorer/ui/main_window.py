"""The main window: six panes one click apart, the tokenizer picker, and window-wide actions."""

from __future__ import annotations

import importlib

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMessageBox, QTabWidget, QToolBar, QVBoxLayout, QWidget

from explorer import __version__
from explorer.ui.pane import Pane, PlaceholderPane
from explorer.ui.picker import TokenizerPicker
from explorer.ui.session import Session
from explorer.ui.theme import BASE_POINT_SIZE, PRESENTATION_POINT_SIZE, apply_theme, is_dark

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


class _Panes(dict[str, Pane]):
    """name -> pane; a pane not built yet is built on first access (see MainWindow)."""

    def __init__(self, build: Callable[[str], Pane]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, name: str) -> Pane:
        if name not in PANE_NAMES:
            raise KeyError(name)
        return self._build(name)


class MainWindow(QMainWindow):
    """The panes in tabs. Only the first pane shown is built at start-up (a fast first window);
    the others follow one per event-loop turn once the window is up, or at once when asked for."""

    def __init__(self, session: Session | None = None, first_pane: str | None = None) -> None:
        super().__init__()
        self.session = session or Session(parent=self)
        self.setWindowTitle("Tokenizer Explorer")
        self.setAcceptDrops(True)
        self.panes = _Panes(self._build_pane)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self._slots: dict[str, QWidget] = {}
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
        QTimer.singleShot(300, self._build_next_pane)
        self._build_toolbar()
        self._build_actions()
        self.session.pane_requested.connect(self.show_pane)
        self.session.error_posted.connect(self._on_session_error_posted)
        self.session.status_posted.connect(lambda text: self.statusBar().showMessage(text, 8000))
        # An explicit minimum: without one, Qt raises the window's minimum to its panes' minimum,
        # so a widget that asks for more width (a long pasted text) would widen the window for good.
        self.setMinimumSize(*MINIMUM_SIZE)
        self.resize(1200, 800)
        geometry, state = self.session.settings.window_geometry(), self.session.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    def _build_pane(self, name: str) -> Pane:
        title, hint = next((t, h) for n, t, h in PANES if n == name)
        pane = create_pane(self.session, name, title, hint)
        dict.__setitem__(self.panes, name, pane)
        self._slots[name].layout().addWidget(pane)
        return pane

    def _build_next_pane(self) -> None:
        missing = [name for name in PANE_NAMES if name not in self.panes]
        if missing:
            self.panes[missing[0]]  # noqa: B018
            QTimer.singleShot(0, self._build_next_pane)

    def _on_tabs_current_changed(self, index: int) -> None:
        name = PANE_NAMES[index] if 0 <= index < len(PANE_NAMES) else ""
        if name:
            self.panes[name]  # noqa: B018
            self.session.settings.last_pane = name

    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Tokenizer", self)
        toolbar.setObjectName("tokenizerToolbar")
        toolbar.setMovable(False)
        toolbar.addWidget(QLabel(" Tokenizer: "))
        self.picker = TokenizerPicker(self.session, toolbar)
        toolbar.addWidget(self.picker)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar

    def _action(self, text: str, shortcut: QKeySequence | str | None, slot: object, checkable: bool = False) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        action.triggered.connect(slot)  # type: ignore[arg-type]
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.toolbar.addSeparator()
        open_action = self._action("Open tokenizer file...", QKeySequence.StandardKey.Open,
                                   lambda: self.picker.open_file())
        self.toolbar.addAction(open_action)
        self.presentation_action = self._action("Presentation mode", "F5", self.toggle_presentation, True)
        self.presentation_action.setToolTip("Large fonts and full screen for talks (F5)")
        self.toolbar.addAction(self.presentation_action)
        self._action("Zoom in", QKeySequence.StandardKey.ZoomIn, lambda: self.zoom(+1))
        self._action("Zoom in", "Ctrl+=", lambda: self.zoom(+1))
        self._action("Zoom out", QKeySequence.StandardKey.ZoomOut, lambda: self.zoom(-1))
        self._action("Reset zoom", "Ctrl+0", lambda: self.session.set_point_size(BASE_POINT_SIZE))
        theme = self._action("Dark theme", "Ctrl+Shift+D", self.toggle_theme, True)
        theme.setChecked(self.session.dark)
        self.theme_action = theme
        self.toolbar.addAction(theme)
        # (No toolbar place: the menu bar's View menu shows it.)
        self.colour_blind_action = self._action("Colour-blind palette", None, self.toggle_colour_blind, True)
        self.colour_blind_action.setChecked(self.session.palette == "colour-blind")
        self.colour_blind_action.setToolTip("Token colours derived from the Okabe-Ito palette, told apart with any colour vision")
        about = self._action("About", None, self.show_about)
        self.toolbar.addAction(about)
        for index in range(len(PANES)):
            self._action(f"Pane {index + 1}", f"Alt+{index + 1}", lambda _=False, i=index: self.tabs.setCurrentIndex(i))
        # Merges must exist before a token is sent to it (the request arrives before the tab switch).
        self.session.token_requested.connect(self._on_session_token_requested)

    # Window-wide actions

    def show_pane(self, name: str) -> None:
        if name in PANE_NAMES:
            self.panes[name]  # noqa: B018
            self.tabs.setCurrentWidget(self._slots[name])

    def _on_session_token_requested(self, token_id: int) -> None:
        if "merges" not in self.panes:
            self.panes["merges"]  # noqa: B018 (built now, it missed this request: ask again)
            QTimer.singleShot(0, lambda: self.session.token_requested.emit(token_id))

    def zoom(self, step: int) -> None:
        self.session.set_point_size(self.session.point_size + step)

    def toggle_presentation(self, on: bool) -> None:
        if on:
            self._normal_size = self.session.point_size
            self.session.set_point_size(PRESENTATION_POINT_SIZE)
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

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if self.session.unsaved:
            names = ", ".join(sorted(self.session.unsaved))
            answer = QMessageBox.question(
                self, "Unsaved tokenizers",
                f"These tokenizers were trained in this session and are not saved: {names}.\n\nQuit anyway?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        self.session.settings.save_window(self.saveGeometry(), self.saveState())
        self.session.shutdown()
        event.accept()


def about_text() -> str:
    import PySide6
    import tiktoken
    import tokenizers
    from PySide6.QtCore import qVersion

    return (f"<h3>Tokenizer Explorer {__version__}</h3>"
            "<p>See byte-level BPE tokenization: train, encode, browse merges, chunks and bytes.</p>"
            f"<p>Qt {qVersion()} · PySide6 {PySide6.__version__}<br>"
            f"tokenizers {tokenizers.__version__} · tiktoken {tiktoken.__version__ if hasattr(tiktoken, '__version__') else _dist_version('tiktoken')}</p>"
            + _encoding_notices())


def _encoding_notices() -> str:
    """The attributions the bundled encodings' licences ask for ("Built with Llama"), and where
    the licences are."""
    from explorer.core.formats.tiktoken_file import BUNDLED

    notices = list(dict.fromkeys(encoding.notice for encoding in BUNDLED.values() if encoding.notice))
    return ("<p><b>Bundled encodings</b> (OpenAI, Meta Llama, Qwen, Mistral): sources and licences in "
            "resources/encodings/SOURCES.md and licenses/.</p>"
            + "".join(f"<p>{notice}</p>" for notice in notices))


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


def widget_for_tests(window: MainWindow, name: str) -> QWidget:
    return window.panes[name]
