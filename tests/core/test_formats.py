"""Our tokenizer file and the Hugging Face export: round trips and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from explorer.core.errors import TokenizerFileError
from explorer.core.formats import hf, own
from explorer.core.sources.load import load_tokenizer
from tests.conftest import HARD_CASES
from tests.corpora import corpus_text
from tests.core.test_bpe import trained


def test_own_format_round_trip(tmp_path: Path) -> None:
    tokenizer = trained()
    path = tmp_path / "tok.json"
    own.save(tokenizer, path)
    loaded = own.load(path)
    assert loaded.merges == tokenizer.merges
    assert loaded.counts == tokenizer.counts and loaded.counts and loaded.counts[0] > 0
    assert loaded.special.tokens == tokenizer.special.tokens
    assert loaded.pattern == tokenizer.pattern
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == "tokenizer-explorer" and document["version"] == 1
    assert not list(tmp_path.glob("*.tmp")), "atomic write leaves no temporary file"


def test_own_format_writes_one_merge_a_line_as_json_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """The merges are written as text, not through json's C encoder, which holds the interpreter lock
    for a whole call: a relay thread writes this document while the window paints (a 30-40 ms stall
    for 32,768 merges). The text stays exactly what json wrote before."""
    tokenizer = trained()
    given: list[object] = []
    real_dumps = json.dumps
    monkeypatch.setattr(own.json, "dumps", lambda value, **options: given.append(value) or real_dumps(value, **options))
    text = own.to_json(tokenizer)
    assert all(not isinstance(value, list) or len(value) < len(tokenizer.merges) for value in given)
    rows = [[*merge, count] for merge, count in zip(tokenizer.merges, tokenizer.counts)]
    assert json.loads(text)["merges"] == rows
    assert '"merges": ' + real_dumps(rows).replace("], [", "],\n  [") + "," in text
    assert text.count("\n  [") == len(rows) - 1


@pytest.mark.parametrize("pattern", ["cl100k", "gpt2", "o200k", "none"])
def test_hf_export_encodes_identically(tmp_path: Path, pattern: str) -> None:
    tokenizer = trained() if pattern == "cl100k" else type(trained())(trained().merges, pattern,
                                                                        trained().special.tokens)
    path = tmp_path / "tokenizer.json"
    hf.export(tokenizer, path)
    reference = Tokenizer.from_file(str(path))
    texts = HARD_CASES + [corpus_text("multi", 60_000), "x<|endoftext|>y <|fim|>"]
    for text in texts:
        ids = tokenizer.encode(text, special="allowed")
        assert reference.encode(text).ids == ids, text[:40]
        assert reference.decode(ids, skip_special_tokens=False) == text


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"format": "tokenizer-explorer", "version": 99}', "version"),
        (b'{"format": "tokenizer-explorer", "version": 1, "pattern": {"regex": "x"}, "merges": [[1]]}', "damaged"),
        (b'{"format": "tokenizer-explorer", "version": 1, "pattern": {"regex": "("}, "merges": []}', "pattern"),
        (b'{"format": "tokenizer-explorer", "version": 1, "pattern": {"regex": "x+"}, "merges": [[300, 1, 256]]}',
         "before it exists"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b'{"something": "else"}', "unsupported"),
    ],
)
def test_bad_files_give_one_clear_error(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(TokenizerFileError, match=problem) as caught:
        load_tokenizer(str(path))
    assert str(path) in str(caught.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TokenizerFileError, match="no such file"):
        load_tokenizer(str(tmp_path / "nope.json"))


def test_a_pattern_that_matches_empty_text_is_not_exported(tmp_path: Path) -> None:
    """With `x*` this app keeps the text between the empty matches as chunks; tokenizers split
    "hello the" otherwise (9 ids against our 3), minbpe drops it, tiktoken panics. Exporting
    it said "wrote" all the same."""
    from explorer.core.algorithms.train import train
    from explorer.core.errors import ExplorerError
    from explorer.core.formats.export import EXPORT_FORMATS, export
    from explorer.core.formats.own import from_merges
    from explorer.core.pretokenization.pretokenize import Pretokenizer

    assert Pretokenizer("x*").matches_empty and Pretokenizer(r"a|(?=b)|[^a]").matches_empty
    assert not Pretokenizer("[a-z]+|[^a-z]+").matches_empty and not Pretokenizer("cl100k").matches_empty
    text = "hello the world the cat\n" * 50
    empty = from_merges(list(train([text], 270, "x*")), "x*", name="em")
    for format in EXPORT_FORMATS:
        with pytest.raises(ExplorerError, match=r"can match empty text.*x\+ rather than x\*"):
            export(empty, format, tmp_path / f"em.{format}")
        assert not (tmp_path / f"em.{format}").exists()
    export(from_merges(list(train([text], 270, "[a-z]+|[^a-z]+")), "[a-z]+|[^a-z]+"), "hf", tmp_path / "ok.json")
