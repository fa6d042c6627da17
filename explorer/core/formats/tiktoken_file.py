"""`.tiktoken` rank files and the encodings bundled with the app.

A `.tiktoken` file has one token per line: its bytes in base64, a space, and its rank (which is
also its id and its merge priority). It says nothing about the pre-tokenizer pattern or the
special tokens, so those come from the table below for the bundled encodings (OpenAI's, Llama 3
and 4, Qwen, and Mistral's Tekken, whose file is JSON), or from the user.
"""

from __future__ import annotations

import binascii
import hashlib
import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from explorer.core.cache import read_vocab, write_vocab
from explorer.core.errors import TokenizerFileError
from explorer.core.files import read_bytes, write_atomic
from explorer.core.formats.model_tokens import (harmony_special_tokens, llama3_special_tokens,
                                                llama4_special_tokens, qwen_special_tokens, tekken_special_tokens)
from explorer.core.pretokenization.pretokenize import CL100K, DIGITS, GPT2, LLAMA3, O200K, TEKKEN
from explorer.core.sources.tokenizer import MAX_TOKEN_ID

ENDOFTEXT = "<|endoftext|>"
ENDOFPROMPT = "<|endofprompt|>"
# What the Llama community licences (resources/encodings/licenses/) ask a product that ships them to show.
LLAMA3_NOTICE = ("Built with Meta Llama 3. Meta Llama 3 is licensed under the Meta Llama 3 Community License, "
                 "Copyright © Meta Platforms, Inc. All Rights Reserved.")
LLAMA4_NOTICE = ("Built with Llama. Llama 4 is licensed under the Llama 4 Community License, "
                 "Copyright © Meta Platforms, Inc. All Rights Reserved.")


@dataclass(frozen=True)
class BundledEncoding:
    """A shipped encoding: OpenAI's as `tiktoken_ext/openai_public.py` defines them, the others as
    their model's tokenizer code does (explorer/core/formats/model_tokens.py)."""

    name: str
    sha256: str  # the published file's (tiktoken's `expected_hash` for OpenAI's; of the JSON for Tekken)
    pattern: str
    special_tokens: dict[str, int]
    description: str
    aliases: tuple[str, ...] = field(default=())
    family: str = "OpenAI"  # the picker's group
    file: str = ""  # the shipped file when it is not `<name>.tiktoken` (o200k_harmony uses o200k_base's)
    notice: str = ""  # the attribution the file's licence asks to be shown (About box, README)
    installed: str = ""  # the same file in the PyPI package it comes from: "package/path/in/it"
    shipped: bool = True  # False: its licence does not let us ship it, so only `installed` is read

    @property
    def available(self) -> bool:
        return self.path.is_file()

    def missing_reason(self) -> str:
        """Why it cannot be loaded here and what to do (for a file that is not shipped)."""
        package = self.installed.split("/")[0].replace("_", "-")
        return (f"{self.name} is not shipped with the app (its licence asks that its text travel with the file): "
                f"install {package} (pip install {package}) to read it from there, or open its "
                f"{Path(self.installed).name} as a file (a copy is recognised by its sha256)")

    @property
    def path(self) -> Path:
        """The shipped file, found through the package so it works from a wheel or a checkout; if a
        build leaves it out, the same file in its source package when that is installed."""
        shipped = self._shipped
        if (not self.shipped or not shipped.exists()) and self.installed:
            return installed_file(self.installed) or shipped
        return shipped

    @property
    def file_name(self) -> str:
        """The name of the shipped file in resources/encodings/."""
        return self.file or f"{self.name}.tiktoken"

    @property
    def _shipped(self) -> Path:
        return Path(str(resources.files("explorer.resources") / "encodings" / self.file_name))

    @property
    def source(self) -> str:
        """Where a loaded tokenizer says it came from."""
        kind = "Tekken" if self.is_tekken else "tiktoken"
        if not self.shipped:
            package = self.installed.split("/")[0].replace("_", "-")
            return f"{kind} encoding of the installed {package} ({self.description})"
        return f"bundled {kind} encoding ({self.description})"

    @property
    def is_tekken(self) -> bool:
        """A Tekken JSON file (gzipped when shipped) rather than a rank file."""
        return ".json" in self.path.name

    @property
    def merges_path(self) -> Path:
        """Its merges, recovered from the ranks once by packaging/fetch_encodings.py and shipped."""
        return self._shipped.with_name(f"{self._shipped.name.split('.')[0]}.merges.gz")


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
        BundledEncoding("o200k_harmony", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
                        O200K, harmony_special_tokens(), "gpt-oss, harmony format",
                        file="o200k_base.tiktoken"),
        BundledEncoding("llama3", "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
                        LLAMA3, llama3_special_tokens(), "Llama 3, 3.1, 3.2, 3.3", family="Meta Llama",
                        notice=LLAMA3_NOTICE, installed="llama_models/llama3/tokenizer.model", shipped=False),
        BundledEncoding("llama4", "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
                        O200K, llama4_special_tokens(), "Llama 4", family="Meta Llama",
                        notice=LLAMA4_NOTICE, installed="llama_models/llama4/tokenizer.model", shipped=False),
        BundledEncoding("qwen", "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
                        DIGITS, qwen_special_tokens(), "Qwen 1.x", family="Qwen",
                        installed="dashscope/resources/qwen.tiktoken"),
        BundledEncoding("tekken", "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
                        TEKKEN, tekken_special_tokens(), "Mistral NeMo, Pixtral",
                        aliases=("tekken_240911", "tekken_240718"), family="Mistral",
                        file="tekken_240911.json.gz", installed="mistral_common/data/tekken_240911.json"),
    ]
}


