"""The one worker abstraction: every slow job runs here, off the GUI thread.

A job is a generator function. The worker iterates it on a pool thread; cancel and pause
take effect between yields. Yielded items are batched and delivered on the GUI thread about
every 40 ms as one list, so a fast producer (a merge per millisecond) never floods the
event loop. Starting a job under a key cancels the previous job with that key (latest wins).

Pure-Python work that runs for seconds (training on megabytes) holds the interpreter lock so
often that the window stutters, whatever the thread does. `start_process` runs such a
generator in a child process instead, behind the same Job signals (see ProcessJob).
"""

from __future__ import annotations

import gc
import multiprocessing
import sys
import threading
import time
import traceback
import warnings
import weakref
from collections.abc import Callable, Generator, Iterable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from explorer.core.errors import ExplorerError
from explorer.ui.process_child import child_main, returned

BATCH_SECONDS = 0.04
# How long a thread that wants the interpreter lock waits before a busy worker must hand it over.
# The GUI thread takes the lock again after every Qt call that lets go of it and for every call
# into Python (a model's data() for each cell it paints), so one repaint takes it hundreds of
# times. Python's default, 5 ms, made such a repaint take a second while two workers ran; 1 ms
# still gave 100-450 ms stalls loading o200k_base's 200,000 rows; 0.2 ms brings them under 50 ms
# for 7% more time in the workers (tests/benchmarks/bench_merges_pane.py).
SWITCH_SECONDS = 0.0002


def one_value(function: Callable[[], Any]) -> Generator[None, None, Any]:
    """`function()` as a generator that yields nothing and returns its value: work with no
    progress to report, in the form jobs take."""
    return function()
    yield


def failure_message(exc: ExplorerError | OSError) -> str:
    """One line for a person: 'out/table.csv: No such file or directory'."""
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def while_alive(owner: QObject, callback: Callable[..., object]) -> Callable[..., None]:
    """`callback`, not called once `owner` (the widget it touches) is deleted: for a closure
    connected to a job's end, which Qt would otherwise call on a pane closed meanwhile (a bound
    method takes `Job.on`, which also holds its widget weakly)."""
    def call(*args: object) -> None:
        if shiboken6.isValid(owner):
            callback(*args)
    return call


def freeze_long_lived() -> None:
    """Leave what exists now (tokenizers, vocabulary tables, merge forests, the window) out of
    future garbage collections. A full collection holds the interpreter lock for as long as it
    takes to walk every object: 40-65 ms in which the window cannot repaint, measured with two
    200,000-token vocabularies loaded. Called when such long-lived data has just been built;
    `release_frozen` lets it back in once its window closes."""
    gc.freeze()


