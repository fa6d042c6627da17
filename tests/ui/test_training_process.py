"""The process-backed job: batches, step, pause, rate, cancel and failures across a child process."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from explorer.core.errors import ExplorerError
from explorer.ui.workers import ProcessJob, Workers


class Tick(int):
    """A steppable item (progress items are plain strings)."""


def numbers(count: int, delay: float = 0.0) -> Iterator[object]:
    yield "starting"
    for i in range(count):
        if delay:
            time.sleep(delay)
        yield Tick(i)
    return f"done {count} in {os.getpid()}"


def broken() -> Iterator[int]:
    yield 1
    raise ExplorerError("the corpus is empty")


def dies() -> Iterator[int]:
    yield 1
    os._exit(3)


@pytest.fixture
def workers(qapp: object) -> Iterator[Workers]:
    pool = Workers()
    yield pool
    pool.shutdown()


def collect(job: ProcessJob) -> list[object]:
    items: list[object] = []
    job.batch_ready.connect(items.extend)
    return items


def test_runs_in_another_process_and_batches(qtbot, workers: Workers) -> None:  # type: ignore[no-untyped-def]
    job = workers.start_process("count", numbers, (5000,), step_types=(Tick,))
    items = collect(job)
    with qtbot.waitSignal(job.finished, timeout=20_000) as blocker:
        pass
    assert items == ["starting", *range(5000)]
    assert blocker.args[0].startswith("done 5000") and not blocker.args[0].endswith(str(os.getpid()))
    qtbot.waitUntil(lambda: job.done)


def test_step_pause_resume_and_cancel(qtbot, workers: Workers) -> None:  # type: ignore[no-untyped-def]
    job = workers.start_process("count", numbers, (1_000_000,), step_types=(Tick,))
    items = collect(job)
    job.step(1)  # sent before the child starts: it waits at the first Tick
    qtbot.waitUntil(lambda: Tick(0) in items, timeout=20_000)
    time.sleep(0.2)
    qtbot.wait(100)
    assert items == ["starting", 0] and job.is_paused  # progress items pass, one Tick only
    job.step(3)
    qtbot.waitUntil(lambda: len(items) == 5)
    job.resume()
    qtbot.waitUntil(lambda: len(items) > 1000, timeout=10_000)
    job.pause()
    seen = [-1]

    def settled() -> bool:  # batches already in the pipe still arrive; then nothing more
        qtbot.wait(300)
        still, seen[0] = len(items) == seen[0], len(items)
        return still

    qtbot.waitUntil(settled, timeout=10_000)
    paused_at = len(items)
    qtbot.wait(500)
    assert len(items) == paused_at
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()
    assert items == ["starting", *range(len(items) - 1)]


def test_rate_paces_steppable_items(qtbot, workers: Workers) -> None:  # type: ignore[no-untyped-def]
    job = workers.start_process("count", numbers, (1_000_000,), step_types=(Tick,))
    items = collect(job)
    job.set_rate(20)
    qtbot.waitUntil(lambda: len(items) > 2, timeout=20_000)
    start, count = time.monotonic(), len(items)
    qtbot.wait(1000)
    rate = (len(items) - count) / (time.monotonic() - start)
    assert 10 <= rate <= 30
    job.set_rate(None)
    qtbot.waitUntil(lambda: len(items) > 5000, timeout=5000)
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()


def test_errors_and_crashes_are_reported(qtbot, workers: Workers) -> None:  # type: ignore[no-untyped-def]
    job = workers.start_process("broken", broken)
    with qtbot.waitSignal(job.failed, timeout=20_000) as blocker:
        pass
    assert blocker.args == ["the corpus is empty"]
    job = workers.start_process("dies", dies)
    with qtbot.waitSignal(job.failed, timeout=20_000) as blocker:
        pass
    assert "ended unexpectedly (exit code 3)" in blocker.args[0]


def test_latest_job_of_a_key_wins_and_shutdown_stops_children(qtbot, workers: Workers) -> None:  # type: ignore[no-untyped-def]
    first = workers.start_process("slow", numbers, (10_000, 0.01), key="train")
    with qtbot.waitSignal(first.cancelled, timeout=20_000):
        second = workers.start_process("slow", numbers, (10_000, 0.01), key="train")
    assert not second.is_cancelled
    assert workers.shutdown(10_000)
    assert second.done


def test_a_fast_generator_arrives_in_bounded_batches(qtbot, workers: Workers) -> None:  # type: ignore[no-untyped-def]
    """The Hugging Face engine yields all its merges at once: no batch is so big that the window
    spends a tenth of a second unpickling and showing it."""
    from explorer.ui.process_child import MAX_BATCH

    job = workers.start_process("count", numbers, (20_000,), step_types=(Tick,))
    sizes: list[int] = []
    job.batch_ready.connect(lambda items: sizes.append(len(items)))
    with qtbot.waitSignal(job.finished, timeout=20_000):
        pass
    assert sum(sizes) == 20_001 and max(sizes) <= MAX_BATCH


def test_the_relay_keeps_no_more_than_asked_ahead_of_the_consumer(qtbot, workers: Workers) -> None:  # type: ignore[no-untyped-def]
    """A consumer that shows records a slice per frame has the relay wait for it (keep_ahead), so
    that the relay and the child do not take the cores while it paints; taking some in makes room."""
    job = workers.start_process("count", numbers, (5000,), step_types=(Tick,))
    job.keep_ahead(1000)
    items = collect(job)
    qtbot.waitUntil(lambda: len(items) >= 1000, timeout=20_000)
    qtbot.wait(500)  # time enough for the rest to come, were the relay not waiting
    assert 1000 <= len(items) <= 1000 + 512  # (the batch that went over)
    with qtbot.waitSignal(job.finished, timeout=20_000):
        taken = 0
        while not job.done:
            job.taken(len(items) - taken)
            taken = len(items)
            qtbot.wait(20)
    assert items == ["starting", *range(5000)]


def test_a_relay_waiting_for_room_stops_at_cancel(qtbot, workers: Workers) -> None:  # type: ignore[no-untyped-def]
    job = workers.start_process("count", numbers, (100_000,), step_types=(Tick,))
    job.keep_ahead(10)
    items = collect(job)
    qtbot.waitUntil(lambda: len(items) > 0, timeout=20_000)
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()
    qtbot.waitUntil(lambda: job.done, timeout=5000)
    assert len(items) < 100_000
