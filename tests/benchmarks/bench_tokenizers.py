"""Load times of the bundled encodings, and how long encoding a big text holds the interpreter lock.

Each load is timed in a fresh process (imports done first, not counted):
  cold          TiktokenTokenizer.bundled(name): read, sha256-check, build tiktoken's encoder
  + recovery    ... then .forest with an empty cache: merges recovered from the ranks
  + cached      ... then .forest in a new process that finds the recovered merges in the cache
  tiktoken      tiktoken.get_encoding(name) itself, from a pre-filled download cache

Run: RAYON_NUM_THREADS=1 python tests/benchmarks/bench_tokenizers.py [--corpora DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from explorer.core.formats.tiktoken_file import BUNDLED  # noqa: E402

URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"

LOAD = """
import json, sys, time
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
name = sys.argv[1]
start = time.perf_counter()
tokenizer = TiktokenTokenizer.bundled(name)
loaded = time.perf_counter()
forest = tokenizer.forest
done = time.perf_counter()
print(json.dumps({"load": loaded - start, "forest": done - loaded, "merges": len(tokenizer.merges)}))
"""

TIKTOKEN = """
import json, sys, time, tiktoken
start = time.perf_counter()
tiktoken.get_encoding(sys.argv[1])
print(json.dumps({"load": time.perf_counter() - start}))
"""


def run(script: str, name: str, env: dict[str, str]) -> dict[str, float]:
    result = subprocess.run([sys.executable, "-c", script, name], capture_output=True, text=True,
                            env={**os.environ, **env}, cwd=REPO, check=True)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def load_times() -> None:
    print(f"{'encoding':<12} {'cold':>7} {'+recovery':>10} {'+cached':>8} {'tiktoken':>9}  merges")
    with tempfile.TemporaryDirectory() as scratch:
        tiktoken_cache = Path(scratch) / "tiktoken"
        tiktoken_cache.mkdir()
        for name, encoding in BUNDLED.items():
            shutil.copy(encoding.path, tiktoken_cache / hashlib.sha1(URL.format(name).encode()).hexdigest())
        for name in BUNDLED:
            cache = {"XDG_CACHE_HOME": str(Path(scratch) / f"cache-{name}")}
            first = run(LOAD, name, cache)  # empty cache: recovers and stores the merges
            second = run(LOAD, name, cache)  # finds them
            reference = run(TIKTOKEN, name, {"TIKTOKEN_CACHE_DIR": str(tiktoken_cache)})
            print(f"{name:<12} {first['load']:>6.2f}s {first['load'] + first['forest']:>9.2f}s "
                  f"{second['load'] + second['forest']:>7.2f}s {reference['load']:>8.2f}s  {first['merges']:,}")


def longest_stall(work: object) -> tuple[float, float]:
    """(seconds the work took, longest gap between ticks of a 1 ms timer thread)."""
    gaps: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    thread = threading.Thread(target=tick)
    thread.start()
    time.sleep(0.05)
    start = time.perf_counter()
    work()  # type: ignore[operator]
    took = time.perf_counter() - start
    stop.set()
    thread.join()
    return took, max(gaps)


def stalls(corpora: Path) -> None:
    from explorer.core.formats.export import export
    from explorer.core.sources.hf_tokenizer import HFTokenizer
    from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer

    text = "".join((corpora / name).read_text(encoding="utf-8") for name in
                   ("prose-1mb.txt", "multi-1mb.txt", "code-1mb.txt"))
    text = (text * (10_000_000 // len(text) + 1))[:10_000_000]
    o200k = TiktokenTokenizer.bundled("o200k_base")
    took, stall = longest_stall(lambda: o200k.encode(text))
    print(f"o200k_base (tiktoken) on {len(text) / 1e6:.0f}M chars: {took:.2f} s, longest stall {stall * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "tokenizer.json"
        export(TiktokenTokenizer.bundled("cl100k_base"), "hf", path)
        hf = HFTokenizer.from_file(path)
        took, stall = longest_stall(lambda: hf.encode(text))
        print(f"cl100k_base as tokenizer.json on {len(text) / 1e6:.0f}M chars: {took:.2f} s, "
              f"longest stall {stall * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=REPO.parent / "shared" / "corpora",
                        help="folder with prose-1mb.txt, multi-1mb.txt, code-1mb.txt")
    args = parser.parse_args()
    load_times()
    if (args.corpora / "prose-1mb.txt").exists():
        stalls(args.corpora)


if __name__ == "__main__":
    main()
