"""The command line, run as a user would: a subprocess, exit codes, stdout and stderr."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from tests.corpora import corpus_text


def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, text=True,
                          input=stdin, encoding="utf-8", timeout=300, env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def tokenizer_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "a.txt").write_text(corpus_text("prose", 200_000), encoding="utf-8")
    (folder / "sub").mkdir()
    (folder / "sub" / "b.txt").write_text(corpus_text("multi", 100_000), encoding="utf-8")
    (folder / "image.bin").write_bytes(b"\x89PNG\x00\x00binary")
    out = folder / "tok.json"
    result = run("train", "--vocab-size", "800", "--special", "<|endoftext|>", "--out", str(out), str(folder))
    assert result.returncode == 0, result.stderr
    assert "%" in result.stderr and "saved" in result.stderr  # the progress bar and the summary
    assert "binary file, skipped" in result.stderr
    return out


def test_encode_plain_json_and_stdin(tokenizer_file: Path) -> None:
    plain = run("encode", "--tokenizer", str(tokenizer_file), "--text", "Hello नमस्ते")
    ids = [int(x) for x in plain.stdout.split()]
    document = json.loads(run("encode", "--tokenizer", str(tokenizer_file), "--text", "Hello नमस्ते", "--json").stdout)
    assert document["ids"] == ids
    first = document["tokens"][0]
    assert set(first) == {"id", "bytes", "text", "start", "end"}
    assert bytes.fromhex("".join(t["bytes"] for t in document["tokens"])) == "Hello नमस्ते".encode()
    piped = run("encode", "--tokenizer", str(tokenizer_file), stdin="Hello नमस्ते")
    assert piped.stdout.split() == plain.stdout.split()
    decoded = run("decode", "--tokenizer", str(tokenizer_file), *map(str, ids))
    assert decoded.stdout == "Hello नमस्ते\n"


@pytest.mark.parametrize("block", [1, 2, 10_000])
def test_encode_json_is_written_in_blocks_as_one_document(block: int, capsys: pytest.CaptureFixture[str]) -> None:
    """Written a block of tokens at a time (a whole document held 500 bytes a text byte), it must
    still be what json.dumps gives for the whole."""
    from explorer.cli import _print_tokens_json, token_json
    from explorer.core.sources.load import load_tokenizer

    tokens = load_tokenizer("cl100k_base").encode_tokens("Hé 😀 <tag> 123 mawa cake\n", "plain")
    _print_tokens_json(tokens, block)
    whole = {"ids": [t.id for t in tokens], "tokens": [token_json(t.id, t.bytes, t.start, t.end) for t in tokens]}
    assert capsys.readouterr().out == json.dumps(whole, ensure_ascii=False) + "\n"
    _print_tokens_json([], block)
    assert capsys.readouterr().out == '{"ids": [], "tokens": []}\n'


def test_special_tokens_on_the_command_line(tokenizer_file: Path) -> None:
    refused = run("encode", "--tokenizer", str(tokenizer_file), "--text", "a<|endoftext|>")
    assert refused.returncode == 1 and "special token" in refused.stderr and "Traceback" not in refused.stderr
    allowed = run("encode", "--tokenizer", str(tokenizer_file), "--text", "a<|endoftext|>", "--special", "allowed")
    assert allowed.stdout.split()[-1] == "799"


def test_export_hf_matches(tokenizer_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "tokenizer.json"
    assert run("export", "--tokenizer", str(tokenizer_file), "--format", "hf", "--out", str(out)).returncode == 0
    text = "The quick brown fox, नमस्ते 안녕 🎂"
    ours = run("encode", "--tokenizer", str(tokenizer_file), "--text", text).stdout.split()
    assert Tokenizer.from_file(str(out)).encode(text).ids == [int(x) for x in ours]


def test_chunks_command() -> None:
    document = json.loads(run("chunks", "--pattern", "gpt2", "--text", "I'm 42", "--json").stdout)
    assert [c["text"] for c in document["chunks"]] == ["I", "'m", " 42"]
    assert document["chunks"][1]["label"] == "contraction"
    plain = run("chunks", "--pattern", r"\d", "--text", "a1").stdout.splitlines()
    assert plain == ["0\t1\tgap (not matched)\t'a'", "1\t2\tmatch\t'1'"] or plain[0].endswith("'a'")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("encode", "--tokenizer", "/no/such/file.json", "--text", "x"), "no such file"),
        (("chunks", "--pattern", "(unclosed", "--text", "x"), "invalid pattern at position"),
        (("train", "--vocab-size", "100", "--out", "/tmp/x.json", "/no/such/corpus"), "no such file or folder"),
        (("decode", "--tokenizer", "/no/such/file.json", "1"), "no such file"),
    ],
)
def test_errors_are_one_line(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_vocab_too_small_message(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello\n", encoding="utf-8")
    result = run("train", "--vocab-size", "200", "--out", str(tmp_path / "t.json"), str(corpus))
    assert result.returncode == 1 and "at least 256" in result.stderr


def test_non_utf8_corpus_names_file_and_line(tmp_path: Path) -> None:
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes("ok\ncaf\xe9\n".encode("latin-1"))
    result = run("train", "--vocab-size", "300", "--out", str(tmp_path / "t.json"), str(corpus))
    assert result.returncode == 1 and "latin1.txt: line 2 is not valid UTF-8" in result.stderr


def test_help_and_version() -> None:
    for command in ("train", "encode", "decode", "chunks", "chat", "export", "list", "compare", "audit"):
        assert run(command, "--help").returncode == 0
    assert run("--version").stdout.startswith("tokenizer-explorer ")


def test_bundled_names_and_hf_cache_everywhere(tmp_path: Path) -> None:
    from tests.core.test_hf_tokenizer import byte_level

    snapshot = tmp_path / "hub" / "models--acme--tiny" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    shutil.copy(byte_level(tmp_path, "gpt2"), snapshot / "tokenizer.json")
    env = {"HF_HUB_CACHE": str(tmp_path / "hub")}
    listed = json.loads(run("list", "--json", env=env).stdout)["tokenizers"]
    assert [t["spec"] for t in listed] == ["r50k_base", "cl100k_base", "o200k_base", "o200k_harmony", "llama3",
                                           "llama4", "qwen", "tekken", "mistral_v1", "mistral_v3", "mistral_v7",
                                           "hf:acme/tiny"]
    assert "hf:acme/tiny" in run("list", env=env).stdout
    assert run("encode", "--tokenizer", "cl100k_base", "--text", "hello world").stdout.split() == ["15339", "1917"]
    ids = run("encode", "--tokenizer", "hf:acme/tiny", "--text", "hello world", env=env).stdout.split()
    assert run("decode", "--tokenizer", "hf:acme/tiny", *ids, env=env).stdout == "hello world\n"
    chunks = json.loads(run("chunks", "--tokenizer", "o200k_base", "--text", "I'm 42", "--json").stdout)
    assert [c["text"] for c in chunks["chunks"]] == ["I'm", " ", "42"]


@pytest.mark.parametrize("format", ["hf", "tiktoken", "minbpe"])
def test_export_formats_round_trip(tokenizer_file: Path, tmp_path: Path, format: str) -> None:
    out = tmp_path / f"exported.{format}"
    exported = run("export", "--tokenizer", str(tokenizer_file), "--format", format, "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    text = "The quick brown fox, नमस्ते 안녕 🎂 " * 20
    ours = run("encode", "--tokenizer", str(tokenizer_file), "--text", text).stdout
    assert run("encode", "--tokenizer", str(out), "--pattern", "cl100k", "--text", text).stdout == ours


def test_compare_counts_and_differences() -> None:
    text = "Tokenization of नमस्ते"
    document = json.loads(run("compare", "--tokenizer", "o200k_base", "--tokenizer", "gpt2", "--text", text,
                              "--json").stdout)
    assert set(document) == {"chars", "bytes", "tokenizers", "differences"}
    first, second = document["tokenizers"]
    assert set(first) == {"spec", "name", "kind", "tokens", "bytes_per_token", "chars_per_token"}
    assert second["name"] == "r50k_base" and second["tokens"] > first["tokens"]
    assert first["chars_per_token"] == round(len(text) / first["tokens"], 4)
    difference = document["differences"][-1]
    assert text[difference["start"]:difference["end"]] == difference["text"] and len(difference["pieces"]) == 2
    plain = run("compare", "--tokenizer", "o200k_base", "--tokenizer", "cl100k_base", "--text", text).stdout
    assert "bytes/token" in plain and "boundaries differ" in plain


def test_compare_of_a_long_text_gives_each_tokenizers_own_tokens(tmp_path: Path) -> None:
    """Counts equal each tokenizer's encode, and each difference lists the tokens touching its
    characters (found by bisection; the scan it replaced took minutes for 1 MB)."""
    from explorer.core.sources.load import load_tokenizer
    from explorer.core.text.render import token_text

    text = corpus_text("multi", 60_000) + ".\n\nThe end.  \n\n"
    path = tmp_path / "long.txt"
    path.write_text(text, encoding="utf-8")
    result = run("compare", "--tokenizer", "gpt2", "--tokenizer", "o200k_base", "--file", str(path), "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    tokens = [load_tokenizer(spec).encode_tokens(text, "plain") for spec in ("gpt2", "o200k_base")]
    assert [row["tokens"] for row in document["tokenizers"]] == [len(each) for each in tokens]
    assert len(document["differences"]) > 1000
    for difference in document["differences"]:
        start, end = difference["start"], difference["end"]
        assert difference["pieces"] == [[token_text(t.bytes) for t in each if t.start < end and t.end > start]
                                        for each in tokens]


def test_audit_with_a_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world\n" * 20 + "rare words\n", encoding="utf-8")
    result = run("audit", "--tokenizer", "r50k_base", "--corpus", str(corpus), "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert {"tokenizer", "unreachable_checked", "unreachable", "undecodable_alone", "impossible_bytes", "special",
            "never_seen", "rare", "corpus"} <= set(document)
    assert [t["text"] for t in document["special"]] == ["<|endoftext|>"]
    assert {t["bytes"] for t in document["impossible_bytes"]} >= {"c0", "c1", "ff"}
    rare = {t["text"] for t in document["rare"]}
    assert " words" in rare and "hello" not in rare and " world" not in rare
    assert document["corpus"]["rare_below"] == 10 and len(document["never_seen"]) > 50_000
    assert "undecodable alone" in run("audit", "--tokenizer", "gpt2").stdout


def test_bad_tokenizer_inputs_are_one_line(tmp_path: Path) -> None:
    truncated = tmp_path / "tokenizer.json"
    truncated.write_text('{"model": {"type": "BPE", "vocab": {"a":', encoding="utf-8")
    ranks = tmp_path / "mine.tiktoken"
    ranks.write_bytes(b"IQ== 0\nIg== 1\n")
    for args, message in [
        (("encode", "--tokenizer", str(truncated), "--text", "x"), "truncated"),
        (("encode", "--tokenizer", "hf:nobody/nothing", "--text", "x"), "Hugging Face cache"),
        (("encode", "--tokenizer", str(ranks), "--text", "x"), "--pattern"),
        (("export", "--tokenizer", "gpt2", "--format", "minbpe", "--out", str(tmp_path / "x.model")), "minbpe"),
        (("compare", "--tokenizer", "gpt2", "--text", "x"), "at least two"),
    ]:
        result = run(*args)
        assert result.returncode == 1 and message in result.stderr, result.stderr
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
