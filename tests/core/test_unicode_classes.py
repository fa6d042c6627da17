"""Every code point is classified as the reference library does: tiktoken or tokenizers, not `regex`.

`regex` has Unicode 17 tables, the references Unicode 15: without the mapping, text holding a
character assigned since (U+3EA9D, U+0558) or recategorised (U+0295) chunks differently, and
training and exported tokenizers diverge from Hugging Face.

The walks compare chunks of whole batches of code points in contexts that exercise every
class of the named patterns. By default (seconds) they take every assigned code point below
U+3400 (the varied scripts), both ends of every range on which `regex` and a reference differ,
every 17th other assigned one and every 61st code point; TOKENIZER_EXPLORER_FULL_WALK=1 takes
every assigned one (a minute). The class test takes every assigned code point.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
import tiktoken
from tokenizers import Regex, Tokenizer, pre_tokenizers

from explorer.core.algorithms.train import train
from explorer.core.formats import hf
from explorer.core.formats.own import from_merges
from explorer.core.pretokenization.pretokenize import NAMED_PATTERNS, Pretokenizer, hf_compatible
from explorer.core.pretokenization import unicode_classes
from explorer.core.pretokenization.unicode_classes import (
    CLASSES, REFERENCES, Reference, differences, disagreements, table)
from explorer.core.sources.hf_tokenizer import HFTokenizer
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
from tests.hf_reference import hf_train_merges

PATTERNS = ["gpt2", "cl100k", "o200k", "llama3", "digits"]
FULL = os.environ.get("TOKENIZER_EXPLORER_FULL_WALK") == "1"
EVERYTHING = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))
BATCH = 2000  # code points per library call
# New since Unicode 15 (letters, digits, a mark) or moved (U+0295: Ll in Unicode 15, Lo in `regex`).
NEW_CHARACTERS = "\u0558\u0295\U0003EA9D\U000323B0\u088f\U00011DE0\u0cdc\u1acf\U00016EA0"


@cache
def assigned() -> frozenset[str]:
    return frozenset(regex.findall(r"[^\p{Cn}\p{Co}]", EVERYTHING))


@cache
def walked() -> list[str]:
    """The code points the walks take (see the module docstring)."""
    edges = {c for reference in REFERENCES for entry in table(reference).values()
             for side in ("extra", "missing") for a, b in entry[side] for c in (a - 1, a, b, b + 1)}
    known = assigned()
    return [char for index, char in enumerate(EVERYTHING)
            if (char in known and (FULL or index < 0x3400 or index % 17 == 0 or ord(char) in edges))
            or index % 61 == 0 or char in NEW_CHARACTERS]


@cache
def walked_set() -> frozenset[str]:
    return frozenset(walked())


@cache
def segments() -> list[str]:
    """Each code point c in the contexts c, ' '+c, c+'a', 'a'+c, c+"'s", "'"+c, c+'1', one line each."""
    chars = walked()
    return ["".join(f"{c} {c}a{c}'s '{c}1\n" for c in chars[i:i + BATCH]) for i in range(0, len(chars), BATCH)]


def test_the_walk_covers_what_matters() -> None:
    chars = set(walked())
    assert {"\u0295", "\u0558", "\U0003EA9D", "\u017f", "\u212a", "\u200d", "\u0301"} <= chars
    assert len(chars) > 25_000


def assert_chunks_as_tokenizers(name: str, texts: list[str]) -> None:
    pretokenizer = Pretokenizer(name, "tokenizers")
    split = pre_tokenizers.Split(Regex(hf_compatible(NAMED_PATTERNS[name])), "isolated")
    for text in texts:
        ours = pretokenizer.pieces(text)
        theirs = [piece for piece, _ in split.pre_tokenize_str(text)]
        if ours != theirs:
            at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            pytest.fail(f"{name}: ours {ours[max(0, at - 2):at + 3]} vs tokenizers {theirs[max(0, at - 2):at + 3]}")


def assert_chunks_as_tiktoken(name: str, texts: list[str]) -> None:
    """tiktoken hides its chunks, but a token never crosses one: with a vocabulary holding the
    256 bytes, each of our chunks and each two neighbouring chunks joined, tiktoken returns
    exactly one token per our chunk if and only if its chunks are ours. (A chunk it ends
    inside one of ours cuts that token; one that spans two of ours is in the vocabulary whole,
    or its BPE ends up merging the two neighbours, whose join is in the vocabulary too.)"""
    pretokenizer = Pretokenizer(name, "tiktoken")
    ours = [pretokenizer.pieces(text) for text in texts]
    vocabulary = {piece for pieces in ours for piece in pieces}
    vocabulary.update(a + b for pieces in ours for a, b in zip(pieces, pieces[1:]))
    ranks = {bytes([b]): b for b in range(256)}
    for rank, piece in enumerate(vocabulary, 256):
        ranks.setdefault(piece.encode("utf-8"), rank)
    encoding = tiktoken.Encoding("walk", pat_str=NAMED_PATTERNS[name], mergeable_ranks=ranks, special_tokens={})
    for pieces, ids in zip(ours, encoding.encode_ordinary_batch(texts)):
        expected = [ranks[piece.encode("utf-8")] for piece in pieces]
        if ids != expected:
            at = next((i for i, (a, b) in enumerate(zip(ids, expected)) if a != b), min(len(ids), len(expected)))
            theirs = [encoding.decode_single_token_bytes(i) for i in ids[max(0, at - 2):at + 3]]
            pytest.fail(f"{name}: ours {pieces[max(0, at - 2):at + 3]} vs tiktoken {theirs}")


@pytest.mark.parametrize("name", PATTERNS)
def test_every_code_point_chunks_as_tokenizers_split(name: str) -> None:
    assert_chunks_as_tokenizers(name, segments())


@pytest.mark.parametrize("name", PATTERNS)
def test_every_code_point_chunks_as_tiktoken(name: str) -> None:
    assert_chunks_as_tiktoken(name, segments())


# Characters whose case folding reaches the letters of the contractions ('s 't 're 've 'm 'll 'd).
FOLDING = "\u017f\u212a\u0130\u0131\u00df\u1e9e\ufb00\ufb01\ufb02\ufb05\ufb06\u0149\u01c7\u01c8\u01c9"


@pytest.mark.parametrize("name", PATTERNS)
def test_contractions_fold_case_as_both_references(name: str) -> None:
    """`(?i:'s|...)`: ſ (U+017F) folds to s in all three engines, so "'ſ" is a contraction;
    K (U+212A, KELVIN SIGN) and the ligatures are not part of one."""
    texts = ["".join(f"'{c} '{c}l 'l{c} 'r{c} 'v{c} '{c}e X'{c}T {c}'s {c}'S\n" for c in FOLDING)]
    assert_chunks_as_tokenizers(name, texts)
    assert_chunks_as_tiktoken(name, texts)
    expected = {"gpt2": ["x", "'", "\u017f"], "o200k": ["x'\u017f"]}.get(name, ["x", "'\u017f"])  # gpt2: no (?i)
    assert Pretokenizer(name, "tiktoken").pieces("x'\u017f") == expected


def _tiktoken_members(pattern: str, domain: str) -> str:
    ranks = {bytes([b]): b for b in range(256)}
    encoding = tiktoken.Encoding("members", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return encoding.decode(encoding.encode_ordinary(domain))  # tiktoken keeps only what the pattern matches


def _tokenizers_members(pattern: str, domain: str) -> str:
    split = pre_tokenizers.Split(Regex(pattern), "removed", invert=True)  # keeps only what the pattern matches
    return "".join(piece for piece, _ in split.pre_tokenize_str(domain))


@pytest.mark.parametrize("reference", REFERENCES)
def test_every_class_of_the_named_patterns_has_the_references_members(reference: Reference) -> None:
    """Each class alone, inside a set and negated, on every assigned code point and the walk's
    sample of the others: our members equal the library's."""
    domain = "".join(c for c in EVERYTHING if c in assigned() or c in walked_set())
    used = sorted(set().union(*(Pretokenizer(name, reference).classes for name in PATTERNS)))
    assert used == sorted([r"\p{L}", r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}", r"\p{M}", r"\p{N}", r"\s"])
    members = _tiktoken_members if reference == "tiktoken" else _tokenizers_members
    for name in used:
        for form in (f"{name}+", f"[{name}]+", f"[^{name}\\n]+"):
            ours = "".join(c.text for c in Pretokenizer(form, reference).chunks(domain) if not c.is_gap)
            theirs = members(form, domain)
            assert ours == theirs, f"{form}: {len(set(ours) ^ set(theirs))} code points differ in {reference}"


@pytest.mark.parametrize("reference", REFERENCES)
def test_tables_are_what_the_installed_library_says(reference: Reference) -> None:
    """The shipped (or cached) tables equal a fresh measurement of the installed library; if this
    fails after an upgrade, run packaging/unicode_tables.py."""
    assert table(reference) == differences(reference, CLASSES)
    assert not table(reference)[r"\p{M}"]["missing"]  # so is_mark, with regex's marks, holds the reference's


def test_other_library_versions_are_measured_once_into_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unicode_classes, "library_version", lambda reference: "0.0-other")
    table.cache_clear()
    try:
        measured = table("tiktoken")
        cached = list(unicode_classes.cache_dir().glob("unicode-tiktoken-0.0-other-regex-*.json"))
        assert len(cached) == 1 and measured == differences("tiktoken", CLASSES)
        table.cache_clear()
        monkeypatch.setattr(unicode_classes, "differences", lambda *args: pytest.fail("measured again"))
        assert table("tiktoken") == measured
        cached[0].write_text("{damaged")
        table.cache_clear()
        monkeypatch.setattr(unicode_classes, "differences", lambda *args: {name: measured[name] for name in CLASSES})
        assert table("tiktoken") == measured  # a damaged entry is measured again
    finally:
        table.cache_clear()


