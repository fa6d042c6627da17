"""UI tests: settings go to a temporary folder, never the user's."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings
from PySide6.QtWidgets import QApplication, QMainWindow

from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.tokenizer import Tokenizer
from explorer.ui.session import Session
from explorer.ui.settings import Settings
from explorer.ui.theme import BASE_POINT_SIZE, use_palette
from explorer.ui.tokens.export_button import release_clipboard
from explorer.ui.workers import release_frozen
from explorer.ui.zoom import apply_zoom


@pytest.fixture(scope="session", autouse=True)
def clipboard_released_at_exit(qapp: object) -> Iterator[None]:
    """As the app does on quit (see release_clipboard): else a copied HTML crashes the exit."""
    yield
    release_clipboard()


@pytest.fixture(autouse=True)
def closed_widgets_deleted(qapp: QApplication) -> Iterator[None]:
    """After each test, the windows and panes it closed are deleted, and the sessions (torn down
    last: after the session fixture has stopped its workers). pytest-qt only deleteLater()s what
    qtbot.addWidget was given, and a deferred delete waits for an event loop a test run never
    returns to; a window a fixture closed itself was not deleted at all. And a session's signals
    hold the lambdas of every pane that listens to it, which hold the panes' Python side (plots,
    models, menus) in a cycle through C++ that gc cannot see: only deleting the session ends it.
    And what the app froze out of collections (freeze_long_lived) is never collected unless it is
    let back in. Kept, they added up to GBs, and every window left behind was re-styled at each
    later test's theme and zoom change (test_layout's tests took 20 s, then 40, 60, 80...)."""
    yield
    for widget in qapp.topLevelWidgets():
        if isinstance(widget, QMainWindow) and not widget.isVisible():
            widget.deleteLater()  # (a window's menus and pop-ups are its own: deleted with it)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    release_frozen()  # (a session not shut down would keep what the app froze out of collections for good)
    gc.collect()


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path) -> Iterator[None]:
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    yield
    use_palette("default")  # the View menu's palette is the app's: a test that changed it leaves none behind
    apply_zoom(BASE_POINT_SIZE)  # so is the zoom (the application font): a test that zoomed leaves it at normal


@pytest.fixture
def session(tmp_path: Path, qapp: object) -> Iterator[Session]:
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    session = Session(Settings(store))
    yield session
    session.shutdown()
    session.deleteLater()  # (deleted once closed_widgets_deleted tears down, after the panes)


@pytest.fixture(scope="session")
def o200k() -> Tokenizer:
    """GPT-4o's tokenizer, loaded once for every UI test that shows it."""
    return load_tokenizer("o200k_base")


@pytest.fixture
def walked_on_window_thread(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The corpus sources whose files `list_files` walks on the window's (main) thread during the
    test: a big folder walked there freezes the window for seconds."""
    import threading

    from explorer.core.corpora import corpus_sources

    walked: list[str] = []
    listing = corpus_sources.list_files

    def spying(source: corpus_sources.Source) -> object:
        if threading.current_thread() is threading.main_thread():
            walked.append(source.path)
        return listing(source)

    monkeypatch.setattr(corpus_sources, "list_files", spying)
    return walked
