"""The one worker abstraction: every slow job runs here, off the GUI thread.

A job is a generator function. The worker iterates it on a pool thread; cancel and pause
take effect between yields. Yielded items are batched and delivered on the GUI thread about
every 40 ms as one list, so a fast producer (a merge per millisecond) never floods the
event loop. Starting a job under a key cancels the previous job with that key (latest wins).
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable, Generator, Iterable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from explorer.core.errors import ExplorerError

BATCH_SECONDS = 0.04


class Job(QObject):
    """Handle on one running job; its signals arrive on the GUI thread."""

    batch_ready = Signal(list)  # yielded items since the last batch
    finished = Signal(object)  # the generator's return value
    failed = Signal(str)  # a message for a person
    cancelled = Signal()

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self._cancel = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self.done = False

    def cancel(self) -> None:
        self._cancel.set()
        self._running.set()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    @property
    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def is_paused(self) -> bool:
        return not self._running.is_set()


class _Runner(QRunnable):
    def __init__(self, job: Job, work: Callable[[], Iterable[Any] | Generator[Any, None, Any]],
                 on_done: Callable[[Job], None]) -> None:
        super().__init__()
        self.job, self.work, self.on_done = job, work, on_done
        self.setAutoDelete(True)

    def run(self) -> None:
        job = self.job
        batch: list[Any] = []
        last = time.monotonic()
        result: Any = None
        try:
            iterator = iter(self.work())
            while True:
                job._running.wait()
                if job.is_cancelled:
                    break
                try:
                    batch.append(next(iterator))
                except StopIteration as stop:
                    result = stop.value
                    break
                now = time.monotonic()
                if now - last >= BATCH_SECONDS:
                    job.batch_ready.emit(batch)
                    batch, last = [], now
            if batch:
                job.batch_ready.emit(batch)
            if job.is_cancelled:
                if hasattr(iterator, "close"):
                    iterator.close()
                job.cancelled.emit()
            else:
                job.finished.emit(result)
        except ExplorerError as exc:
            job.failed.emit(str(exc))
        except MemoryError:
            job.failed.emit(f"{job.name}: out of memory; try a smaller input")
        except Exception as exc:  # a bug: show it rather than lose it silently
            job.failed.emit(f"{job.name} failed unexpectedly: {exc!r}\n\n{traceback.format_exc(limit=6)}")
        finally:
            job.done = True
            self.on_done(job)


class Workers(QObject):
    """Starts jobs on a thread pool; the only place in the app that starts threads."""

    job_started = Signal(object)
    job_ended = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(max(2, QThreadPool.globalInstance().maxThreadCount()))
        self._by_key: dict[str, Job] = {}
        self._jobs: set[Job] = set()
        self._lock = threading.Lock()

    def start(self, name: str, work: Callable[[], Iterable[Any]], key: str | None = None) -> Job:
        """Run `work()` (a generator function) off the GUI thread; cancel the last job of `key`."""
        job = Job(name)
        if key is not None:
            previous = self._by_key.get(key)
            if previous is not None:
                previous.cancel()
            self._by_key[key] = job
        with self._lock:
            self._jobs.add(job)
        self.pool.start(_Runner(job, work, self._forget))
        self.job_started.emit(job)
        return job

    def _forget(self, job: Job) -> None:
        with self._lock:
            self._jobs.discard(job)

    @property
    def running(self) -> list[Job]:
        with self._lock:
            return [job for job in self._jobs if not job.done]

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel every job and wait for the threads (called when the window closes)."""
        for job in self.running:
            job.cancel()
        return self.pool.waitForDone(timeout_ms)
