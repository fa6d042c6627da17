"""How long a Hugging Face engine run has left, phase by phase, from what its records say.

The run reads the corpus (HF cuts and counts it as it reads: most of the time on a big corpus),
then HF learns (its bars: "Tokenize words", "Count pairs", "Compute merges"), then the merge
counts are measured and the merges replayed. Reading is timed by bytes read. What follows grows
with the corpus's distinct texts, not its size (a repeated line costs HF and the counts almost
nothing more), so while reading it is priced at AFTER_BYTES_PER_TEXT bytes of reading per
distinct text: at the run's own reading speed, which follows the machine's load. Once HF's
merges are under way, their own progress takes over.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

AFTER_BYTES_PER_TEXT = 210.0  # calibrated on the 100 and 400 MB multilingual corpora (issue 16), HF reading the files
MERGES_SHARE = 0.6  # of what follows reading, HF's merge stage; the rest: counts, replay, the result
MIN_FRACTION = 0.01  # read before reading speed means anything
RECENT_SHARE = 0.5  # reading speed is timed over the newest half of the reading so far (it slows as it goes)


@dataclass
class HfRunEta:
    """Feed it `reading(...)`, `learning(...)` and `merging(...)` as records come; ask `seconds_left`."""

    started: float
    bytes_read: int = 0
    total_bytes: int = 0
    distinct: int = 0
    read_seconds: float | None = None  # when reading ended, seconds after `started`
    after_prior: float = 0.0  # seconds the rest should take, fixed when reading ends
    merges_started: float | None = None
    merge_fraction: float = 0.0
    at: float = 0.0  # the newest record's time
    replay: tuple[int, int, float] | None = None  # (merges shown, target, merges per second)
    history: deque[tuple[float, int]] = field(default_factory=deque)  # (time, bytes read) while reading

    def reading(self, now: float, bytes_read: int, total_bytes: int, distinct: int) -> None:
        self.at, self.bytes_read, self.total_bytes, self.distinct = now, bytes_read, total_bytes, distinct
        self.history.append((now, bytes_read))
        while len(self.history) > 2 and self.history[1][0] <= now - RECENT_SHARE * (now - self.started):
            self.history.popleft()

    def learning(self, now: float, stage: str, step: int, steps: int, distinct: int) -> None:
        self.at, self.distinct = now, distinct
        if self.read_seconds is None:
            self.bytes_read = self.total_bytes
            self.read_seconds = now - self.started
            self.after_prior = self._after(self.read_seconds)
        if stage == "Compute merges" and steps:
            if self.merges_started is None:
                self.merges_started = now
            self.merge_fraction = min(1.0, step / steps)

    def merging(self, now: float, shown: int, target: int, per_second: float) -> None:
        self.learning(now, "", 0, 0, self.distinct)
        self.at, self.replay = now, (shown, target, per_second)

    def _after(self, read_seconds: float) -> float:
        speed = self.bytes_read / read_seconds if read_seconds > 0 else 0.0
        return self.distinct * AFTER_BYTES_PER_TEXT / speed if speed else 0.0

    def seconds_left(self, now: float) -> float | None:
        """None until reading has gone far enough to time it."""
        elapsed = now - self.started
        if self.read_seconds is None:
            if not self.total_bytes or self.bytes_read < MIN_FRACTION * self.total_bytes:
                return None
            (then, read_then), (last, read_last) = self.history[0], self.history[-1]
            if last - then < 0.25 * elapsed or read_last <= read_then:
                then, read_then = self.started, 0
            speed = (read_last - read_then) / (last - then) if last > then else self.bytes_read / elapsed
            return (self.total_bytes - self.bytes_read) / speed + self._after(elapsed)
        after = now - self.started - self.read_seconds
        left = max(0.0, self.after_prior - after)
        if self.replay is not None:
            shown, target, per_second = self.replay
            return max(0.0, (target - shown) / per_second) if per_second else left
        if self.merges_started is not None and self.merge_fraction > 0.05:
            merges = now - self.merges_started
            rest = merges * (1 - self.merge_fraction) / self.merge_fraction
            left = min(left, rest + (1 - MERGES_SHARE) * self.after_prior) if left else rest
        return max(left, 0.0)

    def fraction(self, now: float) -> float | None:
        """Of the whole run, by time: elapsed / (elapsed + left)."""
        left = self.seconds_left(now)
        elapsed = now - self.started
        return None if left is None else elapsed / (elapsed + left) if elapsed + left > 0 else 1.0
