"""The project's own tokenizer file: JSON with pattern, special tokens and merges with counts.

    {"format": "tokenizer-explorer", "version": 1, "name": ..., "pattern": {"name", "regex"},
     "special_tokens": {token: id}, "merges": [[left, right, new_id, count], ...], "metadata": {...}}
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.train import Merge, special_token_ids
from explorer.core.errors import ExplorerError, TokenizerFileError
from explorer.core.files import read_json, write_atomic

FORMAT = "tokenizer-explorer"
VERSION = 1


def from_merges(
    merges: list[Merge], pattern: str, special_tokens: Iterable[str] = (), name: str = "trained",
    metadata: dict[str, Any] | None = None,
) -> BPE:
    """A tokenizer from training records, special tokens numbered as training does (`special_token_ids`)."""
    specials = special_token_ids(merges, special_tokens)
    return BPE(((m.left, m.right, m.new_id) for m in merges), pattern, specials, name,
               counts=[m.count for m in merges], metadata=metadata)


def to_json(tokenizer: BPE) -> str:
    """The file's text, one merge to a line. The merges are written as strings, as json writes
    them, not by json: with `indent` json uses its Python encoder, whose scratch (16 MB for 32k
    merges) was the peak memory of training 10 MB and saving the result; its C encoder holds the
    interpreter lock for a whole call (30-40 ms for 32,768 merges), and a relay thread writes
    this document for a child process while the window paints. Strings also make no containers
    for the garbage collector to walk (32,768 rows as lists set off collections of 15-25 ms)."""
    counts = tokenizer.counts or [0] * len(tokenizer.merges)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "name": tokenizer.name,
        "pattern": {"name": tokenizer.pretokenizer.name, "regex": tokenizer.pattern},
        "special_tokens": tokenizer.special.tokens,
        "merges": None,  # (in its place below: no value before it can spell `"merges": null` unescaped)
        "metadata": tokenizer.metadata,
    }
    merges = "[" + ",\n  ".join(f"[{left}, {right}, {new_id}, {count}]"
                                 for (left, right, new_id), count in zip(tokenizer.merges, counts)) + "]"
    return json.dumps(document, ensure_ascii=False, indent=1).replace('"merges": null', f'"merges": {merges}', 1)


def save(tokenizer: BPE, path: str | os.PathLike[str]) -> None:
    write_atomic(path, to_json(tokenizer))


def is_own_format(document: object) -> bool:
    return isinstance(document, dict) and document.get("format") == FORMAT


def from_document(document: dict[str, Any], path: object = "<memory>") -> BPE:
    """Build a tokenizer from a parsed file, with a clear error for every kind of damage."""
    if document.get("version") != VERSION:
        raise TokenizerFileError(path, f"unsupported format version {document.get('version')!r} (expected {VERSION})")
    try:
        pattern = document["pattern"]["regex"]
        rows = document["merges"]
        merges = [(_whole(r[0]), _whole(r[1]), _whole(r[2])) for r in rows]
        _refuse_repeated_pairs(merges)
        counts = [_whole(r[3]) if len(r) > 3 else 0 for r in rows]
        specials = {str(k): _whole(v) for k, v in document.get("special_tokens", {}).items()}
        return BPE(merges, pattern, specials, str(document.get("name", "tokenizer")), counts,
                   document.get("metadata") or {})
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise TokenizerFileError(path, f"damaged tokenizer file ({type(exc).__name__}: {exc})") from None
    except ExplorerError as exc:
        raise TokenizerFileError(path, str(exc)) from None


def _whole(value: object) -> int:
    """A JSON whole number: `int()` also read true as 1, 5.7 as 5 and "5" as 5, silently."""
    if type(value) is not int:
        raise TypeError(f"{value!r} where a whole number belongs")
    return value


def _refuse_repeated_pairs(merges: list[tuple[int, int, int]]) -> None:
    """Training merges each pair once, so a pair merged twice means an edited or damaged file
    (BPE would skip the second merge, and its id would silently not exist)."""
    if len({(left, right) for left, right, _ in merges}) == len(merges):
        return
    first: dict[tuple[int, int], int] = {}
    for rank, (left, right, new_id) in enumerate(merges):
        earlier = first.setdefault((left, right), rank)
        if earlier != rank:
            raise ExplorerError(f"merge {rank} ({left} + {right} -> {new_id}) repeats the pair of merge {earlier}; "
                                "each pair is merged once: the file is damaged or was edited, train it again")


def load(path: str | os.PathLike[str]) -> BPE:
    _, document = read_json(path)
    if not is_own_format(document):
        raise TokenizerFileError(path, "not a tokenizer-explorer file (no \"format\": \"tokenizer-explorer\")")
    return from_document(document, path)