def release_frozen() -> None:
    """Let what `freeze_long_lived` left out back into collections: frozen objects that became
    garbage (a closed window's panes and tables, in cycles through their signals) are otherwise
    never collected. Called as a session shuts down, when its window has gone."""
    gc.unfreeze()


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
        self._ended = threading.Event()
        self.done = False
        self._ahead: int | None = None  # items handed over before the consumer has taken them
        self._untaken = 0
        self._room = threading.Condition()

    def cancel(self) -> None:
        self._cancel.set()
        self._running.set()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def wait(self, seconds: float) -> bool:
        """Block up to `seconds` for the job to end; True if it did. Its signals still arrive
        through the event loop. For start-up only, before the window shows (see explorer.app)."""
        return self._ended.wait(seconds)

    def _end(self) -> None:
        self.done = True
        self._ended.set()

    def keep_ahead(self, items: int) -> None:
        """From now on the job hands over at most `items` items that the consumer has not
        `taken`, and waits for room: a consumer that shows records a slice per frame (Hugging
        Face's 32,768 merges arrive in a second) would otherwise have the relay unpickling and the
        child pickling on both cores while it paints (stalls of 50-80 ms on 2 cores)."""
        self._ahead = items

    def taken(self, items: int) -> None:
        """The consumer has dealt with `items` more of the items it was handed (see keep_ahead)."""
        with self._room:
            self._untaken = max(0, self._untaken - items)
            self._room.notify()

    def _wait_for_room(self, items: int) -> None:
        """On the worker (a process job's relay): count `items` handed over, then wait while more
        than `keep_ahead` wait, until the job is cancelled (the consumer may be gone)."""
        with self._room:
            self._untaken += items
            while self._ahead is not None and self._untaken > self._ahead and not self.is_cancelled:
                self._room.wait(0.05)

    def on(self, signal_name: str, method: Callable[..., object], *context: object) -> None:
        """Call the bound `method(job, *context, *args)` when this job's `signal_name` fires.

        Tells a slot which job spoke (latest-wins checks) without `QObject.sender()`, which
        PySide6 does not always fill for queued signals, and holds `method`'s widget weakly:
        a widget deleted before its job ends is simply not called (a lambda would be, and
        touch the widget's deleted parts). `context`: what the slot needs to know of the call
        that started the job. (Named `on`, not `connect`: on a ProcessJob, a subclass of a
        subclass of QObject, PySide6 finds QObject's own `connect` first.)
        """
        receiver = weakref.WeakMethod(method)  # type: ignore[arg-type]

        def call(*args: object) -> None:
            bound = receiver()
            if bound is not None and shiboken6.isValid(bound.__self__):
                bound(self, *context, *args)

        getattr(self, signal_name).connect(call)

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
        job, emit = self.job, self._emit
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
                    if not emit("batch_ready", batch):  # no one is left to hear the rest
                        job.cancel()
                    job._wait_for_room(len(batch))
                    batch, last = [], now
            if batch:
                emit("batch_ready", batch)
            if job.is_cancelled:
                if hasattr(iterator, "close"):
                    iterator.close()
                emit("cancelled")
            else:
                emit("finished", result)
        except (ExplorerError, OSError) as exc:  # a file that cannot be written is no bug: say which
            if batch:
                emit("batch_ready", batch)  # what came before the error still counts
            emit("failed", failure_message(exc))
        except MemoryError:
            emit("failed", f"{job.name}: out of memory; try a smaller input")
        except Exception as exc:  # a bug: show it rather than lose it silently
            emit("failed", f"{job.name} failed unexpectedly: {exc!r}\n\n{traceback.format_exc(limit=6)}")
        finally:
            job._end()
            self.on_done(job)

    def _emit(self, name: str, *args: Any) -> bool:
        """Emit the job's signal `name`; False once the job's QObject is gone (its session was
        deleted while the work ran, as a closed window's is): there is no one to tell, and an
        emit then raised in the pool thread ("Signal source has been deleted")."""
        try:
            getattr(self.job, name).emit(*args)
        except RuntimeError:
            if shiboken6.isValid(self.job):
                raise
            return False
        return True


_J = TypeVar("_J", bound="Job")


