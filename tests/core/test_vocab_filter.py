"""The vocabulary table: columns, filters (text, regex, id, length, script, flags), sorting, CSV, tree layout."""

from __future__ import annotations

import csv
from itertools import compress
from pathlib import Path


import numpy as np
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.algorithms.bpe import BPE
from explorer.core.formats.own import from_merges
from explorer.core.generators import run_to_end
from explorer.core.analysis.merge_tree import merge_tree
from explorer.core.text.scripts import SCRIPT_NAMES
from explorer.core.algorithms.train import train
from explorer.core.analysis.vocab_filter import (
    NEVER_SEEN, RARE, SPECIAL, UNREACHABLE, FilterError, VocabQuery, VocabTable, build_table, search_text,
    shown_text, text_order)
from explorer.core.analysis.row_search import RegexIndex

TEXTS = ["the cat sat on the mat. the cat ate the rat.\n", "नमस्ते दुनिया\n", "Ingredients: 1 cup flour\n",
         "tabs\tand\nnewlines  here\n", "Привет мир! 日本語\n"] * 20


@pytest.fixture(scope="module")
def tokenizer() -> BPE:
    return from_merges(list(train(TEXTS, 400, "cl100k", ["<|endoftext|>"])), "cl100k", ["<|endoftext|>"], name="t")


@pytest.fixture(scope="module")
def table(tokenizer: BPE) -> VocabTable:
    table = run_to_end(build_table(tokenizer))
    table.set_merges(run_to_end(table.compute_merges(tokenizer.forest)))
    return table


def ids_of(table: VocabTable, mask: np.ndarray) -> list[int]:
    return table.ids[mask].tolist()


def test_columns_describe_every_token(tokenizer: BPE, table: VocabTable) -> None:
    assert table.rows == tokenizer.vocab_size
    for row in range(table.rows):
        token_id = int(table.ids[row])
        data = tokenizer.token_bytes(token_id)
        assert table.length[row] == len(data)
        if token_id < 256:
            assert table.rank[row] == -1 and table.left[row] == -1
        elif token_id in tokenizer.special_tokens.values():
            assert table.flags[row] & SPECIAL
        else:
            assert (int(table.left[row]), int(table.right[row])) == tokenizer.forest.parents(token_id)
            assert table.rank[row] == tokenizer.forest.rank(token_id)
            assert table.count[row] == tokenizer.forest.count(token_id) > 0


def test_shown_and_search_text() -> None:
    assert shown_text(b" the\n") == "·the↵"
    assert shown_text("न".encode()[:2]) == "<E0 A4>"
    assert search_text(b" the\n") == " the\n"
    assert search_text(b"a\xe0\xa4") == "a<E0 A4>"


def test_text_filter_is_case_insensitive_and_reads_visible_spaces(table: VocabTable, tokenizer: BPE) -> None:
    found = ids_of(table, table.matches(VocabQuery(text="·CAT")))
    expected = [i for i in range(tokenizer.vocab_size) if b" cat" in tokenizer.token_bytes(i).lower()]
    assert found == expected and found


def test_regex_filter_equals_searching_each_row(table: VocabTable) -> None:
    for pattern in [r"^\s", r"at$", r"\p{Devanagari}", r"(?s).", r"\n", r"^$", r"(?<=a)t", r"a*", r"<E0"]:
        compiled = regex.compile(pattern)
        expected = list(compress(range(table.rows), map(compiled.search, table.search)))
        assert np.flatnonzero(table.matches(VocabQuery(text=pattern, mode="regex"))).tolist() == expected, pattern


HOSTILE = [r"(a|aa)+x", r"\A(a|aa)+x", r"(?=(a|aa)+x)"]  # seconds per token of 60 a's, or hours


