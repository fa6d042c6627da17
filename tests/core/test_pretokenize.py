"""Pre-tokenization: named patterns equal the real tokenizers', chunks cover all text."""

from __future__ import annotations

import time

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.errors import PatternError, PatternTimeoutError
from explorer.core.pretokenization.pretokenize import (
    BYTE_LEVEL, GAP, NAMED_PATTERNS, REGEX_PREFIX, WINDOW_SAFE, Pretokenizer, split_alternatives)
from tests.conftest import HARD_CASES


def test_gpt2_pattern_splits_like_the_seed() -> None:
    pieces = Pretokenizer("gpt2").pieces("First Citizen:\nBefore we proceed any further, hear me")
    assert pieces[:12] == ["First", " Citizen", ":", "\n", "Before", " we", " proceed", " any", " further", ",",
                           " hear", " me"]


def test_gpt2_vs_gpt4_on_contractions_and_numbers() -> None:
    assert Pretokenizer("gpt2").pieces("HOW'S 123456") == ["HOW", "'", "S", " 123456"]
    assert Pretokenizer("cl100k").pieces("HOW'S 123456") == ["HOW", "'S", " ", "123", "456"]
    assert Pretokenizer("digits").pieces("In 1969") == ["In", " ", "1", "9", "6", "9"]


def test_none_is_one_chunk() -> None:
    assert Pretokenizer("none").pieces("a b\nc") == ["a b\nc"]


def test_patterns_match_tiktoken() -> None:
    import tiktoken_ext.openai_public as public

    assert NAMED_PATTERNS["gpt2"] == public.r50k_pat_str
    source = open(public.__file__, encoding="utf-8").read()
    assert NAMED_PATTERNS["cl100k"] in source


def test_chunks_carry_alternative_labels() -> None:
    chunks = Pretokenizer("cl100k").chunks("I'm 42!  x\n")
    labels = [(c.text, c.label) for c in chunks]
    assert labels == [("I", "letters"), ("'m", "contraction"), (" ", "whitespace"), ("42", "digits"),
                      ("!", "punctuation"), (" ", "spaces before a word"), (" x", "letters"), ("\n", "trailing whitespace")]
    assert [c.start for c in chunks] == [0, 1, 3, 4, 6, 7, 8, 10]


def test_custom_pattern_gaps_are_kept() -> None:
    chunks = Pretokenizer(r"\d+").chunks("ab12cd345")
    assert [(c.text, c.is_gap) for c in chunks] == [("ab", True), ("12", False), ("cd", True), ("345", False)]
    assert chunks[0].alternative == GAP
    assert Pretokenizer(r"\d+").pieces("ab12cd345") == ["ab", "12", "cd", "345"]


def test_custom_pattern_with_groups_and_empty_matches() -> None:
    pieces = Pretokenizer(r"(a)|b*").pieces("xaabx")
    assert "".join(pieces) == "xaabx" and "" not in pieces


def test_split_alternatives_respects_classes_and_groups() -> None:
    flags, alternatives = split_alternatives(r"(?i)a(b|c)|[|\]]x|\|")
    assert flags == "(?i)"
    assert alternatives == ["a(b|c)", r"[|\]]x", r"\|"]


def test_invalid_pattern_has_message_and_position() -> None:
    with pytest.raises(PatternError) as caught:
        Pretokenizer(r"abc(def")
    assert caught.value.position == 7
    assert "missing )" in caught.value.message


def test_catastrophic_pattern_times_out() -> None:
    pretokenizer = Pretokenizer(r"(a|a)+$")
    start = time.monotonic()
    with pytest.raises(PatternTimeoutError):
        pretokenizer.pieces("a" * 40 + "!")
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("name", list(NAMED_PATTERNS))
@pytest.mark.parametrize("text", HARD_CASES)
def test_named_patterns_cover_hard_cases(name: str, text: str) -> None:
    pretokenizer = Pretokenizer(name)
    assert "".join(pretokenizer.pieces(text)) == text
    assert [c.text for c in pretokenizer.chunks(text)] == pretokenizer.pieces(text)


@settings(max_examples=200, deadline=None)
@given(text=st.text(), name=st.sampled_from([*NAMED_PATTERNS, r"\p{L}+", r"[aeiou]|\s"]))
def test_chunks_always_join_back(text: str, name: str) -> None:
    pretokenizer = Pretokenizer(name)
    chunks = pretokenizer.chunks(text)
    assert "".join(c.text for c in chunks) == text
    assert all(text[c.start:c.end] == c.text for c in chunks)
    assert "".join(pretokenizer.pieces(text)) == text


