"""Tokenizer files damaged at random, as a hostile tester would: a value of the wrong type, a key gone,
a list cut or doubled, a line changed, bytes flipped. Each must load and work, or be refused with
ExplorerError (one clear line in the CLI, a message in the GUI): never another exception.
The mutations come from fixed seeds, so a failure replays; the failing file is in the message."""

from __future__ import annotations

import copy
import gzip
import json
import random
import warnings
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from explorer.core.errors import ExplorerError
from explorer.core.formats import own
from explorer.core.formats.export import export
from explorer.core.sources.load import load_file
from explorer.core.sources.tokenizer import Tokenizer
from tests.core.test_bad_tokenizer_files import own_file

VALUES: list[Any] = [None, 0, -1, 1, 10**20, 1.5, "", "x", "(", "\ud800", [], {}, True, [1, 2], ["a", "b"],
                     {"a": 1}, [[1, 2]], 255, 256, 2**31]
TEXTS = ["Hello world <|endoftext|> नमस्ते 😀\n\t  x", "", "a" * 1000]
MUTANTS = 150  # of each kind: about 5 s in all


@cache
def seeds(folder: Path) -> dict[str, bytes]:
    """A small file of each kind (name -> bytes); the name tells the loader the kind, as a user's would."""
    merges = [[97, 98, 256], [256, 99, 257], [32, 116, 258], [258, 104, 259], [259, 101, 260]]
    ours = own.load(own_file(folder, merges, {"<|endoftext|>": 261}, pattern="cl100k"))
    export(ours, "hf", folder / "tokenizer.json")
    export(ours, "tiktoken", folder / "ours.tiktoken")
    export(ours, "minbpe", folder / "ours.model")
    tekken = json.loads(gzip.decompress(
        (Path(__file__).parents[2] / "resources/encodings/tekken_240911.json.gz").read_bytes()))
    tekken["vocab"] = tekken["vocab"][:600]
    tekken["config"].update(num_vocab_tokens=600, default_vocab_size=700, default_num_special_tokens=100)
    tekken.pop("image", None)
    return {"tok.json": (folder / "tok.json").read_bytes(), "tokenizer.json": (folder / "tokenizer.json").read_bytes(),
            "ours.tiktoken": (folder / "ours.tiktoken").read_bytes(), "ours.model": (folder / "ours.model").read_bytes(),
            "tekken.json": json.dumps(tekken).encode()}


def _paths(document: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(document, dict):
        for key in list(document)[:40]:
            found += _paths(document[key], (*path, key))
    elif isinstance(document, list):
        for index in range(min(len(document), 12)):
            found += _paths(document[index], (*path, index))
    return found


def mutate_json(data: bytes, rnd: random.Random) -> bytes:
    document = json.loads(data)
    for _ in range(rnd.choice([1, 1, 2, 3])):
        paths = _paths(document)[1:]
        if not paths:
            break
        *parents, key = rnd.choice(paths)
        parent = document
        for step in parents:
            parent = parent[step]
        choice = rnd.random()
        if choice < 0.3:
            del parent[key]
        elif choice < 0.45 and isinstance(parent[key], list) and parent[key]:
            parent[key] = parent[key] + parent[key][:rnd.randint(1, len(parent[key]))]
        elif choice < 0.55 and isinstance(parent[key], str):
            parent[key] = parent[key][:rnd.randint(0, len(parent[key]))] + rnd.choice(["(", "\\", "\x00", "é"])
        else:
            parent[key] = copy.deepcopy(rnd.choice(VALUES))
    return json.dumps(document, ensure_ascii=rnd.random() < 0.5).encode("utf-8", "surrogatepass")


def mutate_lines(data: bytes, rnd: random.Random) -> bytes:
    lines = data.split(b"\n")
    for _ in range(rnd.randint(1, 4)):
        index = rnd.randrange(len(lines))
        choice = rnd.random()
        if choice < 0.3:
            del lines[index]
        elif choice < 0.6:
            lines[index] += rnd.choice([b" 5", b" -1", b" x", b"==", b" 99999999999999999999", b"\xff", b" 1 2"])
        else:
            lines.insert(index, lines[rnd.randrange(len(lines))])
    return b"\n".join(lines)


def mutate_bytes(data: bytes, rnd: random.Random) -> bytes:
    if rnd.random() < 0.3:
        return data[:rnd.randint(0, len(data))]
    damaged = bytearray(data)
    for _ in range(rnd.randint(1, 10)):
        index = rnd.randrange(len(damaged))
        if rnd.random() < 0.5:
            damaged[index] = rnd.randrange(256)
        else:
            damaged[index:index] = bytes([rnd.randrange(256)]) * rnd.randint(1, 4)
    return bytes(damaged)


def use(tokenizer: Tokenizer, folder: Path) -> None:
    """What the panes and the CLI do with a loaded tokenizer; ExplorerError is an answer, not a failure."""
    for text in TEXTS:
        for mode in ("plain", "allowed"):
            try:
                tokenizer.decode(tokenizer.encode(text, mode))
                tokenizer.encode_tokens(text, mode)
            except ExplorerError:
                pass
    for kind in ("hf", "tiktoken", "minbpe"):
        try:
            export(tokenizer, kind, folder / f"out.{kind}")
        except ExplorerError:
            pass


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "tok.json": mutate_json, "tokenizer.json": mutate_json, "tekken.json": mutate_json,
    "ours.tiktoken": mutate_lines, "ours.model": mutate_lines}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_a_damaged_file_works_or_is_refused_with_a_reason(tmp_path_factory: pytest.TempPathFactory, name: str) -> None:
    folder = tmp_path_factory.mktemp("mutants")
    seed = seeds(tmp_path_factory.mktemp("seeds"))[name]
    rnd = random.Random(name)
    for number in range(MUTANTS):
        data = (MUTATIONS[name] if rnd.random() < 0.8 else mutate_bytes)(seed, rnd)
        path = folder / name
        path.write_bytes(data)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    tokenizer = load_file(path, pattern="cl100k" if name.endswith(".tiktoken") else None)
                except ExplorerError:
                    continue
                use(tokenizer, folder)
        except Exception as exc:
            kept = folder / f"mutant-{number}-{name}"
            kept.write_bytes(data)
            raise AssertionError(f"{kept}: {type(exc).__name__}: {exc}") from exc
