"""Hugging Face tokenizers as the reference: train and encode the way our core claims to match."""

from __future__ import annotations

import json

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

from explorer.core.bytelevel import from_chars
from explorer.core.pretokenize import NAMED_PATTERNS, NONE, hf_compatible


def hf_pipeline(pattern: str) -> Tokenizer:
    regex = NAMED_PATTERNS.get(pattern, pattern)
    tokenizer = Tokenizer(models.BPE())
    steps = [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    if regex != NONE:
        steps.insert(0, pre_tokenizers.Split(Regex(hf_compatible(regex)), behavior="isolated"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(steps)
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


def hf_train_merges(texts: list[str], vocab_size: int, pattern: str, special_tokens: list[str] = ()) -> list[bytes]:  # type: ignore[assignment]
    """The bytes of each merged token, in Hugging Face's order."""
    tokenizer = hf_pipeline(pattern)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts, trainer)
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    pairs = [m.split(" ") if isinstance(m, str) else m for m in merges]
    return [from_chars(a) + from_chars(b) for a, b in pairs]
