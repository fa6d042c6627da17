"""The first-run tour walks the panes and is not shown again once dismissed."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from explorer.ui.tour import STOPS, Tour, should_show


def test_tour_shows_each_pane_then_stays_dismissed(qtbot: QtBot, session: Session) -> None:
    window = MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.show()
    assert should_show(session)
    tour = Tour(session, window)
    qtbot.addWidget(tour)
    tour.show()
    assert "&lt;|endoftext|&gt;" in tour.body.text()  # shown, not swallowed as an HTML tag
    visited = []
    for _ in STOPS:
        visited.append(window.tabs.tabText(window.tabs.currentIndex()))
        tour.next_button.click()
    assert visited == [title for _, title, _ in STOPS]
    assert not tour.isVisible()
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Tokens"
    assert not should_show(session)
    session.unsaved.clear()
