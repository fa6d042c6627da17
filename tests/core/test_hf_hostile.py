"""Hostile tokenizer.json files and Hugging Face caches: settings that would change the ids
(truncation, padding, dropout), a file that panics `tokenizers`, damaged cache entries and cache
folder names that are not safe to print.

The tokenizer is trained here with the `tokenizers` API on a few sentences: no network, no corpora.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from explorer.core.errors import SpecialTokenError, TokenizerFileError
from explorer.core.pretokenization.pretokenize import WINDOW
from explorer.core.sources.hf_cache import cached_models, skipped_models
from explorer.core.sources.hf_tokenizer import HFTokenizer
from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.tokenizer import SpecialMode

END = "<|endoftext|>"
LINES = ["Hello world, this is a long sentence about tokenizers.",
         "The quick brown fox jumps over the lazy dog; the dog sleeps.",
         "Tokenization splits text into pieces, and pieces into ids."]
SHORT = "Hi"
LONG = " ".join(LINES) * (2 * WINDOW // 100)  # over two windows: encoded in several pieces at once


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small GPT-2 style byte-level BPE, saved as tokenizer.json."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=[END], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(LINES * 20, trainer)
    path = tmp_path_factory.mktemp("hostile") / "base" / "tokenizer.json"
    path.parent.mkdir()
    tokenizer.save(str(path))
    return path


def variant(base: Path, folder: Path, name: str, **changes: Any) -> Path:
    """`base` with top-level keys set from `changes` (`model` entries are merged into its model)."""
    document = json.loads(base.read_text(encoding="utf-8"))
    document["model"].update(changes.pop("model", {}))
    document.update(changes)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The command line as a user runs it; output kept as bytes, to check what reaches the terminal."""
    return subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, timeout=300,
                          env={**os.environ, **(env or {})})


# Settings of the file that would change the ids

PAD = {"strategy": {"Fixed": 10}, "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0,
       "pad_type_id": 0, "pad_token": END}
SETTINGS = {
    "truncation": {"truncation": {"max_length": 3, "strategy": "LongestFirst", "stride": 0, "direction": "Right"}},
    "fixed-padding": {"padding": PAD},
    "batch-padding": {"padding": {**PAD, "strategy": "BatchLongest"}},  # windows padded to the longest
    "dropout": {"model": {"dropout": 0.5}},
    "full-dropout": {"model": {"dropout": 1.0}},
}


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("special", ["disallowed", "plain"])  # ("plain" encodes with a second copy)
def test_truncation_padding_and_dropout_do_not_change_the_ids(base: Path, tmp_path: Path, setting: str,
                                                              special: SpecialMode) -> None:
    plain = HFTokenizer.from_file(base)
    hostile = HFTokenizer.from_file(variant(base, tmp_path, setting, **SETTINGS[setting]))
    assert len(plain.encode(LONG)) > 3  # longer than the truncation
    for text in (SHORT, LONG):
        expected = plain.encode(text, special)
        assert hostile.encode(text, special) == expected
        assert hostile.encode(text, special) == expected  # the same ids at every encode (dropout)
        tokens = hostile.encode_tokens(text, special)
        assert [token.id for token in tokens] == expected
        assert tokens[-1].end == len(text)


def test_padding_does_not_inflate_the_command_line_counts(base: Path, tmp_path: Path) -> None:
    padded = variant(base, tmp_path, "padded", padding=PAD)
    encoded = json.loads(run("encode", "--json", "--tokenizer", str(padded), "--text", SHORT).stdout)
    assert encoded["ids"] == HFTokenizer.from_file(base).encode(SHORT)
    compared = json.loads(run("compare", "--json", "--tokenizer", str(padded), "--tokenizer", str(base),
                              "--text", SHORT).stdout)
    assert [t["tokens"] for t in compared["tokenizers"]] == [len(encoded["ids"])] * 2


# A file that panics tokenizers

def test_a_panic_reading_the_file_is_said_once_with_what_to_do(base: Path, tmp_path: Path) -> None:
    path = variant(base, tmp_path, "csp", model={"continuing_subword_prefix": "##"})
    with pytest.raises(TokenizerFileError) as caught:
        HFTokenizer.from_file(path)
    message = str(caught.value)
    assert message.count(str(path)) == 1 and message.count("tokenizers cannot read it") == 1, message
    assert "continuing_subword_prefix '##'" in message and "check the file" in message
    result = run("encode", "--tokenizer", str(path), "--text", "hi", env={"RUST_BACKTRACE": "1"})
    stderr = result.stderr.decode("utf-8")
    assert result.returncode == 1 and stderr.count(str(path)) == 1, stderr
    assert "panicked" not in stderr and "Traceback" not in stderr, stderr


