"""Issue 16 probe: the built-in trainer's phases on one corpus, counted in one process or in two.

"two" forks a child that counts the chunks of the file's second half (cut at a line break: in "hf"
rules each line is a text of its own, so the counts are exactly those of one pass) while this
process counts the first; the child's counts are added after the parent's, which keeps the
order chunks were first seen in. A prototype for measuring, not the product's code path: no
cancel, no GUI child, Linux only (os.fork).

    python tests/benchmarks/bench_count_halves.py CORPUS one|two
"""

from __future__ import annotations

import hashlib
import os
import pickle
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from explorer.core.algorithms.train import BpeTrainer  # noqa: E402
from explorer.core.generators import run_to_end  # noqa: E402

VOCAB = 32768


def _lines(data: bytes) -> Iterator[str]:
    """The texts as the trainer reads a file: each line with its "\\n"."""
    for line in data.split(b"\n"):
        yield line.decode("utf-8") + "\n"


def _count_in_child(data: bytes) -> tuple[int, int]:
    """Fork a child that counts `data`'s chunks; (its pid, the pipe its counts arrive on)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        child = BpeTrainer(VOCAB, "cl100k")
        run_to_end(child.add_texts(_lines(data)))
        blob = pickle.dumps((list(child.chunk_counts), list(child.chunk_counts.values())), protocol=5)
        with os.fdopen(write_end, "wb") as out:
            out.write(blob)
        os._exit(0)
    os.close(write_end)
    return pid, read_end


def main() -> None:
    path, mode = sys.argv[1], sys.argv[2]
    start = time.perf_counter()
    trainer = BpeTrainer(VOCAB, "cl100k")
    data = Path(path).read_bytes().removesuffix(b"\n")
    child_mb = 0.0
    if mode == "two":
        middle = data.index(b"\n", len(data) // 2)
        pid, pipe = _count_in_child(data[middle + 1:])
        run_to_end(trainer.add_texts(_lines(data[:middle])))
        with os.fdopen(pipe, "rb") as source:
            chunks, counts = pickle.loads(source.read())
        _, _, usage = os.wait4(pid, 0)
        child_mb = usage.ru_maxrss / 1024
        for chunk, count in zip(chunks, counts):
            trainer.chunk_counts[chunk] += count
    else:
        run_to_end(trainer.add_texts(_lines(data)))
    del data
    counted = time.perf_counter()
    digest = hashlib.sha256()
    merges = 0
    for merge in trainer.merges():
        digest.update(len(merge.token).to_bytes(4, "little") + merge.token)
        merges += 1
    end = time.perf_counter()
    print(f"{mode}: counting {counted - start:.2f} s, merges {end - counted:.2f} s, total {end - start:.2f} s, "
          f"{merges} merges, digest {digest.hexdigest()[:16]}, peak MB parent "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} child {child_mb:.0f}")


if __name__ == "__main__":
    main()
