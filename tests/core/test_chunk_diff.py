"""Comparing patterns' chunk boundaries, and tokens placed inside chunks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.algorithms.train import train
from explorer.core.formats.own import from_merges
from explorer.core.pretokenization.chunk_diff import (
    boundaries, byte_positions, compare, crossing_tokens, tokens_by_chunk)
from explorer.core.pretokenization.pretokenize import Pretokenizer
from explorer.core.sources.tokenizer import tokens_from_ids
from tests.conftest import HARD_CASES


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    texts = ["the cat sat on the mat. the cat ate the rat.", "नमस्ते दुनिया मावा केक", "HOW'S it going? how's it going?"]
    return from_merges(list(train(texts, 300, "cl100k")), "cl100k", name="test")


def test_hows_differs_between_gpt2_and_gpt4() -> None:
    """Seed 001: GPT-2 splits HOW'S into three pieces, GPT-4 into two."""
    text = "HOW'S"
    gpt2, cl100k = Pretokenizer("gpt2").chunks(text), Pretokenizer("cl100k").chunks(text)
    comparison = compare([gpt2, cl100k])
    assert boundaries(gpt2) == {0, 3, 4, 5} and boundaries(cl100k) == {0, 3, 5}
    assert comparison.all_differing == {4}
    assert comparison.differing(0) == {4} and comparison.differing(1) == frozenset()
    assert [comparison.edges(0, c) for c in gpt2] == [(False, False), (False, True), (True, False)]
    assert [comparison.same_chunk_everywhere(0, c) for c in gpt2] == [True, False, False]
    assert comparison.same_chunk_everywhere(1, cl100k[1]) is False


def test_identical_patterns_never_differ() -> None:
    chunks = Pretokenizer("cl100k").chunks(HARD_CASES[2])
    comparison = compare([chunks, chunks])
    assert comparison.all_differing == frozenset()
    assert all(comparison.same_chunk_everywhere(0, c) for c in chunks)


def test_byte_positions_are_fractional_inside_characters() -> None:
    assert byte_positions("न") == [0.0, 1 / 3, 2 / 3, 1.0]
    assert byte_positions("ab") == [0.0, 1.0, 2.0]


def test_na_cut_in_two_tokens_is_two_pieces_of_one_chunk() -> None:
    text = "न"
    tokens = tokens_from_ids([1, 2], {1: text.encode()[:2], 2: text.encode()[2:]}.__getitem__)
    (pieces,) = tokens_by_chunk(text, Pretokenizer("cl100k").chunks(text), tokens)
    assert [(p.start, p.end, p.cuts_start, p.cuts_end) for p in pieces] == [(0, 2 / 3, False, True),
                                                                              (2 / 3, 1, True, False)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HARD_CASES) | st.text(max_size=60))
def test_own_pattern_tokens_stay_inside_chunks(tokenizer, text: str) -> None:  # type: ignore[no-untyped-def]
    text = text.encode("utf-8", errors="replace").decode()
    chunks = tokenizer.pretokenizer.chunks(text)
    tokens = tokenizer.encode_tokens(text, "plain")
    by_chunk = tokens_by_chunk(text, chunks, tokens)
    assert crossing_tokens(by_chunk) == 0
    for chunk, pieces in zip(chunks, by_chunk):
        assert pieces, chunk
        assert pieces[0].start == chunk.start and pieces[-1].end == chunk.end
        assert all(a.end == b.start for a, b in zip(pieces, pieces[1:]))
    assert sorted({p.token_index for pieces in by_chunk for p in pieces}) == list(range(len(tokens)))


def test_other_pattern_tokens_cross_chunks(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = "HOW'S it going"
    tokens = tokenizer.encode_tokens(text)  # cl100k keeps 'S whole
    by_chunk = tokens_by_chunk(text, Pretokenizer("none").chunks(text), tokens)
    assert crossing_tokens(by_chunk) == 0
    by_chunk = tokens_by_chunk(text, Pretokenizer(r"[A-Z]|\W|\w+").chunks(text), tokens)
    crossing = [p for pieces in by_chunk for p in pieces if p.crosses_end or p.crosses_start]
    assert crossing, "a token spanning two one-letter chunks must be marked as crossing"


def test_tokens_that_do_not_spell_the_text_are_ignored() -> None:
    tokens = tokens_from_ids([1], {1: b"xyz"}.__getitem__)
    assert tokens_by_chunk("ab", Pretokenizer("gpt2").chunks("ab"), tokens) == [[]]
