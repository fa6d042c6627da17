"""Where the GUI thread's time goes at start-up: a cProfile of each event-loop stall.

    DISPLAY=:99 python tests/benchmarks/profile_startup.py [--over 40] [--top 14]   (or QT_QPA_PLATFORM=offscreen)

Starts the window as bench_shell.py does and profiles the GUI thread alone, one profile per gap
between the ticks of a 5 ms timer; for every gap over `--over` ms until the window is idle it
prints the background step that ran last, the worker jobs running, the garbage collections
inside it and the functions that took the time (cProfile roughly doubles Python's share: read
the proportions, and bench_shell.py for the figures). A gap spent in `time.sleep` or in
`processEvents` with nothing under it was the GUI thread waiting for the interpreter lock.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "benchmarks"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--over", type=float, default=40.0, help="report gaps longer than this (ms)")
    parser.add_argument("--top", type=int, default=14, help="functions per gap")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, QTimer

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from gui_window import SlowCollections

    from explorer.app import open_main_window
    from explorer.ui.main_window import PANE_NAMES

    collections = SlowCollections()
    origin = collections.origin = time.perf_counter()
    app, session, window = open_main_window([], tour=False)
    print(f"open_main_window: {time.perf_counter() - origin:.2f} s; load {os.getloadavg()[0]:.1f}")
    window.resize(1400, 900)
    gaps: list[tuple[float, float, cProfile.Profile, list[str], str]] = []
    state: dict[str, Any] = {"last": time.perf_counter(), "profile": cProfile.Profile()}

    def tick() -> None:
        now = time.perf_counter()
        state["profile"].disable()
        if (now - state["last"]) * 1000 > args.over:
            gaps.append((state["last"] - origin, (now - state["last"]) * 1000, state["profile"],
                         [job.name for job in session.workers.running], getattr(window, "last_step", "")))
        state["profile"] = cProfile.Profile()
        state["last"] = time.perf_counter()
        state["profile"].enable()

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    state["profile"].enable()
    end = time.perf_counter() + 60
    while time.perf_counter() < end:
        app.processEvents()
        if (len(window.panes) == len(PANE_NAMES) and not session.workers.running
                and not getattr(window, "building_in_background", False)):
            break
        time.sleep(0.002)
    state["profile"].disable()
    timer.stop()
    for at, gap, profile, running, step in gaps:
        slow = [c for c in collections.found if at - 0.01 <= c[0] <= at + gap / 1000]
        print(f"\n=== {at:.2f} s: {gap:.0f} ms; last step {step!r}; running {running}; collections {slow}")
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.top)
        lines = [line for line in out.getvalue().splitlines()
                 if line.strip() and not line.lstrip().startswith(("Ordered by", "List reduced"))]
        print("\n".join(lines[1:]))
    session.unsaved.clear()
    window.close()
    session.shutdown()


if __name__ == "__main__":
    main()
