"""Special tokens that merges rebuild: Hugging Face's merges and ids, in our file and in its export.

HF's BpeTrainer puts special tokens in the vocabulary first; a merge spelt like one reuses its
id, takes no slot and sorts first on ties. Text is not split on special strings while training.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import tokenizers

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.train import train
from explorer.core.algorithms.training_run import Learned, TrainingSettings, run_training
from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.core.errors import ExplorerError, SpecialTokenError
from explorer.core.formats.export import export
from explorer.core.formats.hf import merge_pairs, to_document
from explorer.core.formats.own import from_document, from_merges, to_json
from explorer.core.sources.hf_tokenizer import HFTokenizer
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
from tests.hf_reference import hf_to_our_ids, hf_train

ISSUE_TEXT = ["the thing is that <|endoftext|> then <|endoftext|>"] * 300
ADJACENT = ["<|endoftext|><|pad|> x <|endoftext|><|pad|>y"] * 50
# Rebuilt from its bytes (th, <|endoftext|>), spelt in byte characters (Ġth is " th"), one byte
# (a), absent from the text (zz), or never buildable (a character outside the byte alphabet).
MIXED = ["<|endoftext|>", "th", "Ġth", "a", "zz", "<|終|>"]
PROBES = ["the thing <|endoftext|> then<|pad|>", "bath a  th Ġth zz <|終|>", "<|endoftext|><|pad|>x", "th", ""]


def trained(texts: list[str], vocab_size: int, pattern: str, specials: list[str]) -> tuple[BPE, list[bytes], Any]:
    merges = list(train(texts, vocab_size, pattern, specials))
    return from_merges(merges, pattern, specials), [m.token for m in merges], hf_train(texts, vocab_size, pattern, specials)


def assert_same_as_hf(texts: list[str], vocab_size: int, pattern: str, specials: list[str]) -> BPE:
    """Merge by merge, then id by id: HF's ids map one-to-one onto ours, and every text encodes alike."""
    ours, tokens, hf = trained(texts, vocab_size, pattern, specials)
    assert tokens == [a + b for a, b in merge_pairs(hf)]
    to_ours = hf_to_our_ids(hf, ours)
    assert sorted(to_ours.values()) == list(range(ours.vocab_size)) == list(range(hf.get_vocab_size()))
    for text in PROBES + texts[:3]:
        for mode, plain in (("allowed", False), ("plain", True)):
            hf.encode_special_tokens = plain
            assert [to_ours[i] for i in hf.encode(text).ids] == ours.encode(text, mode), (mode, text)
    return ours


@pytest.mark.parametrize("pattern", ["none", "gpt2", "cl100k"])
@pytest.mark.parametrize("specials", [["th"], ["<|endoftext|>", "<|pad|>"], MIXED])
def test_issue_repro_matches_hf(pattern: str, specials: list[str]) -> None:
    assert_same_as_hf(ISSUE_TEXT, 300, pattern, specials)


def test_merge_13_builds_on_the_special_token() -> None:
    ours, tokens, _ = trained(ISSUE_TEXT, 300, "cl100k", ["th"])
    assert tokens[0] == b"th" and tokens[13] == b"the"  # th sorts first on the tie with a+t
    assert ours.special_tokens == {"th": 256}  # the special token is the learned token


@pytest.mark.parametrize("pattern", ["none", "gpt2", "cl100k"])
def test_rebuilt_special_merges_with_the_next_one(pattern: str) -> None:
    specials = ["<|endoftext|>", "<|pad|>"]
    ours = assert_same_as_hf(ADJACENT, 300, pattern, specials)
    ids = set(ours.special_tokens.values())
    # Only unsplit text holds a whole special string; there HF builds on it (ext|> + <|pad|>).
    assert any(left in ids or right in ids for left, right, _ in ours.merges) == (pattern == "none")


def test_hf_merges_endoftext_with_pad_in_unsplit_text() -> None:
    ours = assert_same_as_hf(["the thing <|endoftext|>", "<|endoftext|><|pad|>x"] * 100, 300, "none",
                             ["<|endoftext|>", "<|pad|>"])
    end = ours.special_tokens["<|endoftext|>"]
    assert [ours.vocab[right] for left, right, _ in ours.merges if left == end] == [b"<|"]  # then + pad
    assert b"<|endoftext|><|pad" in ours.vocab


def test_vocab_size_counts_a_rebuilt_special_once() -> None:
    ours = assert_same_as_hf(ADJACENT, 275, "none", ["<|endoftext|>", "<|pad|>", "a"])
    assert ours.vocab_size == 275
    assert ours.special_tokens["a"] == 97  # a one-byte special token is that byte


@pytest.mark.parametrize("seed", range(12))
def test_random_corpora_and_specials_match_hf(seed: int) -> None:
    rng = random.Random(seed)
    words = ["the", "thing", "that", "<|endoftext|>", "<|pad|>", "<|pad", "th", " ", "\n", "café", "a", "Ġth",
             "<s>", "</s>", "終わり", "!!"]
    pool = ["th", "<|endoftext|>", "<|pad|>", "Ġth", "a", "Ã©", "<s>", "</s>", "zz", "終", "!", "the", "Ġ"]
    texts = ["".join(rng.choice(words) + rng.choice(["", " "]) for _ in range(rng.randint(1, 30)))
             for _ in range(rng.randint(5, 40))]
    specials = rng.sample(pool, rng.randint(1, 5))
    assert_same_as_hf(texts, rng.randint(260, 400), rng.choice(["none", "gpt2", "cl100k"]), specials)


