"""`.tiktoken` rank files and the three encodings bundled with the app.

A `.tiktoken` file has one token per line: its bytes in base64, a space, and its rank (which is
also its id and its merge priority). It says nothing about the pre-tokenizer pattern or the
special tokens, so those come from the table below for OpenAI's encodings, or from the user.
"""

from __future__ import annotations

import binascii
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from explorer.core.errors import TokenizerFileError
from explorer.core.files import read_bytes, write_atomic
from explorer.core.pretokenize import CL100K, GPT2, O200K
from explorer.core.tokenizer import MAX_TOKEN_ID

ENDOFTEXT = "<|endoftext|>"
ENDOFPROMPT = "<|endofprompt|>"


@dataclass(frozen=True)
class BundledEncoding:
    """One of OpenAI's encodings as `tiktoken_ext/openai_public.py` defines it."""

    name: str
    sha256: str  # tiktoken's `expected_hash`
    pattern: str
    special_tokens: dict[str, int]
    description: str
    aliases: tuple[str, ...] = field(default=())

    @property
    def path(self) -> Path:
        """The shipped file, found through the package so it works from a wheel or a checkout."""
        return Path(str(resources.files("explorer.resources") / "encodings" / f"{self.name}.tiktoken"))

    @property
    def merges_path(self) -> Path:
        """Its merges, recovered from the ranks once by packaging/fetch_encodings.py and shipped."""
        return self.path.with_name(f"{self.name}.merges.gz")


BUNDLED: dict[str, BundledEncoding] = {
    encoding.name: encoding
    for encoding in [
        BundledEncoding("r50k_base", "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
                        GPT2, {ENDOFTEXT: 50256}, "GPT-2, GPT-3", aliases=("gpt2",)),
        BundledEncoding("cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
                        CL100K, {ENDOFTEXT: 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                                 "<|fim_suffix|>": 100260, ENDOFPROMPT: 100276}, "GPT-3.5, GPT-4"),
        BundledEncoding("o200k_base", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
                        O200K, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}, "GPT-4o"),
    ]
}


def bundled(name: str) -> BundledEncoding | None:
    """The bundled encoding called `name` or one of its aliases (`gpt2` is r50k_base)."""
    for encoding in BUNDLED.values():
        if name == encoding.name or name in encoding.aliases:
            return encoding
    return None


def by_hash(sha256: str) -> BundledEncoding | None:
    """A bundled encoding whose file has this hash: a copy of it keeps its pattern and specials."""
    return next((encoding for encoding in BUNDLED.values() if encoding.sha256 == sha256), None)


@dataclass(frozen=True)
class RankFile:
    """A parsed `.tiktoken` file: rank of every token, the bytes of every rank, the file's hash."""

    ranks: dict[bytes, int]
    vocab: list[bytes]  # rank -> bytes; b"" where a rank is missing
    sha256: str


def read_ranks(path: str | os.PathLike[str], expected_sha256: str | None = None) -> RankFile:
    """Read and check a `.tiktoken` file; every problem becomes a TokenizerFileError naming the line."""
    data = read_bytes(path)
    sha256 = hashlib.sha256(data).hexdigest()
    if expected_sha256 is not None and sha256 != expected_sha256:
        raise TokenizerFileError(path, f"sha256 is {sha256}, not the published {expected_sha256}: the file is "
                                 "damaged or a different version; run packaging/fetch_encodings.py to restore it")
    lines = list(filter(None, data.splitlines()))
    try:
        # The fast path: C-level base64 in one comprehension (0.1 s for o200k_base's 200,000 lines).
        ranks = {binascii.a2b_base64(token, strict_mode=True): int(rank) for token, rank in map(bytes.split, lines)}
    except (ValueError, binascii.Error):
        raise TokenizerFileError(path, _first_bad_line(data)) from None
    if not ranks:
        raise TokenizerFileError(path, "empty: a .tiktoken file has one 'base64-token rank' line per token")
    if len(set(ranks.values())) != len(ranks) or len(ranks) != len(lines):
        raise TokenizerFileError(path, "a token or a rank appears twice; each line must give a new token its own rank")
    if min(ranks.values()) < 0:
        raise TokenizerFileError(path, "negative rank")
    largest = max(ranks.values())
    if largest >= MAX_TOKEN_ID:
        token = next(token for token, rank in ranks.items() if rank == largest)
        raise TokenizerFileError(path, f"the token {token!r} has rank {largest}, but ranks must be below "
                                 f"{MAX_TOKEN_ID:,}: the file is damaged")
    vocab = [b""] * (largest + 1)
    for token, rank in ranks.items():
        vocab[rank] = token
    return RankFile(ranks, vocab, sha256)


def _first_bad_line(data: bytes) -> str:
    """Why the fast parse failed, for a person: the first line that is not 'base64 rank'."""
    for number, line in enumerate(data.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2:
            return f"line {number}: expected 'base64-token rank', found {len(fields)} fields (is it a .tiktoken file?)"
        try:
            binascii.a2b_base64(fields[0], strict_mode=True)
        except binascii.Error as exc:
            return f"line {number}: bad base64 {_shown(fields[0])!r} ({exc})"
        if not fields[1].isdigit():
            return f"line {number}: the rank {_shown(fields[1])!r} is not a whole number"
    return "not a .tiktoken file"


def _shown(field: bytes) -> str:
    return field[:40].decode("utf-8", errors="replace")


def write_ranks(vocab: Sequence[bytes], path: str | os.PathLike[str], skip: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    """Write `vocab` (id -> bytes) as a `.tiktoken` file, leaving out ids in `skip` (special tokens)."""
    lines = [binascii.b2a_base64(data, newline=False) + b" " + str(token_id).encode()
             for token_id, data in enumerate(vocab) if data and token_id not in skip]
    write_atomic(path, b"\n".join(lines) + b"\n")
