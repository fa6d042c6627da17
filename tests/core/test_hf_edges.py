"""tokenizer.json at the edges (issue 13): normalizers, look-ahead split patterns, prefix spaces.

Each fixture is trained here with the `tokenizers` API on generated text (seeded): no shared corpora.
Texts are longer than two windows (Pretokenizer.windows), so window cuts are exercised.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import regex
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.train import train
from explorer.core.errors import ExplorerError
from explorer.core.formats.export import export
from explorer.core.pretokenization.pretokenize import DIGITS, WINDOW
from explorer.core.sources.hf_tokenizer import HFTokenizer

CONSONANTS = "கஙசஞடணதநபமயரலவழளறன"
VOWEL_SIGNS = ["", "\u0bbe", "\u0bbf", "\u0bc0", "\u0bc1", "\u0bc6", "\u0bc7", "\u0bc8", "\u0bca", "\u0bcb",
               "\u0bcc", "\u0bcd"]  # U+0BCA..U+0BCC decompose in NFD
ENGLISH = ["word", "The", "cat", "SAT", "on", "Mat", "isn't", "42", "hello", "Ünïcödé", "é", "ǅ"]


def tamil_word(rng: random.Random) -> str:
    return "".join(rng.choice(CONSONANTS) + rng.choice(VOWEL_SIGNS) for _ in range(rng.randint(1, 4)))


def mixed_text(seed: int, words: int, form: str = "NFC") -> str:
    """Tamil and English words with spaces, punctuation and newlines, in normalization `form`."""
    rng = random.Random(seed)
    parts = [tamil_word(rng) if rng.random() < 0.6 else rng.choice(ENGLISH) for _ in range(words)]
    text = "".join(part + rng.choice([" ", " ", " ", ", ", ".\n", "  "]) for part in parts)
    return unicodedata.normalize(form, text)


def build(folder: Path, name: str, normalizer: object | None, prefix_space: bool = False) -> Path:
    """A byte-level BPE with `normalizer`: Qwen2's pipeline (Split + ByteLevel), or with
    `prefix_space` GPT-2's ByteLevel(add_prefix_space=True) alone."""
    tokenizer = Tokenizer(models.BPE())
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    if prefix_space:
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(DIGITS), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=["<|endoftext|>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    lines = mixed_text(1, 6000).splitlines(keepends=True) + mixed_text(2, 2000, "NFD").splitlines(keepends=True)
    tokenizer.train_from_iterator(lines, trainer)
    path = folder / name / "tokenizer.json"
    path.parent.mkdir(parents=True)
    tokenizer.save(str(path))
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hf-edges")


@pytest.fixture(scope="module")
def nfc(folder: Path) -> Path:
    return build(folder, "nfc", normalizers.NFC())


@pytest.fixture(scope="module")
def lowercase(folder: Path) -> Path:
    return build(folder, "lowercase", normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase()]))


def library_ids(path: Path, text: str) -> list[int]:
    return Tokenizer.from_file(str(path)).encode(text, add_special_tokens=False).ids


def test_nfc_normalizer_cuts_windows_after_normalizing(nfc: Path) -> None:
    # Raw, க + U+0BC7 U+0BBE + ள is three chunks; composed to U+0BCB, the sign and ள are one.
    text = "word " * 1700 + "க\u0bc7\u0bbeள" + " word" * 2000
    assert len(text) > 2 * WINDOW
    assert HFTokenizer.from_file(nfc).encode(text) == library_ids(nfc, text)


@pytest.mark.parametrize("seed", [3, 4])
def test_nfc_normalizer_on_nfd_tamil_text(nfc: Path, seed: int) -> None:
    text = mixed_text(seed, 12_000, "NFD")
    assert len(text) > 4 * WINDOW and not unicodedata.is_normalized("NFC", text)
    ours = HFTokenizer.from_file(nfc)
    assert ours.encode(text) == library_ids(nfc, text)
    special = text[:30_000] + "<|endoftext|>\u0bbe" + text[30_000:]  # a sign right after an added token
    theirs = Tokenizer.from_file(str(nfc))
    assert ours.encode(special, "allowed") == theirs.encode(special, add_special_tokens=False).ids
    theirs.encode_special_tokens = True
    assert ours.encode(special, "plain") == theirs.encode(special, add_special_tokens=False).ids


def test_lowercase_normalizer_on_long_text(lowercase: Path) -> None:
    text = mixed_text(5, 12_000, "NFC").upper()
    assert HFTokenizer.from_file(lowercase).encode(text) == library_ids(lowercase, text)


def test_windows_cut_the_pieces_between_added_tokens(folder: Path) -> None:
    """Our chunks of "<|endoftext|>'t" are `<|`, `endoftext`, `|>'`, `t`; tokenizers takes the
    added token out first and splits `'t` alone, so no window may end after the `'`."""
    path = build(folder, "split-only", None)
    ours, theirs = HFTokenizer.from_file(path), Tokenizer.from_file(str(path))
    # Between runs of " x" (no cut before a space) the last place to cut is after "|>'".
    text = ("<|endoftext|>'t" + " x" * 30) * 450
    assert len(text) > 4 * WINDOW
    assert ours.encode(text, "allowed") == theirs.encode(text, add_special_tokens=False).ids
    theirs.encode_special_tokens = True
    assert ours.encode(text, "plain") == theirs.encode(text, add_special_tokens=False).ids