def _disconnect_all(job: Job) -> None:
    """Drop the slots of an ended job (its last signal has arrived). Its listeners' lambdas hold
    the job, and the job's connections hold them, a cycle through C++ that gc never sees: every
    job ever run stayed alive, and with it whatever its slots held (a Merges pane's loader and
    its 200,000-row vocabulary table, ~100 MB a pane)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (PySide warns of a signal nobody listened to)
        for signal in (job.batch_ready, job.finished, job.failed, job.cancelled):
            signal.disconnect()


class Workers(QObject):
    """Starts jobs on a thread pool; the only place in the app that starts threads."""

    job_started = Signal(object)
    job_ended = Signal(object)  # on the GUI thread, after the job's own last signal
    _ended = Signal(object)  # from the job's thread: see _forget

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_SECONDS))
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(max(2, QThreadPool.globalInstance().maxThreadCount()))
        self._by_key: dict[str, Job] = {}
        self._jobs: set[Job] = set()
        self._lock = threading.Lock()
        self._ended.connect(self._release)  # queued: the job's thread emits, the GUI thread runs it
        # Threads that relay a child process's results: they mostly wait on a pipe, so they get
        # their own pool and never hold up short jobs on the main one.
        self.relay_pool = QThreadPool()
        self.relay_pool.setMaxThreadCount(16)
        self._held_until = 0.0  # time.monotonic() before which new jobs wait to start (see hold)
        # Jobs started but not yet given to the pool (see start), in the order they are due. One
        # timer, a child of this object, starts them: a job left waiting at shutdown is released
        # there, not kept for good with whatever its slots hold.
        self._waiting: list[tuple[float, _Runner]] = []
        self._start_timer = QTimer(self, singleShot=True)
        self._start_timer.timeout.connect(self._start_due)

    def hold(self, ms: int) -> None:
        """Start no new pool job for the next `ms` milliseconds: jobs started meanwhile wait, then
        run. For the frames that show a big change (a tokenizer published to every pane): the jobs
        it sets off share the interpreter lock with the GUI thread, which takes it for each call
        into Python while it paints, and each take waits for a busy worker to let go."""
        self._held_until = max(self._held_until, time.monotonic() + ms / 1000)

    def start(self, name: str, work: Callable[[], Iterable[Any]], key: str | None = None) -> Job:
        """Run `work()` (a generator function) off the GUI thread; cancel the last job of `key`."""
        job = self._register(Job(name), key)
        # Start on the next event-loop turn: the caller connects to the job's signals first, so
        # a job that ends within microseconds cannot emit before anyone listens.
        self._waiting.append((max(self._held_until, time.monotonic()), _Runner(job, work, self._forget)))
        self._waiting.sort(key=lambda waiting: waiting[0])
        self._start_timer.start(self._ms_until_due())
        self.job_started.emit(job)
        return job

    def _ms_until_due(self) -> int:
        return max(0, round((self._waiting[0][0] - time.monotonic()) * 1000))

    def _start_due(self) -> None:
        now = time.monotonic()
        while self._waiting and self._waiting[0][0] <= now:
            self.pool.start(self._waiting.pop(0)[1])
        if self._waiting:
            self._start_timer.start(self._ms_until_due())

    def start_call(self, name: str, function: Callable[[], Any], key: str | None = None) -> Job:
        """Run `function()` off the GUI thread; its return value arrives through `finished`."""
        return self.start(name, lambda: one_value(function), key)

    def start_process_call(self, name: str, function: Callable[..., Any], args: tuple[Any, ...] = (),
                           key: str | None = None) -> ProcessJob:
        """Run `function(*args)` (module-level, or a method of a picklable object) in a child process;
        its return value arrives through `finished`. For work that would hold the interpreter lock:
        in a thread of this process it holds up the window."""
        return self.start_process(name, returned, (function, *args), key)

    def start_process(self, name: str, function: Callable[..., Iterable[Any]], args: tuple[Any, ...] = (),
                      key: str | None = None, step_types: tuple[type, ...] = (object,)) -> ProcessJob:
        """Run `function(*args)` (a module-level generator function, picklable arguments) in a child process.

        Items that are instances of `step_types` are the ones `ProcessJob.step` counts and
        `ProcessJob.set_rate` paces; other items (progress records) pass freely.
        """
        job = self._register(ProcessJob(name), key)
        self.relay_pool.start(_ProcessRunner(job, function, args, step_types, self._forget))
        self.job_started.emit(job)
        return job

    def _register(self, job: _J, key: str | None) -> _J:
        """Track `job`; a key cancels the previous job started under it (latest wins)."""
        if key is not None:
            previous = self._by_key.get(key)
            if previous is not None:
                previous.cancel()
            self._by_key[key] = job
        with self._lock:
            self._jobs.add(job)
        return job

    def _forget(self, job: Job) -> None:
        """Called on the job's thread as it ends. The job is let go of on the GUI thread, after the
        signals it has just emitted: dropped here, a job nobody else holds would be destroyed with
        its `finished` or `failed` still queued, and that signal would never arrive."""
        if shiboken6.isValid(self):  # at exit the Workers object may already be gone
            self._ended.emit(job)

    def _release(self, job: Job) -> None:
        with self._lock:
            self._jobs.discard(job)
        for key in [key for key, latest in self._by_key.items() if latest is job]:
            del self._by_key[key]
        self.job_ended.emit(job)
        _disconnect_all(job)

    def _release_waiting(self) -> None:
        """End the jobs that never reached the pool as cancelled, and let go of them."""
        self._start_timer.stop()
        waiting, self._waiting = self._waiting, []
        for _, runner in waiting:
            runner.job.cancel()
            runner.job._end()
            runner.job.cancelled.emit()
            self._release(runner.job)


    @property
    def running(self) -> list[Job]:
        with self._lock:
            return [job for job in self._jobs if not job.done]

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel every job, end child processes at once, and wait up to `timeout_ms` for the
        threads; True if they all ended. The window calls it with a short wait as it closes (a
        thread busy in one long step finishes it after the window has gone), then the app calls
        it again with the long wait before the interpreter exits."""
        deadline = time.monotonic() + timeout_ms / 1000
        self._release_waiting()
        for job in self.running:
            if isinstance(job, ProcessJob):
                job.terminate()  # nothing a child computes is kept once the window closes
            else:
                job.cancel()
        threads_done = self.pool.waitForDone(max(0, int((deadline - time.monotonic()) * 1000)))
        return self.relay_pool.waitForDone(max(0, int((deadline - time.monotonic()) * 1000))) and threads_done


# Work in a child process

CANCEL_GRACE_SECONDS = 2.0  # then a child that does not answer is terminated


