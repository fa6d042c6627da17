"""The window opens (offscreen) and says what it is."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from explorer.ui.theme import BASE_POINT_SIZE, PRESENTATION_POINT_SIZE


def test_main_window_opens(qtbot: QtBot) -> None:
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    assert "Tokenizer Explorer" in window.windowTitle()
    assert window.tabs.count() == 7


def test_presentation_mode_does_not_stick(qtbot: QtBot, session: Session) -> None:
    """F5's large size (and zooming during the talk) is never saved: the next launch starts at the user's size."""
    session.set_point_size(13)
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    window.menus.presentation.trigger()
    assert session.point_size == PRESENTATION_POINT_SIZE
    window.menus.zoom_in.trigger()
    assert session.point_size == PRESENTATION_POINT_SIZE + 1
    assert session.settings.font_size == 13, "a launch now (or after a crash) would start in presentation size"
    window.menus.presentation.trigger()
    assert session.point_size == session.settings.font_size == 13
    window.menus.zoom_in.trigger()
    assert session.settings.font_size == 14, "zooming outside presentation mode is still remembered"
    session.set_point_size(BASE_POINT_SIZE)