@pytest.mark.parametrize("pattern", HOSTILE)
def test_a_regex_that_backtracks_without_end_is_refused(pattern: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the worker that filters, with the interpreter lock let go meanwhile: the window's thread
    runs on, and the worker ends with a message instead of searching for hours."""
    import threading
    import time

    from explorer.core.analysis import row_search

    monkeypatch.setattr(row_search, "SEARCH_SECONDS", 0.3, raising=False)
    table = VocabTable(list(range(300)), [b"a" * 60] + [bytes([97 + i % 20]) * 8 for i in range(299)], set())
    run_to_end(table.compute_text())
    failed: list[str] = []

    def search() -> None:
        try:
            table.matches(VocabQuery(text=pattern, mode="regex"))
        except FilterError as error:
            failed.append(str(error))

    worker = threading.Thread(target=search, daemon=True)
    started = time.monotonic()
    worker.start()
    ticks = 0
    while worker.is_alive() and time.monotonic() - started < 10:
        time.sleep(0.001)
        ticks += 1
    worker.join(5)
    assert failed and "still searching after 0.3 s" in failed[0] and "simplify it" in failed[0], failed
    assert time.monotonic() - started < 3
    assert ticks > 100  # the main thread was not held up (1 ms sleeps in about 0.3 s)


def test_ordinary_regexes_still_search_every_row(table: VocabTable) -> None:
    for pattern in [r"(a|b)+$", r"(\w+\s?)+$", r"^(?:.*)*t", r"(.*.*)*x"]:  # (the last: hours in the stdlib re)
        compiled = regex.compile(pattern)
        expected = list(compress(range(table.rows), map(compiled.search, table.search)))
        assert np.flatnonzero(table.matches(VocabQuery(text=pattern, mode="regex"))).tolist() == expected, pattern


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(alphabet="ab ·é", max_size=3), max_size=40_000))
def test_text_order_is_a_stable_sort(strings: list[str]) -> None:
    assert text_order(strings).tolist() == sorted(range(len(strings)), key=strings.__getitem__)


def test_the_token_order_survives_the_merge_columns(tokenizer: BPE) -> None:
    table = run_to_end(build_table(tokenizer))
    by_token = table.order("token")
    table.set_merges(run_to_end(table.compute_merges(tokenizer.forest)))
    assert table.order("token") is by_token  # not sorted again
    assert [int(r) for r in table.order("rank")][:3] == sorted(range(table.rows), key=lambda r: (
        table.rank[r] == -1, table.rank[r], table.ids[r]))[:3]


def test_text_order_merges_its_slices() -> None:
    import random

    rng = random.Random(7)
    strings = ["".join(rng.choices("abc·é", k=rng.randint(0, 3))) for _ in range(50_000)]  # many ties, 4 slices
    assert text_order(strings).tolist() == sorted(range(len(strings)), key=strings.__getitem__)


def test_a_repeated_text_filter_reuses_its_result(table: VocabTable) -> None:
    query = VocabQuery(text=r"t$", mode="regex")
    alone = table.matches(query)
    assert ("regex", r"t$") in table._text_masks
    combined = table.matches(VocabQuery(text=r"t$", mode="regex", min_length=3))
    assert (combined == (alone & (table.length >= 3))).all()


def test_regex_index_handles_rows_with_newlines() -> None:
    index = RegexIndex(["ab", "a\nb", "b", "", "ab\n"])
    assert index.rows_matching(regex.compile(r"^b")) == [2]  # per row, as search() on each
    assert index.rows_matching(regex.compile(r"b$")) == [0, 1, 2, 4]
    assert index.rows_matching(regex.compile(r"a\sb")) == [1]


def test_invalid_regex_and_bad_id_give_messages(table: VocabTable) -> None:
    with pytest.raises(FilterError, match="not a valid regex"):
        table.matches(VocabQuery(text="(unclosed", mode="regex"))
    with pytest.raises(FilterError, match="not an id"):
        table.matches(VocabQuery(text="12-x", mode="id"))


def test_id_length_script_and_flag_filters_combine(table: VocabTable, tokenizer: BPE) -> None:
    assert ids_of(table, table.matches(VocabQuery(text="97, 256-258", mode="id"))) == [97, 256, 257, 258]
    long_ones = ids_of(table, table.matches(VocabQuery(min_length=4, max_length=5)))
    assert long_ones and all(4 <= len(tokenizer.token_bytes(i)) <= 5 for i in long_ones)
    devanagari = SCRIPT_NAMES.index("Devanagari")
    found = ids_of(table, table.matches(VocabQuery(script=devanagari)))
    assert found and all(regex.search(r"\p{Devanagari}", tokenizer.decode([i])) for i in found)
    assert ids_of(table, table.matches(VocabQuery(flags=SPECIAL))) == [tokenizer.special_tokens["<|endoftext|>"]]
    table.set_audit({300: UNREACHABLE})
    assert ids_of(table, table.matches(VocabQuery(flags=UNREACHABLE))) == [300]
    assert table.flag_counts()[UNREACHABLE] == 1 and table.flag_counts()[SPECIAL] == 1


def test_corpus_counts_flag_never_seen_and_rare(table: VocabTable) -> None:
    counts = np.zeros(table.rows, dtype=np.int64)
    counts[256], counts[257] = 3, 50
    table.set_seen(counts, rare_below=10)
    never = table.matches(VocabQuery(flags=NEVER_SEEN))
    assert not never[table.row_of[256]] and never[table.row_of[258]]
    assert ids_of(table, table.matches(VocabQuery(flags=RARE))) == [256]
    assert not never[table.row_of[table.rows - 1]]  # the special token is never "never seen"
    table.set_seen(None)
    assert table.flag_counts()[NEVER_SEEN] == 0


def test_sorting_keeps_rows_without_values_last(table: VocabTable) -> None:
    order = table.order("rank")
    ranks = table.rank[order]
    known = ranks[ranks >= 0]
    assert (np.diff(known) >= 0).all() and (ranks[len(known):] == -1).all()
    descending = table.rank[table.order("rank", descending=True)]
    assert descending[0] == known.max() and descending[-1] == -1
    by_length = table.length[table.order("length", descending=True)]
    assert (np.diff(by_length) <= 0).all()
    texts = [table.folded[row] for row in table.order("token")]
    assert texts == sorted(texts)


def test_csv_export_is_exact(table: VocabTable, tokenizer: BPE, tmp_path: Path) -> None:
    rows = np.flatnonzero(table.matches(VocabQuery(text="cat")))
    path = tmp_path / "vocab.csv"
    assert table.write_csv(path, rows.tolist()) == len(rows)
    with open(path, newline="", encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))
    assert [int(r["id"]) for r in records] == table.ids[rows].tolist()
    for record in records:
        assert bytes.fromhex(record["bytes_hex"]) == tokenizer.token_bytes(int(record["id"]))
        assert int(record["merge_count"]) > 0


def test_tree_layout_matches_the_forest(tokenizer: BPE) -> None:
    forest = tokenizer.forest
    token = max(range(256, len(forest.merges) + 256), key=lambda i: len(tokenizer.token_bytes(i)))
    tree = merge_tree(forest, token, lambda i: 10.0 * len(shown_text(tokenizer.token_bytes(i))), gap=4)
    for node in tree.nodes:
        pair = forest.parents(node.token_id)
        if pair is None:
            assert node.children == () and node.height == 0
        else:
            left, right = (tree.nodes[i] for i in node.children)
            assert (left.token_id, right.token_id) == pair
            assert node.height == 1 + max(left.height, right.height)
            assert left.x < node.x < right.x or left.x <= node.x <= right.x
    leaves = tree.leaves()
    assert b"".join(tokenizer.token_bytes(n.token_id) for n in leaves) == tokenizer.token_bytes(token)
    # No two labels on the same row overlap.
    for height in range(tree.height + 1):
        row = sorted((n.x - n.width / 2, n.x + n.width / 2) for n in tree.nodes if n.height == height)
        assert all(a[1] <= b[0] + 1e-9 for a, b in zip(row, row[1:]))
