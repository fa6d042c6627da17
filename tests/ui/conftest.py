"""UI tests: settings go to a temporary folder, never the user's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from explorer.ui.session import Session
from explorer.ui.settings import Settings
from explorer.ui.theme import BASE_POINT_SIZE, use_palette
from explorer.ui.tokens.export_button import release_clipboard
from explorer.ui.zoom import apply_zoom


@pytest.fixture(scope="session", autouse=True)
def clipboard_released_at_exit(qapp: object) -> Iterator[None]:
    """As the app does on quit (see release_clipboard): else a copied HTML crashes the exit."""
    yield
    release_clipboard()


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
