"""Incremental re-tokenization equals encoding from scratch, for every edit."""

from __future__ import annotations

import random

import pytest

from explorer.core.algorithms.incremental import TokenizedText, common_prefix, common_suffix, encode_stream
from explorer.core.algorithms.train import train
from explorer.core.formats.hf import export as export_hf
from explorer.core.formats.own import from_merges
from explorer.core.sources.hf_tokenizer import HFTokenizer
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
from tests.conftest import HARD_CASES

TEXTS = [t for t in HARD_CASES if t] + [
    "One eggless mawa cake for Saturday, please. Egg egg  egg\n\n\tnumbers 123456 and 3.14",
    "नमस्ते दुनिया, मावा केक 🎂 안녕하세요 <|endoftext|> done",
]


@pytest.fixture(scope="module", params=["cl100k", "gpt2", "o200k", "tiktoken:r50k_base", "tiktoken:cl100k_base",
                                         "hf:gpt2"])
def tokenizer(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Our BPE, which encodes chunk by chunk; tiktoken and HF tokenizers, which split the text
    they are given again."""
    if request.param.startswith("tiktoken:"):
        return TiktokenTokenizer.bundled(request.param.removeprefix("tiktoken:"))
    pattern = request.param.removeprefix("hf:")
    merges = list(train(TEXTS * 3, 400, pattern, ["<|endoftext|>"]))
    ours = from_merges(merges, pattern, ["<|endoftext|>"], name="test")
    if not request.param.startswith("hf:"):
        return ours
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    export_hf(ours, path)
    return HFTokenizer.from_file(path)


def columns(text: TokenizedText) -> list[tuple[int, int, int, int, bool, bool]]:
    return [(t.id, t.start, t.end, t.byte_start, t.cuts_start, t.cuts_end) for t in text.tokens()]


def expected(tokenizer, text: str, mode: str = "plain"):  # type: ignore[no-untyped-def]
    return [(t.id, t.start, t.end, t.byte_start, t.cuts_start, t.cuts_end) for t in tokenizer.encode_tokens(text, mode)]


def test_stream_equals_encode_tokens(tokenizer) -> None:  # type: ignore[no-untyped-def]
    for text in TEXTS:
        assert columns(TokenizedText(tokenizer, text)) == expected(tokenizer, text)
    long_text = "".join(TEXTS) * 20
    batches = list(encode_stream(tokenizer, long_text, "plain", block=64))
    assert len(batches) > 10
    state = TokenizedText(tokenizer)
    state.extend_all(iter(batches), long_text)
    assert columns(state) == expected(tokenizer, long_text)


def test_windows_of_a_library_tokenizer_end_where_the_text_can_be_cut(tokenizer):  # type: ignore[no-untyped-def]
    # GPT-2 reads ".\n\nThe" as ".", "\n", "\n", "The"; a window ending after the newlines
    # and encoded as a text of its own would read them as one token "\n\n".
    text = "".join(f"Line {n}.\n\nThe end of {n}.  \n \nNext\t\t{n}.\r\n\r\nSo" for n in range(200))
    for block in (16, 17, 64):
        state = TokenizedText(tokenizer)
        state.extend_all(encode_stream(tokenizer, text, "plain", block=block), text)
        assert state.ids.tolist() == tokenizer.encode(text, "plain"), block
        assert columns(state) == expected(tokenizer, text)


def test_a_list_of_words_streams_in_windows_and_an_edit_stays_local(tokenizer):  # type: ignore[no-untyped-def]
    # Every chunk before a word ends in a newline: windows end only after one (Pretokenizer.can_cut).
    words = ["".join(chr(97 + n // 26 ** k % 26) for k in range(3)) for n in range(3000)]
    text = "".join(word + ("\n\n" if n % 5 == 0 else "\n") for n, word in enumerate(words))
    batches = list(encode_stream(tokenizer, text, "plain", block=64))
    assert len(batches) > 10
    state = TokenizedText(tokenizer)
    state.extend_all(iter(batches), text)
    assert columns(state) == expected(tokenizer, text)
    new = text[:5000] + "inserted\n" + text[5000:]
    edit = state.edit(new)
    assert edit is not None and edit.removed < 50  # not re-encoded to the end
    assert columns(state) == expected(tokenizer, new)


@pytest.mark.parametrize("old, new", [("x.\nThe", "x.\n\nThe"), ("x. \nThe", "x. \n \nThe"),
                                      ("x.\n\nThe", "x.\n\n\nThe")])
def test_an_edit_ending_in_whitespace_is_encoded_with_what_follows(tokenizer, old, new):  # type: ignore[no-untyped-def]
    state = TokenizedText(tokenizer, old)
    state.edit(new)
    assert state.ids.tolist() == tokenizer.encode(new, "plain")


def test_allowed_mode_stream_has_control_tokens(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = TEXTS[-1]
    state = TokenizedText(tokenizer, text, "allowed")
    assert list(state.ids) == tokenizer.encode(text, "allowed")
    assert tokenizer.special_tokens["<|endoftext|>"] in state.ids


@pytest.mark.parametrize("seed", range(6))
def test_random_edits_match_full_encoding(tokenizer, seed: int) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    alphabet = list("ab Egg egg 12 3,\n\t  .'sé") + ["नम", "🎂", "\u200b", "한", "e\u0301"]
    text = rng.choice(TEXTS) * 3
    state = TokenizedText(tokenizer, text)
    incremental = 0
    for _ in range(60):
        position = rng.randrange(len(text) + 1)
        removed = rng.choice([0, 0, 1, 2, 5])
        inserted = "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 1, 3])))
        text = text[:position] + inserted + text[position + removed:]
        edit = state.edit(text)
        if edit is None:
            state = TokenizedText(tokenizer, text)
        else:
            incremental += 1
            # At most the edit's chunk, two before it and one after: never the whole text. (A library
            # that splits the text again takes it on to where the text can be cut, a "." or so.)
            longest = max(len(piece.encode()) for piece in tokenizer.pretokenizer.pieces(text))
            if hasattr(tokenizer, "encode_chunk"):
                assert edit.removed + edit.inserted <= 8 * longest + 10, "re-encoded far more than the edit's chunks"
        assert columns(state) == expected(tokenizer, text), (position, removed, inserted)
        assert state.byte_length == len(text.encode())
    assert incremental > 50


def test_common_prefix_and_suffix() -> None:
    assert common_prefix("abcdef", "abXdef") == 2
    assert common_suffix("abcdef", "abXdef", 2) == 3
    assert common_prefix("abc", "abc") == 3
    assert common_suffix("aaa", "aaaa", 3) == 0
    assert common_suffix("", "x", 0) == 0
