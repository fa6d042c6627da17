"""The first-run tour walks the panes and is not shown again once dismissed."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontInfo, QTextDocument
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from explorer.ui.theme import BASE_POINT_SIZE, PRESENTATION_POINT_SIZE, apply_theme
from explorer.ui.tour import STOPS, Tour, should_show
from explorer.ui.zoom import minimum_point_size


def test_tour_shows_each_pane_then_stays_dismissed(qtbot: QtBot, session: Session) -> None:
    window = MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.show()
    assert should_show(session)
    tour = Tour(session, window)
    qtbot.addWidget(tour)
    tour.show()
    assert "&lt;|endoftext|&gt;" in tour.body.text().replace("\u2060", "")  # shown, not swallowed as an HTML tag
    visited = []
    for _ in STOPS:
        visited.append(window.tabs.tabText(window.tabs.currentIndex()))
        tour.next_button.click()
    assert visited == [title for _, title, _ in STOPS]
    assert not tour.isVisible()
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Tokens"
    assert not should_show(session)
    session.unsaved.clear()


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800), (900, 600)])
@pytest.mark.parametrize("point_size", [BASE_POINT_SIZE, 14, PRESENTATION_POINT_SIZE, 28])
def test_every_card_shows_its_whole_text(qtbot: QtBot, qapp: QApplication, session: Session, size: tuple[int, int],
                                         point_size: int) -> None:
    """The card is as tall as its body's text wrapped at the body's real width (at the normal font
    the buttons row made the card wider than the body's measure, and the height was worked out
    for the card's width: the Tokens card stopped mid-sentence at 1920x1080)."""
    apply_theme(qapp, "light")  # as the app does: the style sheet is what hands the zoomed font to the card
    window = MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    session.set_point_size(point_size, remember=False)
    tour = Tour(session, window)
    qtbot.addWidget(tour)
    tour.show()
    for index, (pane, _, _) in enumerate(STOPS):
        tour.go(index)
        qtbot.wait(5)
        body = tour.body
        needed = body.heightForWidth(body.width())
        assert body.height() >= needed, f"{pane} card at {point_size} pt: body {body.height()} px of {needed}"
        assert window.rect().contains(tour.geometry()), f"{pane} card {tour.geometry()} leaves the window"
        for button in (tour.back_button, tour.next_button):
            assert tour.rect().contains(button.geometry())
    session.set_point_size(point_size + 6, remember=False)  # zoomed (or F5) while a card is up
    qtbot.wait(5)
    assert tour.body.height() >= tour.body.heightForWidth(tour.body.width())
    tour.accept()
    session.set_point_size(BASE_POINT_SIZE, remember=False)
    session.unsaved.clear()
    apply_theme(qapp, "light")


def test_the_step_line_grows_with_presentation_mode(qtbot: QtBot, qapp: QApplication, session: Session) -> None:
    """'1 of 7' is read from the back of a room too: never below the mode's least text size (it was
    a <small> inside the heading, which no font check could see)."""
    apply_theme(qapp, "light")
    window = MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    tour = Tour(session, window)
    qtbot.addWidget(tour)
    tour.show()
    sizes = {}
    for point_size in (BASE_POINT_SIZE, PRESENTATION_POINT_SIZE):
        session.set_point_size(point_size, remember=False)
        tour.go(1)
        qtbot.wait(5)
        step = tour.findChild(QLabel, "tourStep")
        assert step is not None and step.isVisible() and step.text() == f"2 of {len(STOPS)}"
        assert "<small" not in tour.heading.text() and "font-size" not in step.text()
        assert step.height() >= step.sizeHint().height()  # not squeezed by the card
        sizes[point_size] = QFontInfo(step.font()).pointSizeF()
        assert sizes[point_size] >= minimum_point_size(point_size), sizes
    assert sizes[PRESENTATION_POINT_SIZE] >= 1.5 * sizes[BASE_POINT_SIZE]
    session.set_point_size(BASE_POINT_SIZE, remember=False)
    session.unsaved.clear()


def test_a_special_token_in_a_card_is_never_cut_over_two_lines(qtbot: QtBot, session: Session) -> None:
    tour = Tour(session)
    qtbot.addWidget(tour)
    text = tour.body.text().replace("\u2060", "")  # (word joiners: how it is kept whole)
    assert "&lt;|endoftext|&gt;" in text
    text = tour.body.text()
    document = QTextDocument()
    document.setDefaultFont(tour.body.font())
    document.setHtml(text)
    plain = document.toRawText()
    start = plain.index("<|")
    inside = set(range(start + 1, plain.index(">", start) + 1))
    for width in range(200, 700, 5):
        document.setTextWidth(width)
        document.size()  # (laid out now)
        block = document.begin()
        layout = block.layout()
        starts = {block.position() + layout.lineAt(n).textStart() for n in range(layout.lineCount())}
        assert not starts & inside, width
    session.unsaved.clear()
