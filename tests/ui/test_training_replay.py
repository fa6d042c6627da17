"""A run's records reach the window in slices: Hugging Face's merges all arrive at once."""

from __future__ import annotations

from typing import Any

from explorer.core.algorithms.train import Merge
from explorer.core.algorithms.training_run import Learned, MergeStage, RunSummary, TrainingSettings
from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.ui.training.run import REPLAY_SLICE, TrainingRun
from explorer.ui.workers import Job

MERGES = [Merge(rank, 97, 98, 256 + rank, b"ab", 5000 - rank, 100_000 - rank) for rank in range(5000)]


class OneJob:
    """Workers that hand the run a job the test drives (its signals, as the relay sends them)."""

    def __init__(self) -> None:
        self.job = Job("training")

    def start_process(self, *args: Any, **kwargs: Any) -> Job:
        return self.job


def started_run() -> tuple[TrainingRun, Job, list[str], list[int]]:
    run = TrainingRun(Corpus((Source.pasted("ab ab"),)), TrainingSettings(256 + len(MERGES), engine="hf"))
    workers = OneJob()
    run.start(workers)  # type: ignore[arg-type]
    ended: list[str] = []
    added: list[int] = []
    run.ended.connect(ended.append)
    run.merges_added.connect(lambda merges: added.append(len(merges)))
    return run, workers.job, ended, added


def send_all(job: Job, items: list[object], batch: int = 512) -> None:
    """Every batch in one go, as the batches the relay queued are delivered in one event-loop turn."""
    for start in range(0, len(items), batch):
        job.batch_ready.emit(items[start:start + batch])


def test_merges_arriving_at_once_are_taken_in_a_slice_per_turn(qtbot) -> None:  # type: ignore[no-untyped-def]
    run, job, ended, added = started_run()
    send_all(job, [MergeStage(len(MERGES), 100_000, 1, 0, ()), *(Learned(m, -1) for m in MERGES)])
    job.finished.emit(RunSummary(len(MERGES), False))
    assert len(run.merges) <= REPLAY_SLICE and not ended  # this turn took one slice; the rest wait their turn
    qtbot.waitUntil(lambda: bool(ended), timeout=10_000)
    assert run.merges == MERGES and ended == ["finished"] and run.state == "finished"
    assert sum(added) == len(MERGES) and max(added) <= REPLAY_SLICE
    assert run.largest_slice <= REPLAY_SLICE
    assert run.summary == RunSummary(len(MERGES), False)


