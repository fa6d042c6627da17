"""The Hugging Face engine's time left (issue 16: within 20% from 10% of the run on), on runs
rebuilt from the phase timings recorded from the Training pane on 10 and 400 MB multilingual, and
on the calls real runs made to it (eta_runs/, from `bench_big_training.py --eta-trace`)."""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from explorer.core.algorithms.training_eta import (AFTER_BYTES_PER_TEXT, AFTER_CORES, POST_PER_MERGE_SECOND,
                                                  REPLAY_PER_MEASURE_SECOND, HfRunEta)

RECORDED = sorted((Path(__file__).parent / "eta_runs").glob("*.json.gz"))

TICK = 0.25  # the child reports every REPORT_SECONDS
MERGES, WORDS = 32_768, 175_765


@dataclass(frozen=True)
class Phases:
    """Seconds of each phase of one run, and what the run reports about itself."""

    start_up: float  # the child starting, before its first record
    reading: float
    tokenize: float  # HF's "Tokenize words" and "Count pairs"
    merges: float  # HF's "Compute merges": its merges done grow with the log of the time spent
    measuring: float  # HF's wrap-up and the distinct chunks encoded
    replay: float  # the merges sent to the window, the result shown
    total_bytes: int
    distinct: int
    saturated: int  # bytes read when the distinct texts stop growing
    growth: float  # until then they grow as this power of the bytes read
    cores: float  # the child's CPU seconds per second while reading (its share of the machine)
    after_cores: float  # the same after reading

    @property
    def total(self) -> float:
        return self.start_up + self.reading + self.tokenize + self.merges + self.measuring + self.replay


def replay_run(run: Phases) -> list[tuple[float, float | None]]:
    """(time, seconds left shown) at every record, fed to HfRunEta as TrainingRun feeds it."""
    eta, shown = HfRunEta(started=0.0), []
    t = run.start_up
    read_end = run.start_up + run.reading

    def cpu(t: float) -> float:
        return run.cores * min(t, read_end) + run.after_cores * max(0.0, t - read_end)

    merges_start = read_end + run.tokenize
    measure_start = merges_start + run.merges
    replay_start = measure_start + run.measuring
    while t < run.total:
        if t < read_end:
            share = (t - run.start_up) / run.reading
            distinct = run.distinct * min(1.0, share * run.total_bytes / run.saturated) ** run.growth
            eta.reading(t, int(run.total_bytes * share), run.total_bytes, int(distinct), cpu(t))
        elif t < merges_start:
            eta.learning(t, "Tokenize words", int(WORDS * (t - read_end) / run.tokenize), WORDS, run.distinct,
                         cpu(t))
        elif t < measure_start:
            done = int(math.exp(math.log(MERGES) * (t - merges_start) / run.merges))
            eta.learning(t, "Compute merges", done, MERGES, run.distinct, cpu(t))
        elif t < replay_start:
            eta.measuring(t, "encoding chunks", int(WORDS * (t - measure_start) / run.measuring), WORDS,
                          cpu(t))
        else:
            eta.merging(t, int(MERGES * (t - replay_start) / run.replay), MERGES, MERGES / run.replay)
        shown.append((t, eta.seconds_left(t)))
        t += TICK
    return shown


def errors(run: Phases) -> list[float]:
    """(shown - real) / real time left at 10%, 20%, ... 90% of the run, as the benchmark reckons it."""
    shown = replay_run(run)
    found = []
    for percent in range(10, 100, 10):
        at, left = min(shown, key=lambda s: abs(s[0] - percent * run.total / 100))
        assert left is not None, f"no time left shown at {percent}%"
        found.append((left - (run.total - at)) / (run.total - at))
    return found


def read_trace(path: Path) -> dict[str, Any]:
    """A run's calls to its ETA, as `bench_big_training.py --eta-trace` saves them (gzipped or not)."""
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)  # type: ignore[no-any-return]


def recorded_errors(trace: dict[str, Any]) -> list[float | None]:
    """(shown - real) / real time left at 10%, 20%, ... 90% of a recorded run, its calls replayed
    through today's HfRunEta."""
    started, ended = trace["started"], trace["ended"]
    eta, shown = HfRunEta(started), []
    for name, now, *arguments in trace["calls"]:
        getattr(eta, name)(now, *arguments)
        shown.append((now, eta.seconds_left(now)))
    found = []
    for percent in range(10, 100, 10):
        now, left = min(shown, key=lambda s: abs(s[0] - (started + (ended - started) * percent / 100)))
        found.append(None if left is None else (left - (ended - now)) / (ended - now))
    return found


# Recorded in the Training pane while the benchmark ran (tests/benchmarks/bench_big_training.py), on a
# machine loaded by other programs: the child had 0.71 and 0.38 cores while reading.
RUN_400MB = Phases(start_up=0.9, reading=110.2, tokenize=1.1, merges=4.0, measuring=1.2, replay=0.9,
                   total_bytes=400_000_000, distinct=196_496, saturated=15_000_000, growth=0.6,
                   cores=0.71, after_cores=0.82)
