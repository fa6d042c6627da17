"""Encoding and decoding: spans, special-token modes, streaming, and round trips."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.train import train
from explorer.core.errors import ExplorerError, SpecialTokenError
from explorer.core.formats.own import from_merges
from explorer.core.pretokenization.pretokenize import NAMED_PATTERNS
from explorer.core.text.utf8 import stream_decode
from tests.conftest import HARD_CASES
from tests.corpora import corpus_lines, corpus_text

SPECIALS = ["<|endoftext|>", "<|fim|>"]


@cache
def trained(pattern: str = "cl100k") -> BPE:
    lines = corpus_lines("multi", 150_000) + corpus_lines("prose", 150_000)
    return from_merges(list(train(lines, 1500, pattern, SPECIALS)), pattern, SPECIALS)


def test_encode_replays_merges_in_learned_order() -> None:
    # 'de' + 'l' can only apply after 'd' + 'e' exists (seed 004's point).
    tokenizer = BPE([(100, 101, 256), (256, 108, 257), (108, 101, 258)], "none")
    assert tokenizer.encode("del") == [257]
    assert tokenizer.encode("dele") == [257, 101]
    assert tokenizer.encode("ledel") == [258, 257]  # (d,e) and (de,l) come before (l,e)


def test_overlapping_pairs_merge_left_to_right() -> None:
    tokenizer = BPE([(97, 97, 256)], "none")
    assert tokenizer.encode("aaa") == [256, 97]
    assert tokenizer.encode("aaaa") == [256, 256]


def test_long_chunks_use_the_same_merges() -> None:
    tokenizer = trained()
    for text in [" " * 5000, "a" * 3001, "ab" * 2000, "नमस्ते" * 200]:
        pieces = tokenizer.pretokenizer.pieces(text)
        for piece in pieces:
            data = piece.encode()
            from explorer.core.algorithms.bpe import _replace_pair

            ids = list(data)
            while len(ids) >= 2:  # the textbook loop, as the reference
                pair = min(zip(ids, ids[1:]), key=lambda p: tokenizer.ranks.get(p, 1 << 62))
                if pair not in tokenizer.ranks:
                    break
                ids = _replace_pair(ids, pair, tokenizer.merged[pair])
            assert tokenizer.encode_bytes(data) == ids


def test_tokens_carry_spans_and_cut_characters() -> None:
    tokenizer = BPE([], "gpt2")
    tokens = tokenizer.encode_tokens("न a")
    assert [t.bytes for t in tokens[:3]] == [b"\xe0", b"\xa4", b"\xa8"]
    assert [(t.start, t.end) for t in tokens] == [(0, 1), (0, 1), (0, 1), (1, 2), (2, 3)]
    assert [(t.cuts_start, t.cuts_end) for t in tokens[:3]] == [(False, True), (True, True), (True, False)]
    assert not tokens[3].cuts_start and not tokens[3].cuts_end
    assert [t.byte_start for t in tokens] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("text", HARD_CASES)
def test_token_spans_cover_the_text(text: str) -> None:
    tokenizer = trained()
    tokens = tokenizer.encode_tokens(text)
    assert [t.id for t in tokens] == tokenizer.encode(text)
    assert b"".join(t.bytes for t in tokens) == text.encode()
    for token in tokens:
        covered = text[token.start:token.end].encode()
        assert token.bytes in covered or covered in token.bytes or token.cuts_start or token.cuts_end


def test_special_token_modes() -> None:
    tokenizer = trained()
    text = "end<|endoftext|>start"
    with pytest.raises(SpecialTokenError) as caught:
        tokenizer.encode(text)
    assert caught.value.position == 3 and caught.value.token == "<|endoftext|>"
    allowed = tokenizer.encode(text, special="allowed")
    assert tokenizer.special.tokens["<|endoftext|>"] in allowed
    plain = tokenizer.encode(text, special="plain")
    assert tokenizer.special.tokens["<|endoftext|>"] not in plain
    assert tokenizer.decode(plain) == tokenizer.decode(allowed) == text
    tokens = tokenizer.encode_tokens(text, special="allowed")
    special = [t for t in tokens if t.special]
    assert len(special) == 1 and (special[0].start, special[0].end) == (3, 16)
    with pytest.raises(ExplorerError, match="mode"):
        tokenizer.encode(text, special="sometimes")  # type: ignore[arg-type]


def test_decode_replaces_invalid_utf8_and_rejects_unknown_ids() -> None:
    tokenizer = BPE([], "gpt2")
    assert tokenizer.decode([0xE0, 0xA4]) == "\ufffd"
    assert tokenizer.decode([0xE0, 0xA4, 0xA8]) == "न"
    with pytest.raises(ExplorerError, match="unknown token id 999"):
        tokenizer.decode([65, 999])


def test_streaming_decoder_holds_back_partial_characters() -> None:
    steps = list(stream_decode([b"\xe0\xa4", b"\xa8", b" \xf0\x9f", b"\x91\x8b"]))
    assert [s.naive for s in steps] == ["\ufffd", "\ufffd", " \ufffd", "\ufffd\ufffd"]  # two stray continuations
    assert [s.emitted for s in steps] == ["", "न", " ", "👋"]
    assert [s.pending for s in steps] == [b"\xe0\xa4", b"", b"\xf0\x9f", b""]


def test_trace_steps_end_in_the_encoding() -> None:
    tokenizer = trained()
    steps = tokenizer.trace(" tokenization")
    assert steps, "a common word needs merges"
    assert [s.rank for s in steps] == sorted(s.rank for s in steps)
    assert list(steps[-1].ids) == tokenizer.encode(" tokenization")


@settings(max_examples=300, deadline=None)
@given(text=st.text(), pattern=st.sampled_from(list(NAMED_PATTERNS)))
def test_round_trip_arbitrary_unicode(text: str, pattern: str) -> None:
    tokenizer = trained("cl100k") if pattern == "cl100k" else BPE(trained().merges, pattern)
    assert tokenizer.decode(tokenizer.encode(text, special="plain")) == text
    tokens = tokenizer.encode_tokens(text, special="plain")
    assert "".join(s.emitted for s in stream_decode(t.bytes for t in tokens)) == text


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab <|endoftext|>fim\n🎂न")))
def test_round_trip_with_special_strings(text: str) -> None:
    tokenizer = trained()
    for mode in ("allowed", "plain"):
        assert tokenizer.decode(tokenizer.encode(text, special=mode)) == text  # type: ignore[arg-type]


@given(words=st.lists(st.text(alphabet="<|>ab_1", min_size=1, max_size=6), min_size=1, max_size=12),
       text=st.text(alphabet="<|>ab_1 x", max_size=60))
def test_special_tokens_find_the_longest_at_each_place(words: list[str], text: str) -> None:
    """The trie-shaped regex finds what the plain longest-first alternation finds."""
    import regex

    from explorer.core.algorithms.bpe import SpecialTokens

    longest_first = regex.compile("|".join(map(regex.escape, sorted(set(words), key=len, reverse=True))))
    expected = [(m.start(), m.end(), m.group()) for m in longest_first.finditer(text)]
    assert SpecialTokens({word: i for i, word in enumerate(words)}).find(text) == expected


@st.composite
def merges_and_chunks(draw: st.DrawFn) -> tuple[list[tuple[int, int, int]], list[bytes]]:
    """Random merges over the bytes `abc` (repeated pairs like `a a` included) and chunks to merge."""
    tokens, merges, pairs = [97, 98, 99], [], set()
    for _ in range(draw(st.integers(0, 30))):
        pair = (draw(st.sampled_from(tokens)), draw(st.sampled_from(tokens)))
        if pair not in pairs:
            pairs.add(pair)
            merges.append((*pair, 256 + len(merges)))
            tokens.append(merges[-1][2])
    chunks = draw(st.lists(st.text(alphabet="abc", min_size=1, max_size=60).map(str.encode), min_size=1, max_size=80))
    return merges, chunks


@settings(max_examples=300, deadline=None)
@given(case=merges_and_chunks(), few=st.sampled_from([1, 32]))
def test_merging_chunks_together_equals_one_by_one(case: tuple[list[tuple[int, int, int]], list[bytes]],
                                                    few: int) -> None:
    """The numpy rounds of a cold cache (merge_batch) give the ids of the one-chunk merge loop."""
    from explorer.core.algorithms import merge_batch

    merges, chunks = case
    tokenizer = BPE(merges, "none")
    byte_ids, ranks = tokenizer._batch_tables
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(merge_batch, "_FEW", few)  # 1: numpy to the end; 32: the last chunks one by one
        together = merge_batch.merge_chunks(chunks, byte_ids, ranks, tokenizer._merge)
    assert together == [tuple(tokenizer.encode_bytes(chunk)) for chunk in chunks]


def test_a_cold_cache_encodes_as_chunk_by_chunk() -> None:
    """Enough new chunks at once to be merged in numpy: the ids of the one-chunk merge loop."""
    tokenizer = trained()
    text = corpus_text("prose", 200_000, seed=1) + corpus_text("multi", 100_000, seed=1)
    pieces = tokenizer.pretokenizer.pieces(text)
    assert len(set(pieces)) > 5000  # far over `_MANY`: the numpy path runs
    fresh = BPE(tokenizer.merges, "cl100k", tokenizer.special_tokens)  # an empty chunk cache
    assert fresh.encode(text) == [i for piece in pieces for i in tokenizer.encode_bytes(piece.encode())]


def test_a_merge_rule_of_its_own_is_kept_on_a_cold_cache() -> None:
    """A subclass that merges otherwise (tiktoken's joins) is never merged by the merge list."""

    class Reversed(BPE):
        def encode_bytes(self, data: bytes) -> list[int]:
            return list(reversed(data))

    tokenizer = trained()
    text = corpus_text("prose", 100_000, seed=2)
    pieces = tokenizer.pretokenizer.pieces(text)
    assert len(set(pieces)) > 1000
    assert Reversed(tokenizer.merges, "cl100k").encode(text) == [b for p in pieces for b in reversed(p.encode())]


def test_a_big_merge_table_is_built_without_collections() -> None:
    """o200k's 200,000 merges, built on the Merges pane's loader thread, started full collections
    of 50-180 ms each (they hold the interpreter lock: the window froze); the table makes no cycles."""
    import gc

    merges = [(k // 256, k % 256, 256 + k) for k in range(30_000)]  # two-byte tokens, each pair once
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    was_enabled = gc.isenabled()
    gc.enable()
    gc.callbacks.append(seen)
    try:
        bpe = BPE(merges, "cl100k")
    finally:
        gc.callbacks.remove(seen)
        if not was_enabled:
            gc.disable()
    # (the first allocation after the pause may start one young collection; before, there were 40)
    assert len(bpe.merges) == 30_000 and len(collections) <= 1, collections
    assert gc.isenabled()  # (the pause ends with the build)


def test_a_merge_table_makes_one_new_object_per_merge_for_the_collector() -> None:
    """The first young collection after the build walks every container it made: 600,000 tuples
    for o200k_base took 45 ms with the interpreter lock held (a stall of the window). The given
    merge tuples are kept and one pair tuple serves both tables."""
    import gc

    merges = [(k // 256, k % 256, 256 + k) for k in range(30_000)]
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        before = gc.get_count()[0]
        bpe = BPE(merges, "cl100k")
        made = gc.get_count()[0] - before
    finally:
        if was_enabled:
            gc.enable()
    assert bpe.merges == merges and bpe.merges[5] is merges[5]
    assert made < 1.2 * len(merges), made