def test_regex_module_is_used_for_unicode_classes() -> None:
    assert regex.fullmatch(r"\p{L}+", "नमस्ते") is None  # combining marks are \p{M}, not letters
    assert Pretokenizer("o200k").pieces("नमस्ते") == ["नमस्ते"]


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("aZ9 \t\n\r'!.,é١€😀नx\u0301")) | st.text(),
       name=st.sampled_from(["gpt2", "cl100k"]))
def test_fast_named_patterns_equal_the_verbatim_ones(text: str, name: str) -> None:
    verbatim = regex.compile(NAMED_PATTERNS[name]).findall(text)
    assert Pretokenizer(name, "regex").pieces(text) == verbatim  # the `regex` module's own tables


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "o200k", "digits", BYTE_LEVEL])
def test_iter_pieces_equals_pieces_on_big_text(name: str) -> None:
    text = "".join(HARD_CASES) * 30 + "x" * 5000 + " " * 4000 + "\n\n  \n" * 300
    pretokenizer = Pretokenizer(name)
    blocks = list(pretokenizer.iter_pieces(text, block=1000))
    assert len(blocks) > 5
    assert [p for block in blocks for p in block] == pretokenizer.pieces(text)


def windowed_pieces(pretokenizer: Pretokenizer, text: str, size: int) -> tuple[list[str], list[str]]:
    """(pieces of iter_pieces, pieces of each window of `windows`), both with small windows."""
    blocks = [p for block in pretokenizer.iter_pieces(text, block=size) for p in block]
    windows = list(pretokenizer.windows(text, size=size))
    assert "".join(windows) == text
    return blocks, [p for window in windows for p in pretokenizer.pieces(window)]


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab Z9 \t\n\r'!.,é١€😀नx\u0301\u0bbe"), min_size=20, max_size=300),
       pattern=st.sampled_from(sorted(WINDOW_SAFE)), size=st.integers(4, 24))
def test_windowed_patterns_give_the_pieces_of_the_whole_text(text: str, pattern: str, size: int) -> None:
    pretokenizer = Pretokenizer(pattern)
    assert pretokenizer.windowed
    whole = regex.compile(pattern).findall(text)
    assert windowed_pieces(pretokenizer, text, size) == (whole, whole)


# Alternatives of custom patterns: look-ahead, look-behind, anchors, long literals, empty matches.
_ALTERNATIVES = [r"[a-z]+(?=[0-9])", r"[a-z]+", r"[a-z]", r"[0-9]+", r"\s+", r"\s+(?!\S)", r".", r"abcd",
                 r"a(?:bc)+d", r"[a-z]+$", r"x*", r"(?<=a)b", r"\b[a-z]{2}\b", r"(?>ab|a)b", r"[ab]++c"]


@settings(max_examples=600, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("abcdx09 \n"), min_size=10, max_size=200),
       alternatives=st.lists(st.sampled_from(_ALTERNATIVES), min_size=1, max_size=5), size=st.integers(2, 12))
def test_custom_patterns_give_the_pieces_of_the_whole_text(text: str, alternatives: list[str], size: int) -> None:
    """Windowed or not, a custom pattern's pieces are those of one pass with `regex` (plus gaps)."""
    pretokenizer = Pretokenizer(REGEX_PREFIX + "|".join(alternatives))  # a lone `abcd` is a regex too
    whole = [chunk.text for chunk in pretokenizer.chunks(text)]  # one finditer over the whole text
    assert pretokenizer.pieces(text) == whole
    assert windowed_pieces(pretokenizer, text, size) == (whole, whole)


@settings(max_examples=600, deadline=None)
@given(lines=st.lists(st.text(alphabet=st.sampled_from("ab. \t\n\r\u3000\u0301"), max_size=8), min_size=4, max_size=40),
       pattern=st.sampled_from(sorted(WINDOW_SAFE)), size=st.integers(2, 16))
def test_windows_cut_after_whitespace_only_where_it_splits_alone_the_same(lines: list[str], pattern: str,
                                                                           size: int) -> None:
    """Runs of whitespace of every kind at the cuts: a window may now end in them (word lists)."""
    text = "\n".join(lines)
    pretokenizer = Pretokenizer(pattern)
    whole = regex.compile(pattern).findall(text)
    assert windowed_pieces(pretokenizer, text, size) == (whole, whole)


@pytest.mark.parametrize("pattern", sorted(WINDOW_SAFE - {NAMED_PATTERNS["none"]}))  # ("none": one chunk)
def test_a_list_of_words_one_a_line_is_cut_into_windows(pattern: str) -> None:
    """Every chunk before a word ends in a newline: the only cuts are after one."""
    text = "".join(f"word{i % 7 * 'x'}\n" for i in range(5000))
    pretokenizer = Pretokenizer(pattern)
    windows = list(pretokenizer.windows(text, size=1000))
    assert len(windows) > 10
    assert [p for window in windows for p in pretokenizer.pieces(window)] == pretokenizer.pieces(text)


