"""Hugging Face tokenizers as the reference: train the way our core claims to match."""

from __future__ import annotations

from typing import Any

from tokenizers import pre_tokenizers, trainers

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.bytelevel import from_chars
from explorer.core.formats.hf import merge_pairs, training_pipeline


def hf_train(texts: list[str], vocab_size: int, pattern: str, special_tokens: list[str] = ()) -> Any:  # type: ignore[assignment]
    """A `tokenizers.Tokenizer` trained by its BpeTrainer with our pipeline and all 256 bytes."""
    tokenizer = training_pipeline(pattern)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


def hf_train_merges(texts: list[str], vocab_size: int, pattern: str, special_tokens: list[str] = ()) -> list[bytes]:  # type: ignore[assignment]
    """The bytes of each merged token, in Hugging Face's order."""
    return [left + right for left, right in merge_pairs(hf_train(texts, vocab_size, pattern, special_tokens))]


def hf_to_our_ids(tokenizer: Any, ours: BPE) -> dict[int, int]:
    """Each id of a trained `tokenizers.Tokenizer` -> our id for the same token: its special token's
    id for a special token, else the id of the same bytes (HF numbers specials first, bytes by code point)."""
    specials = {token.content for token in tokenizer.get_added_tokens_decoder().values()}
    by_bytes: dict[bytes, int] = {}
    for token_id, data in enumerate(ours.vocab):
        by_bytes.setdefault(data, token_id)
    return {hf_id: ours.special_tokens[chars] if chars in specials else by_bytes[from_chars(chars)]
            for chars, hf_id in tokenizer.get_vocab().items()}
