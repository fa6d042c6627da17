"""What the Training pane's Hugging Face engine pays for merge counts, against HF's own training, in one run.

Each job runs in its own process (time and peak memory its own), one thread, on the same corpus:

- `hf`: HF's own training (`_hf_fit` on the corpus read by CorpusReader), then, for comparison, the
  counts as they were measured before issue 16: encoding the whole corpus again with the trained model.
- `engine`: `run_training` with the HF engine: its whole run, its HF training call, and the time from
  the end of that call to the last merge (counting distinct chunks, left over from while HF learned,
  encoding each once in `chunk_merge_counts`, replaying the merges).

What the counts add is the engine's run minus HF's own training; its ratio to HF's own training is
the figure to watch (issue 16: counts without the second pass). CPU seconds are printed too: on a
busy machine the counting cannot use a free core while HF learns, and only they compare fairly.

    RAYON_NUM_THREADS=1 python tests/benchmarks/bench_hf_counts.py --corpora ../corpora-build
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import child_jobs  # noqa: E402 (beside this script)
PATTERN = "cl100k"


def _corpus(path: str) -> Any:
    from explorer.core.corpora.corpus_sources import Corpus, Source

    return Corpus((Source.for_path(Path(path)),))


def _hf_own(path: str, vocab: int) -> dict[str, float]:
    from itertools import chain

    from explorer.core.algorithms.training_run import TrainingSettings, _hf_fit
    from explorer.core.formats.hf import training_pipeline

    settings = TrainingSettings(vocab, PATTERN, engine="hf")
    start, cpu = time.perf_counter(), time.process_time()
    tokenizer = _hf_fit(_corpus(path).reader(), settings)
    fit, fit_cpu = time.perf_counter() - start, time.process_time() - cpu
    encoder = training_pipeline(PATTERN)
    encoder.model = tokenizer.model
    start, cpu, batch, tokens = time.perf_counter(), time.process_time(), [], 0
    for text in chain(_corpus(path).reader(), [None]):
        if text is not None:
            batch.append(text)
        if len(batch) >= 2000 or (text is None and batch):
            tokens += sum(len(e.ids) for e in encoder.encode_batch_fast(batch, add_special_tokens=False))
            batch = []
    return {"fit": fit, "fit_cpu": fit_cpu, "re_encode": time.perf_counter() - start,
            "re_encode_cpu": time.process_time() - cpu, "tokens": tokens}


def _engine(path: str, vocab: int) -> dict[str, float]:
    import explorer.core.algorithms.training_run as training_run
    from explorer.core.algorithms.training_run import Learned, MergeStage, TrainingSettings, run_training

    spent: dict[str, float] = {}

    def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args)
            finally:
                spent[name] = time.perf_counter() - start
        return wrapper

    training_run._hf_fit = timed("fit", training_run._hf_fit)  # type: ignore[assignment]
    start, cpu = time.perf_counter(), time.process_time()
    merges, distinct = 0, 0
    for record in run_training(_corpus(path), TrainingSettings(vocab, PATTERN, engine="hf")):
        if isinstance(record, MergeStage):
            distinct = record.distinct_chunks
        merges += isinstance(record, Learned)
        if "fit" in spent and "after" not in spent:
            spent["after"] = time.perf_counter()
    end = time.perf_counter()
    return {**spent, "total": end - start, "cpu": time.process_time() - cpu, "after": end - spent["after"], "merges": merges, "distinct": distinct}


JOBS = {"hf": _hf_own, "engine": _engine}


def run_job(*args: str) -> tuple[dict[str, Any], float]:
    return child_jobs.run_job(__file__, *args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default=str(REPO.parent / "corpora-build"), help="folder with *-10mb.txt")
    parser.add_argument("--size", default="10mb")
    parser.add_argument("--vocab", type=int, default=32768)
    parser.add_argument("--kinds", default="prose,multi")
    parser.add_argument("--job", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.job:
        name, path, vocab = args.job
        print(json.dumps(JOBS[name](path, int(vocab))))
        return

    corpora = Path(args.corpora)
    print(f"HF engine merge counts, vocab {args.vocab}, pattern {PATTERN}, "
          f"RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', '1')} ({args.size} corpora in {corpora})")
    print(f"{'corpus':7} {'HF fit':>7} {'engine':>7} {'added':>6} {'ratio':>6} {'after':>6} {'re-enc':>7} {'ratio':>6} "
          f"{'HF cpu':>7} {'eng cpu':>7} {'added':>6} {'re-enc':>6} {'HF MB':>6} {'eng MB':>6} {'distinct':>9}")
    for kind in args.kinds.split(","):
        corpus = corpora / f"{kind}-{args.size}.txt"
        if not corpus.exists():
            print(f"{kind:7} missing {corpus}: build it with ../shared/corpora/make_corpora.py")
            continue
        own, own_mb = run_job("hf", str(corpus), str(args.vocab))
        engine, engine_mb = run_job("engine", str(corpus), str(args.vocab))
        own_cpu, engine_cpu = own["fit_cpu"], engine["cpu"]
        fit, added = own["fit"], engine["total"] - own["fit"]
        print(f"{kind:7} {fit:7.2f} {engine['total']:7.2f} {added:6.2f} {added / fit:6.2f} {engine['after']:6.2f} "
              f"{own['re_encode']:7.2f} {own['re_encode'] / fit:6.2f} {own_cpu:7.2f} {engine_cpu:7.2f} "
              f"{engine_cpu - own_cpu:6.2f} {own['re_encode_cpu']:6.2f} {own_mb:6.0f} {engine_mb:6.0f} {int(engine['distinct']):9,}")
    print("HF fit: HF's own training (s); engine: the whole HF-engine run, counts included; added: engine - HF fit, "
          "ratio to HF fit; after: from HF's end to the last merge; re-enc: the former counts (encoding the whole "
          "corpus again), ratio to HF fit; cpu: CPU seconds of HF's training, of the engine's run, what the engine adds, "
          "and of the former re-encoding; "
          "MB: peak memory of each process.")


if __name__ == "__main__":
    main()
