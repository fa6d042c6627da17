"""The window around the panes: menus and their keys, closing with work running, nothing lost
on quit, Corpus Clear undone, panes built in the background, the tour pointing at its target."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.bpe import BPE
from explorer.core.corpora.corpus_sources import Source
from explorer.core.formats import own
from explorer.ui.main_window import PANE_NAMES, MainWindow
from explorer.ui.session import Session
from explorer.ui.tour import STOPS, Tour


def sleeps_in_one_step(seconds: float) -> Iterator[int]:
    """A child process busy inside one long step: a cancel cannot reach it between yields."""
    yield 1
    time.sleep(seconds)
    yield 2


def ticks_forever() -> Iterator[int]:
    count = 0
    while True:
        time.sleep(0.02)
        count += 1
        yield count


@pytest.fixture
def window(qtbot: QtBot, session: Session) -> Iterator[MainWindow]:
    window = MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    yield window
    session.unsaved.clear()


def menu_actions(window: MainWindow) -> dict[str, QAction]:
    found = {}
    for menu_action in window.menuBar().actions():
        for action in menu_action.menu().actions():
            if not action.isSeparator():
                found[action.text().replace("&", "")] = action
    return found


def test_menu_bar_has_the_usual_commands_each_on_its_own_keys(window: MainWindow) -> None:
    titles = [action.text().replace("&", "") for action in window.menuBar().actions()]
    assert titles == ["File", "Edit", "View", "Help"]
    actions = menu_actions(window)
    expected = {"Open tokenizer file...": "Ctrl+O", "Quit": "Ctrl+Q", "Copy": "Ctrl+C", "Paste": "Ctrl+V",
                "Select all": "Ctrl+A", "Presentation mode": "F5", "Dark theme": "Ctrl+Shift+D",
                "Zoom out": "Ctrl+-", "Reset zoom": "Ctrl+0", "Corpus": "Alt+1", "Bytes": "Alt+6"}
    for text, keys in expected.items():
        assert keys in [s.toString() for s in actions[text].shortcuts()], text
    for text in ("Open corpus files...", "Save trained tokenizer...", "Export Hugging Face tokenizer.json...",
                 "Zoom in", "Keyboard shortcuts", "Tour", "About Tokenizer Explorer"):
        assert text in actions
    # One action per key in the whole window: Qt runs neither of two actions sharing a key.
    keys = [s.toString() for action in window.findChildren(QAction) for s in action.shortcuts()]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    assert "About" in [action.iconText() for action in window.toolbar.actions()]  # the same action


def test_alt_number_switches_and_ctrl_q_closes(qtbot: QtBot, window: MainWindow, qtlog: object) -> None:
    QTest.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert window.current_pane() == "training"
    assert menu_actions(window)["Training"].isChecked()
    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.AltModifier)
    assert window.current_pane() == "chunks"
    size = window.session.point_size
    QTest.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.session.point_size == size - 1
    QTest.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()
    assert not [r for r in qtlog.records if "mbiguous" in r.message]  # type: ignore[attr-defined]


def test_closing_with_work_running_is_quick_and_cancels_it(qtbot: QtBot, window: MainWindow) -> None:
    workers = window.session.workers
    thread_job = workers.start("ticking", ticks_forever)
    process_job = workers.start_process("sleeping", sleeps_in_one_step, (30.0,))
    qtbot.waitUntil(lambda: process_job._process is not None and process_job._process.is_alive(), timeout=20_000)
    qtbot.wait(200)
    start = time.monotonic()
    window.close()
    assert time.monotonic() - start < 0.3
    assert not window.isVisible()
    assert thread_job.is_cancelled and process_job.is_cancelled
    qtbot.waitUntil(lambda: thread_job.done and process_job.done, timeout=3000)  # the child was ended, not awaited
    assert not process_job._process.is_alive()


def test_unsaved_dialog_saves(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    tokenizer = own.load(_saved_fixture(tmp_path))
    window.session.add_trained(tokenizer, select=False)
    target = tmp_path / "kept.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    seen: list[list[str]] = []

    def press_save() -> None:
        box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
        seen.append([b.text() for b in box.buttons()])
        save = box.button(QMessageBox.StandardButton.Save)
        save.click() if save is not None else box.reject()  # no Save button: leave, do not hang

    QTimer.singleShot(200, press_save)
    window.close()
    assert seen and "Save" in seen[0] and "Quit without saving" in seen[0]
    assert not window.isVisible()
    assert own.load(str(target)).merges == tokenizer.merges
    assert not window.session.unsaved


def test_unsaved_dialog_cancel_keeps_the_window(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    window.session.add_trained(own.load(_saved_fixture(tmp_path)), select=False)

    def press_cancel() -> None:
        box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
        cancel = box.button(QMessageBox.StandardButton.Cancel)
        cancel.click() if cancel is not None else box.reject()

    QTimer.singleShot(200, press_cancel)
    window.close()
    assert window.isVisible() and window.session.unsaved
    window.session.unsaved.clear()  # before pytest-qt closes the window (it does so before fixtures end)


def _saved_fixture(tmp_path: Path) -> str:
    """A tiny trained tokenizer in our format, made here (no shared data)."""
    path = tmp_path / "mine.json"
    own.save(BPE([(108, 111, 256), (256, 119, 257)], "cl100k", name="mine"), path)
    return str(path)


def test_corpus_clear_can_be_undone(qtbot: QtBot, window: MainWindow) -> None:
    window.show_pane("corpus")
    pane = window.panes["corpus"]
    pane.set_sources([Source.pasted("one text"), Source.pasted("another text")])
    before = list(pane.sources)
    pane.clear_button.click()
    assert pane.sources == [] and window.session.corpus.sources == ()
    assert pane.clear_button.text() == "Undo clear"
    pane.clear_button.click()
    assert pane.sources == before and list(window.session.corpus.sources) == before
    assert pane.clear_button.text() == "Clear"


def test_panes_built_in_the_background_work_when_first_shown(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: len(window.panes) == len(PANE_NAMES) and not window.session.workers.running,
                    timeout=30_000)
    for index, name in enumerate(PANE_NAMES):
        QTest.keyClick(window, Qt.Key(Qt.Key.Key_1 + index), Qt.KeyboardModifier.AltModifier)
        pane = window.panes[name]
        assert window.current_pane() == name and pane.isVisible()
        assert pane.size().width() >= window.tabs.currentWidget().width() - 2  # laid out at the shown size
    window.session.send_text("bytes", "héllo")
    assert window.panes["bytes"].editor.toPlainText() == "héllo"


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_each_tour_card_points_at_its_widget_and_leaves_it_uncovered(
        qtbot: QtBot, window: MainWindow, size: tuple[int, int]) -> None:
    window.resize(*size)
    window.session.set_tokenizer(BPE([(108, 111, 256), (256, 119, 257)], "cl100k", name="toy"), "toy")
    tour = Tour(window.session, window)
    tour.show()
    for index, (name, _, _) in enumerate(STOPS):
        tour.go(index)
        qtbot.waitUntil(lambda name=name: tour.target() is not window.panes[name], timeout=10_000)  # loaded
        qtbot.wait(20)
        target = tour.target()
        assert target is not None and target is not window.panes[name] and target.isVisible()
        assert window.panes[name].isAncestorOf(target)
        rect = tour.target_rect()
        assert rect.width() > 20 and rect.height() > 20
        card = tour.geometry()
        assert window.rect().contains(card)
        assert not card.intersects(rect), (name, card, rect)  # the card never hides what it describes
        start, end = tour.spotlight.arrow()
        assert card.adjusted(-2, -2, 2, 2).contains(start.toPoint())  # the arrow leaves the card ...
        assert rect.adjusted(-8, -8, 8, 8).contains(end.toPoint())  # ... and ends at the target
    tour.next_button.click()
    assert not tour.isVisible() and tour.spotlight is None