def test_a_regex_release_with_the_same_tables_keeps_the_shipped_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = table("tokenizers")
    monkeypatch.setattr(regex, "__version__", "2099.1.1")
    table.cache_clear()
    try:
        monkeypatch.setattr(unicode_classes, "differences", lambda *args: pytest.fail("measured again"))
        assert table("tokenizers") == shipped
        monkeypatch.setattr(unicode_classes, "regex_tables", lambda: "assigned-1")  # other tables: measure
        monkeypatch.setattr(unicode_classes, "differences", lambda *args: {"measured": True})
        table.cache_clear()
        assert table("tokenizers") == {"measured": True}
    finally:
        table.cache_clear()


def test_the_shipped_tables_are_used_when_the_versions_match() -> None:
    shipped = Path(unicode_classes.__file__).parents[3] / "resources" / "unicode"
    for reference in REFERENCES:
        document = (shipped / f"{reference}.json").read_text("utf-8")
        if unicode_classes._key(reference) in document:
            assert unicode_classes._read(document, reference) == table(reference)


def test_fast_and_exact_patterns_agree_without_differing_code_points() -> None:
    text = "Hello, wörld! ʔ नमस्ते 123 ١٢٣ 日本語 😀 e\u0301 ſ K \u200d \t\n"
    for name in [*PATTERNS, r"[[a]+|[&&]+|[+--]|\p{L}+|[^\s\p{L}]+|\s+", r"[[:alpha:]]+|[[:^alpha:]\p{N}]+|\p{L}+"]:
        pretokenizer = Pretokenizer(name, "tokenizers")
        assert not pretokenizer._differing.found_in(text)
        assert pretokenizer._exact.findall(text) == pretokenizer._compiled.findall(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(), name=st.sampled_from([*PATTERNS, r"\w+|\W", r"[^\s\P{L}]+|\d+|[\S&&-]+|.", r"\p{P}+|\P{P}+"]))
