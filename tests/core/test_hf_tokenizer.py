"""Hugging Face tokenizer.json files: ids equal to `tokenizers`, and plain words for what is missing.

Every fixture is built here with the `tokenizers` API on seeded corpora (tests/corpora.py): no network.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from explorer.core.errors import SpecialTokenError
from explorer.core.pretokenization.pretokenize import LLAMA3
from explorer.core.sources.hf_tokenizer import HFTokenizer
from explorer.core.sources.tokenizer import VIEW_MERGES, UnsupportedView
from tests.conftest import HARD_CASES
from tests.corpora import corpus_lines, corpus_text

SPECIALS = ["<|endoftext|>", "<|fim|>"]


@cache
def training_lines() -> list[str]:
    return corpus_lines("multi", 150_000) + corpus_lines("code", 50_000)


@cache
def texts() -> list[str]:
    return [corpus_text(kind, 80_000) for kind in ("prose", "multi")] + HARD_CASES


def _save(tokenizer: Tokenizer, folder: Path, name: str) -> Path:
    path = folder / name / "tokenizer.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(path))
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hf")


def byte_level(folder: Path, style: str) -> Path:
    """GPT-2 style (ByteLevel with its own regex) or Llama 3 style (Split + ByteLevel, ignore_merges)."""
    if style == "gpt2":
        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:
        tokenizer = Tokenizer(models.BPE(ignore_merges=True))
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(LLAMA3), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(training_lines(), trainer)
    return _save(tokenizer, folder, style)


def wordpiece(folder: Path) -> Path:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=600, special_tokens=["[UNK]", "[CLS]", "[SEP]"],
                                        show_progress=False)
    tokenizer.train_from_iterator(training_lines(), trainer)
    return _save(tokenizer, folder, "wordpiece")


def unigram(folder: Path) -> Path:
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=800, special_tokens=["<unk>", "</s>"], unk_token="<unk>",
                                      show_progress=False)
    tokenizer.train_from_iterator(corpus_lines("prose", 60_000), trainer)
    return _save(tokenizer, folder, "unigram")


def byte_fallback(folder: Path) -> Path:
    """SentencePiece-style BPE: characters with Metaspace, bytes <0x00>..<0xFF> only as a fallback."""
    vocab = {f"<0x{b:02X}>": b for b in range(256)}
    for piece in ["▁", "t", "h", "e", "a", "c", "▁t", "▁th", "▁the", "at", "c", "▁c", "▁cat"]:
        vocab.setdefault(piece, len(vocab))
    merges = [("▁", "t"), ("▁t", "h"), ("▁th", "e"), ("a", "t"), ("▁", "c"), ("▁c", "at")]
    tokenizer = Tokenizer(models.BPE(vocab, merges, byte_fallback=True))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Sequence([decoders.Metaspace(), decoders.ByteFallback()])
    return _save(tokenizer, folder, "fallback")


@pytest.mark.parametrize("style", ["gpt2", "llama3"])
def test_byte_level_equals_tokenizers(folder: Path, style: str) -> None:
    path = byte_level(folder, style)
    ours, theirs = HFTokenizer.from_file(path), Tokenizer.from_file(str(path))
    assert ours.kind == "byte-level BPE" and ours.unsupported == {} and ours.name == style
    core = ours.as_bpe()
    for text in texts():
        expected = theirs.encode(text, add_special_tokens=False).ids
        assert ours.encode(text) == expected, text[:40]
        assert core.encode(text) == expected, text[:40]  # our own encoder over the file's merges
        assert ours.decode(expected) == text
    assert ours.forest is not None
    merged = ours.encode(" the")[0]
    left, right = ours.forest.parents(merged)  # type: ignore[misc]
    assert ours.token_bytes(left) + ours.token_bytes(right) == ours.token_bytes(merged)
    assert list(ours.trace(" the")[-1].ids) == [merged]


def test_special_modes_and_windows_around_added_tokens(folder: Path) -> None:
    path = byte_level(folder, "llama3")
    ours, theirs = HFTokenizer.from_file(path), Tokenizer.from_file(str(path))
    # Long enough for several windows, with special strings everywhere a cut could fall.
    text = "".join(f"{line}<|endoftext|>" for line in corpus_lines("prose", 60_000))
    with pytest.raises(SpecialTokenError):
        ours.encode(text)
    assert ours.encode(text, special="allowed") == theirs.encode(text, add_special_tokens=False).ids
    theirs.encode_special_tokens = True
    assert ours.encode(text, special="plain") == theirs.encode(text, add_special_tokens=False).ids
    tokens = ours.encode_tokens("a<|fim|>b", special="allowed")
    assert [t.special for t in tokens] == [False, True, False]


@pytest.mark.parametrize("build", [wordpiece, unigram, byte_fallback])
def test_other_models_encode_with_spans_and_say_what_they_lack(folder: Path, build: object) -> None:
    path = build(folder)  # type: ignore[operator]
    ours, theirs = HFTokenizer.from_file(path), Tokenizer.from_file(str(path))
    assert ours.forest is None and ours.pretokenizer is None
    assert "merges" in ours.unsupported[VIEW_MERGES] or "no byte-level" in ours.unsupported[VIEW_MERGES]
    with pytest.raises(UnsupportedView):
        ours.as_bpe()
    for text in ["Hello, the cat sat. नमस्ते 🎂", *HARD_CASES[:8]]:
        expected = theirs.encode(text, add_special_tokens=False)
        tokens = ours.encode_tokens(text)
        assert [t.id for t in tokens] == expected.ids == ours.encode(text)
        assert [(t.start, t.end) for t in tokens] == list(expected.offsets)
        assert ours.decode(expected.ids) == theirs.decode(expected.ids, skip_special_tokens=False)


def test_byte_fallback_tokens_are_real_bytes(folder: Path) -> None:
    ours = HFTokenizer.from_file(byte_fallback(folder))
    assert ours.kind == "BPE with byte fallback"
    ids = ours.encode("the 🎂")
    assert ours.token_bytes(ids[-1]) == "🎂".encode()[-1:]
    assert "SentencePiece" in ours.unsupported[VIEW_MERGES]