def test_lookahead_pattern_is_not_cut_into_windows() -> None:
    pattern = r"[a-z]+(?=[0-9])|[a-z]|[0-9]+|\s+|."
    text = "xxxx" + "hello42" * 4000
    pretokenizer = Pretokenizer(pattern)
    assert not pretokenizer.windowed
    assert [p for block in pretokenizer.iter_pieces(text) for p in block] == regex.findall(pattern, text)
    assert list(pretokenizer.windows(text)) == [text]


@settings(max_examples=1000, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=127)), name=st.sampled_from(list(NAMED_PATTERNS)))
def test_ascii_fast_path_equals_the_unicode_pattern(text: str, name: str) -> None:
    assert Pretokenizer(name).pieces(text) == regex.compile(NAMED_PATTERNS[name]).findall(text)


def test_custom_pattern_with_numbered_backreference() -> None:
    chunks = Pretokenizer(r"(a)\1|\s|b+").chunks("aa bb")
    assert [(c.text, c.label) for c in chunks] == [("aa", r"(a)\1"), (" ", "whitespace"), ("bb", "b+")]


# ASCII, the common non-ASCII characters the ASCII version reads (quotes, dashes, box drawing,
# no-break space: in \s, so not read), letters and marks it must leave to the Unicode pattern.
_MIXED = "ab Z9 \t\n\r'!.,-" + "“”‘’—–…•─│├¡«»°±×÷€\u00a0\u2028\u3000\u00ad" + "éßł١²ª\u0301"


@settings(max_examples=1000, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(_MIXED)), name=st.sampled_from(list(NAMED_PATTERNS)),
       reference=st.sampled_from(["tiktoken", "tokenizers", "regex"]))
def test_ascii_version_reads_common_punctuation_as_the_unicode_pattern(text: str, name: str, reference: str) -> None:
    pretokenizer = Pretokenizer(name, reference)  # type: ignore[arg-type]
    assert pretokenizer.pieces(text) == [chunk.text for chunk in pretokenizer.chunks(text)]


@settings(max_examples=300, deadline=None)
@given(runs=st.lists(st.tuples(st.integers(0, 700), st.text(alphabet=st.sampled_from(_MIXED), max_size=8)),
                     max_size=12),
       name=st.sampled_from(["gpt2", "cl100k", "o200k"]), block=st.sampled_from([64, 300, 1000]))
def test_windows_cut_around_rare_letters_give_the_pieces_of_the_whole_text(
        runs: list[tuple[int, str]], name: str, block: int) -> None:
    """Long ASCII runs between rare characters: windows end before and after them."""
    text = "".join("the cat, " * (length // 9) + rare for length, rare in runs)
    pretokenizer = Pretokenizer(name, "tiktoken")
    assert [p for window in pretokenizer.iter_pieces(text, block) for p in window] == \
        [chunk.text for chunk in pretokenizer.chunks(text)]


@pytest.mark.parametrize("reference", ["tiktoken", "tokenizers", "regex"])
@pytest.mark.parametrize("name", list(NAMED_PATTERNS))
def test_every_character_the_ascii_version_reads_is_read_right(name: str, reference: str) -> None:
    """Each of the thousands of characters the fast path takes, beside letters, digits, spaces,
    apostrophes and line ends: the chunks of the Unicode pattern."""
    from explorer.core.pretokenization.unicode_classes import outside_classes

    pretokenizer = Pretokenizer(name, reference)  # type: ignore[arg-type]
    text = "".join(f"{c}a'{c}s {c}{c}1{c}\n{c} " for c in outside_classes(pretokenizer.reference, pretokenizer.classes))
    assert pretokenizer._ascii_reads(text)
    assert pretokenizer.pieces(text) == [chunk.text for chunk in pretokenizer.chunks(text)]


def test_outside_classes_leaves_out_every_member() -> None:
    from explorer.core.pretokenization.unicode_classes import member, outside_classes

    classes = Pretokenizer("o200k", "tiktoken").classes
    outside = outside_classes("tiktoken", classes)
    assert "“" in outside and "─" in outside and "é" not in outside and "\u00a0" not in outside
    assert not [c for c in outside for name in classes if member(c, name, "tiktoken")]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("hel o\n1é"), max_size=30))
def test_covers_says_whether_chunks_has_a_gap(text: str) -> None:
    for pattern in ("l+", "[a-z]+|[^a-z]+", "x*", "cl100k"):
        pretokenizer = Pretokenizer(pattern)
        assert pretokenizer.covers(text) == (not any(chunk.is_gap for chunk in pretokenizer.chunks(text))), pattern
