"""The efficiency table: tokens, bytes per token, tokens per word, premium, CSV."""

from __future__ import annotations

import csv
import io

from explorer.core.algorithms.train import train
from explorer.core.analysis.efficiency import (
    EfficiencyProgress, Measurement, TokenizerRef, measure_all, premium, to_csv)
from explorer.core.corpora.corpus_sources import Source, sample_sources
from explorer.core.formats import own
from explorer.core.formats.own import from_merges


def trained(name: str = "garden") -> TokenizerRef:
    english = list(sample_sources()[0].path and open(sample_sources()[0].path, encoding="utf-8"))
    tokenizer = from_merges(list(train(english, 500, "cl100k")), "cl100k", name=name)
    return TokenizerRef(name, document=own.to_json(tokenizer))


def test_measures_every_pair_and_the_premium() -> None:
    english, hindi = sample_sources()[:2]
    items = list(measure_all([trained()], [english, hindi]))
    rows = [i for i in items if isinstance(i, Measurement)]
    assert [(r.tokenizer, r.source) for r in rows] == [("garden", english.name), ("garden", hindi.name)]
    en, hi = rows
    assert en.bytes == 3285 and en.words == len(open(english.path, encoding="utf-8").read().split())
    assert en.bytes_per_token > 2  # trained on it
    assert hi.bytes_per_token < 1.5  # never saw Devanagari: about a byte per token
    ratio = premium(rows, hi, english.name)
    assert ratio is not None and ratio == hi.tokens / en.tokens and ratio > 3
    assert premium(rows, en, english.name) == 1.0
    assert all(isinstance(i, EfficiencyProgress) for i in items if not isinstance(i, Measurement))


def test_a_tokenizer_that_fails_to_load_gives_error_rows() -> None:
    rows = [i for i in measure_all([TokenizerRef("missing", spec="/no/such/file.json"), trained()],
                                   [Source.pasted("hello world")]) if isinstance(i, Measurement)]
    assert rows[0].error and rows[0].tokens == 0
    assert rows[1].tokens > 0 and not rows[1].error


def test_csv_export() -> None:
    rows = [Measurement("t", "en", 10, 40, 8), Measurement("t", "hi", 30, 90, 8), Measurement("u", "hi", error="x")]
    table = list(csv.DictReader(io.StringIO(to_csv(rows, "en"))))
    assert table[1]["premium_vs_reference"] == "3.0000" and table[1]["bytes_per_token"] == "3.0000"
    assert table[0]["tokens_per_word"] == "1.2500" and table[2]["error"] == "x" and table[2]["premium_vs_reference"] == ""
