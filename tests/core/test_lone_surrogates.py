"""A lone surrogate (a broken paste, a file read with surrogateescape) has no UTF-8: every tokenizer
encodes it as U+FFFD, one character for one, as tiktoken does, instead of raising."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.core.sources.hf_tokenizer import HFTokenizer
from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.text.utf8 import utf8, without_surrogates
from tests.core.test_bpe import trained
from tests.core.test_hf_tokenizer import byte_level, unigram, wordpiece

TEXTS = ["\ud800", "x\udfffy héllo", "a \udc80\udcff b", "\ud83d\ude00 two halves, not a pair", "é\ud800" * 40]


def replaced(text: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(char) <= 0xDFFF else char for char in text)


def test_the_replacement_keeps_every_other_character_and_the_length() -> None:
    for text in TEXTS:
        assert without_surrogates(text) == replaced(text) and len(without_surrogates(text)) == len(text)
        assert utf8(text) == replaced(text).encode("utf-8")
    assert utf8("plain") == b"plain" and without_surrogates("plain") == "plain"


def _check(tokenizer: Tokenizer) -> None:
    for text in TEXTS:
        ids = tokenizer.encode(text, "plain")
        assert ids == tokenizer.encode(replaced(text), "plain")
        tokens = tokenizer.encode_tokens(text, "plain")
        assert [token.id for token in tokens] == ids
        assert all(0 <= token.start <= token.end <= len(text) for token in tokens)


def test_our_bpe_encodes_a_lone_surrogate_as_the_replacement_character() -> None:
    bpe = trained()
    bpe._cache.clear()
    _check(bpe)
    many = " ".join(f"w{index}\ud800" for index in range(2000))  # new chunks merged together (numpy)
    assert bpe.encode(many, "plain") == bpe.encode(replaced(many), "plain")
    assert bpe.trace(" \ud800") == bpe.trace(" \ufffd")
    assert bpe.trace_start("\ud800") == bpe.byte_tokens("\ufffd".encode())


def test_the_encoder_built_from_a_rank_file_gives_tiktokens_ids() -> None:
    reference = load_tokenizer("cl100k_base")  # tiktoken's own Encoding, which replaces them itself
    bpe = reference.as_bpe()
    for text in TEXTS[:3] + TEXTS[4:]:  # (tiktoken joins two halves of a pair into one character)
        assert bpe.encode(text, "plain") == reference.encode(text, "plain")


@pytest.mark.parametrize("build", [lambda folder: byte_level(folder, "gpt2"), wordpiece, unigram])
def test_hugging_face_tokenizers_encode_it_instead_of_a_type_error(tmp_path: Path, build: object) -> None:
    _check(HFTokenizer.from_file(build(tmp_path)))  # type: ignore[operator]
