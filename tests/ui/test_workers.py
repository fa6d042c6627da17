"""The one worker abstraction: signal order, cancel, failure, latest-wins, pause/resume."""

from __future__ import annotations

import threading
import time

from pytestqt.qtbot import QtBot

from explorer.core.errors import ExplorerError
from explorer.ui.session import Session
from explorer.ui.workers import Job, ProcessJob, Workers, freeze_long_lived


def counting(n: int, delay: float = 0.0):  # type: ignore[no-untyped-def]
    def work():  # type: ignore[no-untyped-def]
        for i in range(n):
            time.sleep(delay)
            yield i
        return "done"
    return work


def test_start_progress_finish_in_order(qtbot: QtBot) -> None:
    workers = Workers()
    batches: list[int] = []
    with qtbot.waitSignal(workers.job_started, timeout=1000) as started:
        job = workers.start("count", counting(5))
    assert started.args == [job]
    order: list[object] = []
    job.batch_ready.connect(lambda items: (batches.extend(items), order.append("batch")))
    job.finished.connect(lambda result: order.append(("finished", result)))
    with qtbot.waitSignals([job.batch_ready, job.finished], order="strict", timeout=5000):
        pass
    assert batches == [0, 1, 2, 3, 4]
    assert order[-1] == ("finished", "done") and set(order[:-1]) == {"batch"}
    assert workers.shutdown()


def test_cancel_stops_between_yields(qtbot: QtBot) -> None:
    workers = Workers()
    job = workers.start("slow", counting(1000, 0.005))
    seen: list[int] = []
    job.batch_ready.connect(seen.extend)
    qtbot.waitSignal(job.batch_ready, timeout=5000).wait()
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()
    assert 0 < len(seen) < 1000
    assert workers.shutdown()


def test_failure_is_a_message_for_a_person(qtbot: QtBot) -> None:
    workers = Workers()

    def broken():  # type: ignore[no-untyped-def]
        yield 1
        raise ExplorerError("the corpus is empty; add a text file first")

    job = workers.start("broken", broken)
    messages: list[str] = []
    job.failed.connect(messages.append)
    with qtbot.waitSignals([job.batch_ready, job.failed], order="strict", timeout=5000):
        pass
    assert messages == ["the corpus is empty; add a text file first"]
    assert workers.shutdown()


def test_latest_wins_for_the_same_key(qtbot: QtBot) -> None:
    workers = Workers()
    first = workers.start("first", counting(1000, 0.005), key="k")
    second = workers.start("second", counting(3), key="k")
    with qtbot.waitSignals([first.cancelled, second.finished], order="none", timeout=5000):
        pass
    assert first.is_cancelled and not second.is_cancelled
    assert workers.shutdown()


def test_pause_and_resume(qtbot: QtBot) -> None:
    workers = Workers()
    produced: list[int] = []
    gate = threading.Event()

    def work():  # type: ignore[no-untyped-def]
        for i in range(200):
            produced.append(i)
            if i == 5:
                gate.set()
            time.sleep(0.002)
            yield i

    job = workers.start("pausable", work)
    qtbot.waitUntil(gate.is_set, timeout=5000)
    job.pause()
    time.sleep(0.05)
    frozen = len(produced)
    time.sleep(0.1)
    assert len(produced) <= frozen + 1 and job.is_paused
    with qtbot.waitSignal(job.finished, timeout=5000):
        job.resume()
    assert len(produced) == 200
    assert workers.shutdown()


def test_shutdown_cancels_running_jobs(qtbot: QtBot) -> None:
    workers = Workers()
    job = workers.start("endless", counting(10**9, 0.001))
    qtbot.waitSignal(job.batch_ready, timeout=5000).wait()
    assert workers.shutdown(5000)
    assert job.is_cancelled and job.done


def test_a_job_nobody_holds_still_delivers_its_last_signal(qtbot) -> None:  # type: ignore[no-untyped-def]
    import gc

    workers = Workers()
    arrived: list[str] = []

    def fail() -> None:
        raise ExplorerError("no such folder")

    for _ in range(20):  # the job ends and its thread lets go of it before the GUI thread runs the slot
        workers.start_call("failing", fail).failed.connect(arrived.append)
        gc.collect()
    qtbot.waitUntil(lambda: len(arrived) == 20, timeout=5000)
    qtbot.waitUntil(lambda: not workers.running)
    assert arrived == ["no such folder"] * 20
    workers.shutdown()


def test_an_ended_job_lets_go_of_what_its_listeners_hold(qtbot: QtBot) -> None:
    """A pane's lambda on a job's signal holds the job (latest-wins checks) and the pane: a cycle
    through the job's C++ connections that gc cannot see. Every job ever run stayed alive, and
    each Merges pane's 200,000-row vocabulary table with it (~100 MB a pane)."""
    import gc
    import weakref

    class Pane:  # what a listener holds
        pass

    workers = Workers()
    pane = Pane()
    held = weakref.ref(pane)
    job = workers.start_call("one value", lambda: 1)
    job.finished.connect(lambda value, pane=pane, job=job: None)
    with qtbot.waitSignal(workers.job_ended, timeout=10_000):
        pass
    del pane, job
    gc.collect()
    assert held() is None
    assert workers.shutdown()


