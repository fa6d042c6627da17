"""The piece cache (piece_encoding): the ids of texts cut at their good spaces equal tiktoken's, cold
and warm, and the chunk level's for every pattern the piece level is used for.

Each hand case fails if one of the rules that send text to the chunk level is taken away: the
spaces beside spaces, beside other ASCII whitespace and beside wider whitespace (all written as
marks), a segment's first and last pieces, windows cut at good spaces only, a text holding the
mark character itself, and the patterns the piece level is proven for.
"""

from __future__ import annotations

from itertools import product

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.algorithms import cached_encoding, piece_encoding
from explorer.core.algorithms.bpe import BPE
from explorer.core.pretokenization.pretokenize import NAMED_PATTERNS
from tests.core.test_tiktoken import loaded, reference  # noqa: F401 (a fixture)

ENCODINGS = ["cl100k_base", "o200k_base", "r50k_base"]
# Words, numbers, contractions, punctuation, emoji, other scripts, a lone combining mark, and every
# kind of whitespace, alone and in runs: what decides where pieces and windows are cut.
ATOMS = ["the", "Cat", "WORLD", "a", "x1", "123", "4567", "'s", "'LL", "'t", "don't", ".", ",", "!?", "(", ")",
         "\"", "/", "-", "...", "😀", "👍🏽", "नमस्ते", "مرحبا", "日本", "\u0301", "é", "e\u0301",
         " ", " ", " ", " ", "  ", "   ", "\n", "\n\n", "\t", "\r", "\r\n", "\u3000", "\u00a0", "\x0b", "\x1c",
         " \n", "\n ", "\n  ", " \t ", "\u2028"]
HAND_CASES = {
    "spaces beside spaces": ["a   b c", "x    y z", "w  . s  'll"],
    "spaces beside ASCII whitespace": ["x word\n  2 She", "a \tb c", "a\t b c", "a b \n c d", "p\r\n  q r"],
    "spaces beside wider whitespace": ["a\u3000 \u3000b c", "p\u00a0 \u00a0q r", "x word\n\u3000 2 c", "a \u3000b c",
                                       "x \u2028 y z", "a b\u3000 "],
    "first piece": ["Hello world", "don't stop", "123 go"],
    "last piece": ["x y a\n\t", "p q r\n\n\t", "x y z ", "a b  "],
    "windows at good spaces": ["a " * 40 + "  b \n c" * 9 + " \td" * 9],
    "the mark character": ["a\x00 b c", "x \x00y z", "\x00 \x00"],
}


def _cold(bpe: BPE) -> BPE:
    bpe._cache.clear()
    bpe._pieces.clear()
    return bpe


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=60, deadline=None)
@given(parts=st.lists(st.sampled_from(ATOMS), max_size=80), block=st.sampled_from([4, 16, 1 << 15]),
       together=st.sampled_from([1, 1 << 14]), many=st.sampled_from([1, 512]))
def test_pieces_follow_tiktoken_cold_and_warm(name: str, parts: list[str], block: int, together: int, many: int,
                                              reference: dict[str, tiktoken.Encoding]) -> None:  # noqa: F811
    """Any mix of the atoms, in windows of a few characters or one, new chunks merged one by one
    or in numpy and waiting or not: tiktoken's ids on an empty cache and again on a warm one."""
    text = "".join(parts)
    bpe = _cold(loaded(name).as_bpe())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(piece_encoding, "_BLOCK", block)
        patch.setattr(cached_encoding, "_TOGETHER", together)
        patch.setattr(cached_encoding, "_MANY", many)
        theirs = reference[name].encode_ordinary(text)
        assert bpe.encode(text, special="plain") == theirs
        assert bpe.encode(text, special="plain") == theirs
    assert all(ids for ids in bpe._pieces.values())  # every new piece filled


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("rule", HAND_CASES)
def test_each_rule_keeps_the_ids(name: str, rule: str, reference: dict[str, tiktoken.Encoding]) -> None:  # noqa: F811
    """All the hand cases one after another on one cache, in windows of 4 characters (so that
    a case's pieces are new in some and known in others), then each alone on an empty cache:
    tiktoken's ids, and a byte-pair BPE over the same pattern cuts as the chunk level (where
    tiktoken's vocabulary hides a wrong cut, as `\n\t` in two chunks or one)."""
    bpe = _cold(loaded(name).as_bpe())
    pattern = bpe.pretokenizer.regex
    pairs, oracle = _byte_pair_bpe(pattern), _byte_pair_bpe(f"(?:{pattern})")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(piece_encoding, "_BLOCK", 4)
        for text in HAND_CASES[rule] * 2:
            assert bpe.encode(text, special="plain") == reference[name].encode_ordinary(text), text
            assert pairs.encode(text, special="plain") == oracle.encode(text, special="plain"), text
    for text in HAND_CASES[rule]:
        assert _cold(bpe).encode(text, special="plain") == reference[name].encode_ordinary(text), text
        assert _cold(pairs).encode(text, special="plain") == oracle.encode(text, special="plain"), text


def _byte_pair_bpe(pattern: str) -> BPE:
    """A BPE that merges every pair of the atoms' ASCII bytes, so that its ids show where each
    chunk starts and ends."""
    ascii_bytes = sorted({byte for atom in ATOMS for byte in atom.encode() if byte < 128})
    pairs = product(ascii_bytes, repeat=2)
    return BPE([(left, right, 256 + rank) for rank, (left, right) in enumerate(pairs)], pattern)


@pytest.mark.parametrize("pattern", sorted(piece_encoding.PIECE_SAFE))
@settings(max_examples=40, deadline=None)
@given(parts=st.lists(st.sampled_from(ATOMS), max_size=60), block=st.sampled_from([4, 1 << 15]))
def test_every_piece_safe_pattern_cuts_as_the_chunk_level(pattern: str, parts: list[str], block: int) -> None:
    """Each pattern the piece level is used for (the six named ones that cut at spaces, and
    ByteLevel's), against the same pattern in a group, which the piece level does not know and
    so encodes chunk by chunk."""
    text = "".join(HAND_CASES["spaces beside ASCII whitespace"] + parts)
    oracle = _byte_pair_bpe(f"(?:{pattern})")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(piece_encoding, "_BLOCK", block)
        assert _byte_pair_bpe(pattern).encode(text, special="plain") == oracle.encode(text, special="plain")


def test_the_piece_safe_patterns_are_the_ones_that_cut_at_spaces() -> None:
    """"none" (the whole text one chunk) is not piece-safe, nor is a custom pattern that joins
    words across a space: they go chunk by chunk, as the pattern cuts."""
    assert piece_encoding.PIECE_SAFE >= {NAMED_PATTERNS[name] for name in ("gpt2", "cl100k", "o200k")}
    assert NAMED_PATTERNS["none"] not in piece_encoding.PIECE_SAFE
    bpe = _byte_pair_bpe(r"[a-z]+ [a-z]+|\s+|.")
    text = "the cat ate the fish\n a"
    expected = [i for chunk in bpe.pretokenizer.pieces(text) for i in bpe.encode_chunk(chunk)]
    assert bpe.encode(text, special="plain") == expected
