"""minbpe `.model` files (Karpathy's minbpe, `minbpe/base.py` save() and load()).

    minbpe v1
    <pattern, empty for BasicTokenizer>
    <number of special tokens>
    <special> <id>            one line per special token
    <left> <right>            one line per merge; merge k creates id 256 + k

Bytes are ids 0-255, so a tokenizer whose ids are numbered otherwise (tiktoken's) cannot be
written without changing its ids; `save` refuses it rather than write a different tokenizer.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.core.algorithms.bpe import BPE
from explorer.core.errors import ExplorerError, TokenizerFileError
from explorer.core.files import read_text, write_atomic
from explorer.core.pretokenization.pretokenize import NONE

MAGIC = "minbpe v1"


def is_minbpe(head: bytes) -> bool:
    return head.startswith(MAGIC.encode())


def load(path: str | os.PathLike[str]) -> BPE:
    """A `.model` file as our BPE; an empty pattern (BasicTokenizer) means no split."""
    lines = read_text(path).split("\n")
    if lines[0].strip() != MAGIC:
        raise TokenizerFileError(path, f"not a minbpe model (the first line is not {MAGIC!r})")
    if len(lines) < 3:
        raise TokenizerFileError(path, "truncated: a minbpe model has a pattern line and a special-token count")
    pattern = lines[1].strip() or NONE
    try:
        count = int(lines[2])
        specials = {}
        for number in range(3, 3 + count):
            token, token_id = lines[number].split()
            specials[token] = int(token_id)
        rows = [line.split() for line in lines[3 + count:] if line.strip()]
        merges = [(int(left), int(right), 256 + rank) for rank, (left, right) in enumerate(rows)]
    except (ValueError, IndexError) as exc:
        raise TokenizerFileError(path, f"damaged minbpe model ({exc})") from None
    try:
        # minbpe splits with the `regex` module, so its tables are the reference.
        return BPE(merges, pattern, specials, Path(path).stem, source=str(path), reference="regex")
    except ExplorerError as exc:
        raise TokenizerFileError(path, str(exc)) from None


def save(tokenizer: BPE, path: str | os.PathLike[str]) -> None:
    """Write `tokenizer` as a minbpe model, or explain why its ids cannot be kept."""
    standard = tokenizer.byte_ids is None and all(new_id == 256 + rank
                                                  for rank, (_, _, new_id) in enumerate(tokenizer.merges))
    if not standard:
        raise ExplorerError(f"{tokenizer.name} cannot be written as a minbpe model with the same ids: minbpe "
                            "numbers bytes 0-255 and merge k as 256 + k; export it as hf or tiktoken instead")
    if "\n" in tokenizer.pattern or tokenizer.pattern != tokenizer.pattern.strip():
        raise ExplorerError("the pattern spans lines or starts or ends with whitespace, which minbpe would lose")
    bad = next((token for token in tokenizer.special_tokens if not token or token != "".join(token.split())), None)
    if bad is not None:
        raise ExplorerError(f"the special token {bad!r} contains whitespace, which a minbpe model cannot hold")
    lines = [MAGIC, tokenizer.pattern, str(len(tokenizer.special_tokens))]
    lines += [f"{token} {token_id}" for token, token_id in tokenizer.special_tokens.items()]
    lines += [f"{left} {right}" for left, right, _ in tokenizer.merges]
    write_atomic(path, "\n".join(lines) + "\n")
