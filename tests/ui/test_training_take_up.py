"""A tokenizer trained in the Training pane reaches every pane of the main window, one pane a turn.

Taken up by every pane in the turn it was published, it froze the window 50-70 ms at the end of a
big run (issue 16): the shown pane takes it up at once, the hidden ones in the background steps.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.core.sources.tokenizer import Tokenizer
from explorer.ui.main_window import PANE_NAMES, MainWindow
from explorer.ui.session import Session

TIMEOUT = 30_000
TAKERS = ("tokens", "merges", "chunks", "bytes", "chat")  # the panes that show the current tokenizer


def open_built(qtbot: QtBot, session: Session) -> MainWindow:
    """A shown window with every pane built in the background, on the Training pane."""
    window = MainWindow(session, first_pane="training")
    qtbot.addWidget(window, before_close_func=lambda _: session.unsaved.clear())  # (closing asks to save it)
    window.resize(1200, 800)
    window.show()
    qtbot.waitUntil(lambda: len(dict.keys(window.panes)) == len(PANE_NAMES) and not window.building_in_background,
                    timeout=TIMEOUT)
    return window


def taken_up(window: MainWindow, tokenizer: Tokenizer, before: dict[str, object]) -> list[str]:
    """The panes that show `tokenizer` (the Bytes pane: that has encoded again since `before`,
    what `outputs` gave)."""
    panes = {name: dict.__getitem__(window.panes, name) for name in TAKERS}
    shows = {"tokens": panes["tokens"].main_lane.tokenizer is tokenizer,
             "merges": panes["merges"].loader.tokenizer is tokenizer,
             "chunks": tokenizer.name in panes["chunks"].show_tokens.text(),
             "bytes": panes["bytes"].tokens is not before["bytes"],
             "chat": panes["chat"].note.text().startswith(f"{tokenizer.name} has no chat tokens")}
    return [name for name in TAKERS if shows[name]]


def outputs(window: MainWindow) -> dict[str, object]:
    return {"bytes": dict.__getitem__(window.panes, "bytes").tokens}


def train_to_the_end(qtbot: QtBot, window: MainWindow) -> Tokenizer:
    training = dict.__getitem__(window.panes, "training")
    window.session.set_corpus(Corpus((Source.pasted("low lower lowest newer newest wider " * 40),)))
    training.form.set_vocab_size(290)
    assert training.start()
    return training


def test_the_shown_pane_takes_a_trained_tokenizer_up_first_and_the_others_one_a_turn(
        qtbot: QtBot, session: Session) -> None:
    window = open_built(qtbot, session)
    before = outputs(window)
    at_publish: list[list[str]] = []  # who has it in the turn it is published (connected last: after the panes)
    session.tokenizer_changed.connect(lambda tokenizer: at_publish.append(taken_up(window, tokenizer, before)))
    training = train_to_the_end(qtbot, window)
    window.show_pane("tokens")  # (the user looks at the Tokens pane while it trains)
    qtbot.waitUntil(lambda: training.tokenizer is not None, timeout=TIMEOUT)
    assert at_publish == [["tokens"]], "only the shown pane takes it up in the turn it is published"
    qtbot.waitUntil(lambda: taken_up(window, training.tokenizer, before) == list(TAKERS), timeout=TIMEOUT)


def test_a_hidden_pane_switched_to_has_the_new_tokenizer_at_once(qtbot: QtBot, session: Session) -> None:
    window = open_built(qtbot, session)
    before = outputs(window)
    seen: list[tuple[list[str], list[str]]] = []  # who has it before and after the switch, in the publish turn

    def switch(tokenizer: Tokenizer) -> None:  # (the user switches to Chunks as the run ends)
        had = taken_up(window, tokenizer, before)
        window.show_pane("chunks")
        seen.append((had, taken_up(window, tokenizer, before)))

    session.tokenizer_changed.connect(switch)
    training = train_to_the_end(qtbot, window)
    qtbot.waitUntil(lambda: training.tokenizer is not None, timeout=TIMEOUT)
    assert seen == [([], ["chunks"])]
    qtbot.waitUntil(lambda: taken_up(window, training.tokenizer, before) == list(TAKERS), timeout=TIMEOUT)


def test_the_status_does_not_grow_when_the_result_is_shown(qtbot: QtBot, session: Session) -> None:
    """The status names the tokenizer once it is built: a line more, which laid the plots out and
    painted them again in that turn. Its room is kept from the end of the run on."""
    window = open_built(qtbot, session)
    training = dict.__getitem__(window.panes, "training")
    training.form.name_edit.setText("a-tokenizer-with-a-name-long-enough-to-take-a-line-of-its-own-" * 2)
    heights: list[int] = []  # the status's height as the tokenizer is published, before the result is shown
    session.tokenizer_changed.connect(lambda _: heights.append(training.status.height()))
    train_to_the_end(qtbot, window)
    qtbot.waitUntil(lambda: training.tokenizer is not None and training.result_box.tokenizer is not None,
                    timeout=TIMEOUT)
    qtbot.wait(50)  # (laid out again)
    assert training.tokenizer.name in training.status.text()
    assert heights and training.status.height() <= heights[0]


def test_a_hugging_face_runs_plots_are_painted_before_they_are_shown(qtbot: QtBot, session: Session) -> None:
    """Their axes laid out and drawn off-screen, a band a turn: drawn in the turn the plots
    appeared, they took two turns of 40-45 ms of GUI thread at the end of a 10 MB run."""
    window = open_built(qtbot, session)
    training = dict.__getitem__(window.panes, "training")
    training.form.engine_combo.setCurrentIndex(training.form.engine_combo.findData("hf"))
    panel = training.plots_panel
    own = panel.show_plots
    drawn: list[bool] = []  # whether every axis had drawn its ticks as the plots were shown

    def show_plots(shown: bool) -> None:
        if shown:
            plots = panel.plots
            axes = [plot.getAxis(side) for plot in (plots.compression, plots.counts, plots.sweep)
                    for side in ("left", "bottom")]
            drawn.append(all(axis.picture is not None for axis in axes))
        own(shown)

    panel.show_plots = show_plots
    train_to_the_end(qtbot, window)
    qtbot.waitUntil(lambda: training.tokenizer is not None, timeout=TIMEOUT)
    assert drawn == [True] and panel.showing_plots