def test_normalizers_that_add_text_are_applied_between_added_tokens(folder: Path) -> None:
    """tokenizers normalizes each piece between added tokens on its own: a Prepend adds its
    mark after every one, never to an empty piece."""
    path = build(folder, "prepend", normalizers.Sequence([normalizers.Prepend("_"), normalizers.Replace("  ", " ")]))
    ours, theirs = HFTokenizer.from_file(path), Tokenizer.from_file(str(path))
    text = "<|endoftext|>" + mixed_text(8, 6_000).replace(".\n", ".<|endoftext|>") + "<|endoftext|>"
    assert len(text) > 4 * WINDOW
    assert ours.encode(text, "allowed") == theirs.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("name", ["nfc", "lowercase"])
def test_hf_export_carries_the_normalizer(folder: Path, nfc: Path, lowercase: Path, name: str) -> None:
    source = {"nfc": nfc, "lowercase": lowercase}[name]
    ours = HFTokenizer.from_file(source)
    out = folder / f"exported-{name}.json"
    export(ours, "hf", out)
    assert json.loads(out.read_text(encoding="utf-8"))["normalizer"] == json.loads(source.read_text())["normalizer"]
    text = mixed_text(6, 12_000, "NFD") + " THE CAT SAT ÜNÏCÖDÉ"
    assert library_ids(out, text) == ours.encode(text) == library_ids(source, text)
    assert HFTokenizer.from_file(out).encode(text) == ours.encode(text)


@pytest.mark.parametrize("format", ["tiktoken", "minbpe"])
def test_formats_without_normalizers_refuse_to_drop_one(folder: Path, nfc: Path, format: str) -> None:
    out = folder / f"refused.{format}"
    with pytest.raises(ExplorerError, match="normaliz.*NFC.*export it as hf"):
        export(HFTokenizer.from_file(nfc), format, out)
    assert not out.exists()


def test_lookahead_pattern_equals_tokenizers_in_our_file_and_its_export(folder: Path) -> None:
    pattern = r"[a-z]+(?=[0-9])|[a-z]|[0-9]+|\s+|."
    merges = [(m.left, m.right, m.new_id) for m in train(["hello42 world hello7 xx yy"] * 50, 300, pattern)]
    ours = BPE(merges, pattern, {}, "lookahead")
    out = folder / "lookahead.json"
    export(ours, "hf", out)
    text = "xxxx" + "hello42" * 4000
    reference = [i for piece in regex.findall(pattern, text) for i in ours.encode_chunk(piece)]
    assert len(reference) == 8004
    assert ours.encode(text) == HFTokenizer.from_file(out).encode(text) == library_ids(out, text) == reference


def test_encode_json_spans_with_add_prefix_space(folder: Path) -> None:
    path = build(folder, "prefix", None, prefix_space=True)
    text = "Hello world, நமஸ்தே 🎂 done\n!!<|endoftext|>x"
    result = subprocess.run([sys.executable, "-m", "explorer", "encode", "--tokenizer", str(path), "--json",
                             "--special", "allowed", "--text", text], capture_output=True, text=True,
                            encoding="utf-8", timeout=120, env={**os.environ})
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["ids"] == Tokenizer.from_file(str(path)).encode(text, add_special_tokens=False).ids
    tokens = document["tokens"]
    assert [set(t) for t in tokens] == [{"id", "bytes", "text", "start", "end"}] * len(tokens)
    previous_end = 0
    for index, token in enumerate(tokens):
        start, end, data = token["start"], token["end"], bytes.fromhex(token["bytes"])
        assert 0 <= start <= end <= len(text) and start >= previous_end - 1, token
        previous_end = end
        clean = not (data and 0x80 <= data[0] < 0xC0) and not (
            index + 1 < len(tokens) and 0x80 <= bytes.fromhex(tokens[index + 1]["bytes"] or "20")[0] < 0xC0)
        if clean:
            # The prefix space ByteLevel adds (at the start, after an added token) is not in the text.
            added_space = token["text"].startswith(" ") and not text[start:].startswith(" ")
            assert token["text"] == (" " if added_space else "") + text[start:end], token
    assert tokens[-1]["end"] == len(text) and tokens[0]["start"] == 0


def test_tokens_view_stream_with_a_normalizer_or_a_prefix_space(folder: Path, nfc: Path) -> None:
    """The Tokens pane's stream gives the library's ids and the spans of encode_tokens."""
    from explorer.core.algorithms.incremental import TokenizedText

    prefix = build(folder, "prefix-stream", None, prefix_space=True)
    text = mixed_text(7, 12_000, "NFD") + "<|endoftext|>" + "word " * 1700 + "க\u0bc7\u0bbeள" + " word" * 2000
    for path in (nfc, prefix):
        ours = HFTokenizer.from_file(path)
        assert not ours.spells_text
        state = TokenizedText(ours, text, "allowed")
        theirs = Tokenizer.from_file(str(path)).encode(text, add_special_tokens=False).ids
        assert state.ids.tolist() == theirs
        expected = [(t.id, t.start, t.end, t.byte_start, t.cuts_start, t.cuts_end)
                    for t in ours.encode_tokens(text, "allowed")]
        assert [(t.id, t.start, t.end, t.byte_start, t.cuts_start, t.cuts_end) for t in state.tokens()] == expected
        assert state.ends.max() <= len(text) and not state.incremental
