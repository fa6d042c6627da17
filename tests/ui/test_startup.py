"""Start-up without a frozen window: what is slow happens off the GUI thread or before the first
paint, and what must be built on it comes in small event-loop turns (the timings themselves are
in tests/benchmarks/bench_shell.py)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

import explorer.core.sources.load
from explorer.ui import crash
from explorer.ui.main_window import prepare_pane
from explorer.ui.session import Session
from explorer.ui.training.pane import TrainingPane
from explorer.ui.training.plots import TrainingPlots


def test_the_window_first_shows_with_the_tokenizer_loaded_on_a_worker(
        qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Building tiktoken's encoder holds the interpreter lock for 0.1-0.2 s: done after the first
    paint, it froze the window. It is loaded on a worker while the window is built, before it shows."""
    from explorer import app
    from explorer.app import open_main_window

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # open_main_window installs its own
    # The window waits at most FIRST_TOKENIZER_WAIT_SECONDS for it, then shows without it (the
    # next test): on a loaded machine the load took longer than that, and this test failed.
    monkeypatch.setattr(app, "FIRST_TOKENIZER_WAIT_SECONDS", 600.0)
    monkeypatch.setattr(crash, "state_dir", lambda: tmp_path)
    real_load = explorer.core.sources.load.load_tokenizer
    threads: list[threading.Thread] = []

    def load(spec: str, pattern: str | None = None) -> object:
        threads.append(threading.current_thread())
        return real_load(spec, pattern)

    monkeypatch.setattr(explorer.core.sources.load, "load_tokenizer", load)
    _, session, window = open_main_window([], tour=False)
    qtbot.addWidget(window)
    try:
        assert window.isVisible()
        assert threads and threads[0] is not threading.main_thread()
        assert session.tokenizer is not None and session.tokenizer.name == "o200k_base"
        lane = window.panes["tokens"].main_lane
        assert lane.complete and len(lane.view.ids) > 0  # the first paint shows coloured tokens
    finally:
        session.unsaved.clear()
        window.close()
        session.shutdown()


def test_the_training_plots_are_built_in_a_turn_of_their_own(qtbot: QtBot, session: Session) -> None:
    """Three pyqtgraph plots are half the cost of the Training pane: not in the turn that builds it."""
    pane = TrainingPane(session)
    qtbot.addWidget(pane)
    assert pane.findChild(TrainingPlots) is None
    assert pane.plots_panel.empty.text()  # what the plots will show, until the first merge
    session.set_dark(True)  # before the plots exist: they take the theme when they are built
    qtbot.waitUntil(lambda: pane.findChild(TrainingPlots) is not None, timeout=2000)
    assert pane.plots.backgroundBrush().color().name() == "#17181a"


def test_preparing_the_bytes_pane_compiles_the_script_tables_off_the_gui_thread() -> None:
    """The Bytes pane's first paint looks up Common characters (spaces, digits) in the
    Script_Extensions patterns: compiled by the worker that prepares the pane, not on the GUI thread."""
    from explorer.core.text import chars

    chars.scripts_used_with.cache_clear()
    chars._extension_patterns.cache_clear()
    prepare_pane("bytes")
    assert chars._extension_patterns.cache_info().currsize == 1


def test_panes_are_built_in_the_background_only_while_no_worker_thread_is_busy(
        qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker thread busy in Python takes the interpreter lock between the GUI thread's calls:
    a build step run beside it froze the window about twice as long, so the step waits for it."""
    import time

    from explorer.ui import main_window

    monkeypatch.setattr(main_window, "QUIET_WAIT_MS", 60_000, raising=False)

    def busy() -> object:
        while True:
            time.sleep(0.01)
            yield 1

    window = main_window.MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.show()
    job = session.workers.start("busy", busy)
    qtbot.wait(1500)  # the first background pane is prepared after 300 ms, then waits
    assert set(window.panes) == {"tokens"}
    job.cancel()
    qtbot.waitUntil(lambda: "corpus" in window.panes, timeout=10_000)
    session.unsaved.clear()
