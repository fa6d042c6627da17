"""How fast the Merges pane's vocabulary filters answer on o200k_base's 200,000 rows.

    python tests/benchmarks/bench_vocab_filter.py [--encoding o200k_base] [--repeat 7]

Prints the median and worst time of each filter typed for the first time (the table keeps the
last results, so each repetition starts with them forgotten). The issue asks for under 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from explorer.core.analysis.vocab_filter import VocabQuery, build_table
from explorer.core.sources.load import load_tokenizer
from explorer.core.text.scripts import SCRIPT_NAMES

QUERIES = [
    VocabQuery(text="ing"), VocabQuery(text="·the"), VocabQuery(text="ing$", mode="regex"),
    VocabQuery(text=r"\p{Han}", mode="regex"), VocabQuery(text=r"^\s", mode="regex"), VocabQuery(text=".", mode="regex"),
    VocabQuery(text=r"\w", mode="regex"),
    VocabQuery(text="1000-2000", mode="id"), VocabQuery(min_length=10), VocabQuery(script=SCRIPT_NAMES.index("Cyrillic")),
    VocabQuery(text="a", min_length=5, max_length=9),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoding", default="o200k_base")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    tokenizer = load_tokenizer(args.encoding)
    started = time.perf_counter()
    building = build_table(tokenizer)
    while True:
        try:
            next(building)
        except StopIteration as done:
            table = done.value
            break
    print(f"{args.encoding}: {table.rows:,} rows, columns built in {time.perf_counter() - started:.2f} s")
    for query in QUERIES:
        times = []
        for _ in range(args.repeat):
            table._text_masks.clear()  # a new query each time, as when typing
            start = time.perf_counter()
            rows = int(table.matches(query).sum())
            times.append((time.perf_counter() - start) * 1000)
        described = {k: v for k, v in vars(query).items() if v != getattr(VocabQuery(), k)} if hasattr(query, "__dict__") \
            else {f: getattr(query, f) for f in query.__slots__ if getattr(query, f) != getattr(VocabQuery(), f)}
        print(f"  {str(described):60} {rows:>8,} rows  median {statistics.median(times):6.1f} ms  max {max(times):6.1f} ms")


if __name__ == "__main__":
    main()
