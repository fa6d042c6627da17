"""The built-in encoder over tiktoken's rank files against tiktoken itself, measured in one run.

For each encoding: tiktoken's `encode_ordinary`, and our `TiktokenTokenizer.bundled(name).as_bpe()`
made fresh for each cold run (an empty chunk cache), then encoding the same text again (warm). Best of
REPEAT runs each, the three taking turns (this machine's speed drifts by 10-20% over a minute: runs
in blocks, as bench_core's, favour whichever ran in the faster minute); both wall-clock and CPU time,
since on a shared machine the CPU ratio is the steadier one. Ids must be identical. The pair table of a rank file (rank_pairs) comes from
the user's cache after the first run ever; `--no-table-cache` builds it from the rank file each time.
The pair tables are built before each cold run (`prepare`), as tiktoken's Encoding builds its rank map
when it is made: "cold" is the chunk cache; `tables s` is that one-time build, and `cold+tables x` the
ratio with it counted.

    RAYON_NUM_THREADS=1 python tests/benchmarks/bench_tiktoken_encode.py [--corpus FILE] [names...]

Target (issue 16): cl100k_base cold >= 1.0x tiktoken's speed on 10 MB prose.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
REPEAT = 5


def best_of(run: Callable[[], object], times: dict[str, list[float]], name: str) -> object:
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    best = times.setdefault(name, [float("inf"), float("inf")])
    best[0], best[1] = min(best[0], wall), min(best[1], cpu)
    return result


def measure(name: str, text: str) -> tuple[dict[str, list[float]], bool]:
    from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer

    encoding = TiktokenTokenizer.bundled(name)._encoding
    times: dict[str, list[float]] = {}
    identical = True
    for _ in range(REPEAT):  # in turns: a machine that slows down or speeds up meanwhile weighs on both
        theirs = best_of(lambda: encoding.encode_ordinary(text), times, "tiktoken")
        bpe = TiktokenTokenizer.bundled(name).as_bpe()  # fresh: an empty chunk cache
        best_of(bpe.prepare, times, "tables")  # (tiktoken's own: built with its Encoding, above)
        ours = best_of(lambda: bpe.encode(text, special="plain"), times, "cold")
        best_of(lambda: bpe.encode(text, special="plain"), times, "warm")
        identical = identical and ours == theirs
    return times, identical


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", default=["cl100k_base", "o200k_base", "r50k_base"])
    parser.add_argument("--corpus", default=str(REPO.parent / "corpora-build" / "prose-10mb.txt"))
    parser.add_argument("--no-table-cache", action="store_true", help="build the pair table in each cold run")
    args = parser.parse_args()
    if args.no_table_cache:
        from explorer.core.algorithms import rank_pairs
        rank_pairs.cached_joinable_pairs = lambda ranks, sha256: rank_pairs.joinable_pairs(ranks)  # type: ignore
    importlib.import_module("numpy")  # before timing, as in the app and in bench_core

    text = Path(args.corpus).read_text(encoding="utf-8")
    print(f"Encoding {len(text.encode()) / 1e6:.1f} MB ({Path(args.corpus).name}), one thread, best of {REPEAT}")
    print(f"{'encoding':12} {'tiktoken s':>10} {'cold s':>7} {'warm s':>7} {'cold x':>7} {'warm x':>7} "
          f"{'cold x cpu':>10} {'warm x cpu':>10} {'identical':>9} {'tables s':>8} {'cold+tables x':>13}")
    for name in args.names:
        times, identical = measure(name, text)
        (tw, tc), (cw, cc), (ww, wc), (bw, _) = times["tiktoken"], times["cold"], times["warm"], times["tables"]
        print(f"{name:12} {tw:10.2f} {cw:7.2f} {ww:7.2f} {tw / cw:7.2f} {tw / ww:7.2f} {tc / cc:10.2f} "
              f"{tc / wc:10.2f} {str(identical):>9} {bw:8.3f} {tw / (cw + bw):13.2f}")


if __name__ == "__main__":
    main()