# The Hugging Face cache

def cached(hub: Path, folder: str | bytes, tokenizer: Path, ref: bytes | None = b"abc") -> None:
    """A model folder in the cache `hub`, with `tokenizer` as its snapshot abc and `ref` in refs/main."""
    root = os.fsencode(hub) + b"/" + (folder if isinstance(folder, bytes) else folder.encode("utf-8"))
    os.makedirs(root + b"/snapshots/abc")
    shutil.copy(tokenizer, root + b"/snapshots/abc/tokenizer.json")
    if ref is not None:
        os.makedirs(root + b"/refs")
        with open(root + b"/refs/main", "wb") as file:
            file.write(ref)


def test_a_damaged_ref_hides_no_other_model(base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = tmp_path / "hub"
    cached(hub, "models--org--badref", base, ref=b"\xff\xfe")
    cached(hub, "models--org--good", base)
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    assert [model.name for model in cached_models()] == ["org/good"]
    ref = hub / "models--org--badref" / "refs" / "main"
    assert [note.split(": ")[0] for note in skipped_models()] == [str(ref)]
    assert load_tokenizer("hf:org/good").encode("hi") == HFTokenizer.from_file(base).encode("hi")
    with pytest.raises(TokenizerFileError, match="refs/main: is not UTF-8 text.*download the model again"):
        load_tokenizer("hf:org/badref")
    listed = run("list", env={"HF_HUB_CACHE": str(hub)})
    assert listed.returncode == 0 and b"hf:org/good" in listed.stdout and b"badref" not in listed.stdout
    assert f"left out {ref}: is not UTF-8 text".encode() in listed.stderr
    encoded = run("encode", "--tokenizer", "hf:org/badref", "--text", "hi", env={"HF_HUB_CACHE": str(hub)})
    assert encoded.returncode == 1 and str(ref).encode() in encoded.stderr and b"Traceback" not in encoded.stderr


def test_list_escapes_control_characters_in_folder_names(base: Path, tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    cached(hub, "models--org--esc\x1b[31mred", base)
    listed = run("list", env={"HF_HUB_CACHE": str(hub)})
    assert listed.returncode == 0 and b"\x1b" not in listed.stdout
    assert "hf:org/esc\\x1b[31mred" in listed.stdout.decode("utf-8")
    as_json = json.loads(run("list", "--json", env={"HF_HUB_CACHE": str(hub)}).stdout.decode("utf-8"))
    assert as_json["tokenizers"][-1]["spec"] == "hf:org/esc\x1b[31mred"  # (JSON escapes it: \u001b)


def test_list_leaves_out_folder_names_that_are_not_utf8(base: Path, tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    cached(hub, "models--org--good", base)
    try:
        cached(hub, b"models--org--b\xffd", base)
    except OSError:
        pytest.skip("this file system refuses file names that are not UTF-8")
    env = {"HF_HUB_CACHE": str(hub)}
    for command in (["list"], ["list", "--json"]):
        listed = run(*command, env=env)
        assert listed.returncode == 0 and b"\xff" not in listed.stdout, listed.stderr
        assert "models--org--b\ufffdd: the folder name is not UTF-8" in listed.stderr.decode("utf-8")
    specs = [entry["spec"] for entry in json.loads(listed.stdout.decode("utf-8"))["tokenizers"]]
    assert [spec for spec in specs if spec.startswith("hf:")] == ["hf:org/good"]


def test_disallowed_refuses_a_special_token_that_normalizing_makes(base: Path, tmp_path: Path) -> None:
    """Lowercased, 'say hello' holds the added token written 'HeLLo' (normalized: true): the text
    held no such string, so the check before encoding passed, and 'disallowed' let it through."""
    document = json.loads(base.read_text(encoding="utf-8"))
    size = max(document["model"]["vocab"].values()) + 1
    added = {"id": size, "content": "HeLLo", "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": True, "special": True}
    path = variant(base, tmp_path, "lowered", normalizer={"type": "Lowercase"},
                   added_tokens=[*document["added_tokens"], added])
    tokenizer = HFTokenizer.from_file(path)
    assert size in tokenizer.encode("say hello", "allowed")
    assert size not in tokenizer.encode("say hello", "plain")
    with pytest.raises(SpecialTokenError, match="'HeLLo' at character 4"):
        tokenizer.encode("say hello", "disallowed")
    assert tokenizer.encode("say hi", "disallowed") == tokenizer.encode("say hi", "plain")
