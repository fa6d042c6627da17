"""Training with minbpe rules against hf rules on the same 10 MB prose, measured in one run.

Each rules trains with the built-in trainer as the command line does (hf rules read the file line
by line, minbpe rules as one text), in its own process so its time is its own. Prints the CPU
seconds of each (the machine may be shared; wall seconds beside them), the ratio minbpe/hf (issue
15: at most 1.5), how many merges were ties, and where the two merge lists part.

    .venv/bin/python tests/benchmarks/bench_rules.py --corpora ../corpora-build [--vocab 32768]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
PATTERN = "cl100k"


def _train(corpus: str, vocab: int, rules: str) -> dict[str, object]:
    from explorer.core.algorithms.train import BpeTrainer
    from explorer.core.corpora.corpus import CorpusFiles

    wall, start = time.perf_counter(), time.process_time()
    trainer = BpeTrainer(vocab, PATTERN, rules=rules)  # type: ignore[arg-type]
    for _ in trainer.add_texts(CorpusFiles([Path(corpus)], whole=rules == "minbpe")):
        pass
    counted = time.process_time()
    merges = list(trainer.merges())
    end = time.process_time()
    return {"seconds": end - start, "counting": counted - start, "merging": end - counted,
            "wall": time.perf_counter() - wall, "merges": len(merges),
            "ties": sum(1 for m in merges if m.tie is not None), "tokens": [m.token.hex() for m in merges]}


def run_job(corpus: Path, vocab: int, rules: str) -> dict[str, object]:
    output = subprocess.run([sys.executable, __file__, "--job", str(corpus), str(vocab), rules], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout
    return json.loads(output)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default=str(REPO.parent / "corpora-build"), help="folder with prose-10mb.txt")
    parser.add_argument("--vocab", type=int, default=32768)
    parser.add_argument("--job", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.job:
        corpus, vocab, rules = args.job
        print(json.dumps(_train(corpus, int(vocab), rules)))
        return
    corpus = Path(args.corpora) / "prose-10mb.txt"
    if not corpus.exists():
        sys.exit(f"{corpus} is missing: build it with ../shared/corpora/make_corpora.py (see the README)")
    results = {rules: run_job(corpus, args.vocab, rules) for rules in ("hf", "minbpe")}
    for rules, result in results.items():
        print(f"{rules:>6} rules: {result['seconds']:7.2f} s CPU (counting {result['counting']:.2f} s, merging "
              f"{result['merging']:.2f} s; {result['wall']:.2f} s wall), {result['merges']:,} merges, "
              f"{result['ties']:,} of them ties")
    hf, minbpe = (results[r]["tokens"] for r in ("hf", "minbpe"))
    part = next((i for i, (a, b) in enumerate(zip(hf, minbpe)) if a != b), min(len(hf), len(minbpe)))  # type: ignore[arg-type]
    shared = len(set(hf) & set(minbpe))  # type: ignore[arg-type]
    print(f"merge lists part at merge {part + 1:,}; {shared:,} of {len(hf):,} tokens shared")  # type: ignore[arg-type]
    ratio = float(results["minbpe"]["seconds"]) / float(results["hf"]["seconds"])  # type: ignore[arg-type]
    print(f"minbpe/hf CPU time ratio: {ratio:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