class ProcessJob(Job):
    """A job whose generator runs in a child process (the 'spawn' start method).

    Same signals as Job, delivered on the GUI thread. `pause`, `resume` and `cancel` travel to
    the child as commands and act between yields; `step(n)` lets n more steppable items through
    and then pauses; `set_rate(r)` paces steppable items to at most r a second (None: full
    speed). A child that dies is reported through `failed`; a cancelled child that does not
    stop within two seconds (busy inside one long C call) is terminated.
    """

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._commands: Connection | None = None
        self._pending: list[tuple[Any, ...]] = []
        self._command_lock = threading.Lock()
        self._paused = False
        self._process: multiprocessing.process.BaseProcess | None = None

    def _send(self, command: tuple[Any, ...]) -> None:
        with self._command_lock:
            if self._commands is None:
                self._pending.append(command)
                return
            try:
                self._commands.send(command)
            except OSError:
                pass  # the child has ended; its end is reported by the relay

    def _connect(self, commands: Connection | None) -> None:
        with self._command_lock:
            self._commands = commands
            pending, self._pending = self._pending, []
        for command in pending:
            self._send(command)

    def cancel(self) -> None:
        self._cancel.set()
        self._send(("cancel",))

    def terminate(self) -> None:
        """Cancel and end the child now, without the grace a cancel gives it to stop by itself."""
        self.cancel()
        process = self._process
        if process is not None and process.is_alive():
            process.terminate()

    def pause(self) -> None:
        self._paused = True
        self._send(("pause",))

    def resume(self) -> None:
        self._paused = False
        self._send(("resume",))

    def step(self, count: int = 1) -> None:
        """Let `count` more steppable items through, then pause."""
        self._paused = True
        self._send(("step", count))

    def set_rate(self, per_second: float | None) -> None:
        self._send(("rate", per_second))

    @property
    def is_paused(self) -> bool:
        return self._paused


class _ProcessRunner(QRunnable):
    """Starts the child, relays its batches as signals, and makes sure it ends."""

    def __init__(self, job: ProcessJob, function: Callable[..., Iterable[Any]], args: tuple[Any, ...],
                 step_types: tuple[type, ...], on_done: Callable[[Job], None]) -> None:
        super().__init__()
        self.job, self.function, self.args, self.step_types, self.on_done = job, function, args, step_types, on_done
        self.setAutoDelete(True)

    def run(self) -> None:
        job = self.job
        context = multiprocessing.get_context("spawn")
        results, child_results = context.Pipe(duplex=False)
        child_commands, commands = context.Pipe(duplex=False)
        process = context.Process(target=child_main, name=f"explorer: {job.name}", daemon=True,
                                  args=(self.function, self.args, self.step_types, child_results, child_commands, BATCH_SECONDS))
        try:
            process.start()
            job._process = process
            if job.is_cancelled:  # terminated while it started
                process.terminate()
            child_results.close()
            child_commands.close()
            job._connect(commands)
            self._relay(process, results)
        except Exception as exc:  # could not start the child (resources, pickling): say so
            job.failed.emit(f"{job.name} could not start: {exc!r}")
        finally:
            job._connect(None)
            for connection in (results, commands):
                connection.close()
            if process.is_alive():
                process.join(0.5)
            if process.is_alive():
                process.kill()
                process.join(1.0)
            job._end()
            self.on_done(job)

    def _relay(self, process: multiprocessing.process.BaseProcess, results: Connection) -> None:
        job = self.job
        cancelled_at: float | None = None
        while True:
            if job.is_cancelled and cancelled_at is None:
                cancelled_at = time.monotonic()
            if results.poll(0.05):
                try:
                    kind, payload = results.recv()
                except (EOFError, OSError):
                    kind, payload = "died", None
                if kind == "batch":
                    job.batch_ready.emit(payload)
                    job._wait_for_room(len(payload))
                    continue
                if kind == "finished" and not job.is_cancelled:
                    job.finished.emit(payload)
                elif kind == "failed" and not job.is_cancelled:
                    job.failed.emit(payload)
                elif kind == "died" and not job.is_cancelled:
                    process.join(1.0)
                    job.failed.emit(_died_message(job, process))
                else:
                    job.cancelled.emit()
                return
            if not process.is_alive() and not results.poll(0):
                if job.is_cancelled:
                    job.cancelled.emit()
                else:
                    job.failed.emit(_died_message(job, process))
                return
            if cancelled_at is not None and time.monotonic() - cancelled_at > CANCEL_GRACE_SECONDS:
                process.terminate()
                job.cancelled.emit()
                return


def _died_message(job: Job, process: multiprocessing.process.BaseProcess) -> str:
    return (f"{job.name}: the worker process ended unexpectedly (exit code {process.exitcode}); "
            "it may have run out of memory")
