"""SentencePiece BPE: our encoder against the `sentencepiece` package, on the bundled Mistral models.

Ids (without BOS), decoding, spans, the merges recovered from the scores, the trace, loading
(bundled names, files recognised by content, the Hugging Face cache) and what is refused.
"""

from __future__ import annotations

import dataclasses
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.analysis.audit import audit_vocabulary
from explorer.core.algorithms.bpe import BPE
from explorer.core.errors import SpecialTokenError, TokenizerFileError
from explorer.core.generators import run_to_end
from explorer.core.analysis.findings import audit_check
from explorer.core.algorithms.incremental import CUTS_END, CUTS_START, SPECIAL, encode_stream, join_batches
from explorer.core.formats import minbpe
from explorer.core.formats.sentencepiece_model import BUNDLED_MODELS, _fields, parse_model, read_model
from explorer.core.sources.load import list_tokenizers, load_tokenizer
from explorer.core.sources.sentencepiece import SentencePieceTokenizer
from explorer.core.algorithms.sentencepiece_bpe import NEVER, _merge_long, merge
from tests.conftest import HARD_CASES

spm = pytest.importorskip("sentencepiece")

NAMES = list(BUNDLED_MODELS)
HINDI = "मुझे घर जाना है और छोटी झील देखनी है। ऋषि ने ॐ कहा।"  # घ औ छ झ ऋ ॐ are not pieces: bytes
SAMPLES = HARD_CASES + [
    HINDI,
    "你好，世界！这是一个测试。 東京タワー",
    "مرحبا بالعالم، هذا اختبار.",
    "สวัสดีชาวโลก นี่คือการทดสอบ",
    "emoji 🤗🦜🏳️‍🌈 and 🇫🇷 flags",
    "def encode(self, text: str) -> list[int]:\n    return [ord(c) for c in text]  # ▁ is U+2581\n",
    "  two leading,  two inside,   three, trailing  ",
    "▁already▁escaped ▁ ▁▁",
    "\t\ttabs\n\n\nnewlines\r\n",
    "[REFERENCE_DOC_1][REFERENCE_DOC_10]x[REF] y [/REF]",
    "<s> </s> [INST] not control in plain mode [/INST]",
]


@pytest.fixture(scope="module", params=NAMES)
def pair(request: pytest.FixtureRequest) -> tuple[SentencePieceTokenizer, object]:
    ours = SentencePieceTokenizer.bundled(request.param)
    return ours, spm.SentencePieceProcessor(model_file=str(BUNDLED_MODELS[request.param].path))


@pytest.fixture(scope="module")
def mistral_v3() -> SentencePieceTokenizer:
    return SentencePieceTokenizer.bundled("mistral_v3")


def test_ids_equal_sentencepiece(pair: tuple[SentencePieceTokenizer, object]) -> None:
    ours, ref = pair
    for text in SAMPLES:
        assert ours.encode(text, "plain") == ref.encode(text), text  # type: ignore[attr-defined]


def test_hindi_falls_back_to_bytes(mistral_v3: SentencePieceTokenizer) -> None:
    ids = mistral_v3.encode(HINDI, "plain")
    fallback = [i for i in ids if mistral_v3.pieces[i].startswith("<0x")]
    assert fallback and b"".join(mistral_v3.token_bytes(i) for i in fallback[:3]) == "झ".encode()
    tokens = mistral_v3.encode_tokens(HINDI)
    first = next(index for index, token in enumerate(tokens) if token.id == fallback[0])
    jha = HINDI.index("झ")  # its three bytes share the character, cut as byte-level tokens are
    assert [(t.start, t.end, t.cuts_start, t.cuts_end) for t in tokens[first:first + 3]] == [
        (jha, jha + 1, False, True), (jha, jha + 1, True, True), (jha, jha + 1, True, False)]
    assert [t.byte_end - t.byte_start for t in tokens[first:first + 3]] == [1, 1, 1]


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=40))
def test_random_unicode_equals_sentencepiece(text: str) -> None:
    for ours, ref in _pairs():
        assert ours.encode(text, "plain") == ref.encode(text)
        assert ours.decode(ours.encode(text, "plain")) == ref.decode(ref.encode(text))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(" ab\n▁\u00e9\u0915\u0918\U0001f917"), max_size=60).map("".join))
def test_whitespace_runs_and_mixed_scripts(text: str) -> None:
    for ours, ref in _pairs():
        assert ours.encode(text, "plain") == ref.encode(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 32767), max_size=12), st.lists(st.integers(771, 1026), max_size=6))
