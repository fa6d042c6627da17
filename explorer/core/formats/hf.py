"""Export to a Hugging Face `tokenizer.json` that `tokenizers` loads and encodes identically.

The model is BPE over GPT-2's byte characters, behind `Split(pattern, "isolated")` and
`ByteLevel(use_regex=False)`: the same pipeline our trainer matches. A tokenizer.json exported
again keeps its normalizer, which goes into the file as it was.
"""

from __future__ import annotations

import json
import os
from typing import Any

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.bytelevel import from_chars, to_chars
from explorer.core.errors import ExplorerError
from explorer.core.files import write_atomic
from explorer.core.pretokenization.pretokenize import NONE, Pretokenizer, hf_compatible


def to_document(tokenizer: BPE, normalizer: dict[str, Any] | None = None) -> dict[str, Any]:
    """The tokenizer.json of `tokenizer`, with `normalizer` (a tokenizer.json normalizer) before the split.

    A tokenizer.json gives one string one id, model and added tokens alike, so a special token spelt
    like a learned token must share its id (as our trainer and Hugging Face's give it); a file where
    they differ is refused, not silently renumbered. Of two special tokens at one id (`aliases`),
    only the first is written."""
    specials = first_names(tokenizer.special.tokens)
    special_ids = tokenizer.special_only_ids
    vocab = {to_chars(data): token_id for token_id, data in enumerate(tokenizer.vocab)
             if token_id not in special_ids and data}
    for token, token_id in specials.items():
        if vocab.setdefault(token, token_id) != token_id:
            raise ExplorerError(
                f"the special token {token!r} (id {token_id}) is spelt like the learned token {vocab[token]}, and a "
                f"tokenizer.json cannot give them two ids: Hugging Face tokenizers would read both as "
                f"{vocab[token]}. Train it again (special tokens now share the id of a learned token spelt the "
                "same) or export it as tiktoken or minbpe")
    merges = [f"{to_chars(tokenizer.vocab[left])} {to_chars(tokenizer.vocab[right])}"
              for left, right, _ in tokenizer.merges]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    if tokenizer.pattern == NONE:
        pre_tokenizer: dict[str, Any] = byte_level
    else:
        split = {"type": "Split", "pattern": {"Regex": hf_compatible(tokenizer.pattern)},
                 "behavior": "Isolated", "invert": False}
        pre_tokenizer = {"type": "Sequence", "pretokenizers": [split, byte_level]}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": token_id, "content": token, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for token, token_id in sorted(specials.items(), key=lambda item: item[1])
        ],
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
            "ignore_merges": tokenizer.ignore_merges,
            "vocab": vocab, "merges": merges,
        },
    }


def export(tokenizer: BPE, path: str | os.PathLike[str], normalizer: dict[str, Any] | None = None) -> list[str]:
    """Write the tokenizer.json; returns what it could not hold (`aliases`), for the user to hear."""
    write_atomic(path, json.dumps(to_document(tokenizer, normalizer), ensure_ascii=False, indent=1))
    return [f"{alias!r} shares id {token_id} with {first!r}, and a tokenizer.json gives an id one string: "
            f"only {first!r} was written, so a text holding {alias!r} encodes it as ordinary text there"
            for alias, token_id, first in aliases(tokenizer.special.tokens)]


def first_names(specials: dict[str, int]) -> dict[str, int]:
    """One special token per id, the first named (tiktoken's o200k_harmony names 200018 twice;
    the first name, `<|endofprompt|>`, is the one that decodes)."""
    first: dict[int, str] = {}
    for token, token_id in specials.items():
        first.setdefault(token_id, token)
    return {token: token_id for token_id, token in first.items()}


def aliases(specials: dict[str, int]) -> list[tuple[str, int, str]]:
    """(name, id, first name) of each special token whose id an earlier one has."""
    first = first_names(specials)
    named = {token_id: token for token, token_id in first.items()}
    return [(token, token_id, named[token_id]) for token, token_id in specials.items() if token not in first]


def training_pipeline(pattern: str) -> Any:
    """An untrained `tokenizers.Tokenizer` with the pipeline our trainer matches:
    `Split(pattern, "isolated")` (none for the `none` pattern) then `ByteLevel(use_regex=False)`."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    regex = Pretokenizer(pattern).regex
    tokenizer = Tokenizer(models.BPE())
    steps = [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    if regex != NONE:
        steps.insert(0, pre_tokenizers.Split(Regex(hf_compatible(regex)), behavior="isolated"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(steps)
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


def merge_pairs(tokenizer: Any) -> list[tuple[bytes, bytes]]:
    """A trained byte-level BPE's merges as (left bytes, right bytes), in rank order."""
    pairs = json.loads(tokenizer.to_str())["model"]["merges"]
    return [(from_chars(a), from_chars(b)) for a, b in (p.split(" ") if isinstance(p, str) else p for p in pairs)]
