"""The window opens (offscreen) and says what it is."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow


def test_main_window_opens(qtbot: QtBot) -> None:
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    assert "Tokenizer Explorer" in window.windowTitle()
    assert window.tabs.count() == 7
