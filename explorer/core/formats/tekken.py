"""Mistral's Tekken files (`tekken.json`): byte-level BPE whose ids come after a block of special tokens.

A Tekken file lists its tokens as base64 bytes by rank, with its split pattern and the size of the
special block that comes first (1,000 ids in tekken_240911.json). mistral-common's `Tekkenizer`
keeps the first `default_vocab_size - default_num_special_tokens` ranks and adds the block size to
every rank; shifting all ranks by the same number keeps their merge order, so tiktoken over the
shifted ranks gives Tekkenizer's ids directly. The bundled file ships gzipped, byte for byte.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import TokenizerFileError
from explorer.core.files import parse_json, read_bytes
from explorer.core.formats.model_tokens import tekken_special_tokens
from explorer.core.formats.tiktoken_file import RankFile


@dataclass(frozen=True)
class TekkenFile:
    """What a Tekken file says: ranks already shifted past the special block, pattern, specials."""

    ranks: RankFile
    pattern: str
    special_tokens: dict[str, int]


def is_tekken(document: object) -> bool:
    """A parsed JSON document that looks like a Tekken file (a `config` with a special block)."""
    return (isinstance(document, dict) and isinstance(document.get("vocab"), list)
            and isinstance(document.get("config"), dict) and "default_num_special_tokens" in document["config"])


def read_tekken(path: str | os.PathLike[str], expected_sha256: str | None = None) -> TekkenFile:
    """Read a `.json` or `.json.gz` Tekken file; `expected_sha256` is that of the uncompressed JSON."""
    data = read_bytes(path)
    if Path(path).suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TokenizerFileError(path, f"not a readable gzip file ({exc})") from None
    sha256 = hashlib.sha256(data).hexdigest()
    if expected_sha256 is not None and sha256 != expected_sha256:
        raise TokenizerFileError(path, f"sha256 is {sha256}, not the published {expected_sha256}: the file is "
                                 "damaged or a different version; run packaging/fetch_encodings.py to restore it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TokenizerFileError(path, f"not UTF-8 text (byte {exc.start})") from None
    return from_document(parse_json(text, path), path, sha256)


def from_document(document: object, path: str | os.PathLike[str], sha256: str) -> TekkenFile:
    """The tokenizer a parsed Tekken document describes, read as `Tekkenizer.from_file` reads it."""
    if not is_tekken(document):
        raise TokenizerFileError(path, "not a Tekken file: it needs a \"vocab\" list and a \"config\" with "
                                 "\"default_num_special_tokens\"")
    config = document["config"]  # type: ignore[index]
    try:
        count, size, pattern = (int(config["default_num_special_tokens"]), int(config["default_vocab_size"]),
                                str(config["pattern"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise TokenizerFileError(path, f"its config lacks a usable {exc}: Tekken files give pattern, "
                                 "default_vocab_size and default_num_special_tokens") from None
    if not 0 <= count < size:
        raise TokenizerFileError(path, f"default_num_special_tokens {count} must be below default_vocab_size {size}")
    entries = document["vocab"][:size - count]  # type: ignore[index]
    if len(entries) != size - count:
        raise TokenizerFileError(path, f"default_vocab_size {size} needs {size - count} tokens after the "
                                 f"{count} special ones, but the vocab has {len(entries)}")
    try:
        tokens = [binascii.a2b_base64(entry["token_bytes"], strict_mode=True) for entry in entries]
        in_order = all(entry["rank"] == rank for rank, entry in enumerate(entries))
        declared = document.get("special_tokens")  # type: ignore[union-attr]
        specials = None if declared is None else {token["token_str"]: int(token["rank"]) for token in declared}
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise TokenizerFileError(path, f"a vocab or special_tokens entry is malformed ({exc!r})") from None
    if not in_order:
        raise TokenizerFileError(path, "the vocab is not listed in rank order 0, 1, 2, ...")
    special_tokens = tekken_special_tokens(specials, count)
    problem = _block_problem(sorted((specials or {}).values()), len(special_tokens), count)
    if problem:  # Tekkenizer fills the block after them by count, so they must come first, in turn
        raise TokenizerFileError(path, f"its special tokens must take the ranks 0, 1, 2, ... one each, within "
                                 f"default_num_special_tokens ({count}); {problem}")
    ranks = {token: count + rank for rank, token in enumerate(tokens)}
    if len(ranks) != len(tokens):
        raise TokenizerFileError(path, "a token appears twice in the vocab")
    return TekkenFile(RankFile(ranks, [b""] * count + tokens, sha256), pattern, special_tokens)


def _block_problem(declared: list[int], total: int, count: int) -> str:
    """What breaks the block of special tokens (`declared`: the file's ranks, sorted), or ""."""
    if total > count:
        return f"there are {total} of them"
    wrong = next((rank for place, rank in enumerate(declared) if rank != place), None)
    if wrong is None:
        return ""
    return f"rank {wrong} is {'taken twice' if declared.count(wrong) > 1 else 'out of turn'}"
