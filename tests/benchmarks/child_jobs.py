"""Run one part of a benchmark in a child process of its own, so its peak memory is its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_job(script: str, *args: str, threads: str | None = None) -> tuple[dict[str, Any], float]:
    """Run `script --job ARGS` in a child process and return the JSON it prints and its peak memory
    in MB. Rayon gets `threads` if given, else RAYON_NUM_THREADS from the environment, else one."""
    env = dict(os.environ)
    env["RAYON_NUM_THREADS"] = threads or env.get("RAYON_NUM_THREADS", "1")
    process = subprocess.Popen([sys.executable, script, "--job", *args], stdout=subprocess.PIPE, env=env, cwd=REPO)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"job {args} failed")
    return json.loads(output), usage.ru_maxrss / 1024
