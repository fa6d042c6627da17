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
from explorer.ui import main_window
from explorer.ui.main_window import PAINT_BANDS, MainWindow, prepare_pane
from explorer.ui.pane import Pane
from explorer.ui.session import Session
from explorer.ui.training.pane import TrainingPane
from explorer.ui.training.plots import PLOT_PARTS, TrainingPlots


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


def test_without_the_tokenizer_in_time_the_window_shows_and_the_tokens_follow(
        qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The other side of the wait above: a tokenizer that is not there in time does not hold the
    window back; its tokens appear once it is loaded (the load waits for the window, not a clock)."""
    from explorer import app
    from explorer.app import open_main_window

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(crash, "state_dir", lambda: tmp_path)
    monkeypatch.setattr(app, "FIRST_TOKENIZER_WAIT_SECONDS", 0.0)
    real_load = explorer.core.sources.load.load_tokenizer
    window_shown = threading.Event()

    def load(spec: str, pattern: str | None = None) -> object:
        window_shown.wait(60)
        return real_load(spec, pattern)

    monkeypatch.setattr(explorer.core.sources.load, "load_tokenizer", load)
    _, session, window = open_main_window([], tour=False)
    qtbot.addWidget(window)
    try:
        assert window.isVisible() and session.tokenizer is None
        window_shown.set()
        lane = window.panes["tokens"].main_lane
        qtbot.waitUntil(lambda: lane.complete and len(lane.view.ids) > 0, timeout=60_000)
        assert session.tokenizer is not None and session.tokenizer.name == "o200k_base"
    finally:
        window_shown.set()
        session.unsaved.clear()
        window.close()
        session.shutdown()


def test_the_application_has_no_style_sheet_and_menu_buttons_have_their_own(qtbot: QtBot) -> None:
    """Under an application style sheet every widget goes through Qt's style-sheet style: building
    a pane took 2-4 times as long. Only a button whose menu opens on click needs one (room for
    its arrow), and it gets its own as it is polished."""
    from PySide6.QtWidgets import QApplication, QMenu, QPushButton, QToolButton

    from explorer.ui.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, "light")
    assert app.styleSheet() == ""
    plain, menu_button = QPushButton("Compute"), QToolButton()
    menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    menu_button.setMenu(QMenu(menu_button))
    for widget in (plain, menu_button):
        qtbot.addWidget(widget)
        widget.show()
    assert plain.styleSheet() == "" and plain.style() is app.style()
    assert "padding" in menu_button.styleSheet()


def _steps_counted(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, int]]:
    """Each background step as counts of the building it did: panes constructed, deferred parts
    built (a Training plot is one), layouts activated and paints (grabs)."""
    from PySide6.QtWidgets import QLayout, QWidget

    counts = {"panes": 0, "parts": 0, "layouts": 0, "paints": 0}
    steps: list[dict[str, int]] = []
    original_init, original_part = Pane.__init__, Pane.build_next_part
    original_activate, original_grab = QLayout.activate, QWidget.grab

    def init(self: Pane, *args: object, **kwargs: object) -> None:
        counts["panes"] += 1
        original_init(self, *args, **kwargs)

    def part(self: Pane) -> bool:
        built = original_part(self)
        counts["parts"] += built
        return built

    def activate(self: QLayout) -> bool:
        counts["layouts"] += 1
        return original_activate(self)

    def grab(self: QWidget, *args: object) -> object:
        counts["paints"] += 1
        return original_grab(self, *args)

    original_step = MainWindow._build_step

    def step(self: MainWindow) -> None:
        before = dict(counts)
        original_step(self)
        steps.append({key: counts[key] - before[key] for key in counts})

    monkeypatch.setattr(Pane, "__init__", init)
    monkeypatch.setattr(Pane, "build_next_part", part)
    monkeypatch.setattr(QLayout, "activate", activate)
    monkeypatch.setattr(QWidget, "grab", grab)
    monkeypatch.setattr(MainWindow, "_build_step", step)
    return steps


def test_no_background_step_builds_more_than_one_thing(
        qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up builds the hidden panes one small step per event-loop turn: a pane's skeleton,
    one of its deferred parts (a Training plot), its layout, or a band of its first paint, never
    two of those in one turn (in one, a pane and its plots froze the window for 100-240 ms)."""
    monkeypatch.setattr(main_window, "STEP_PAUSE_MS", 0)
    window = MainWindow(session, first_pane="tokens")
    steps = _steps_counted(window, monkeypatch)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitUntil(lambda: not window.building_in_background, timeout=120_000)
    assert sum(step["panes"] for step in steps) == len(main_window.PANE_NAMES) - 1  # all but Tokens
    for step in steps:
        assert sum(step.values()) <= 1, f"a step did {step}"
    training_parts = [step for step in steps if step["parts"]]
    assert len(training_parts) == PLOT_PARTS  # the Training plots, one a step
    assert sum(step["paints"] for step in steps) == PAINT_BANDS * (len(main_window.PANE_NAMES) - 1)
    for name, pane in window.panes.items():
        assert not pane._deferred, name
    assert window.panes["training"].findChild(TrainingPlots) is not None
    session.unsaved.clear()


def test_a_pane_shown_before_its_deferred_parts_are_built_is_whole_when_it_shows(
        qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """Switching to a pane the background has only begun (its skeleton built, its plots not yet)
    builds the rest before the pane is shown: the tab never shows half a pane."""
    monkeypatch.setattr(main_window, "QUIET_WAIT_MS", 60_000)
    window = MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.show()
    window._building = window._steps_of("training")  # the background's first step for the pane, by hand
    assert next(window._building) == "training: built"
    window._building = None  # (and no more: the rest is the switch's)
    skeleton = dict.__getitem__(window.panes, "training")
    assert skeleton.findChild(TrainingPlots) is None and skeleton._deferred
    shown: list[bool] = []
    window.tabs.currentChanged.connect(lambda _: shown.append(skeleton.findChild(TrainingPlots) is not None))
    window.tabs.setCurrentIndex(main_window.PANE_NAMES.index("training"))  # as a click on its tab does
    assert shown == [True]
    assert not skeleton._deferred
    qtbot.waitUntil(skeleton.isVisible)
    assert skeleton.plots_panel.plots is skeleton.findChild(TrainingPlots)
    session.unsaved.clear()


def test_the_loading_worker_prepares_the_first_encode(qtbot: QtBot, session: Session) -> None:
    """The pre-tokenizer's pattern for text beyond ASCII is compiled lazily, by the first encode
    that needs it: ~0.1 s of `re` parsing on the GUI thread as the first tokenizer arrived. The
    worker that loads a tokenizer has compiled it before the tokenizer reaches the GUI thread."""
    arrived: list[object] = []
    session.tokenizer_changed.connect(
        lambda tokenizer: arrived.append("_beyond_ascii" in vars(tokenizer.pretokenizer)))
    job = session.load_tokenizer("cl100k_base")
    assert job is not None
    qtbot.waitUntil(lambda: bool(arrived), timeout=60_000)
    assert arrived == [True]


def test_a_load_begun_before_the_window_is_the_one_the_session_takes(
        qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up begins loading the last tokenizer before the window's imports: the session waits
    for that load instead of loading the tokenizer a second time."""
    from explorer.core.sources.early_load import load_in_background

    specs: list[str] = []
    real_load = explorer.core.sources.load.load_tokenizer

    def load(spec: str, pattern: str | None = None) -> object:
        specs.append(spec)
        return real_load(spec, pattern)

    monkeypatch.setattr(explorer.core.sources.load, "load_tokenizer", load)
    early = load_in_background("r50k_base")
    job = session.load_tokenizer("r50k_base", early=early)
    assert job is not None
    with qtbot.waitSignal(session.tokenizer_changed, timeout=60_000):
        pass
    assert specs == ["r50k_base"]
    assert session.tokenizer is early.result()


def test_a_load_begun_before_the_window_that_fails_is_reported_as_any_load(
        qtbot: QtBot, session: Session, tmp_path: Path) -> None:
    """The early load's error reaches tokenizer_failed, with what was wrong, as a worker's would."""
    from explorer.core.sources.early_load import load_in_background

    missing = str(tmp_path / "gone.tiktoken")
    with qtbot.waitSignal(session.tokenizer_failed, timeout=60_000) as failed:
        session.load_tokenizer(missing, early=load_in_background(missing))
    spec, message = failed.args
    assert spec == missing and "gone.tiktoken" in message and session.tokenizer is None
