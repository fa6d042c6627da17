"""Replay the ETA calls recorded from real Training pane runs through today's HfRunEta.

`bench_big_training.py --eta-trace FILE` saves every call a run made to its ETA (the time, the
phase, what the child reported). Replaying them shows what the model in
explorer/core/algorithms/training_eta.py would have shown in those runs, at 10%, 20%, ... 90% of
each: a change to the model is checked against real runs in a second, not in runs of minutes.
tests/core/eta_runs/ holds nine such runs (400 MB multilingual, idle 2-core machine).

    python tests/benchmarks/eta_replay.py [TRACE.json[.gz]...]
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "core")]
from test_training_eta import RECORDED, read_trace, recorded_errors  # noqa: E402 (the tests' replay)


def main() -> None:
    worst_all = 0.0
    for path in [Path(arg) for arg in sys.argv[1:]] or RECORDED:
        found = recorded_errors(read_trace(path))
        worst = max((abs(e) for e in found if e is not None), default=float("nan"))
        worst_all = max(worst_all, worst)
        print(f"{path.name:24} " + " ".join("   -" if e is None else f"{e:+4.0%}" for e in found)
              + f"   worst {worst:.0%}")
    print(f"worst of all: {worst_all:.0%} (target: 20%)")


if __name__ == "__main__":
    main()
