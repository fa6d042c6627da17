"""The Merges pane loading a 200,000-token vocabulary: how long, and the longest GUI stall.

    QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_merges_pane.py [--tokenizer o200k_base] [--repeat 3]

Each run is a fresh process with the main window shown on the Merges pane and r50k_base loaded
(as a user who opened the app, then picks another tokenizer). It picks the tokenizer and waits until the pane has everything: the table, the recovered merges, the audit.
A 5 ms timer on the GUI thread records the gaps between its ticks; the longest is the stall a
user would feel (the issue: the GUI never freezes, anything over ~50 ms is a stall). Figures are
printed next to the encoding's own load time, measured in the same run. Expect one stall of
100-160 ms while "picking": tiktoken's constructor (Rust) holds the interpreter lock while it
builds its tables from 200,000 ranks, once per encoding and session; nothing here can split it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
TICK_MS = 5


def one_run(spec: str, before: str) -> dict[str, object]:
    """Switch from `before` to `spec` in the Merges pane of a new window; seconds to everything, and the stalls."""
    from PySide6.QtCore import QTimer

    from gui_window import SlowCollections, open_window

    app, session, window = open_window("merges")
    pane = window.panes["merges"]
    session.load_tokenizer(before)  # as at start-up: a user who then picks another tokenizer
    settle = time.perf_counter() + 60
    while time.perf_counter() < settle and (session.tokenizer is None or pane.busy or pane.audit is None
                                            or session.workers.running):
        app.processEvents()
        time.sleep(0.005)
    quiet = time.perf_counter() + 1  # and the repaints that follow
    while time.perf_counter() < quiet:
        app.processEvents()
        time.sleep(0.005)

    gaps: list[tuple[float, float, str, float]] = []  # (at, gap, what the pane was doing, GUI thread's CPU)
    last = [time.perf_counter()]
    last_cpu = [time.thread_time()]
    stage = ["picking"]
    pane.loader.progress.connect(lambda label, fraction: stage.__setitem__(0, label))

    def tick() -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gaps.append((last[0] - start, now - last[0], stage[0], cpu - last_cpu[0]))
        last[0], last_cpu[0] = now, cpu

    collections = SlowCollections()
    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    start = collections.origin = time.perf_counter()
    last[0], last_cpu[0] = start, time.thread_time()
    timer.start()
    session.load_tokenizer(spec)
    loaded_at = None
    while True:
        app.processEvents()
        time.sleep(0.001)
        if loaded_at is None and session.tokenizer_spec == spec:
            loaded_at = time.perf_counter() - start
        table = pane.table
        if loaded_at is not None and table is not None and pane.tokenizer is session.tokenizer and not pane.busy \
                and pane.audit is not None:
            break
        if time.perf_counter() - start > 120:
            raise SystemExit("the pane did not finish in 120 s")
    seconds = time.perf_counter() - start
    end = time.perf_counter() + 0.3  # the last repaints
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)
    timer.stop()
    worst = sorted(gaps, key=lambda g: -g[1])[:6]
    result = {"seconds": seconds, "tokenizer_loaded": loaded_at, "max_stall_ms": max(g[1] for g in gaps) * 1000,
              "stalls_over_50ms": sum(g[1] > 0.05 for g in gaps),
              "worst": [(round(at, 2), round(gap * 1000), what, round(cpu * 1000)) for at, gap, what, cpu in worst],
              "forest_seconds": pane.forest_seconds, "rows": table.rows, "slow_gc": collections.found[:8]}
    window.close()
    session.shutdown()
    return result


def tiktoken_load_seconds(spec: str) -> float:
    from explorer.core.sources.load import load_tokenizer

    start = time.perf_counter()
    load_tokenizer(spec)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokenizer", default="o200k_base")
    parser.add_argument("--before", default="r50k_base", help="the tokenizer the window starts with")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--job", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.job:
        print(json.dumps(one_run(args.tokenizer, args.before)))
        return
    print("worst stalls are listed as (seconds after picking, ms, the pane's stage, ms of it the GUI thread worked)")
    print(f"{args.tokenizer}: loading it alone (load_tokenizer, tiktoken inside) takes "
          f"{tiktoken_load_seconds(args.tokenizer):.2f} s; load average {os.getloadavg()[0]:.1f}")
    for _ in range(args.repeat):
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        output = subprocess.run([sys.executable, __file__, "--job", "--tokenizer", args.tokenizer,
                                 "--before", args.before], capture_output=True, text=True, cwd=REPO, env=env)
        lines = [line for line in output.stdout.splitlines() if line.startswith("{")]
        if not lines:
            print(f"  (the run failed: {output.stderr.strip()[-400:]})")
            continue
        result = json.loads(lines[-1])
        print(f"  everything in {result['seconds']:.2f} s (merge forest loaded in {result['forest_seconds']:.2f} s); "
              f"longest stall {result['max_stall_ms']:.0f} ms (target <= 50), {result['stalls_over_50ms']} over "
              f"50 ms; worst: {result['worst']}; garbage collections over 10 ms (at, generation, ms): "
              f"{result['slow_gc']}")


if __name__ == "__main__":
    main()
