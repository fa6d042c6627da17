"""`train --rules hf|minbpe`: the tutorials' merges from the command line, the rules in the saved file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.test_cli import run
from tests.core.test_train import BAKERY
from tests.core.test_train_rules import seed_004_train


def test_minbpe_rules_print_seed_004s_merges_and_record_the_rules(tmp_path: Path) -> None:
    corpus = tmp_path / "bakery.txt"
    corpus.write_bytes(BAKERY.encode("utf-8"))  # several lines: minbpe rules read the file as one text
    out = tmp_path / "bakery.json"
    result = run("train", "--vocab-size", "286", "--pattern", "none", "--rules", "minbpe", "--print-merges",
                 "--out", str(out), str(corpus))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 30
    assert lines[0].startswith("merge   1: b'o' + b'u' -> b'ou' (9)")
    assert lines[17].startswith("merge  18: b'delive' + b'ry' -> b'delivery'")
    assert "tie with 12 other pairs; hf rules take b'.' + b'\\n', minbpe rules take b'Y' + b'our '" in lines[7]
    assert "minbpe rules" in result.stderr and "of them ties" in result.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["metadata"]["rules"] == "minbpe"
    expected, _ = seed_004_train(BAKERY, 286)
    assert [tuple(row[:3]) for row in document["merges"]] == [(*pair, new_id) for pair, new_id in expected.items()]


def test_hf_rules_are_the_default_and_read_lines(tmp_path: Path) -> None:
    corpus = tmp_path / "bakery.txt"
    corpus.write_bytes(BAKERY.encode("utf-8"))
    out = tmp_path / "hf.json"
    result = run("train", "--vocab-size", "286", "--pattern", "none", "--out", str(out), str(corpus))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and "counted 5 lines" in result.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["metadata"]["rules"] == "hf"
    newline_y = [ord("\n"), ord("Y")]
    assert all(row[:2] != newline_y for row in document["merges"])  # no pair across lines


def test_unknown_rules_are_refused(tmp_path: Path) -> None:
    result = run("train", "--vocab-size", "300", "--rules", "bpe", "--out", str(tmp_path / "t.json"), str(tmp_path))
    assert result.returncode == 2 and "invalid choice: 'bpe'" in result.stderr
