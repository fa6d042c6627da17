"""A small on-disk cache for work that is slow to redo: merges recovered from tiktoken ranks,
and the parsed tokens of a rank file.

(The bundled encodings ship their merges, written in the same format by
packaging/fetch_encodings.py; the merges cache is for other .tiktoken files. Parsing a rank file
is redone on every start otherwise: o200k_base's 200,000 base64 lines take 0.13-0.2 s, on the
path to the first coloured tokens; its cached tokens read in 15 ms.)

Entries live under the user's cache folder (`$XDG_CACHE_HOME/tokenizer-explorer`, by default
`~/.cache/tokenizer-explorer`) and are keyed by the sha256 of the file they were computed
from, so an edited file never reads a stale entry. The cache is an optimisation only: a
missing, unreadable or damaged entry is recomputed, and a cache that cannot be written is
skipped silently.
"""

from __future__ import annotations

import gzip
import marshal
import os
import sys
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path

from explorer.core.files import write_atomic

APP_FOLDER = "tokenizer-explorer"
_MAGIC = b"TXMERGES1\n"  # bump when the recovery or the layout changes
# The tokens as `marshal` writes a list of bytes (its format can change with Python's, so the
# version is part of the magic; bump the 1 when the layout changes).
_VOCAB_MAGIC = b"TXVOCAB1-%d.%d-%d\n" % (*sys.version_info[:2], marshal.version)


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/tokenizer-explorer`, or `~/.cache/tokenizer-explorer`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / APP_FOLDER


def merges_path(sha256: str) -> Path:
    return cache_dir() / f"merges-{sha256}.bin"


def cached_merges(sha256: str, compute: Callable[[], list[tuple[int, int, int]]]) -> list[tuple[int, int, int]]:
    """The merges stored for a file with this hash, or `compute()` them and store them."""
    merges = read_merges(merges_path(sha256))
    if merges is None:
        merges = compute()
        try:
            write_merges(merges_path(sha256), merges)
        except OSError:
            pass  # a read-only home folder: recover again next time
    return merges


def read_merges(path: Path) -> list[tuple[int, int, int]] | None:
    """Merges written by `write_merges` (gzip-compressed when the name ends in .gz); None when
    the file is missing or damaged."""
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if not data.startswith(_MAGIC) or (len(data) - len(_MAGIC)) % 12:
        return None
    numbers = array("i")
    numbers.frombytes(data[len(_MAGIC):])
    if sys.byteorder == "big":
        numbers.byteswap()  # stored little-endian, so a file written on one machine reads on any
    # A comprehension, not list(zip(...)): one C call building 200,000 tuples would hold the
    # interpreter lock (and the window) for tens of milliseconds.
    return [merge for merge in zip(numbers[0::3], numbers[1::3], numbers[2::3])]


def write_merges(path: Path, merges: list[tuple[int, int, int]]) -> None:
    """Store merges as little-endian int32 triples after a magic line (gzip for a .gz name)."""
    numbers = array("i", [value for merge in merges for value in merge])
    if sys.byteorder == "big":
        numbers.byteswap()
    data = _MAGIC + numbers.tobytes()
    if path.suffix == ".gz":
        data = gzip.compress(data, compresslevel=9, mtime=0)  # mtime 0: the same merges, the same bytes
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)


def read_entry(name: str, magic: bytes) -> memoryview | None:
    """The body of the cache entry `name` that `write_entry` wrote with this `magic`, or None
    when there is none or it is damaged (its CRC-32 is checked before anything reads it)."""
    try:
        data = (cache_dir() / name).read_bytes()
    except OSError:
        return None
    head = len(magic) + 4
    body = memoryview(data)[head:]
    if not data.startswith(magic) or int.from_bytes(data[len(magic):head], "little") != zlib.crc32(body):
        return None
    return body


def write_entry(name: str, magic: bytes, body: bytes) -> None:
    """Store `body` as the cache entry `name`: `magic`, the CRC-32 of the body, the body. A cache
    that cannot be written is skipped: the work is done again next time."""
    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        write_atomic(cache_dir() / name, magic + zlib.crc32(body).to_bytes(4, "little") + body)
    except OSError:
        pass  # a read-only home folder


def vocab_name(sha256: str) -> str:
    return f"vocab-{sha256}.bin"


def read_vocab(sha256: str) -> list[bytes] | None:
    """The tokens (id -> bytes, b"" for an unused id) stored for the rank file with this hash, or
    None when there are none or the entry is damaged."""
    body = read_entry(vocab_name(sha256), _VOCAB_MAGIC)
    try:
        vocab = marshal.loads(body) if body is not None else None
    except (ValueError, EOFError, TypeError):
        return None
    return vocab if type(vocab) is list else None


def write_vocab(sha256: str, vocab: list[bytes]) -> None:
    """Store a rank file's tokens for `read_vocab`."""
    write_entry(vocab_name(sha256), _VOCAB_MAGIC, marshal.dumps(vocab, marshal.version))
