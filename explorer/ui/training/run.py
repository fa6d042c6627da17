"""One training run seen from the window: the child-process job, what it has sent, and its state.

The run starts `run_training` in a child process (the trainer is pure Python and would starve
the window of the interpreter lock in a thread), keeps every record that comes back, and tells
the pane what changed once per batch. Step and Play send commands to the real trainer.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from explorer.core.algorithms.train import Merge
from explorer.core.algorithms.training_eta import HfRunEta
from explorer.core.algorithms.training_run import (
    Counting, Learned, MergeStage, RunSummary, TrainingSettings, run_training)
from explorer.core.corpora.corpus_sources import Corpus
from explorer.ui.workers import Job, ProcessJob, Workers, freeze_long_lived

RATE_WINDOW_SECONDS = 2.0
# Records taken in per event-loop turn at most. Hugging Face's 32,512 merges reach the window all
# at once, 64 batches queued together; handled as they came, one turn took 20-30 ms of the GUI
# thread's own time (their records, the table and plots fed from them) and the window stalled
# 55-100 ms. In slices (a batch's worth), each turn costs a few milliseconds and the window paints in between.
REPLAY_SLICE = 512
KEEP_AHEAD = 4 * REPLAY_SLICE  # records the job hands over before this takes them in (Job.keep_ahead)

# States, in words the status line can use.
IDLE, STARTING, COUNTING, MERGING, PAUSED, FINISHED, CANCELLED, FAILED = (
    "idle", "starting", "counting", "merging", "paused", "finished", "cancelled", "failed")
ENDED = (FINISHED, CANCELLED, FAILED)


@dataclass(frozen=True, slots=True)
class _Ending:
    """How the job ended, queued behind the records it sent before."""

    state: str  # FINISHED, CANCELLED or FAILED
    payload: object  # the summary, or the failure's message


class TrainingRun(QObject):
    merges_added = Signal(list)  # the new Merge records of one batch
    progressed = Signal()  # counting progress, stage, rate: anything the status line shows
    state_changed = Signal(str)
    ended = Signal(str)  # FINISHED, CANCELLED or FAILED

    def __init__(self, corpus: Corpus, settings: TrainingSettings, name: str = "",
                 metadata: dict[str, Any] | None = None, parent: QObject | None = None, build: bool = False) -> None:
        super().__init__(parent)
        self.corpus, self.settings = corpus, settings
        self.name, self.metadata = name, dict(metadata or {})
        self.build = build  # the child builds the finished tokenizer (the pane builds it on a thread instead)
        self.merges: list[Merge] = []
        self.held_out_tokens: list[int] = []  # after each merge (-1 without held-out text)
        self.counting: Counting | None = None
        self.stage: MergeStage | None = None
        self.summary: RunSummary | None = None
        self.error = ""
        self.state = IDLE
        self.rate: float | None = None  # merges per second while playing; None = full speed
        self.job: ProcessJob | None = None
        self.started_at = self.ended_at = 0.0
        self._recent: deque[tuple[float, int]] = deque()  # (time, merges) for merges per second
        self.eta: HfRunEta | None = None  # the Hugging Face engine's time left, phase by phase
        self._collector_paused = False
        # What the job sent, not taken in yet: records, then how the job ended (see _take_in).
        self._inbox: deque[object] = deque()
        self._replay = QTimer(self)
        self._replay.setInterval(0)  # once per event-loop turn
        self._replay.timeout.connect(self._on_replay_timeout)
        self.largest_slice = 0  # records taken in within one turn at most (tests check the bound)
        self.held = False  # no records taken in (see hold_intake)

    # Control

    def start(self, workers: Workers, step: bool = False, rate: float | None = None, thread: bool = False) -> None:
        """Start the child; `step` stops after the first merge, `rate` paces merges per second.

        `thread` runs the trainer on a pool thread instead (no step or play): only the benchmark
        uses it, to show why the child process is needed.
        """
        self.started_at = time.monotonic()
        self.eta = HfRunEta(self.started_at) if self.settings.engine == "hf" else None
        # A run creates hundreds of thousands of small records, and the full garbage collections
        # they trigger would walk every object of the process: only the run's own from here.
        freeze_long_lived()
        if thread:
            corpus, settings, name, metadata = self.corpus, self.settings, self.name, self.metadata
            self.job = workers.start("training", lambda: run_training(corpus, settings, name, metadata),  # type: ignore[assignment]
                                     key="training")
        else:
            self.job = workers.start_process("training", run_training,
                                             (self.corpus, self.settings, self.name if self.build else "", self.metadata),
                                             key="training", step_types=(Learned,))
        self.job.keep_ahead(KEEP_AHEAD)
        self.job.batch_ready.connect(self._on_job_batch_ready)
        for signal, state in (("finished", FINISHED), ("cancelled", CANCELLED), ("failed", FAILED)):
            self.job.on(signal, self._on_job_ended, state)  # (not called once this run is deleted)
        if rate is not None:
            self.play(rate)
        if step:
            self.step()
        self._set_state(PAUSED if step else STARTING)

    def pause(self) -> None:
        if self.job is not None and self.state not in ENDED:
            self.job.pause()
            self._set_state(PAUSED)

    def resume(self) -> None:
        """Continue at full speed."""
        if self.job is not None and self.state not in ENDED:
            self.rate = None
            self.job.set_rate(None)
            self.job.resume()
            self._set_state(MERGING if self.stage else COUNTING)

    def step(self, count: int = 1) -> None:
        if self.job is not None and self.state not in ENDED:
            self.job.step(count)
            self._set_state(PAUSED)

    def play(self, rate: float) -> None:
        """Continue at `rate` merges per second (for talks)."""
        if self.job is not None and self.state not in ENDED:
            self.rate = rate
            self.job.set_rate(rate)
            self.job.resume()
            if self.state == PAUSED:
                self._set_state(MERGING if self.stage else COUNTING)

    def set_rate(self, rate: float) -> None:
        if self.rate is not None and self.job is not None:
            self.rate = rate
            self.job.set_rate(rate)

    def cancel(self) -> None:
        if self.job is not None and self.state not in ENDED:
            self.job.cancel()

    # Figures

    @property
    def target(self) -> int:
        return self.stage.target_merges if self.stage else self.settings.target_merges

    @property
    def is_running(self) -> bool:
        return self.state not in ENDED and self.state != IDLE

    @property
    def merges_per_second(self) -> float:
        if len(self._recent) < 2:
            return 0.0
        (t0, n0), (t1, n1) = self._recent[0], self._recent[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        if self.eta is not None:
            return self.eta.seconds_left(time.monotonic()) if self.state in (STARTING, COUNTING, MERGING) else None
        rate = self.merges_per_second
        if not rate or self.state != MERGING:
            return None
        return max(0.0, (self.target - len(self.merges)) / rate)

    @property
    def fraction_done(self) -> float | None:
        """Of the whole run by time (Hugging Face engine: its phases); None when not known."""
        if self.eta is not None and self.state in (STARTING, COUNTING, MERGING):
            return self.eta.fraction(time.monotonic())
        return None

    @property
    def elapsed(self) -> float:
        return (self.ended_at or time.monotonic()) - self.started_at

    def corpus_bytes_per_token(self, index: int) -> float:
        """Training text bytes per token after merge `index` (-1: before any merge)."""
        if self.stage is None:
            return 0.0
        tokens = self.merges[index].total_tokens if index >= 0 else self.stage.corpus_tokens
        return self.stage.corpus_tokens / tokens if tokens else 0.0

    # Job signals, taken in a slice per event-loop turn

    def _on_job_batch_ready(self, items: list[object]) -> None:
        self._inbox.extend(items)
        self._take_in()

    def _on_job_ended(self, _job: Job, state: str, payload: object = None) -> None:
        """The summary, nothing (cancelled) or the failure's message, queued behind the records before it."""
        self._inbox.append(_Ending(state, payload))
        self._take_in()

    def hold_intake(self, held: bool) -> None:
        """Take no records in while `held`: the pane repaints its table in frames without a slice of
        them (the two together made the longest frames of a Hugging Face run's pour)."""
        self.held = held
        if held:
            self._replay.stop()
        elif self._inbox:
            self._replay.start()

    def _take_in(self) -> None:
        """Take in up to REPLAY_SLICE records now, unless this turn has had its slice: then (and
        while records wait) the replay timer takes the next slice on the next turn."""
        if not self._replay.isActive() and not self.held:
            self._take_slice()

    def _on_replay_timeout(self) -> None:
        if self._inbox:
            self._take_slice()
        else:
            self._replay.stop()  # a turn without records: the next batch is taken in at once

    def _take_slice(self) -> None:
        count = min(len(self._inbox), REPLAY_SLICE)
        items = [self._inbox.popleft() for _ in range(count)]
        self.job.taken(count)
        self._replay.start()  # the next turn's slice, or the end of this one's
        self.largest_slice = max(self.largest_slice, count)
        ending = items.pop() if items and isinstance(items[-1], _Ending) else None
        if ending is not None and items:  # the end (the result shown) in a turn of its own
            self._inbox.appendleft(ending)
            ending = None
        if items:
            self._handle_batch(items)
        if ending is not None:
            if ending.state == FINISHED:
                self._on_job_finished(ending.payload)
            elif ending.state == FAILED:
                self._on_job_failed(str(ending.payload))
            else:
                self._end(CANCELLED)

    def _handle_batch(self, items: list[object]) -> None:
        merges: list[Merge] = []
        for item in items:
            if isinstance(item, Learned):
                merges.append(item.merge)
                self.held_out_tokens.append(item.held_out_tokens)
            elif isinstance(item, Counting):
                self.counting = item
                if self.state == STARTING:
                    self._set_state(COUNTING)
            elif isinstance(item, MergeStage):
                self.stage = item
                if self.settings.engine == "hf":
                    self._pause_collector()
                if self.state in (STARTING, COUNTING):
                    self._set_state(MERGING)
        if merges:
            self.merges.extend(merges)
            now = time.monotonic()
            self._recent.append((now, len(self.merges)))
            while len(self._recent) > 2 and now - self._recent[0][0] > RATE_WINDOW_SECONDS:
                self._recent.popleft()
            self.merges_added.emit(merges)
        if self.eta is not None:
            self._update_eta()
        self.progressed.emit()

    def _update_eta(self) -> None:
        assert self.eta is not None
        now, counting = time.monotonic(), self.counting
        if self.stage is not None:
            self.eta.merging(now, len(self.merges), self.target, self.merges_per_second)
        elif counting is not None and counting.phase == "reading":
            self.eta.reading(now, counting.bytes_read, counting.total_bytes, counting.distinct_chunks,
                             counting.cpu_seconds)
        elif counting is not None and counting.phase == "measuring":
            self.eta.measuring(now, counting.stage, counting.step, counting.steps, counting.cpu_seconds)
        elif counting is not None:
            self.eta.learning(now, counting.stage, counting.step, counting.steps, counting.distinct_chunks,
                              counting.cpu_seconds)

    def _on_job_finished(self, summary: object) -> None:
        self.summary = summary if isinstance(summary, RunSummary) else None
        self._end(FINISHED)

    def _on_job_failed(self, message: str) -> None:
        self.error = message
        self._end(FAILED)

    def _pause_collector(self) -> None:
        """Hugging Face's merges arrive all at once, tens of thousands of records in a second: the
        full collections they set off (10-15 ms each, holding the interpreter lock) fell in the
        frames that show the result. Paused until the run ends; what it made is frozen then."""
        if gc.isenabled():
            gc.disable()
            self._collector_paused = True

    def _end(self, state: str) -> None:
        if self.state in ENDED:
            return
        if self._collector_paused:
            self._collector_paused = False
            freeze_long_lived()  # the run's merges stay as long as the run
            gc.enable()
        self.ended_at = time.monotonic()
        self._set_state(state)
        self.ended.emit(state)

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)
