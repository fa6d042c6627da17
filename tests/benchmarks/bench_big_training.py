"""A big corpus trained from the Training pane with the Hugging Face engine, against HF's own `train`.

In one run, each part in a process of its own:

- `hf`: HF's own `Tokenizer.train([file])` on all cores, same pipeline and vocabulary: seconds, peak MB;
  once before the pane's run and once after it, and the pane is compared with the mean of both. This
  machine's speed drifts by 10-25% over minutes (HF's own 400 MB train took 91-106 s in one day's
  runs): timed once, before, the ratio showed whichever way the machine went during the pane's run.
- `gui`: the real main window (Training pane shown) trains the same corpus with the HF engine: seconds
  from the Train click to the result shown (merge counts included), the child's peak MB, the window
  process's memory growth, the longest gap of a 5 ms timer on the GUI thread (the stall a user
  feels), and the ETA the bar showed against the time that really was left, at 10%, 20%, ... of the run.
  Then it keeps timing the stall for `--tail` seconds (20) after the result is shown: the panes
  take up the new tokenizer, and the Merges pane counts the corpus's tokens (in a child process).
- `cancel`: the same, with Cancel clicked at about 30%: seconds until the job has ended and the
  pane is idle (Train enabled again), and whether the child process is gone.

    python tests/benchmarks/bench_big_training.py --corpus ../corpora-400/multi-400mb.txt

HF runs at the training child's niceness (5, the child yields the CPU to the window): on an idle
machine that changes nothing, on a loaded one it gives both the same share (`--hf-nice 0` otherwise).

Targets (issue 16): time <= 1.2x HF, peak memory <= 1.2x HF, stall <= 50 ms, ETA within 20% from
10% on, Cancel within 1 s, window process growth <= 200 MB. The Corpus pane's own scan of the new
corpus is cancelled before training (it is another child process; a user may let it finish first).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from thread_states import ThreadSampler, explain_gap  # noqa: E402 (beside this file)
TICK_MS = 5
NICE = int(os.environ.get("EXPLORER_CHILD_NICE", 5))  # as explorer/ui/process_child.py runs the child
SAMPLE_S = 0.1


def _status_kb(pid: int | str, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def hf_job(corpus: str, vocab: int, pattern: str, nice: int) -> dict[str, Any]:
    from tokenizers import pre_tokenizers, trainers

    from explorer.core.formats.hf import training_pipeline

    if nice and hasattr(os, "nice"):
        os.nice(nice)
    tokenizer = training_pipeline(pattern)
    trainer = trainers.BpeTrainer(vocab_size=vocab, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    start = time.perf_counter()
    tokenizer.train([corpus], trainer)
    return {"seconds": time.perf_counter() - start, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def gui_job(corpus: str, vocab: int, pattern: str, cancel_at: float | None, tail: float = 1.0) -> dict[str, Any]:
    from PySide6.QtCore import QTimer

    from explorer.core.corpora.corpus_sources import Corpus, Source
    from explorer.ui.main_window import PANE_NAMES
    from gui_window import open_window

    calls = _record_eta_calls()
    app, session, window = open_window("training")
    pane = window.panes["training"]
    session.set_corpus(Corpus((Source.for_path(Path(corpus)),)))
    pane.form.set_vocab_size(vocab)
    pane.form.set_pattern(pattern)
    pane.form.engine_combo.setCurrentIndex(pane.form.engine_combo.findData("hf"))
    settle = time.perf_counter() + 30
    while len(window.panes) < len(PANE_NAMES) and time.perf_counter() < settle:
        app.processEvents()
        time.sleep(0.005)
    for job in session.workers.running:  # the Corpus pane's scan of the new corpus
        job.cancel()
    while session.workers.running and time.perf_counter() < settle:
        app.processEvents()
        time.sleep(0.005)
    for _ in range(50):
        app.processEvents()
        time.sleep(0.01)

    gaps: list[float] = []
    busy: list[float] = []  # the GUI thread's own CPU time within each gap: the part of a stall that is our work
    last_cpu = [time.thread_time()]
    samples: list[tuple[float, float | None, float | None]] = []  # (seconds, fraction shown, seconds left shown)
    gui_rss = [_status_kb("self", "VmRSS")]
    child_peak = [0]
    last = [time.perf_counter()]
    next_sample = [0.0]
    cancelled_at: list[float] = []
    phases: dict[str, float] = {}  # when each phase was first seen
    long_gaps: list[tuple[float, int, int, str, int, bool]] = []  # (at, ms, CPU ms, state, merges, result shown)
    slow_gaps: list[tuple[float, int, int, str, int, bool]] = []  # the same, over 30 ms: where the next stall may come

    def tick() -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gaps.append(now - last[0])
        busy.append(cpu - last_cpu[0])
        if gaps[-1] > 0.03:
            run = pane.run
            slow_gaps.append((round(last[0] - start, 2), round(gaps[-1] * 1000), round(busy[-1] * 1000),
                              run.state if run else "-", len(run.merges) if run else 0, pane.tokenizer is not None))
            if gaps[-1] > 0.05:
                long_gaps.append(slow_gaps[-1])
        last[0], last_cpu[0] = now, cpu
        if now < next_sample[0]:
            return
        next_sample[0] = now + SAMPLE_S
        run = pane.run
        gui_rss.append(_status_kb("self", "VmRSS"))
        job = run.job if run is not None else None
        process = getattr(job, "_process", None)
        if process is not None and process.pid:
            child_peak[0] = max(child_peak[0], _status_kb(process.pid, "VmHWM"))
        if run is not None:
            counting = run.counting
            phase = "merges" if run.stage is not None else f"{counting.phase} {counting.stage}" if counting else "-"
            phases.setdefault(phase, round(now - start, 2))
            fraction, left = run.fraction_done, run.seconds_left
            samples.append((now - start, fraction, left))
            if cancel_at is not None and not cancelled_at and fraction is not None and fraction >= cancel_at:
                cancelled_at.append(time.perf_counter())
                pane.cancel_button.click()

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    timer.start()
    start = last[0] = time.perf_counter()
    last_cpu[0] = time.thread_time()
    pane.start_button.click()
    if cancel_at is None:
        while pane.tokenizer is None:
            if pane.run is None or pane.run.state == "failed":
                raise SystemExit(f"training failed: {pane.run.error if pane.run else 'did not start'}")
            app.processEvents()
            time.sleep(0.001)
    else:
        while not (cancelled_at and pane.run is not None and pane.run.state == "cancelled"
                   and not session.workers.running and pane.start_button.isEnabled()):
            if pane.run is None or pane.run.state in ("failed", "finished"):
                raise SystemExit("the run ended before it could be cancelled")
            app.processEvents()
            time.sleep(0.001)
    seconds = time.perf_counter() - start
    eta_end = time.monotonic()  # the clock HfRunEta is fed with
    shown_at = len(gaps)
    tail_end = time.perf_counter() + tail  # more: whatever the result costs the window after it is shown
    while time.perf_counter() < tail_end:
        app.processEvents()
        time.sleep(0.001)
    tail_gaps = gaps[shown_at:] or [0.0]
    gui_rss.append(_status_kb("self", "VmRSS"))
    timer.stop()
    result: dict[str, Any] = {
        "seconds": seconds, "max_stall_ms": max(gaps) * 1000, "max_busy_ms": max(busy) * 1000, "stalls_over_50ms": sum(g > 0.05 for g in gaps),
        "gui_growth_mb": (max(gui_rss) - gui_rss[0]) / 1024, "gui_end_growth_mb": (gui_rss[-1] - gui_rss[0]) / 1024,
        "child_peak_mb": child_peak[0] / 1024, "merges": len(pane.run.merges) if pane.run else 0, "samples": samples,
        "long_gaps": long_gaps[:20], "slowest_gaps": sorted(slow_gaps, key=lambda gap: -gap[1])[:8], "end_gaps": [g for g in long_gaps if g[3] not in ("starting", "counting")][:20],
        "phases": phases, "tail_s": tail, "tail_stall_ms": max(tail_gaps) * 1000,
        "tail_stalls_over_50ms": sum(g > 0.05 for g in tail_gaps),
        "stall_until_shown_ms": max(gaps[:shown_at] or [0.0]) * 1000,
        "start_perf": start, "gui_tid": threading.get_native_id(),
        "eta_trace": {"started": pane.run.started_at if pane.run else 0.0, "ended": eta_end, "calls": calls}}
    if cancelled_at:
        process = getattr(pane.run.job, "_process", None) if pane.run else None
        result["cancel_s"] = seconds - (cancelled_at[0] - start)
        result["child_alive"] = bool(process is not None and process.is_alive())
    session.unsaved.clear()
    window.close()
    session.shutdown()
    return result


def _record_eta_calls() -> list[list[Any]]:
    """Every call the run makes to HfRunEta ([method, now, *arguments]), to replay offline (eta_replay.py)."""
    from explorer.core.algorithms.training_eta import HfRunEta

    calls: list[list[Any]] = []
    for name in ("reading", "learning", "measuring", "merging"):
        method = getattr(HfRunEta, name)

        def recorded(self: HfRunEta, *args: Any, _method: Any = method, _name: str = name) -> None:
            calls.append([_name, *args])
            _method(self, *args)
        setattr(HfRunEta, name, recorded)
    return calls


def eta_errors(samples: list[list[Any]], total: float) -> list[tuple[int, float | None, float | None]]:
    """(percent of the run, ETA error, progress error) at 10%, 20%, ..., 90% of the run's real time:
    (ETA shown - time really left) / time really left, and fraction shown - real fraction."""
    errors = []
    for percent in range(10, 100, 10):
        at = total * percent / 100
        near = min(samples, key=lambda s: abs(s[0] - at))
        seconds, fraction, left = near
        real_left = total - seconds
        errors.append((percent, None if left is None else (left - real_left) / real_left,
                       None if fraction is None else fraction - seconds / total))
    return errors


def run(script_args: list[str], threads: str | None = None, sample: bool = False) -> dict[str, Any]:
    """The job in a process of its own; `sample`: every thread's state and CPU time in each long
    stall, from outside (thread_states.py), as `threads`."""
    env = dict(os.environ)
    if threads:
        env["RAYON_NUM_THREADS"] = threads
    else:
        env.pop("RAYON_NUM_THREADS", None)  # all cores, as HF's own default
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory() as scratch, subprocess.Popen(
            [sys.executable, __file__, *script_args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=REPO, env=env) as child:
        sampler = ThreadSampler(child.pid, Path(scratch) / "threads.jsonl", _x_server_pids()) if sample else None
        stdout, stderr = child.communicate()
        samples = sampler.stop() if sampler else []
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"{script_args[:2]} failed ({child.returncode}): {stderr.strip()[-800:]}")
    result = json.loads(lines[-1])
    result["threads"] = [explain_gap(samples, result["start_perf"] + at, result["start_perf"] + at + ms / 1000,
                                     result["gui_tid"]) for at, ms, *_ in result.get("long_gaps", [])] if samples else []
    return result  # type: ignore[no-any-return]


def _x_server_pids() -> tuple[int, ...]:
    """The X server's process (Xvfb) behind DISPLAY, if it runs here: its CPU time in a stall."""
    display = os.environ.get("DISPLAY", "")
    found = subprocess.run(["pgrep", "-f", f"Xvfb {display}( |$)"], capture_output=True, text=True).stdout.split()
    return tuple(int(pid) for pid in found) if display else ()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=str(REPO.parent / "corpora-400" / "multi-400mb.txt"))
    parser.add_argument("--vocab", type=int, default=32768)
    parser.add_argument("--pattern", default="cl100k")
    parser.add_argument("--cancel-at", type=float, default=0.3)
    parser.add_argument("--hf-nice", type=int, default=NICE,
                        help="HF's niceness: by default the training child's, so that on a loaded machine both "
                             "get the same share of it (0: HF at the window's priority)")
    parser.add_argument("--tail", type=float, default=20.0,
                        help="seconds the stall is still timed after the result is shown")
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out: hf, gui, cancel")
    parser.add_argument("--threads", action="store_true",
                        help="for each stall of the window, what each of its threads (and Xvfb's) did (Linux)")
    parser.add_argument("--eta-trace", help="save the calls the run made to its ETA (JSON, gzipped if the name "
                        "ends in .gz) for eta_replay.py")
    parser.add_argument("--job", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.job:
        kind, cancel = args.job
        if kind == "hf":
            print(json.dumps(hf_job(args.corpus, args.vocab, args.pattern, int(cancel))))
        else:
            print(json.dumps(gui_job(args.corpus, args.vocab, args.pattern, float(cancel) if cancel != "-" else None,
                                     args.tail if cancel == "-" else 1.0)))
        return
    if not Path(args.corpus).exists():
        raise SystemExit(f"{args.corpus} is missing: build it with ../shared/corpora/make_corpora.py --sizes 400")
    common = ["--corpus", args.corpus, "--vocab", str(args.vocab), "--pattern", args.pattern, "--tail", str(args.tail)]
    skip = set(args.skip.split(","))
    print(f"{Path(args.corpus).name} ({Path(args.corpus).stat().st_size / 1e6:,.0f} MB), vocab {args.vocab:,}, "
          f"pattern {args.pattern}, HF engine in the Training pane; load average {os.getloadavg()[0]:.1f}", flush=True)
    hf_runs = [run(["--job", "hf", str(args.hf_nice), *common])] if "hf" not in skip else []
    if hf_runs:
        print(f"HF's own train (all cores, nice {args.hf_nice}), before the pane: {hf_runs[0]['seconds']:.1f} s, "
              f"peak {hf_runs[0]['peak_mb']:.0f} MB", flush=True)
    gui = run(["--job", "gui", "-", *common], sample=args.threads) if "gui" not in skip else None
    if gui:
        print(f"pane: {gui['seconds']:.1f} s, child peak {gui['child_peak_mb']:.0f} MB, {gui['merges']:,} merges; "
              f"window process growth {gui['gui_growth_mb']:.0f} MB (at the end {gui['gui_end_growth_mb']:.0f} MB); "
              f"longest stall {gui['max_stall_ms']:.0f} ms ({gui['stalls_over_50ms']} over 50 ms; the GUI thread's own "
              f"work within a gap at most {gui['max_busy_ms']:.0f} ms)", flush=True)
        print(f"  until the result was shown: longest stall {gui['stall_until_shown_ms']:.0f} ms; in the "
              f"{gui['tail_s']:.0f} s after it: {gui['tail_stall_ms']:.0f} ms ({gui['tail_stalls_over_50ms']} over 50 ms)")
        print(f"  phases first seen at (s): {gui['phases']}")
        print(f"  stalls over 50 ms (s, ms, GUI thread CPU ms, state, merges, result shown): {gui['long_gaps']}")
        for gap, lines in zip(gui["long_gaps"], gui["threads"]):
            print(f"    at {gap[0]} s, {gap[1]} ms: " + "\n      ".join(lines))
        print(f"  of them from the first merge on (the end of the run): {gui['end_gaps']}")
        print(f"  the slowest gaps (s, ms, GUI thread CPU ms, state, merges, result shown): {gui['slowest_gaps']}")
        if args.eta_trace:
            trace, path = json.dumps(gui["eta_trace"]).encode(), Path(args.eta_trace)
            path.write_bytes(gzip.compress(trace) if path.suffix == ".gz" else trace)  # (as read_trace reads it)
        errors = eta_errors(gui["samples"], gui["seconds"])
        print("  ETA error (shown - real) / real left, and progress shown - real, at: " + "; ".join(
            f"{p}%: {'-' if e is None else f'{e:+.0%}'} / {'-' if f is None else f'{f:+.2f}'}" for p, e, f in errors))
    if hf_runs and gui:
        hf_runs.append(run(["--job", "hf", str(args.hf_nice), *common]))
        print(f"HF's own train, after the pane: {hf_runs[1]['seconds']:.1f} s, peak {hf_runs[1]['peak_mb']:.0f} MB",
              flush=True)
    hf = {key: sum(part[key] for part in hf_runs) / len(hf_runs) for key in ("seconds", "peak_mb")} if hf_runs else None
    cancel = run(["--job", "gui", str(args.cancel_at), *common]) if "cancel" not in skip else None
    if cancel:
        print(f"cancel at {args.cancel_at:.0%}: {cancel['cancel_s']:.2f} s to idle, child alive after: "
              f"{cancel['child_alive']}; longest stall {cancel['max_stall_ms']:.0f} ms", flush=True)
    rows = []
    if hf and gui:
        worst = max((abs(e) for _, e, _ in eta_errors(gui["samples"], gui["seconds"]) if e is not None), default=None)
        rows += [("time (s)", gui["seconds"], hf["seconds"], gui["seconds"] / hf["seconds"], "<= 1.2x (HF: mean of before and after)"),
                 ("peak memory (MB)", gui["child_peak_mb"], hf["peak_mb"], gui["child_peak_mb"] / hf["peak_mb"], "<= 1.2x")]
        rows.append(("worst ETA error 10-90%", worst, None, None, "<= 20%"))
    if gui:
        rows += [("longest stall (ms)", gui["max_stall_ms"], None, None, "<= 50"),
                 (f"  in the {gui['tail_s']:.0f} s after (ms)", gui["tail_stall_ms"], None, None, "<= 50"),
                 ("  GUI thread's own (ms)", gui["max_busy_ms"], None, None, "<= 50"),
                 ("window growth (MB)", gui["gui_growth_mb"], None, None, "<= 200")]
    if cancel:
        rows.append(("cancel (s)", cancel["cancel_s"], None, None, "<= 1"))
    print(f"{'figure':24} {'ours':>9} {'HF':>9} {'ratio':>6}  target")
    for name, ours, theirs, ratio, target in rows:
        print(f"{name:24} {'-' if ours is None else f'{ours:9.2f}':>9} {'' if theirs is None else f'{theirs:9.1f}':>9} "
              f"{'' if ratio is None else f'{ratio:6.2f}':>6}  {target}")


if __name__ == "__main__":
    main()