def test_the_end_comes_after_every_record_sent_before_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Cancelled (or failed) with merges still to take in: they are all kept, then the run ends."""
    for end, state in ((lambda job: job.cancelled.emit(), "cancelled"),
                       (lambda job: job.failed.emit("out of memory"), "failed")):
        run, job, ended, _ = started_run()
        send_all(job, [MergeStage(len(MERGES), 100_000, 1, 0, ()), *(Learned(m, -1) for m in MERGES[:3000])])
        end(job)
        qtbot.waitUntil(lambda: bool(ended), timeout=10_000)
        assert run.merges == MERGES[:3000] and ended == [state] and run.state == state
        assert run.error == ("out of memory" if state == "failed" else "")


def test_a_trained_tokenizer_is_listed_taken_up_and_shown_in_turns_of_their_own(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """Pickers list it, every pane takes it up, the pane shows the result: three event-loop turns
    (in one, 70-90 ms of the GUI thread's own work at the end of a 32,768 run)."""
    from PySide6.QtCore import QTimer

    from explorer.ui.training import create_pane

    pane = create_pane(session)
    qtbot.addWidget(pane)
    session.set_corpus(Corpus((Source.pasted("the cat sat on the mat, the cat sat " * 20),)))
    pane.form.set_vocab_size(300)
    turn = [0]
    ticker = QTimer()
    ticker.setInterval(0)
    ticker.timeout.connect(lambda: turn.__setitem__(0, turn[0] + 1))
    ticker.start()
    seen: dict[str, int] = {}
    session.tokenizers_changed.connect(lambda: seen.setdefault("listed", turn[0]))
    session.tokenizer_changed.connect(lambda tokenizer: seen.setdefault("taken up", turn[0]))
    assert pane.start()
    qtbot.waitUntil(lambda: pane.tokenizer is not None and pane.result_box.tokenizer is pane.tokenizer, timeout=30_000)
    ticker.stop()
    assert seen["listed"] < seen["taken up"]
    assert session.tokenizer is pane.tokenizer and session.tokenizer_spec == f"trained:{pane.tokenizer.name}"
    assert pane.tokenizer.name in session.trained and pane.tokenizer.name in session.unsaved


def test_showing_split_characters_imports_nothing_on_the_gui_thread() -> None:
    """The Tokens pane's first text under a new tokenizer: `np.unique` would import numpy.ma there
    (23 ms of the frame that shows a trained tokenizer)."""
    import subprocess
    import sys

    code = ("import sys, numpy as np; from explorer.ui.tokens.display import glued; "
            "print(glued('a\\u093e', np.array([0, 1, 1]), np.array([0, 4, 2])).tolist(), "  # a vowel sign cut in two
            "glued('ab', np.array([0, 1]), np.array([0, 0])).tolist(), 'numpy.ma' in sys.modules)")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.split() == ["[1,", "2]", "[]", "False"]


def _hf_run_on_english(qtbot, session, vocab: int):  # type: ignore[no-untyped-def]
    """A shown Training pane set to train english.txt to `vocab` with the Hugging Face engine."""
    from explorer.core.corpora.corpus_sources import sample_sources
    from explorer.ui.training import create_pane

    pane = create_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1200, 800)
    pane.show()
    session.set_corpus(Corpus(tuple(s for s in sample_sources() if s.path.endswith("english.txt"))))
    pane.form.set_rules("hf")
    pane.form.set_vocab_size(vocab)
    pane.form.engine_combo.setCurrentIndex(pane.form.engine_combo.findData("hf"))
    return pane