RUN_100MB = Phases(start_up=1.8, reading=34.6, tokenize=5.2, merges=6.4, measuring=3.4, replay=1.3,
                   total_bytes=100_000_000, distinct=196_495, saturated=15_000_000, growth=0.6,
                   cores=0.62, after_cores=0.49)
RUN_10MB = Phases(start_up=1.8, reading=4.8, tokenize=4.6, merges=7.5, measuring=2.9, replay=1.5,
                  total_bytes=10_000_000, distinct=151_470, saturated=9_000_000, growth=0.65,
                  cores=0.38, after_cores=0.46)


@pytest.mark.parametrize("run", [RUN_400MB, RUN_100MB], ids=["400MB", "100MB"])
def test_time_left_is_within_a_fifth_from_a_tenth_of_the_run_on(run: Phases) -> None:
    """Up to 80%; at 90% the 400 MB run is where reading ends, and what follows is priced at the share
    of the machine reading had (0.71 cores; 0.82 after): within 30% there."""
    found = errors(run)
    assert max(map(abs, found[:-1])) <= 0.2 and abs(found[-1]) <= 0.3, [f"{e:+.0%}" for e in found]


def test_a_small_corpus_is_timed_by_its_phases_once_hf_has_read_it() -> None:
    """10 MB: reading is a fifth of the run, and the heavily loaded machine of the recording made
    HF's merges slow down late; from the end of its merges (80%) the time left is the phases' own."""
    found = errors(RUN_10MB)
    assert max(map(abs, found[-2:])) <= 0.2, [f"{e:+.0%}" for e in found]


@pytest.mark.parametrize("cores", [2.0, 0.5])
def test_reading_is_timed_from_the_first_record_and_what_follows_by_cpu_time(cores: float) -> None:
    """The child's start-up is not reading. What follows reading is priced in reading's CPU time
    and turned into seconds at the child's share of the machine, AFTER_CORES at most: on an idle
    machine reading has both cores and what follows about 1.35 (HF's merges mostly one), on a loaded
    one both have the same share."""
    eta = HfRunEta(started=100.0)
    assert eta.seconds_left(100.5) is None  # nothing read yet
    eta.reading(102.0, 2_000_000, 100_000_000, 10_000, cpu_seconds=1.0)  # the first record, 2 s after the click
    assert eta.seconds_left(102.1) is None  # not timed yet
    eta.reading(104.0, 22_000_000, 100_000_000, 10_000, cpu_seconds=1.0 + 2 * cores)  # 10 MB/s
    after_cpu = 10_000 * AFTER_BYTES_PER_TEXT * (2 * cores / 20_000_000)
    assert eta.seconds_left(104.0) == pytest.approx(7.8 + after_cpu / min(AFTER_CORES, cores))


def test_after_hf_merges_the_measuring_and_then_the_replay_are_timed_by_their_own_pace() -> None:
    eta = HfRunEta(started=0.0)
    eta.reading(1.0, 0, 100, 10)
    eta.learning(10.0, "Compute merges", 0, 1000, 10)
    eta.measuring(20.0, "counting chunks", 5, 10)  # HF's merges took 10 s
    assert eta.seconds_left(21.0) == pytest.approx(10 * POST_PER_MERGE_SECOND - 1.0)  # priced from the merges
    eta.measuring(22.0, "encoding chunks", 0, 100_000)
    eta.measuring(24.0, "encoding chunks", 50_000, 100_000)  # half in 2 s
    assert eta.seconds_left(24.0) == pytest.approx(2.0 + REPLAY_PER_MEASURE_SECOND * (4.0 + 2.0))
    eta.merging(30.0, 1000, 2000, 1000.0)  # the replay: 1,000 merges to go at 1,000 a second
    assert eta.seconds_left(30.0) == pytest.approx(1.0)


def test_recorded_runs_time_what_follows_reading_at_the_cores_it_runs_on() -> None:
    """Nine runs of 400 MB recorded on the idle 2-core machine (`bench_big_training.py --eta-trace`;
    the seventh to ninth with this model in the window, the eighth on a day HF's own train took
    80 s instead of 55). What follows reading took 10-13 CPU seconds in 7-10 s: HF's word and
    pair counts and our measuring run on both cores. Priced at one core, the time left at 90% was
    21-60% off in five of the first six; now eight of nine are within 20% at 80% and 90%, and
    six at every point. The others show
    what no price made in advance can follow on this machine: HF's reading ran 25% faster (run 1)
    or slower (run 2) in its first seconds than later, and run 5 did the same work after reading
    40% slower than run 2."""
    assert len(RECORDED) == 9
    found = {path.name: recorded_errors(read_trace(path)) for path in RECORDED}
    late = [name for name, errors in found.items() if all(abs(e) <= 0.2 for e in errors[-2:] if e is not None)]
    assert len(late) >= 8, {name: [f"{e:+.0%}" for e in errors if e is not None] for name, errors in found.items()}
    whole = [name for name, errors in found.items() if all(e is not None and abs(e) <= 0.2 for e in errors)]
    assert len(whole) >= 6, {name: [f"{e:+.0%}" for e in errors if e is not None] for name, errors in found.items()}