def test_held_jobs_start_when_the_hold_ends(qtbot: QtBot) -> None:
    """What a published tokenizer sets off waits out the hold, then runs as usual; latest wins meanwhile."""
    workers = Workers()
    started: list[float] = []

    def work():  # type: ignore[no-untyped-def]
        started.append(time.monotonic())
        yield 1
        return "done"

    workers.hold(300)
    asked = time.monotonic()
    first = workers.start("first", work, key="k")
    job = workers.start("held", work, key="k")
    qtbot.wait(150)
    assert not started  # still held
    with qtbot.waitSignals([first.cancelled, job.finished], order="none", timeout=5000):
        pass
    assert len(started) == 1 and started[0] - asked >= 0.28  # (Qt's coarse timers may fire 5% early: 285 ms)
    assert workers.shutdown()


def test_a_job_that_never_started_is_released_at_shutdown(qtbot: QtBot) -> None:
    """Jobs start on the next event-loop turn; a session shut down before that turn (a window
    closed as it opened) left them waiting for good: still `running`, and holding whatever
    their work and their listeners hold."""
    import gc
    import weakref

    class Corpus:  # what the work holds
        pass

    workers = Workers()
    corpus = Corpus()
    held = weakref.ref(corpus)
    ended: list[str] = []
    job = workers.start_call("never started", lambda corpus=corpus: corpus, key="corpus")
    job.cancelled.connect(lambda: ended.append("cancelled"))
    job.finished.connect(lambda value: ended.append("finished"))
    assert workers.shutdown(1000)
    assert job.done and job.is_cancelled and not workers.running
    assert ended == ["cancelled"], "its listeners hear that it ended"
    del corpus, job
    gc.collect()
    assert held() is None


def test_what_was_frozen_is_collected_once_its_session_shuts_down(session: Session) -> None:
    """freeze_long_lived leaves what exists out of collections; nothing let it back in, so the
    cycles among it that became garbage later (a closed window's panes) stayed for good."""
    import gc
    import weakref

    class Table:  # long-lived data, in a cycle as a pane's models are
        pass

    table = Table()
    table.itself = table  # type: ignore[attr-defined]
    held = weakref.ref(table)
    freeze_long_lived()
    del table
    gc.collect()
    assert held() is not None  # (frozen: what the app wants while the session lives)
    session.shutdown()
    gc.collect()
    assert held() is None


def test_a_job_whose_object_is_deleted_while_it_runs_stops_quietly(qtbot: QtBot, capfd) -> None:  # type: ignore[no-untyped-def]
    """A closed window's session (and its jobs' QObjects) can be deleted while a job still reads
    in the pool: its next emit raised "Signal source has been deleted" in the pool thread (and
    again for `failed`), printed as a traceback, and nothing said why."""
    import shiboken6

    workers = Workers()
    yielded: list[int] = []

    def work():  # type: ignore[no-untyped-def]
        for i in range(400):
            time.sleep(0.005)
            yielded.append(i)
            yield i

    job = workers.start("reading", work)
    qtbot.waitSignal(job.batch_ready, timeout=5000).wait()
    capfd.readouterr()
    shiboken6.delete(job)
    assert job._ended.wait(5), "the work did not stop"
    time.sleep(0.1)  # (the pool thread's last words, if any)
    assert "Traceback" not in capfd.readouterr().err
    assert len(yielded) < 400, "the work went on for no one"
    assert workers.shutdown()


def test_a_slot_gets_its_job_and_context_and_nothing_once_its_widget_is_gone(qtbot: QtBot) -> None:
    """`Job.on(signal, method, *context)`: the slot hears which job spoke and what the call
    that started it knew; a widget deleted before the job ends is not called (a lambda was, and
    touched its deleted children)."""
    import shiboken6
    from PySide6.QtWidgets import QWidget

    class Listener(QWidget):
        def __init__(self) -> None:
            super().__init__()
            self.heard: list[tuple[object, ...]] = []

        def on_finished(self, job: object, first: str, second: int, result: object) -> None:
            self.heard.append((job, first, second, result))

    workers = Workers()
    kept, gone = Listener(), Listener()
    release = threading.Event()

    def work():  # type: ignore[no-untyped-def]
        release.wait(5)
        return "result"
        yield  # (a generator)

    job = workers.start("waiting", work)
    job.on("finished", kept.on_finished, "query", 7)
    job.on("finished", gone.on_finished, "query", 7)
    heard_by_gone = gone.heard
    shiboken6.delete(gone)
    with qtbot.waitSignal(job.finished, timeout=5000):
        release.set()
    assert kept.heard == [(job, "query", 7, "result")] and heard_by_gone == []
    assert workers.shutdown()


def test_a_process_job_takes_on_as_a_thread_job_does() -> None:
    """PySide6 resolves `connect` on a ProcessJob (a subclass of a subclass of QObject) to
    QObject's own, not to the method Job defined under that name: a training run's
    `job.connect("finished", ...)` raised TypeError. `on` is the job's own on both kinds."""
    for job in (Job("thread"), ProcessJob("process")):
        assert job.on.__func__ is Job.on, type(job).__name__
