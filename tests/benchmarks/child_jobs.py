"""Run one part of a benchmark in a child process of its own, so its peak memory is its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SAMPLE_SECONDS = 0.01


def run_job(script: str, *args: str, threads: str | None = None) -> tuple[dict[str, Any], float]:
    """Run `script --job ARGS` in a child process and return the JSON it prints and its peak memory
    in MB. Rayon gets `threads` if given, else RAYON_NUM_THREADS from the environment, else one."""
    result, peak, _ = run_job_tree(script, *args, threads=threads)
    return result, peak


def run_job_tree(script: str, *args: str, threads: str | None = None) -> tuple[dict[str, Any], float, float]:
    """`run_job`, also with the peak of its process tree's memory in MB: the job and the processes it
    forks, their proportional set sizes (shared pages split between the processes sharing them)
    summed, sampled every SAMPLE_SECONDS from this process (Linux; 0 elsewhere). The peak resident
    size of `run_job` is the largest of the processes' peaks, and counts shared pages in each."""
    env = dict(os.environ)
    env["RAYON_NUM_THREADS"] = threads or env.get("RAYON_NUM_THREADS", "1")
    process = subprocess.Popen([sys.executable, script, "--job", *args], stdout=subprocess.PIPE, env=env, cwd=REPO)
    assert process.stdout is not None
    peak = [0]
    done = threading.Event()
    sampler = threading.Thread(target=_sample_tree, args=(process.pid, peak, done), daemon=True)
    sampler.start()
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    done.set()
    sampler.join()
    if status != 0:
        raise SystemExit(f"job {args} failed")
    return json.loads(output), usage.ru_maxrss / 1024, peak[0] / 1024


def _sample_tree(pid: int, peak: list[int], done: threading.Event) -> None:
    if not Path(f"/proc/{pid}/smaps_rollup").exists():
        return
    while not done.wait(SAMPLE_SECONDS):
        peak[0] = max(peak[0], sum(_pss_kb(each) for each in _tree(pid)))


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants (a process that ends meanwhile is left out)."""
    found, index = [pid], 0
    while index < len(found):
        try:
            for task in os.listdir(f"/proc/{found[index]}/task"):
                with open(f"/proc/{found[index]}/task/{task}/children") as handle:
                    found.extend(map(int, handle.read().split()))
        except OSError:
            pass
        index += 1
    return found


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
