"""What every thread of a process tree did while the window stalled: a sampler in a process of its own.

A stall of the GUI thread with little of its own CPU time in it is spent waiting: for the
interpreter lock (another thread of the window running Python), for a core (the machine busy), or
for the X server. Sampled from outside, so the window's interpreter lock is not touched:

    sampler = ThreadSampler(pid, out_path, extra_pids=[xvfb_pid])   # starts sampling /proc every 4 ms
    ... the measured run ...
    samples = sampler.stop()
    for line in explain_gap(samples, start, end, gui_tid): print(line)

`explain_gap` gives the GUI thread's states in the gap (R: running or waiting for a core; S with
futex_do_wait: waiting for a lock, most often the interpreter lock) and each thread's CPU time in
it (from its tick counts, 10 ms steps). A thread named 'Thread (pooled)' busy through a stall
whose GUI thread was mostly R is Python work on a worker thread holding the lock.

    python tests/benchmarks/thread_states.py PID OUT.jsonl [EXTRA_PID ...]   (the sampler itself)
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SAMPLE_S = 0.004

Sample = tuple[float, dict[str, list]]  # (monotonic seconds, {tid: [pid, name, state, CPU ticks, wchan]})


class ThreadSampler:
    """Samples `pid`'s process tree (and `extra_pids`) in a child process until `stop`."""

    def __init__(self, pid: int, out: Path, extra_pids: tuple[int, ...] = ()) -> None:
        self.out = out
        self.process = subprocess.Popen([sys.executable, __file__, str(pid), str(out), *map(str, extra_pids)])

    def stop(self) -> list[Sample]:
        """The samples (the sampler ends by itself with the process it samples)."""
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        return [tuple(json.loads(line)) for line in self.out.read_text().splitlines() if line]  # type: ignore[misc]


def explain_gap(samples: list[Sample], start: float, end: float, gui_tid: int) -> list[str]:
    """Lines saying what the GUI thread's state was and which threads ran from `start` to `end`."""
    inside = [row for time_, row in samples if start <= time_ <= end]
    before = max((s for s in samples if s[0] < start), default=None, key=lambda s: s[0])
    after = min((s for s in samples if s[0] > end), default=None, key=lambda s: s[0])
    states = collections.Counter(f"{row[str(gui_tid)][2]} {row[str(gui_tid)][4]}".strip()
                                 for row in inside if str(gui_tid) in row)
    lines = [f"GUI thread: {dict(states.most_common())}"]
    if before is not None and after is not None:
        for tid, (pid, name, _, ticks, _) in after[1].items():
            used = ticks - before[1].get(tid, [0, "", "", 0, ""])[3]
            if used > 0:
                mark = " (GUI)" if tid == str(gui_tid) else ""
                lines.append(f"  {name}{mark} [pid {pid}, tid {tid}]: {used * 1000 // os.sysconf('SC_CLK_TCK')} ms CPU")
    return lines


def _threads(pid: str) -> list[tuple[str, str]]:
    """(pid, tid) of every thread of `pid` and of its descendants."""
    found = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            found.append((pid, tid))
            try:
                children = Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
            except OSError:
                children = []
            for child in children:
                found.extend(_threads(child))
    except OSError:
        pass
    return found


def _sample(pid: str, out: str, extra: list[str]) -> None:
    with open(out, "w") as handle:
        while os.path.exists(f"/proc/{pid}"):
            row = {}
            for owner, tid in _threads(pid) + [t for other in extra for t in _threads(other)]:
                try:
                    stat = Path(f"/proc/{owner}/task/{tid}/stat").read_text()
                    fields = stat[stat.rindex(")") + 2:].split()
                    wchan = Path(f"/proc/{owner}/task/{tid}/wchan").read_text()
                except (OSError, ValueError):
                    continue
                row[tid] = [owner, stat[stat.index("(") + 1:stat.rindex(")")], fields[0],
                            int(fields[11]) + int(fields[12]), "" if wchan == "0" else wchan]
            handle.write(json.dumps([time.monotonic(), row]) + "\n")
            time.sleep(SAMPLE_S)


if __name__ == "__main__":
    _sample(sys.argv[1], sys.argv[2], sys.argv[3:])
