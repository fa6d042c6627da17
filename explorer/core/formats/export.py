"""Writing a byte-level BPE tokenizer in another library's format, with the same ids.

Every format here is checked to round-trip: loading the written file gives identical ids.
Where a format cannot say what the tokenizer does, we refuse with the reason instead of
writing a file that encodes differently.
"""

from __future__ import annotations

import os
from itertools import zip_longest
from typing import Any

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.merges import recover_merges
from explorer.core.errors import ExplorerError
from explorer.core.formats import hf, minbpe, tiktoken_file
from explorer.core.sources.tokenizer import Tokenizer

EXPORT_FORMATS = {
    "hf": "a Hugging Face tokenizer.json",
    "tiktoken": "a .tiktoken rank file (without pattern and special tokens: load it with --pattern)",
    "minbpe": "a minbpe .model file",
}


def export(tokenizer: Tokenizer, format: str, path: str | os.PathLike[str]) -> list[str]:
    """Write `tokenizer` to `path` as `format` (one of EXPORT_FORMATS); returns notes on what the
    file could not hold."""
    bpe = tokenizer.as_bpe()  # raises UnsupportedView, with the reason, for WordPiece and the like
    if bpe.pretokenizer.matches_empty:
        raise ExplorerError(f"the pattern of {tokenizer.name} ({bpe.pretokenizer.regex}) can match empty text, where "
                            f"this app keeps the text between matches as chunks and a {format} file would split it "
                            "otherwise, so the ids would differ; train with a pattern whose every match holds a "
                            "character (x+ rather than x*)")
    normalizer = tokenizer.normalizer
    if normalizer is not None and format != "hf":
        raise ExplorerError(f"{tokenizer.name} normalizes text before splitting it ({_steps(normalizer)}); a "
                            f"{format} file cannot say so and would encode differently: export it as hf")
    if format == "hf":
        return hf.export(bpe, path, normalizer)  # tokenizer.json carries any normalizer as it is
    if format == "tiktoken":
        write_tiktoken(bpe, path)
    elif format == "minbpe":
        minbpe.save(bpe, path)
    else:
        raise ExplorerError(f"unknown export format {format!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    return []


def write_tiktoken(bpe: BPE, path: str | os.PathLike[str]) -> None:
    """Ranks are ids in a .tiktoken file, and tiktoken merges by rank; that only reproduces our
    merges if recovering them from the ranks gives them back, which we check first."""
    special_ids = bpe.special_only_ids
    vocab = [b"" if token_id in special_ids else data for token_id, data in enumerate(bpe.vocab)]
    recovered = recover_merges(vocab)
    if recovered != bpe.merges:
        rank = next(rank for rank, (ours, theirs) in enumerate(zip_longest(bpe.merges, recovered)) if ours != theirs)
        raise ExplorerError(f"{bpe.name} cannot be written as tiktoken ranks with the same ids: tiktoken would "
                            f"rebuild merge {rank} differently from the ranks; export it as hf instead")
    tiktoken_file.write_ranks(vocab, path)


def _steps(normalizer: dict[str, Any]) -> str:
    """A tokenizer.json normalizer in a few words: its type, or the types of a Sequence's steps."""
    steps = normalizer.get("normalizers") if normalizer.get("type") == "Sequence" else None
    return ", then ".join(_steps(step) for step in steps) if steps else str(normalizer.get("type"))