def installed_file(member: str) -> Path | None:
    """`package/path` inside an installed package, found without importing it; None if absent."""
    package, _, inside = member.partition("/")
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    return next((Path(folder) / inside for folder in folders if (Path(folder) / inside).is_file()), None)


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
    vocab = read_vocab(sha256)  # parsed and checked before, when a file with this hash was read
    if vocab is not None:
        tokens = zip(vocab, range(len(vocab)))
        return RankFile(dict(tokens) if b"" not in vocab else {t: r for t, r in tokens if t}, vocab, sha256)
    ranks, vocab = _parse_ranks(path, data)
    write_vocab(sha256, vocab)
    return RankFile(ranks, vocab, sha256)


def _parse_ranks(path: str | os.PathLike[str], data: bytes) -> tuple[dict[bytes, int], list[bytes]]:
    """The ranks and the tokens (rank -> bytes) of a `.tiktoken` file's `data`, checked."""
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
        number = next(number for number, line in enumerate(data.splitlines(), start=1)
                      if line.strip() and int(line.split()[1]) < 0)
        raise TokenizerFileError(path, f"line {number} gives a negative rank; ranks are 0, 1, 2... in the order "
                                 "the tokens were made: the file is damaged")
    largest = max(ranks.values())
    if largest >= MAX_TOKEN_ID:
        token = next(token for token, rank in ranks.items() if rank == largest)
        raise TokenizerFileError(path, f"the token {token!r} has rank {largest}, but ranks must be below "
                                 f"{MAX_TOKEN_ID:,}: the file is damaged")
    vocab = [b""] * (largest + 1)
    for token, rank in ranks.items():
        vocab[rank] = token
    return ranks, vocab


def _first_bad_line(data: bytes) -> str:
    """Why the fast parse failed, for a person: the first line that is not 'base64 rank'."""
    if data.startswith(b"\xef\xbb\xbf"):  # (an editor's byte-order mark: tiktoken cannot read it either)
        return "it starts with a byte-order mark (EF BB BF), which is no base64; save it without one (UTF-8, no BOM)"
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
