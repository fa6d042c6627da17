"""The seeded test corpora: the same everywhere, and rich enough for the parity tests to mean something."""

from __future__ import annotations

import hashlib
from collections import Counter

import regex

from tests.corpora import KINDS, corpus_lines, corpus_text

# sha256 of the first 50 KB of each kind, seed 0: the same on CPython 3.9 to 3.13 and any PYTHONHASHSEED.
# A change to a generator changes these; update them deliberately, never to hide a platform difference.
DIGESTS = {
    "prose": "a6d21ff23aad4a48",
    "code": "a7937fcad55c9e46",
    "multi": "78958ca5c5d74da2",
}


def test_the_same_text_on_every_machine() -> None:
    assert {kind: hashlib.sha256(corpus_text(kind, 50_000).encode()).hexdigest()[:16] for kind in KINDS} == DIGESTS


def test_sizes_seeds_and_prefixes() -> None:
    for kind in KINDS:
        small, big = corpus_lines(kind, 20_000), corpus_lines(kind, 60_000)
        assert big[: len(small)] == small, "a corpus of one size is a prefix of a bigger one"
        assert 19_000 < len("".join(small).encode()) <= 20_000
        assert all(line.endswith("\n") for line in big)
        assert corpus_text(kind, 20_000, seed=1) != corpus_text(kind, 20_000)
    corpus_lines("prose", 20_000).clear()  # the caller's copy: the cached lines stay
    assert corpus_lines("prose", 20_000)


def test_words_follow_a_zipf_curve() -> None:
    for kind in KINDS:
        counts = Counter(regex.findall(r"\p{L}+", corpus_text(kind, 150_000)))
        ranked = sorted(counts.values(), reverse=True)
        assert len(counts) > 2000, kind  # thousands of distinct words
        assert ranked[0] > 10 * ranked[99] > 0, kind  # a few words are everywhere...
        assert sum(1 for n in ranked if n == 1) > len(ranked) / 3, kind  # ...and many are seen once


def test_the_edges_real_text_has() -> None:
    multi, prose, code = (corpus_text(kind, 150_000) for kind in ("multi", "prose", "code"))
    for script in ["Hangul", "Devanagari", "Arabic", "Hiragana", "Katakana", "Han", "Thai", "Latin"]:
        assert len(regex.findall(rf"\p{{{script}}}", multi)) > 1000, script
    assert regex.search(r"\p{Extended_Pictographic}\p{Emoji_Modifier}", multi)  # 👍🏽
    assert "\u200d" in multi and "\ufe0f" in multi and "🇯🇵" in multi  # ZWJ sequences, VS16, flags
    for text in (multi, prose, code):
        assert "\t" in text and " " * 20 in text and regex.search(r"\d{4}", text)
    assert multi.count("\r\n") > 100 and "\r\n" not in prose + code and regex.search("\r[^\n]", multi)
    assert all(c in prose for c in ["don't", "'s ", "'S", "e\u0301", "“", "—", ", "])
    assert all(c in code for c in ["def ", "class ", "    " * 4, "self.", '"""', "# ", " == ", "f\""])