@pytest.mark.parametrize("specials", [["th"], MIXED])
def test_export_and_own_file_give_the_same_ids(specials: list[str]) -> None:
    ours, _, _ = trained(ISSUE_TEXT + ADJACENT, 320, "cl100k", specials)
    document = to_document(ours)
    exported = HFTokenizer.from_json(document, json.dumps(document), "t.json")
    library = tokenizers.Tokenizer.from_str(json.dumps(document))
    reloaded = from_document(json.loads(to_json(ours)))
    assert reloaded.special_tokens == ours.special_tokens and reloaded.vocab == ours.vocab
    for text in PROBES + ["the bath, then thin"]:
        for mode in ("allowed", "plain"):
            library.encode_special_tokens = mode == "plain"
            ids = ours.encode(text, mode)
            assert ids == exported.encode(text, mode) == library.encode(text).ids == reloaded.encode(text, mode)
            assert ours.decode(ids) == library.decode(ids, skip_special_tokens=False)
            if "Ġth" not in specials:  # our tokenizer.json reader decodes a special by its text, not its twin's bytes
                assert exported.decode(ids) == ours.decode(ids)
    for tokenizer in (ours, exported, reloaded):  # disallowed: refused alike, and alike without the string
        with pytest.raises(SpecialTokenError):
            tokenizer.encode("the", "disallowed")
        assert tokenizer.encode("hello <|x|>", "disallowed") == ours.encode("hello <|x|>", "allowed")


def test_export_refuses_a_special_token_with_a_learned_twin() -> None:
    """A file from before: special "th" after the merges, learned "th" at 256. A tokenizer.json would
    give both 256 (tokenizers renumbers the added token), so exporting it is refused."""
    merges = list(train(ISSUE_TEXT, 300, "cl100k", ["th"]))
    old = BPE([(m.left, m.right, m.new_id) for m in merges], "cl100k", {"th": 300})
    assert old.encode("bath", "plain") == [98, 97, 256] and old.encode("bath", "allowed") == [98, 97, 300]
    with pytest.raises(ExplorerError, match="'th' .*id 300.* learned token 256"):
        to_document(old)


def test_tiktoken_export_keeps_a_shared_id(tmp_path: Path) -> None:
    ours, _, _ = trained(ISSUE_TEXT, 300, "cl100k", ["th"])
    path = tmp_path / "t.tiktoken"
    export(ours, "tiktoken", path)
    loaded = TiktokenTokenizer.from_file(path, pattern="cl100k")
    assert loaded.encode("the thing bath", "plain") == ours.encode("the thing bath", "plain")


@pytest.mark.parametrize("pattern, specials", [("cl100k", ("th",)), ("none", ("<|endoftext|>", "<|pad|>")),
                                               ("gpt2", ("th", "<|終|>", "a"))])
def test_both_engines_agree_on_merges_and_special_ids(pattern: str, specials: tuple[str, ...]) -> None:
    corpus = Corpus((Source.pasted("the thing is that <|endoftext|><|pad|> then <|endoftext|>\n" * 300),))
    results = []
    for engine in ("builtin", "hf"):
        settings = TrainingSettings(300, pattern, specials, engine=engine)  # type: ignore[arg-type]
        generator, records = run_training(corpus, settings, name="t"), []
        while True:
            try:
                records.append(next(generator))
            except StopIteration as stop:
                summary = stop.value
                break
        merges = [r.merge for r in records if isinstance(r, Learned)]
        made = {m.token: m.new_id for m in reversed(merges)}
        for token, token_id in summary.tokenizer.special_tokens.items():  # the id of its twin, if it has one
            assert made.get(token.encode(), token_id) == token_id
        assert summary.stopped_early == (summary.tokenizer.vocab_size < 300)
        results.append(([(m.left, m.right, m.new_id, m.token) for m in merges], summary.tokenizer.special_tokens))
    assert results[0] == results[1]


def test_tokenizer_json_with_shared_ids_rebuilds_as_our_bpe() -> None:
    """Ours exported, and HF's own trained file: a special token at a byte's or a merge's id stays
    a model token, so the Merges view and re-export work and encode as tokenizers does."""
    ours, _, hf = trained(ISSUE_TEXT + ADJACENT, 320, "cl100k", MIXED)
    document = to_document(ours)
    rebuilt = HFTokenizer.from_json(document, json.dumps(document), "t.json").as_bpe()
    assert rebuilt.special_tokens == ours.special_tokens and to_document(rebuilt) == document
    hf_file = HFTokenizer.from_json(json.loads(hf.to_str()), hf.to_str(), "hf.json")
    assert hf_file.special_tokens["a"] == hf.token_to_id("a") == hf_file.as_bpe().encode("a", "plain")[0]
    for text in PROBES:
        for mode in ("allowed", "plain"):
            hf.encode_special_tokens = mode == "plain"
            assert hf_file.as_bpe().encode(text, mode) == hf.encode(text).ids == hf_file.encode(text, mode)