def test_the_exact_pattern_matches_like_the_fast_one_on_any_other_text(text: str, name: str) -> None:
    pretokenizer = Pretokenizer(name, "tiktoken")
    if not pretokenizer._differing.found_in(text):
        assert pretokenizer._exact.findall(text) == pretokenizer._compiled.findall(text)


def test_a_code_point_new_in_unicode_17_is_not_a_letter() -> None:
    """The issue's repro: U+3EA9D (Seal script in regex's tables) is unassigned for both references,
    so the punctuation alternative takes it with the apostrophe."""
    text = "\U0003EA9D's"
    assert Pretokenizer("llama3", "regex").pieces(text) == ["\U0003EA9D", "'s"]
    for reference in REFERENCES:
        assert Pretokenizer("llama3", reference).pieces(text) == ["\U0003EA9D'", "s"]
    # o200k splits words by case: U+0295 is lower case (Ll) for the references, Lo for `regex`.
    assert Pretokenizer("o200k", "regex").pieces("\u0295Ab") == ["\u0295Ab"]
    assert [c.text for c in Pretokenizer("o200k", "tiktoken").chunks("\u0295Ab")] == ["\u0295", "Ab"]


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_bundled_encodings_give_tiktokens_ids_on_long_text_with_new_code_points(name: str) -> None:
    """Long texts are encoded window by window, cut between our chunks: with `regex`'s tables
    a cut fell between U+3EA9D and 's, inside tiktoken's chunk "U+3EA9D '", and ids differed."""
    tokenizer = TiktokenTokenizer.bundled(name)
    for text in ["\U0003EA9D's" * 20000, "x\u0558'd " * 5000]:
        assert tokenizer.encode(text) == tokenizer._encoding.encode_ordinary(text)  # tiktoken on the whole text


