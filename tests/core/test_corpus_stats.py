"""Corpus statistics and script shares."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from explorer.core.analysis.corpus_stats import chunk_hash, scan_sources
from explorer.core.analysis.script_stats import NEUTRAL, OTHER, count_scripts, describe_shares, script_shares
from explorer.core.corpora.corpus_sources import Source, sample_sources
from explorer.core.pretokenization.pretokenize import Pretokenizer
from tests.conftest import HARD_CASES


def final(source: Source, pattern: str = "cl100k"):  # type: ignore[no-untyped-def]
    return [s for s in scan_sources([source], pattern) if s.done][0]


def test_counts_of_a_small_text() -> None:
    stats = final(Source.pasted("the cat sat\non the mat\n"), "gpt2")
    assert (stats.chars, stats.lines, stats.words, stats.bytes) == (23, 2, 6, 23)
    assert stats.distinct_chunks == len(set(Pretokenizer("gpt2").pieces("the cat sat\non the mat\n")))
    assert stats.scripts["Latin"] == 17 and stats.scripts[NEUTRAL] == 6


def test_distinct_chunks_depend_on_the_pattern() -> None:
    source = Source.pasted("aaa bbb aaa bbb")
    assert final(source, "gpt2").distinct_chunks == 3  # aaa, ' bbb', ' aaa'
    assert final(source, "none").distinct_chunks == 1


def test_union_of_hashes_counts_shared_chunks_once() -> None:
    a, b = final(Source.pasted("one two")), final(Source.pasted("zero two"))
    assert len(a.chunk_hashes | b.chunk_hashes) == 3  # one, zero, ' two'
    assert chunk_hash("abc") == chunk_hash("abc") != chunk_hash("abd")


def test_progress_snapshots_then_final(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("word word\n" * 100_000)
    snapshots = list(scan_sources([Source.for_path(path)]))
    assert len(snapshots) >= 3 and snapshots[-1].done and not snapshots[0].done
    fractions = [s.fraction for s in snapshots]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert snapshots[-1].words == 200_000


def test_bad_sources_report_but_do_not_stop(tmp_path: Path) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café\n".encode("latin-1"))
    results = [s for s in scan_sources([Source("file", "gone", str(tmp_path / "x")), Source.for_path(latin),
                                        Source.pasted("fine")]) if s.done]
    assert "no such file" in results[0].error
    assert results[1].undecodable and "not valid UTF-8" in results[1].undecodable[0][1]
    assert results[2].words == 1


def test_samples_are_in_the_scripts_they_claim() -> None:
    expected = ["Latin", "Devanagari", "Hangul", "Arabic", "Latin"]
    for source, script in zip(sample_sources(), expected):
        shares = script_shares(final(source).scripts)
        assert shares[0][0] == script and shares[0][1] > 0.99, (source.name, shares)


def test_script_counts_cover_every_character() -> None:
    for text in HARD_CASES:
        counts: Counter[str] = Counter()
        count_scripts(text, counts)
        assert sum(counts.values()) == len(text)
    counts = Counter()
    count_scripts("日本語のテキスト Привет مرحبًا 한국어 ᚠᚢ", counts)
    assert counts["CJK"] == 8 and counts["Cyrillic"] == 6 and counts["Arabic"] == 6 and counts["Hangul"] == 3
    assert counts[OTHER] == 2  # runes


def test_describe_shares() -> None:
    # Not "Latin 100%" beside another script: the Total row of a mostly-English corpus read as all Latin.
    assert describe_shares({"Latin": 995, "Hangul": 4, "Neutral": 100}) == "Latin >99% · Hangul <1%"
    assert describe_shares({"Latin": 995}) == "Latin 100%"
    assert describe_shares({NEUTRAL: 5}) == "no letters"
    many = {name: 10 for name in ["Latin", "Greek", "Cyrillic", "Arabic", "Hangul"]}
    assert describe_shares(many).endswith("+2 more")
