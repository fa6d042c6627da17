"""The window opens (offscreen) and says what it is."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from explorer.ui.settings import Settings
from explorer.ui.theme import BASE_POINT_SIZE, PRESENTATION_POINT_SIZE
from explorer.ui.timers import call_later
from tests.ui.windows import settle


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


def test_a_closed_window_lets_go_of_its_panes_and_session(qtbot: QtBot, tmp_path: Path) -> None:
    """A pane that had a call put off to the next turn (the Tokens pane measures its room again
    after a zoom) when its window was deleted kept the pane, the window and the session alive
    (QTimer.singleShot(0, pane, pane.fit_to_content) held the method): ~100 MB a window, and GBs
    over the test run."""
    app = QApplication.instance()
    session = Session(Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)))
    window = MainWindow(session, first_pane="tokens")
    window.show()
    settle(app, window)
    session.set_point_size(BASE_POINT_SIZE + 2)  # (the pane puts off measuring until the fonts are in)
    held = [weakref.ref(window), weakref.ref(session), *(weakref.ref(pane) for pane in dict.values(window.panes))]
    window.close()
    session.set_point_size(BASE_POINT_SIZE)
    session.shutdown()
    window.deleteLater()
    session.deleteLater()
    del window, session
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    assert [ref() for ref in held if ref() is not None] == []


def test_a_call_put_off_for_a_deleted_widget_lets_go_of_it(qtbot: QtBot) -> None:
    class Box(QWidget):
        def measure(self) -> None:
            calls.append(self)

    calls: list[QWidget] = []
    window = QMainWindow()
    kept, dropped = Box(window), Box(window)
    refs = weakref.ref(kept), weakref.ref(dropped)
    call_later(kept, kept.measure)
    call_later(dropped, dropped.measure)
    call_later(dropped, lambda: dropped.measure(), 5)
    dropped.deleteLater()
    del dropped
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qtbot.waitUntil(lambda: len(calls) == 1)
    assert calls == [kept] and not kept.findChildren(QTimer), "the call was made once, and its timer went"
    calls.clear()
    window.deleteLater()
    del window, kept
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    assert [ref() for ref in refs] == [None, None]


def test_the_window_opens_every_scripts_font_before_a_view_needs_it(qtbot: QtBot, session: Session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The first Devanagari, Thai or emoji a font draws costs 1-24 ms (fontconfig finds and
    opens the fallback font): drawn off-screen a script a step after start-up, in the text font
    and the interface font, it is never paid in a frame that shows a run's merges (issue 16)."""
    from PySide6.QtGui import QPainter

    from explorer.ui import font_warmup

    drawn: list[tuple[str, str]] = []

    class Recording(QPainter):
        def drawText(self, *args: object) -> None:  # noqa: N802 (Qt's name)
            drawn.append((self.font().family(), str(args[-1])))
            super().drawText(*args)  # type: ignore[call-overload]

    monkeypatch.setattr(font_warmup, "QPainter", Recording)
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    words = " ".join(font_warmup.SAMPLES).split()
    assert {"नमस्ते", "สวัสดี", "こんにちは", "😀🎉👍🏽🇯🇵", "مرحبا"} <= set(words)
    qtbot.waitUntil(lambda: len(drawn) == 2 * len(words), timeout=20_000)
    families = {session.font.family(), QApplication.font().family()}
    assert {(family, word) for family in families for word in words} == set(drawn)


def test_a_label_changing_in_a_pane_repaints_the_label_not_the_whole_window(qtbot: QtBot, session: Session) -> None:
    """A status line's new text reached the QTabWidget as a LayoutRequest, which repainted every
    widget of the pane with it (10-20 ms of the last frames of a training run). A change of what
    the tabs are placed by (a page's minimum size, the tab bar's height at a larger font) is still
    laid out: the pages stay below the tab bar."""
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QLabel

    window = MainWindow(session, first_pane="corpus")
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    settle(QApplication.instance(), window)
    page = window.tabs.currentWidget()
    label = QLabel("status", page)
    page.layout().addWidget(label)
    settle(QApplication.instance(), window)

    class Paints(QObject):
        count = 0

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
            self.count += event.type() == QEvent.Type.Paint
            return False

    paints = Paints()
    window.tabs.tabBar().installEventFilter(paints)
    for text in ("status: reading", "status: merging", "status: done"):
        label.setText(text)
        qtbot.wait(30)
    assert label.text() == "status: done" and paints.count == 0
    laid_out = window.tabs.layouts
    label.setMinimumHeight(300)
    qtbot.waitUntil(lambda: window.tabs.layouts > laid_out, timeout=5000)
    bar = window.tabs.tabBar()
    low = bar.geometry().bottom()
    session.set_point_size(BASE_POINT_SIZE + 8)
    qtbot.waitUntil(lambda: bar.geometry().bottom() > low, timeout=5000)
    settle(QApplication.instance(), window)
    pages = page.parentWidget()
    assert pages.geometry().top() > bar.geometry().bottom() - 2 and pages.geometry().bottom() <= window.tabs.height()
    session.set_point_size(BASE_POINT_SIZE)
