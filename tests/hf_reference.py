"""Hugging Face tokenizers as the reference: train the way our core claims to match."""

from __future__ import annotations

from tokenizers import pre_tokenizers, trainers

from explorer.core.formats.hf import merge_pairs, training_pipeline


def hf_train_merges(texts: list[str], vocab_size: int, pattern: str, special_tokens: list[str] = ()) -> list[bytes]:  # type: ignore[assignment]
    """The bytes of each merged token, in Hugging Face's order."""
    tokenizer = training_pipeline(pattern)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts, trainer)
    return [left + right for left, right in merge_pairs(tokenizer)]
