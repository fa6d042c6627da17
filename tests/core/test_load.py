"""Loading by spec (bundled name, file of any format, hf:MODEL), the Hugging Face cache, export
round trips, and one clear TokenizerFileError for every kind of bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from explorer.core.errors import ExplorerError, TokenizerFileError
from explorer.core.formats import minbpe
from explorer.core.formats.export import export
from explorer.core.sources.hf_cache import hub_cache_dir
from explorer.core.sources.hf_tokenizer import HFTokenizer
from explorer.core.sources.load import discover_tokenizers, list_tokenizers, load_tokenizer
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
from explorer.core.sources.tokenizer import UnsupportedView
from tests.conftest import HARD_CASES
from tests.corpora import corpus_text
from tests.core.test_bpe import trained
from tests.core.test_hf_tokenizer import wordpiece

MINBPE_MODEL = "minbpe v1\n\n1\n<|endoftext|> 258\n97 97\n256 97\n"


def _texts() -> list[str]:
    return [corpus_text("multi", 100_000), *HARD_CASES]


@pytest.mark.parametrize("format", ["hf", "tiktoken", "minbpe"])
def test_export_round_trips_to_identical_ids(tmp_path: Path, format: str) -> None:
    tokenizer = trained()
    path = tmp_path / f"exported.{format}"
    export(tokenizer, format, path)
    loaded = load_tokenizer(str(path), pattern=tokenizer.pattern)
    for text in _texts():
        assert loaded.encode(text, special="plain") == tokenizer.encode(text, special="plain"), text[:40]
    if format != "tiktoken":  # a .tiktoken file has no special tokens
        assert loaded.special_tokens == tokenizer.special_tokens
        assert loaded.encode("a<|endoftext|>", "allowed") == tokenizer.encode("a<|endoftext|>", "allowed")


def test_bundled_encoding_exports_to_a_copy_tiktoken_recognises(tmp_path: Path) -> None:
    export(load_tokenizer("r50k_base"), "tiktoken", tmp_path / "copy.tiktoken")
    copy = load_tokenizer(str(tmp_path / "copy.tiktoken"))  # known by its hash: pattern and specials too
    assert copy.encode("hello <|endoftext|>", "allowed") == load_tokenizer("gpt2").encode("hello <|endoftext|>",
                                                                                           "allowed")
    with pytest.raises(ExplorerError, match="minbpe"):
        export(load_tokenizer("r50k_base"), "minbpe", tmp_path / "r50k.model")


def test_minbpe_model_loads_like_minbpe(tmp_path: Path) -> None:
    path = tmp_path / "toy.model"
    path.write_text(MINBPE_MODEL, encoding="utf-8")
    tokenizer = load_tokenizer(str(path))
    assert tokenizer.encode("aaaaa b") == [256, 257, 32, 98]  # empty pattern: no split, as BasicTokenizer
    assert tokenizer.encode("a<|endoftext|>", "allowed") == [97, 258]
    minbpe.save(tokenizer.as_bpe(), tmp_path / "again.model")
    assert (tmp_path / "again.model").read_text(encoding="utf-8").splitlines()[2:] == MINBPE_MODEL.splitlines()[2:]


def test_specs_pick_the_right_loader(tmp_path: Path) -> None:
    assert isinstance(load_tokenizer("o200k_base"), TiktokenTokenizer)
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(wordpiece(tmp_path), folder / "tokenizer.json")
    assert isinstance(load_tokenizer(str(folder)), HFTokenizer)
    renamed = tmp_path / "no-extension"
    shutil.copy(folder / "tokenizer.json", renamed)
    assert load_tokenizer(str(renamed)).kind == "WordPiece"
    with pytest.raises(UnsupportedView, match="WordPiece has no merges"):
        export(load_tokenizer(str(renamed)), "hf", tmp_path / "x.json")


def _fake_hub(root: Path) -> None:
    """Two models with tokenizer.json (one with two snapshots), one without."""
    shutil.copy(wordpiece(root.parent), root.parent / "tokenizer.json")
    for model, revisions in {"models--acme--tiny-bert": ["old", "abc123"], "models--gpt2": ["r1"],
                             "models--acme--weights-only": []}.items():
        for revision in revisions:
            snapshot = root / model / "snapshots" / revision
            snapshot.mkdir(parents=True)
            shutil.copy(root.parent / "tokenizer.json", snapshot / "tokenizer.json")
        (root / model / "refs").mkdir(parents=True)
        (root / model / "refs" / "main").write_text(revisions[-1] if revisions else "none", encoding="utf-8")
    (root / "models--acme--weights-only" / "snapshots" / "x").mkdir(parents=True)


def test_hugging_face_cache_is_discovered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = tmp_path / "home" / "hub"
    hub.mkdir(parents=True)
    _fake_hub(hub)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert hub_cache_dir() == hub
    entries = discover_tokenizers()
    assert [(e.name, e.spec) for e in entries] == [("acme/tiny-bert", "hf:acme/tiny-bert"), ("gpt2", "hf:gpt2")]
    assert entries[0].source.endswith("abc123/tokenizer.json")  # the revision refs/main names
    assert [e.spec for e in list_tokenizers()][:3] == ["r50k_base", "cl100k_base", "o200k_base"]
    tokenizer = load_tokenizer("hf:acme/tiny-bert")
    assert tokenizer.name == "acme/tiny-bert" and tokenizer.kind == "WordPiece"
    with pytest.raises(TokenizerFileError, match="no such model in the Hugging Face cache"):
        load_tokenizer("hf:acme/missing")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "elsewhere"))
    assert discover_tokenizers() == []


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("tokenizer.json", None, "may be truncated"),  # the first half of a real file
        ("tokenizer.json", b'{"model": {"type": "BPE", "vocab": 5}}', "tokenizers cannot read it"),
        ("tokenizer.json", b'{"model": {"type": "Magic"}}', "unsupported model type 'Magic'"),
        ("bad.tiktoken", b"IQ== 0\n%%%% 1\n", "line 2: bad base64"),
        ("bad.model", b"minbpe v1\n\n1\n", "damaged minbpe model"),
        ("bad.model", b"minbpe v1\n\n0\n300 1\n", "before it exists"),
        ("empty.bin", b"", "empty"),
        ("notes.txt", b"just some text\n", "unsupported tokenizer file"),
        ("missing.json", False, "no such file"),
    ],
)
def test_bad_input_is_one_error_naming_the_file(tmp_path: Path, name: str, content: bytes | None | bool,
                                                 problem: str) -> None:
    path = tmp_path / name
    if content is None:
        shutil.copy(wordpiece(tmp_path), path)
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    elif content is not False:
        path.write_bytes(content)  # type: ignore[arg-type]
    with pytest.raises(TokenizerFileError, match=problem) as caught:
        load_tokenizer(str(path))
    assert str(path) in str(caught.value)


def test_hf_json_keeps_its_own_errors_for_own_format(tmp_path: Path) -> None:
    path = tmp_path / "own.json"
    path.write_text(json.dumps({"format": "tokenizer-explorer", "version": 7}), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="version"):
        load_tokenizer(str(path))
