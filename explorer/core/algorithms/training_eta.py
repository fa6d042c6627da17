"""How long a Hugging Face engine run has left, phase by phase, from what its records say.

The run reads the corpus (HF cuts and counts it as it reads: most of the time on a big corpus),
then HF learns (its bars: "Tokenize words", "Count pairs", "Compute merges"), then the merge
counts are measured (distinct chunks encoded) and the merges replayed. Each phase is timed by
its own progress once it runs; a phase not yet started is priced from what ran before it:

- reading, by bytes read over the newest half of the reading, timed from the first record (the
  child's start-up is not reading) and at the records where HF's bar moved (it moves by a hundredth
  of the corpus, every 0.5-0.75 s on 400 MB: timed at any record, the steps skewed the speed);
- all that follows reading grows with the corpus's distinct texts, not its size (a repeated line
  costs nothing more): it is priced in CPU time, at AFTER_BYTES_PER_TEXT bytes of reading's CPU
  time per distinct text (the distinct texts of the whole corpus, from how they grew so far). CPU
  time, because the share of the machine the child gets changes (other programs; reading runs on
  every core, what follows on fewer: AFTER_CORES): it is turned into seconds at the share measured last;
- HF's merges: the first touch most words, the last almost none, so the time spent grows with
  the log of the merges done; once they are under way, the rest follows that line;
- what follows HF's merges (its wrap-up, measuring, the replay) is priced from how long the
  merges took, then from the measuring's own pace, then from the replay's.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

AFTER_BYTES_PER_TEXT = 190.0  # of reading's CPU time per distinct text: 150-275 on 10, 100 and 400 MB multilingual
# Cores what follows reading runs on at most: HF's word and pair counts and our measuring use every
# core, its merges about 1.25. 10-13 CPU s in 7-10 s on 2 cores (400 MB runs: tests/core/eta_runs).
AFTER_CORES = 1.35
POST_PER_MERGE_SECOND = 0.62  # seconds after HF's merges per second they took (0.35-0.73 on 10-400 MB)
REPLAY_PER_MEASURE_SECOND = 0.5  # the replay and the result, per second the measuring took
DISTINCT_GROWTH = 2.0  # at most this many times the distinct texts so far (a corpus may repeat itself)
MIN_FRACTION = 0.01  # read before reading speed means anything
MIN_READ_SECONDS = 0.25  # of reading timed before it is trusted (one report)
RECENT_SHARE = 0.5  # reading speed is timed over the newest half of the reading so far (it slows as it goes)
SHARE_SECONDS = 2.0  # the child's share of the machine is timed over the newest this many seconds
MERGES_TIMED_FROM = 16  # HF's merges are timed from the first record with at least this many
MERGES_LOG_SPAN = 1.0  # ... once e times as many are done as at the start of the newest half
MEASURED_FRACTION = 0.1  # of the chunks encoded before the measuring's own pace is trusted


@dataclass
class HfRunEta:
    """Feed it `reading`, `learning`, `measuring` and `merging` as records come; ask `seconds_left`.

    `cpu_seconds` is the child's CPU time so far (all its threads); without it (0), wall time is
    taken for it, as if the child had one core throughout.
    """

    started: float
    bytes_read: int = 0
    total_bytes: int = 0
    distinct: int = 0
    read_seconds: float | None = None  # when reading ended, seconds after `started`
    after_cpu: float = 0.0  # CPU seconds all that follows reading should take, fixed when reading ends
    cpu_read_end: float = 0.0
    merges_started: float | None = None
    merges_steps: int = 0  # HF's merges to do
    merge_points: deque[tuple[float, int]] = field(default_factory=deque)  # (time, merges done), newest half
    merges_ended: float | None = None  # the first measuring record
    post_prior: float = 0.0  # seconds from `merges_ended` to the end, fixed then
    encoding_first: tuple[float, int] | None = None  # (time, chunks encoded) of the first encoding record
    encoding_last: tuple[float, int, int] | None = None  # the newest (time, encoded, chunks)
    replay: tuple[int, int, float] | None = None  # (merges shown, target, merges per second)
    first_read: tuple[float, int, float] | None = None  # (time, bytes, CPU s) of the first reading record
    history: deque[tuple[float, int, float]] = field(default_factory=deque)  # the same, newest half of reading
    growth: list[tuple[int, int]] = field(default_factory=list)  # (bytes read, distinct texts) while reading
    cpu: deque[tuple[float, float]] = field(default_factory=deque)  # (time, CPU s), newest SHARE_SECONDS

    def reading(self, now: float, bytes_read: int, total_bytes: int, distinct: int, cpu_seconds: float = 0.0) -> None:
        self.bytes_read, self.total_bytes, self.distinct = bytes_read, total_bytes, distinct
        cpu = self._cpu(now, cpu_seconds)
        if self.first_read is None:
            self.first_read = (now, bytes_read, cpu)
        if not self.history or bytes_read != self.history[-1][1]:  # (HF's bar moves in steps: timed at each)
            self.history.append((now, bytes_read, cpu))
        while len(self.history) > 2 and self.history[1][0] <= now - RECENT_SHARE * (now - self.first_read[0]):
            self.history.popleft()
        self.growth.append((bytes_read, distinct))

    def learning(self, now: float, stage: str, step: int, steps: int, distinct: int, cpu_seconds: float = 0.0) -> None:
        self._cpu(now, cpu_seconds)
        self._end_reading(now, distinct)
        if stage == "Compute merges" and steps:
            if self.merges_started is None:
                self.merges_started = now
            self.merges_steps = steps
            if step >= MERGES_TIMED_FROM:
                points = self.merge_points
                points.append((now, step))
                while len(points) > 2 and points[1][0] <= now - RECENT_SHARE * (now - self.merges_started):
                    points.popleft()

    def measuring(self, now: float, stage: str, step: int, steps: int, cpu_seconds: float = 0.0) -> None:
        self._cpu(now, cpu_seconds)
        self._end_reading(now)
        if self.merges_ended is None:
            self.merges_ended = now
            merges = now - self.merges_started if self.merges_started is not None else None
            self.post_prior = POST_PER_MERGE_SECOND * merges if merges else self._after_left(now)
        if stage == "encoding chunks" and steps:
            if self.encoding_first is None:
                self.encoding_first = (now, step)
            self.encoding_last = (now, step, steps)

    def merging(self, now: float, shown: int, target: int, per_second: float) -> None:
        self._end_reading(now)
        self.replay = (shown, target, per_second)

    def _cpu(self, now: float, cpu_seconds: float) -> float:
        cpu = cpu_seconds or now - self.started
        self.cpu.append((now, cpu))
        while len(self.cpu) > 2 and self.cpu[1][0] <= now - SHARE_SECONDS:
            self.cpu.popleft()
        return cpu

    def _share(self) -> float:
        """CPU seconds per second the child has had: over the newest half of the reading, then since
        reading ended once that has been timed (at least a twentieth of a core)."""
        last, cpu_last = self.cpu[-1]
        if self.read_seconds is not None and last - self.started - self.read_seconds >= SHARE_SECONDS:
            then, cpu_then = self.started + self.read_seconds, self.cpu_read_end
        elif self.history:
            (then, _, cpu_then), (last, _, cpu_last) = self.history[0], self.history[-1]
        else:
            then, cpu_then = self.cpu[0]
        if last - then < MIN_READ_SECONDS:
            return 1.0
        return max(0.05, (cpu_last - cpu_then) / (last - then))

    def _end_reading(self, now: float, distinct: int | None = None) -> None:
        """The first record after reading: what follows is priced, with the corpus's distinct texts."""
        if self.read_seconds is None:
            self.read_seconds = now - self.started
            self.distinct = self.distinct if distinct is None else distinct
            self.bytes_read = self.total_bytes
            self.after_cpu = self._after_cpu()
            self.cpu_read_end = self.cpu[-1][1] if self.cpu else 0.0

    def _read_speed(self, now: float) -> float | None:
        """Bytes a second over the newest part of the reading; None before it can be timed."""
        if self.first_read is None:
            return None
        (then, read_then, _), (last, read_last, _) = self.history[0], self.history[-1]
        start, read_start, _ = self.first_read
        if last - then < 0.25 * (now - start) or read_last <= read_then:
            then, read_then = start, read_start
        if last - then < MIN_READ_SECONDS or read_last <= read_then:
            return None
        return (read_last - read_then) / (last - then)

    def _distinct_at_end(self) -> float:
        """The corpus's distinct texts once read, from how they grew over the second half of the reading
        so far: as a power of the bytes read (Heaps' law), the power between none and one."""
        read, distinct = self.bytes_read, self.distinct
        if not self.growth or read <= 0 or read >= self.total_bytes:
            return float(distinct)
        half = next(((b, d) for b, d in self.growth if b >= read / 2), None)
        if half is None or half[0] <= 0 or half[1] <= 0 or half[0] >= read:
            return float(distinct)
        power = min(1.0, max(0.0, math.log(distinct / half[1]) / math.log(read / half[0])))
        return distinct * min(DISTINCT_GROWTH, (self.total_bytes / read) ** power)

    def _after_cpu(self) -> float:
        """CPU seconds all that follows reading takes: the distinct texts at reading's CPU time per byte."""
        if self.first_read is None:
            return 0.0
        (_, read_start, cpu_start), (_, read_last, cpu_last) = self.first_read, self.history[-1]
        if read_last <= read_start:
            return 0.0
        return self._distinct_at_end() * AFTER_BYTES_PER_TEXT * (cpu_last - cpu_start) / (read_last - read_start)

    def _after_left(self, now: float) -> float:
        """Seconds left of all that follows reading, by its CPU time: the CPU time left at the child's
        share of the machine (AFTER_CORES at most)."""
        used = self.cpu[-1][1] - self.cpu_read_end if self.cpu and self.read_seconds is not None else 0.0
        left = max(0.0, self.after_cpu - used) / min(AFTER_CORES, self._share()) if self.cpu else self.after_cpu
        return max(0.0, left - (now - self.cpu[-1][0])) if self.cpu else left

    def seconds_left(self, now: float) -> float | None:
        """None until reading has gone far enough to time it."""
        if self.read_seconds is None:
            if not self.total_bytes or self.bytes_read < MIN_FRACTION * self.total_bytes:
                return None
            speed = self._read_speed(now)
            if speed is None:
                return None
            return (self.total_bytes - self.bytes_read) / speed + self._after_cpu() / min(AFTER_CORES, self._share())
        if self.replay is not None:
            shown, target, per_second = self.replay
            if per_second:
                return max(0.0, (target - shown) / per_second)
        if self.merges_ended is not None:
            return max(0.0, self._post_left(now))
        prior = self._after_left(now)
        merges = self._merges_left(now)
        if merges is None:
            return prior
        left, took, weight = merges
        return weight * (left + POST_PER_MERGE_SECOND * took) + (1 - weight) * prior

    def _merges_left(self, now: float) -> tuple[float, float, float] | None:
        """(seconds HF's merges have left, seconds they take in all, how far the log line is to be
        trusted against the prior), once the line is known."""
        points = self.merge_points
        if len(points) < 2 or self.merges_started is None:
            return None
        (then, done_then), (last, done) = points[0], points[-1]
        span = math.log(done) - math.log(done_then)
        if span < MERGES_LOG_SPAN or last <= then:
            return None
        steps = max(self.merges_steps, done)
        rest = (last - then) / span * (math.log(steps) - math.log(done))
        left = max(0.0, rest - (now - last))
        return left, (now - self.merges_started) + left, (math.log(done) / math.log(steps))

    def _post_left(self, now: float) -> float:
        assert self.merges_ended is not None
        first, last = self.encoding_first, self.encoding_last
        if first is None or last is None or last[1] < MEASURED_FRACTION * last[2] or last[0] <= first[0]:
            return self.post_prior - (now - self.merges_ended)
        (then, encoded_then), (at, encoded, chunks) = first, last
        pace = (encoded - encoded_then) / (at - then)
        encoding_left = max(0.0, (chunks - encoded) / pace - (now - at)) if pace > 0 else 0.0
        measure = now - self.merges_ended + encoding_left
        return encoding_left + REPLAY_PER_MEASURE_SECOND * measure

    def fraction(self, now: float) -> float | None:
        """Of the whole run, by time: elapsed / (elapsed + left)."""
        left = self.seconds_left(now)
        elapsed = now - self.started
        return None if left is None else elapsed / (elapsed + left) if elapsed + left > 0 else 1.0