def test_exported_tokenizer_gives_our_ids(tmp_path: Path) -> None:
    lines = [f"word{c}'s and {c}{c} more 12{c}3 text\n" for c in NEW_CHARACTERS] * 5
    ours = from_merges(list(train(lines, 300, "llama3")), "llama3")
    path = tmp_path / "tokenizer.json"
    hf.export(ours, path)
    exported = Tokenizer.from_file(str(path))
    for text in ["\U0003EA9D's", *lines[:len(NEW_CHARACTERS)], "".join(lines)]:
        assert ours.encode(text) == exported.encode(text, add_special_tokens=False).ids, repr(text)
    long = "\U0003EA9D's" * 20000  # cut into windows: by chunks as tokenizers sees them
    assert HFTokenizer.from_file(path).encode(long) == exported.encode(long, add_special_tokens=False).ids
    assert ours.encode(long) == exported.encode(long, add_special_tokens=False).ids


@pytest.mark.parametrize("pattern", ["gpt2", "cl100k", "o200k", "llama3"])
def test_training_on_new_code_points_matches_hf(pattern: str) -> None:
    lines = [f"A{c}b {c}{c}'s x{c}ʕʔ 7{c}8 {c}\u0301\n" for c in NEW_CHARACTERS * 3]
    merges = [m.token for m in train(lines, 400, pattern)]
    assert merges == hf_train_merges(lines, 400, pattern)


def test_tiktoken_and_tokenizers_disagree_on_join_controls_in_w() -> None:
    """Rust's regex crate counts U+200C/U+200D as \\w (Unicode's Join_Control), Oniguruma does not."""
    found = disagreements("a\u200db\u200c c", [r"\w"])
    assert [(d.char, d.tiktoken, d.tokenizers) for d in found] == [("\u200d", (r"\w",), ()),
                                                                   ("\u200c", (r"\w",), ())]
    assert "ZERO WIDTH JOINER" in found[0].describe()
    assert Pretokenizer(r"\w+|\W+", "tiktoken").pieces("a\u200db") == ["a\u200db"]
    assert Pretokenizer(r"\w+|\W+", "tokenizers").pieces("a\u200db") == ["a", "\u200d", "b"]
    assert not disagreements("a\u200db\U0003EA9D", [r"\p{L}", r"\p{N}", r"\s"])  # the same tables otherwise


def test_pretokenizers_of_one_pattern_share_their_differing_characters() -> None:
    """Each new tokenizer's pretokenizer used to build the ~17,500 characters again on its first
    text, on the GUI thread when a trained tokenizer arrives: they are built once."""
    first, second = Pretokenizer("cl100k", "tokenizers"), Pretokenizer("cl100k", "tokenizers")
    assert first.pieces("héllo wörld") == second.pieces("héllo wörld") == ["héllo", " wörld"]
    assert first._differing._chars is second._differing._chars and len(first._differing._chars) > 1000