def test_after_a_hugging_face_run_the_sentence_shows_every_merge(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """While its merges pour in, the sentence is redrawn on ticks of its own: in the end it has
    every merge, as the core's SentenceTokens gives it."""
    from explorer.core.algorithms.demo_sentence import SentenceTokens

    pane = _hf_run_on_english(qtbot, session, 1000)
    pane.demo.set_sentence("the cat sat on the hat", edited=True)
    assert pane.start()
    qtbot.waitUntil(lambda: pane.tokenizer is not None, timeout=30_000)
    assert pane.run is not None and len(pane.model.merges) == len(pane.run.merges) > 600
    expected = SentenceTokens("the cat sat on the hat", "cl100k")
    expected.apply_merges(pane.run.merges)
    assert pane.demo.tokens.applied == len(pane.run.merges) and pane.demo.tokens.ids() == expected.ids()


def test_a_hugging_face_runs_plots_are_filled_and_shown_in_turns_of_their_own(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """Their curves and labels in one turn, shown (and painted) in the next: together they were
    one frame of 50-100 ms at the end of a 32,768 run."""
    from PySide6.QtCore import QTimer

    pane = _hf_run_on_english(qtbot, session, 600)
    turn = [0]
    ticker = QTimer()
    ticker.setInterval(0)
    ticker.timeout.connect(lambda: turn.__setitem__(0, turn[0] + 1))
    ticker.start()
    refreshed: list[int] = []
    shown: list[int] = []
    refresh, show = pane.plots.refresh, pane.plots_panel.show_plots
    pane.plots.refresh = lambda: (refreshed.append(turn[0]), refresh())[1]  # type: ignore[method-assign]
    pane.plots_panel.show_plots = lambda on: (shown.append(turn[0]) if on else None, show(on))[1]  # type: ignore[method-assign]
    assert pane.start()
    qtbot.waitUntil(lambda: pane.tokenizer is not None, timeout=30_000)
    ticker.stop()
    assert shown and refreshed and shown[-1] > refreshed[-1]
    assert pane.plots_panel.showing_plots and len(pane.plots.count.x) == len(pane.run.merges)  # type: ignore[union-attr]


def test_a_hugging_face_runs_columns_are_fitted_once_its_merges_have_poured_in(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Measuring each screenful the pouring merges scrolled past took 4-11 ms of frames that also
    painted the table: no row is measured while they pour in, and the run's end fits the columns
    to the rows then in view."""
    from explorer.ui.training import create_pane, merges_table

    pane = create_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1200, 800)
    pane.show()
    session.set_corpus(Corpus((Source.pasted("ab ab"),)))
    pane.form.set_vocab_size(256 + len(MERGES))
    pane.form.engine_combo.setCurrentIndex(pane.form.engine_combo.findData("hf"))
    workers = OneJob()
    monkeypatch.setattr(session.workers, "start_process", workers.start_process)
    measured: list[str] = []
    width = merges_table.column_width
    monkeypatch.setattr(merges_table, "column_width", lambda *args: (
        measured.append(pane.run.state if pane.run else "-"), width(*args))[1])
    assert pane.start()
    send_all(workers.job, [MergeStage(len(MERGES), 100_000, 1, 0, ()), *(Learned(m, -1) for m in MERGES)])
    qtbot.waitUntil(lambda: len(pane.model.merges) > 2 * REPLAY_SLICE, timeout=10_000)  # rows poured into the table
    assert pane.run is not None and pane.run.state == "merging"
    workers.job.finished.emit(RunSummary(len(MERGES), False))
    qtbot.waitUntil(lambda: pane.run is not None and pane.run.state == "finished", timeout=10_000)
    qtbot.wait(100)
    assert "merging" not in measured and "finished" in measured  # (fitted at the end)
    assert not pane.columns.held


def test_a_hugging_face_runs_final_plots_wait_for_the_tables_refit(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """The table's refit at the end of a run repaints it over the next turns: the final plots are
    refreshed only once it has settled, not in the same turns (issue 16's longest stall)."""
    import time

    pane = _hf_run_on_english(qtbot, session, 600)
    measured: list[float] = []
    refreshed: list[float] = []
    measure, refresh = pane.columns._measure_now, pane.plots.refresh
    pane.columns._measure_now = lambda: (measure(), measured.append(time.monotonic()))[0]  # type: ignore[method-assign]
    pane.plots.refresh = lambda: (refreshed.append(time.monotonic()), refresh())[1]  # type: ignore[method-assign]
    assert pane.start()
    qtbot.waitUntil(lambda: pane.tokenizer is not None, timeout=30_000)
    assert measured and refreshed
    assert refreshed[-1] - measured[-1] >= 0.045  # (UI_REFRESH_MS after the last measure)
    assert pane.plots_panel.showing_plots


def test_a_hugging_face_runs_rows_are_measured_in_one_frame_and_the_columns_widened_in_the_next(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Measuring the rows in view at the end of a run takes 10 ms, the repaint of the widened
    table 30-40 ms more: together they made a 55 ms frame on 10 MB of multilingual text."""
    from PySide6.QtCore import QTimer

    from explorer.ui.training import merges_table

    pane = _hf_run_on_english(qtbot, session, 600)
    passes = [0]  # event-loop passes: a zero timer fires once in each
    ticker = QTimer(interval=0, timeout=lambda: passes.__setitem__(0, passes[0] + 1))
    ticker.start()
    ended = lambda: pane.run is not None and pane.run.state == "finished"  # noqa: E731
    measured: list[int] = []
    widened: list[int] = []
    width = merges_table.column_width
    monkeypatch.setattr(merges_table, "column_width", lambda *args: (
        ended() and measured.append(passes[0]), width(*args))[1])
    pane.columns.widened.connect(lambda: ended() and widened.append(passes[0]))
    assert pane.start()
    qtbot.waitUntil(lambda: pane.tokenizer is not None, timeout=30_000)
    ticker.stop()
    assert measured and widened  # (the end's refit: the rows in view measured, the columns widened to them)
    assert not set(measured) & set(widened) and min(widened) > min(measured)


def test_a_refit_between_the_measure_and_the_widening_measures_its_own_rows(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """A new font (zoom) after the rows were measured and before the columns widened: the widths
    measured at the old font are dropped, and the rows are measured again at the new one."""
    pane = _hf_run_on_english(qtbot, session, 400)
    assert pane.start()
    qtbot.waitUntil(lambda: pane.tokenizer is not None and not pane.columns.settling(0), timeout=30_000)
    columns = pane.columns
    columns.refit()
    qtbot.waitUntil(lambda: not columns.settling(0), timeout=5_000)
    fitted = dict(columns.content)
    columns.content.clear()
    columns._measured.clear()
    columns._measure_due = True
    columns._measure_now()  # measured; the widening waits for the next frame
    stale = {column: width + 500 for column, width in fitted.items()}
    widen = columns._widen_later
    columns._widen_later = lambda needed: widen(stale)  # type: ignore[method-assign]  # (the pending one)
    columns.refit()
    columns._widen_later = widen  # type: ignore[method-assign]
    qtbot.waitUntil(lambda: not columns.settling(0), timeout=5_000)
    assert columns.content == fitted and not columns._refit_due


def test_a_hugging_face_runs_final_plots_are_drawn_even_while_the_table_keeps_refitting(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    """A window resized all along keeps the table measuring: the plots and the tokenizer wait a
    few ticks at most (SETTLE_WAITS), never for ever."""
    pane = _hf_run_on_english(qtbot, session, 600)
    pane.columns.settling = lambda seconds: True  # type: ignore[method-assign]
    assert pane.start()
    qtbot.waitUntil(lambda: pane.tokenizer is not None, timeout=30_000)
    assert pane.plots_panel.showing_plots


def test_a_held_run_takes_no_records_until_let_go(qtbot) -> None:  # type: ignore[no-untyped-def]
    run, job, ended, _ = started_run()
    run.hold_intake(True)
    send_all(job, [MergeStage(len(MERGES), 100_000, 1, 0, ()), *(Learned(m, -1) for m in MERGES)])
    job.finished.emit(RunSummary(len(MERGES), False))
    qtbot.wait(100)
    assert run.merges == [] and not ended
    run.hold_intake(False)
    qtbot.waitUntil(lambda: bool(ended), timeout=10_000)
    assert run.merges == MERGES and ended == ["finished"]


def test_while_merges_pour_in_the_table_takes_them_with_the_run_held(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The table's repaint as it follows the pour and a slice of records in one frame made the
    window's longest pauses: rows go into a table that follows them only while the run takes
    no records (from the tick before to the tick after), and a table that does not follow
    holds nothing up."""
    for following in (True, False):
        pane = _hf_run_on_english(qtbot, session, 300)
        job = Job("training")
        monkeypatch.setattr(session.workers, "start_process", lambda *args, **kwargs: job)
        pane.follow.setChecked(following)
        held_when_rows_came: list[bool] = []
        pane.model.rowsInserted.connect(lambda *_: held_when_rows_came.append(pane.run.held))
        assert pane.start()
        merges = [Merge(rank, 97, 98, 256 + rank, b"ab", 90_000 - rank, 100_000 - rank) for rank in range(30_000)]
        records: list[object] = [MergeStage(len(merges), 100_000, 1, 0, ()), *(Learned(m, -1) for m in merges)]
        for start in range(0, len(records), REPLAY_SLICE):  # over a second, as a relay hands them on
            job.batch_ready.emit(records[start:start + REPLAY_SLICE])
            qtbot.wait(15)
        job.finished.emit(RunSummary(len(merges), False))
        qtbot.waitUntil(lambda: pane.run.state == "finished", timeout=20_000)
        assert pane.model.merges == merges and not pane.run.held
        poured = held_when_rows_came[:-1]  # (the last rows go in as the run ends)
        assert len(poured) >= 2 and all(poured) == following and any(poured) == following
        if following:
            bar = pane.table.verticalScrollBar()
            assert bar.value() == bar.maximum()