def test_decode_any_ids_equals_sentencepiece(ids: list[int], byte_ids: list[int]) -> None:
    """Including byte pieces that are not valid UTF-8, control tokens and <unk> (one U+FFFD per bad byte)."""
    mixed = ids[: len(ids) // 2] + byte_ids + ids[len(ids) // 2:]
    for ours, ref in _pairs():
        valid = [i for i in mixed if i < ours.vocab_size]
        assert ours.decode(valid) == ref.decode(valid)


@settings(max_examples=300, deadline=None)
@given(st.text("abc", min_size=49, max_size=120), st.dictionaries(st.text("abc", min_size=2, max_size=5),
                                                                   st.integers(0, 6), max_size=40))
def test_heap_and_list_merges_agree(text: str, rank_of: dict[str, int]) -> None:
    """Long runs take the heap; its (rank, position) order is the list loop's "best, then leftmost"."""
    assert _merge_long(list(text), lambda a, b: rank_of.get(a + b, NEVER)) == merge(list(text), rank_of, steps=[])


def test_decode_round_trips(pair: tuple[SentencePieceTokenizer, object]) -> None:
    ours, ref = pair
    for text in SAMPLES:
        ids = ours.encode(text, "plain")
        assert ours.decode(ids) == ref.decode(ids)  # type: ignore[attr-defined]


def test_bos_and_eos_as_sentencepiece_adds_them(pair: tuple[SentencePieceTokenizer, object]) -> None:
    ours, ref = pair
    text = "Hello world"
    assert [ours.bos_id, *ours.encode(text)] == ref.encode(text, add_bos=True)  # type: ignore[attr-defined]
    assert [*ours.encode(text), ours.eos_id] == ref.encode(text, add_eos=True)  # type: ignore[attr-defined]
    assert ours.decode([ours.bos_id, *ours.encode(text), ours.eos_id]) == text


def test_long_text_and_one_long_word(pair: tuple[SentencePieceTokenizer, object]) -> None:
    """Long runs without spaces go through the heap, as sentencepiece's agenda does."""
    ours, ref = pair
    rng = random.Random(14)
    text = "".join(rng.choice("abcdefghij​ñ中文ह🙂") for _ in range(3000))
    assert ours.encode(text, "plain") == ref.encode(text)  # type: ignore[attr-defined]
    words = " ".join("".join(rng.choice("etaoinshrdlu") for _ in range(rng.randint(1, 12))) for _ in range(20000))
    assert ours.encode(words, "plain") == ref.encode(words)  # type: ignore[attr-defined]


def test_special_modes(mistral_v3: SentencePieceTokenizer) -> None:
    ref = spm.SentencePieceProcessor(model_file=str(BUNDLED_MODELS["mistral_v3"].path))
    text = "[INST] Bonjour [/INST]"
    with pytest.raises(SpecialTokenError):
        mistral_v3.encode(text)
    assert mistral_v3.encode(text, "allowed") == [3, *ref.encode(" Bonjour "), 4]
    assert mistral_v3.encode(text, "plain") == ref.encode(text)
    tokens = mistral_v3.encode_tokens(text, "allowed")
    assert (tokens[0].special, tokens[0].start, tokens[0].end, tokens[-1].start) == (True, 0, 6, len(text) - 7)


def test_token_bytes_and_spans(mistral_v3: SentencePieceTokenizer) -> None:
    """`▁` is a space in a token's bytes; the `▁` put in front belongs to the first character."""
    text = "Hi  there नमस्ते"
    tokens = mistral_v3.encode_tokens(text)
    assert [t.id for t in tokens] == mistral_v3.encode(text)
    assert tokens[0].bytes == b" Hi" and (tokens[0].start, tokens[0].end) == (0, 2)
    assert b"".join(t.bytes for t in tokens) == b" " + text.encode()
    for token in tokens[1:]:
        assert text[token.start:token.end].encode() == token.bytes
        assert text.encode()[token.byte_start:token.byte_end] == token.bytes
    alone = mistral_v3.encode_tokens("घ")  # the front `▁` alone, then three bytes
    assert (alone[0].bytes, alone[0].start, alone[0].end) == (b" ", 0, 0)


@pytest.mark.parametrize("mode", ["plain", "allowed"])
def test_streamed_columns_equal_the_tokens(mistral_v3: SentencePieceTokenizer, mode: str) -> None:
    """The Tokens pane's batches (span_columns, numpy) say what encode_tokens says, token by token."""
    text = HINDI + " [INST] 🤗 x  y [/INST]" + SAMPLES[-6] * 3
    tokens = mistral_v3.encode_tokens(text, mode)  # type: ignore[arg-type]
    batch = join_batches(list(encode_stream(mistral_v3, text, mode)))  # type: ignore[arg-type]
    assert batch.ids.tolist() == [t.id for t in tokens]
    assert batch.starts.tolist() == [t.start for t in tokens] and batch.ends.tolist() == [t.end for t in tokens]
    assert batch.byte_starts.tolist() == [t.byte_start for t in tokens]
    assert batch.flags.tolist() == [SPECIAL * t.special | CUTS_START * t.cuts_start | CUTS_END * t.cuts_end
                                    for t in tokens]
    assert (batch.char_end, batch.byte_end) == (len(text), len(text.encode()))


def test_merges_recovered_from_scores(mistral_v3: SentencePieceTokenizer) -> None:
    merges = mistral_v3.merges
    vocab = [mistral_v3.token_bytes(i) for i in range(mistral_v3.vocab_size)]
    assert len(merges) > 28000
    assert all(vocab[left] + vocab[right] == vocab[new] for left, right, new in merges)
    forest = mistral_v3.forest
    word = mistral_v3.encode("▁internationalization".replace("▁", ""))  # `▁international` + ...
    longest = max(word, key=lambda i: len(mistral_v3.token_bytes(i)))
    assert forest.rank(longest) is not None and forest.depth(longest) >= 3
    assert b"".join(vocab[i] for i in forest.leaves(longest)) == mistral_v3.token_bytes(longest)


@pytest.mark.parametrize("text", ["internationalization", HINDI, "  x  y", "[REF] a"])
def test_trace_ends_in_the_encoding(mistral_v3: SentencePieceTokenizer, text: str) -> None:
    start, steps = mistral_v3.trace_start(text), mistral_v3.trace(text)
    ids = tuple(steps[-1].ids) if steps else tuple(start)
    assert list(ids) == mistral_v3.encode(text, "plain")
    assert all(len(after.ids) == len(before.ids) - 1 for before, after in zip(steps, steps[1:]))
    assert all(mistral_v3.token_bytes(s.left) + mistral_v3.token_bytes(s.right) == mistral_v3.token_bytes(s.new_id)
               for s in steps)


def test_audit_finds_pieces_reachable(mistral_v3: SentencePieceTokenizer) -> None:
    """A piece is encoded alone without the `▁` in front (else almost every piece looks unreachable)."""
    audit = run_to_end(audit_vocabulary(mistral_v3))
    assert audit.unreachable_checked and len(audit.unreachable) < 50


def test_prompt_findings_know_the_dummy_prefix(mistral_v3: SentencePieceTokenizer) -> None:
    """`▁Hello` is what "Hello" encodes to: no "unreachable" finding for it."""
    verdict = audit_check(mistral_v3)
    assert [verdict(i) for i in mistral_v3.encode("Hello world")] == [None, None]


def test_bundled_names_files_and_folders(tmp_path: Path) -> None:
    assert [e.spec for e in list_tokenizers() if e.family == "Mistral" and e.spec in NAMES] == NAMES
    assert load_tokenizer("mistral_v7").name == "mistral_v7"
    renamed = tmp_path / "whatever.bin"
    shutil.copy(BUNDLED_MODELS["mistral_v1"].path, renamed)
    loaded = load_tokenizer(str(renamed))
    assert isinstance(loaded, SentencePieceTokenizer) and loaded.name == "mistral_v1"
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(BUNDLED_MODELS["mistral_v3"].path, folder / "tokenizer.model")
    assert load_tokenizer(str(folder)).encode("Hello") == load_tokenizer("mistral_v3").encode("Hello")
    minbpe.save(BPE([(104, 101, 256)], "none"), tmp_path / "minbpe.model")  # minbpe's text .model still loads
    assert not isinstance(load_tokenizer(str(tmp_path / "minbpe.model")), SentencePieceTokenizer)


def test_hf_cache_model_with_only_a_tokenizer_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = tmp_path / "models--mistralai--Mistral-7B-v0.1" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    shutil.copy(BUNDLED_MODELS["mistral_v1"].path, snapshot / "tokenizer.model")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    assert "hf:mistralai/Mistral-7B-v0.1" in [e.spec for e in list_tokenizers()]
    tokenizer = load_tokenizer("hf:mistralai/Mistral-7B-v0.1")
    assert tokenizer.name == "mistralai/Mistral-7B-v0.1" and tokenizer.encode("Hi") == [15359]


def test_refuses_what_it_cannot_encode_exactly() -> None:
    model = read_model(BUNDLED_MODELS["mistral_v1"].path)
    nfkc = dataclasses.replace(model, normalizer=dataclasses.replace(model.normalizer, name="nmt_nfkc",
                                                                      precompiled_charsmap=b"\x01\x02"))
    with pytest.raises(TokenizerFileError, match="normalizer is 'nmt_nfkc'; only 'identity'"):
        SentencePieceTokenizer(nfkc, "x", "x.model")
    with pytest.raises(TokenizerFileError, match="escape_whitespaces off"):
        SentencePieceTokenizer(dataclasses.replace(model, normalizer=dataclasses.replace(
            model.normalizer, escape_whitespaces=False, remove_extra_whitespaces=True)), "x", "x.model")
    with pytest.raises(TokenizerFileError, match="Unigram model; only BPE"):
        SentencePieceTokenizer(dataclasses.replace(model, model_type=1), "x", "x.model")
    with pytest.raises(TokenizerFileError, match="damaged or truncated"):
        parse_model(BUNDLED_MODELS["mistral_v1"].path.read_bytes()[:1001], "cut.model")


def test_a_piece_defined_twice_is_refused_as_sentencepiece_refuses_it() -> None:
    data = BUNDLED_MODELS["mistral_v1"].path.read_bytes()
    number, _, first = next(field for field in _fields(data, "x") if field[0] == 1)  # the first piece, <unk>
    twice = data + bytes([number << 3 | 2, len(first)]) + first  # (one more piece, the same; short: one-byte length)
    with pytest.raises(TokenizerFileError, match="the piece '<unk>' is defined twice \\(ids 0 and 32000\\)"):
        parse_model(twice, "twice.model")
    with pytest.raises(RuntimeError, match="already defined"):
        spm.SentencePieceProcessor(model_proto=twice)


@pytest.mark.parametrize("options", [{"byte_fallback": True}, {"byte_fallback": False},
                                     {"byte_fallback": True, "add_dummy_prefix": False}])
def test_trained_models_with_other_options(tmp_path: Path, options: dict[str, bool]) -> None:
    """Models trained here: user-defined pieces are never merged, equal scores go leftmost first,
    and without byte fallback a run of unknown characters is one <unk> (decoded ` ⁇ `)."""
    rng = random.Random(3)
    lines = [" ".join(rng.choice(["low", "lower", "newest", "widest", "<sep>", "aaaa", "ab"]) for _ in range(12))
             for _ in range(400)]
    (tmp_path / "corpus.txt").write_text("\n".join(lines), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(tmp_path / "corpus.txt"), model_prefix=str(tmp_path / "toy"),
                                   model_type="bpe", vocab_size=300 if options["byte_fallback"] else 44,
                                   user_defined_symbols=["<sep>"], normalization_rule_name="identity",
                                   remove_extra_whitespaces=False, character_coverage=1.0, minloglevel=2, **options)
    ours = SentencePieceTokenizer.from_file(tmp_path / "toy.model")
    ref = spm.SentencePieceProcessor(model_file=str(tmp_path / "toy.model"))
    for text in ["lower<sep>newest", "aaaaaaa ab<sep><sep>", "xyz ñ lowest 中文q", "  lo  w ", *lines[:50]]:
        assert ours.encode(text, "plain") == ref.encode(text)
        assert ours.decode(ours.encode(text, "plain")) == ref.decode(ref.encode(text))
    spans = ours.encode_tokens("xyz lowest")
    assert spans[-1].end == len("xyz lowest") and [t.id for t in spans] == ref.encode("xyz lowest")


_PAIRS: list[tuple[SentencePieceTokenizer, object]] = []


def _pairs() -> list[tuple[SentencePieceTokenizer, object]]:
    if not _PAIRS:
        _PAIRS.extend((SentencePieceTokenizer.bundled(name),
                       spm.SentencePieceProcessor(model_file=str(BUNDLED_MODELS[name].path))) for name in NAMES)
    return _PAIRS  # type: ignore[return-value]


def test_a_control_token_between_a_characters_bytes_splits_it(pair: tuple[SentencePieceTokenizer, object]) -> None:
    """sentencepiece decodes the bytes on each side of <s> apart: C2 <s> 80 is two U+FFFD, not U+0080
    (hypothesis found ids [965, 1, 899] in mistral_v3)."""
    ours, ref = pair
    first, second = ref.piece_to_id("<0xC2>"), ref.piece_to_id("<0x80>")  # type: ignore[attr-defined]
    if ref.id_to_piece(first) != "<0xC2>":  # type: ignore[attr-defined]
        pytest.skip(f"{ours.name} has no byte pieces")
    for ids in ([first, ours.bos_id, second], [first, second], [first, ours.bos_id, ours.bos_id, second, first]):
        assert ours.decode(ids) == ref.decode(ids), ids  # type: ignore[attr-defined]
    assert ours.decode([first, ours.bos_id, second]) == "\ufffd\ufffd"
