"""The bundled model encodings (Llama 3/4, Qwen, gpt-oss harmony, Tekken): ids equal to their references.

Each reference is built here from the shipped file the way the model's own code builds it, with the
pattern and special tokens copied from that code (not from our tables): llama_models'
`llama3/tokenizer.py` and `llama4/tokenizer.py`, Qwen's `tokenization_qwen.py`, tiktoken's own
`o200k_harmony`, and mistral-common's `Tekkenizer` (replicated from its source, since the package
would pull pydantic, pillow and an older numpy into the test environment; when it is installed,
`test_tekken_equals_mistral_common` compares with the real one too).
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import hashlib
import json
import random
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.errors import ExplorerError, TokenizerFileError
from explorer.core.formats.export import export
from explorer.core.formats.tiktoken_file import BUNDLED
from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
from tests.conftest import HARD_CASES

MODELS = ["llama3", "llama4", "qwen", "o200k_harmony", "tekken"]

# --- The references, as each model's code defines them ---------------------------------------------

LLAMA3_PATTERN = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"  # noqa: E501
LLAMA4_PATTERN = r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""  # noqa: E501
QWEN_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""  # noqa: E501


def load_bpe_file(path: Path) -> dict[bytes, int]:
    """llama_models/tokenizer_utils.py's reader (Qwen's is the same)."""
    return {base64.b64decode(token): int(rank)
            for token, rank in (line.split() for line in path.read_text("utf-8").splitlines() if line.strip())}


def llama3_reference() -> tiktoken.Encoding:
    ranks = load_bpe_file(BUNDLED["llama3"].path)
    special_tokens = [
        "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>",
        "<|eom_id|>", "<|eot_id|>", "<|python_tag|>", "<|image|>",
    ]
    special_tokens += [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(special_tokens))]
    specials = {token: len(ranks) + i for i, token in enumerate(special_tokens)}
    return tiktoken.Encoding("llama3", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens=specials)


def llama4_reference() -> tiktoken.Encoding:
    def reserved(name: str, count: int, start: int = 0) -> list[str]:
        return [f"<|{name}_reserved_special_token_{i}|>" for i in range(start, start + count)]

    text = ["<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>",
            *reserved("text_post_train", 6), "<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>",
            *reserved("text_post_train", 61, 8)]
    vision = ["<|image_start|>", "<|image_end|>", "<|vision_reserved_special_token_0|>",
              "<|vision_reserved_special_token_1|>", "<|tile_x_separator|>", "<|tile_y_separator|>",
              *reserved("vision", 4, 2), "<|image|>", "<|vision_reserved_special_token_6|>", "<|patch|>",
              *reserved("vision", 1041, 7)]
    reasoning = [*reserved("reasoning", 8), "<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    special_tokens = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>",
                      "<|fim_suffix|>", *text, *vision, *reasoning]
    special_tokens += [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(special_tokens))]
    ranks = load_bpe_file(BUNDLED["llama4"].path)
    specials = {token: len(ranks) + i for i, token in enumerate(special_tokens)}
    return tiktoken.Encoding("llama4", pat_str=LLAMA4_PATTERN, mergeable_ranks=ranks, special_tokens=specials)


def qwen_reference() -> tiktoken.Encoding:
    extras = tuple(f"<|extra_{i}|>" for i in range(205))
    specials = {token: 151643 + i for i, token in enumerate(("<|endoftext|>", "<|im_start|>", "<|im_end|>") + extras)}
    return tiktoken.Encoding("Qwen", pat_str=QWEN_PATTERN, mergeable_ranks=load_bpe_file(BUNDLED["qwen"].path),
                             special_tokens=specials)


def harmony_reference(folder: Path) -> tiktoken.Encoding:
    """tiktoken's registry, its download cache filled with the bundled o200k_base (no network)."""
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    shutil.copy(BUNDLED["o200k_base"].path, folder / hashlib.sha1(url.encode()).hexdigest())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
        return tiktoken.get_encoding("o200k_harmony")


TEKKEN_DEPRECATED_SPECIALS = [  # Tekkenizer.DEPRECATED_SPECIAL_TOKENS, ranks 0-19
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
]


@cache
def tekken_json() -> bytes:
    return gzip.decompress(BUNDLED["tekken"].path.read_bytes())


class TekkenReference:
    """mistral-common's Tekkenizer, replicated from tekken.py: the first `default_vocab_size -
    default_num_special_tokens` ranks in tiktoken with the file's pattern and no special tokens,
    every id shifted by the number of special tokens; specials never parsed from text."""

    def __init__(self, document: dict) -> None:  # type: ignore[type-arg]
        config = document["config"]
        self.num_special_tokens = config["default_num_special_tokens"]
        inner = config["default_vocab_size"] - self.num_special_tokens
        ranks = {base64.b64decode(x["token_bytes"]): x["rank"] for x in document["vocab"][:inner]}
        self.model = tiktoken.Encoding("tekken", pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={})
        names = TEKKEN_DEPRECATED_SPECIALS + [f"<SPECIAL_{i}>" for i in range(20, self.num_special_tokens)]
        self.specials = {name: rank for rank, name in enumerate(names)}
        self.n_words = config["default_vocab_size"]

    def encode(self, s: str, bos: bool, eos: bool) -> list[int]:
        ids = [t + self.num_special_tokens for t in self.model.encode(s)]
        return [1] * bos + ids + [2] * eos

    def get_special_token(self, s: str) -> int:
        return self.specials[s]


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    return {"llama3": llama3_reference(), "llama4": llama4_reference(), "qwen": qwen_reference(),
            "o200k_harmony": harmony_reference(tmp_path_factory.mktemp("tiktoken-cache")),
            "tekken": TekkenReference(json.loads(tekken_json()))}


@cache
def loaded(name: str) -> TiktokenTokenizer:
    return TiktokenTokenizer.bundled(name)


def reference_ids(reference: object, text: str) -> list[int]:
    """Ordinary text, no special tokens parsed: `encode_ordinary`, or Tekkenizer's `encode`."""
    if isinstance(reference, TekkenReference):
        return reference.encode(text, bos=False, eos=False)
    return reference.encode_ordinary(text)  # type: ignore[attr-defined]


# --- Texts: made here, seeded --------------------------------------------------------------------

SAMPLES = [
    "Hello, world! It's a test; they'll see. I'M LOUD and you're quiet.",
    "Ünïcödé façade naïve café Straße ÆØÅ", "Привет, мир! Съешь же ещё этих мягких булок.",
    "你好，世界。这是中文文本，包含标点符号！", "日本語のテキスト、カタカナとひらがな。", "안녕하세요 세계, 반갑습니다",
    "مرحبا بالعالم، كيف حالك؟", "नमस्ते दुनिया, यह हिंदी है।", "שלום עולם", "Γειά σου Κόσμε", "ภาษาไทยไม่มีช่องว่าง",
    "Việt Nam có nhiều người, thời tiết đẹp", "İstanbul'da yaşıyorum, çalışmaktadır",
    "    def square(x: int) -> int:\n        return x ** 2  # comment\n\n",
    "for (int i = 0; i < n; ++i) { a[i] = b[i] * 3.14159f; }\r\n",
    '<div class="x" id=\'y\'>&amp; &lt;tag&gt;</div> {"key": [1, 2.5e-3, null]}',
    "SELECT * FROM users WHERE id=42 -- note\n/* block */", ".:.:.:.:.:.: ---- ==== ////",
    "🎂👨‍👩‍👧‍👦🇺🇦👍🏽 emoji ✨🔥 mixed 😀😃", "12345678901234567890 3.14 1,000,000 ٣٤٥ ४५६",
    "\t\t\n\n   \r\n  trailing   ", "e\u0301 a\u0308\u0304 \u200b\ufeff\u00ad\u00a0", "\x00\x01\x7f",
]


@cache
def long_text() -> str:
    """About 40,000 characters of the samples shuffled together: several encoding windows."""
    rng = random.Random(14)
    pieces = [rng.choice(SAMPLES)[: rng.randint(1, 80)] + rng.choice(["", " ", "\n", "  ", ". "])
              for _ in range(1500)]
    return "".join(pieces)


def texts() -> list[str]:
    return [*SAMPLES, *HARD_CASES, long_text()]


# --- The tests -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", MODELS)
def test_ids_equal_the_reference(name: str, references: dict[str, object]) -> None:
    ours, theirs = loaded(name), references[name]
    for text in texts():
        assert ours.encode(text, special="plain") == reference_ids(theirs, text), text[:40]
        if not any(token in text for token in ours.special_tokens):
            assert ours.encode(text) == reference_ids(theirs, text)


@pytest.mark.parametrize("name", ["llama3", "llama4", "qwen", "o200k_harmony"])
def test_special_tokens_are_the_references(name: str, references: dict[str, tiktoken.Encoding]) -> None:
    ours, theirs = loaded(name), references[name]
    assert ours.special_tokens == theirs._special_tokens
    assert ours.vocab_size == theirs.n_vocab
    chosen = sorted(theirs._special_tokens)[:: max(1, len(theirs._special_tokens) // 40)]
    text = "Say " + " and ".join(chosen) + " <|im_start|>user\nhi<|im_end|>\n<|begin_of_text|>"
    assert ours.encode(text, special="allowed") == theirs.encode(text, allowed_special="all")
    assert ours.decode(ours.encode(text, special="allowed")) == text


def test_an_id_with_two_names_decodes_spans_and_exports_as_tiktoken_reads_it(references: dict[str, tiktoken.Encoding],
                                                                              tmp_path: Path) -> None:
    """o200k_harmony names 200018 both `<|endofprompt|>` and `<|reserved_200018|>`; tiktoken decodes the first."""
    ours, theirs = loaded("o200k_harmony"), references["o200k_harmony"]
    assert ours.decode([200018]) == theirs.decode([200018]) == "<|endofprompt|>"
    tokens = ours.encode_tokens("x<|endofprompt|>y", "allowed")
    assert [(t.id, t.start, t.end) for t in tokens] == [(87, 0, 1), (200018, 1, 16), (88, 16, 17)]
    out = tmp_path / "harmony.json"
    notes = export(ours, "hf", out)
    assert len(notes) == 1 and "'<|reserved_200018|>' shares id 200018 with '<|endofprompt|>'" in notes[0]
    text = "a<|endofprompt|>b<|start|>c<|channel|>d<|endoftext|>"
    assert load_tokenizer(str(out)).encode(text, "allowed") == theirs.encode(text, allowed_special="all")


def test_tekken_special_tokens_come_first(references: dict[str, object]) -> None:
    ours, theirs = loaded("tekken"), references["tekken"]
    assert isinstance(theirs, TekkenReference)
    assert ours.special_tokens == theirs.specials and ours.vocab_size == theirs.n_words == 131072
    parts = ["Hi ", "[INST]", " What is 2+2? ", "[/INST]", "</s>", "<SPECIAL_999>", "x"]
    expected: list[int] = []
    for part in parts:
        expected += [theirs.get_special_token(part)] if part in theirs.specials else theirs.encode(part, False, False)
    assert ours.encode("".join(parts), special="allowed") == expected
    assert ours.encode("[INST]", special="plain") == theirs.encode("[INST]", False, False)  # typed, not control
    assert ours.token_bytes(3) == b"[INST]" and ours.token_bytes(1000) == b"\x00"


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300), name=st.sampled_from(MODELS))
def test_random_unicode_equals_the_reference(text: str, name: str, references: dict[str, object]) -> None:
    assert loaded(name).encode(text, special="plain") == reference_ids(references[name], text)


@pytest.mark.parametrize("name", MODELS)
def test_core_bpe_over_shipped_merges_equals_the_reference(name: str, references: dict[str, object]) -> None:
    """The encode trace and the Merges pane use our own BPE over the shipped merges: same ids."""
    bpe = loaded(name).as_bpe()
    for text in [*SAMPLES, *HARD_CASES]:
        assert bpe.encode(text, special="plain") == reference_ids(references[name], text), text[:40]


@pytest.mark.parametrize("name", MODELS)
def test_core_bpe_on_a_cold_cache_equals_the_reference(name: str, references: dict[str, object]) -> None:
    """A fresh encoder merges the new chunks of a long text together in numpy: the same ids."""
    bpe = TiktokenTokenizer.bundled(name).as_bpe()
    text = long_text() + " ".join(random.Random(16).sample(long_text().split(), 3000))
    assert len(set(bpe.pretokenizer.pieces(text))) > 512  # over `_MANY`: the numpy path runs
    assert bpe.encode(text, special="plain") == reference_ids(references[name], text)
    assert "_batch_tables" in vars(bpe)


def test_aliases_and_user_tekken_file(tmp_path: Path) -> None:
    path = tmp_path / "tekken.json"  # as a Mistral model folder on disk has it
    path.write_bytes(tekken_json())
    from_disk = load_tokenizer(str(path))
    text = "Bonjour, ça va? 🎂 [INST]"
    assert from_disk.encode(text, "plain") == loaded("tekken").encode(text, "plain")
    assert from_disk.special_tokens == loaded("tekken").special_tokens
    for alias in ["tekken_240718", "tekken_240911"]:
        assert load_tokenizer(alias).encode(text, "plain") == loaded("tekken").encode(text, "plain")


def test_tekken_equals_mistral_common() -> None:
    tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    import importlib.resources

    data = importlib.resources.files("mistral_common") / "data"
    ours = loaded("tekken")
    for file in ["tekken_240911.json", "tekken_240718.json"]:
        theirs = tekken.Tekkenizer.from_file(str(data / file))
        assert theirs.n_words == ours.vocab_size
        for text in texts():
            assert ours.encode(text, special="plain") == theirs.encode(text, bos=False, eos=False), text[:40]
        for token, token_id in ours.special_tokens.items():
            assert theirs.get_special_token(token) == token_id


def test_a_file_left_out_of_the_bundle_is_read_from_its_installed_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build may leave a file out (its licence, its size): the installed source package has it."""
    package = tmp_path / "fake_llama_models"
    (package / "llama3").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shutil.copy(BUNDLED["llama3"].path, package / "llama3" / "tokenizer.model")
    monkeypatch.syspath_prepend(str(tmp_path))
    left_out = dataclasses.replace(BUNDLED["llama3"], file="left-out.tiktoken",
                                   installed="fake_llama_models/llama3/tokenizer.model")
    monkeypatch.setitem(BUNDLED, "llama3", left_out)
    assert left_out.path == package / "llama3" / "tokenizer.model"
    assert TiktokenTokenizer.bundled("llama3").encode("Hello, Llama!") == loaded("llama3").encode("Hello, Llama!")
    (package / "llama3" / "tokenizer.model").write_bytes(b"SGk= 0\n")  # another version: refused by its hash
    with pytest.raises(TokenizerFileError, match="not the published"):
        TiktokenTokenizer.bundled("llama3")


def test_every_shipped_file_has_its_source_and_licence() -> None:
    folder = BUNDLED["o200k_base"].path.parent
    sources = (folder / "SOURCES.md").read_text("utf-8")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    for encoding in BUNDLED.values():
        assert encoding.sha256 in sources and f"`{encoding.name}`" in readme, encoding.name
        if encoding.shipped:
            assert f"`{encoding.file_name}`" in sources and f"`{encoding.file_name}`" in readme, encoding.name
            assert encoding.merges_path.is_file()
        else:  # read from its package: nothing of it is in the repository
            assert not (folder / encoding.file_name).exists() and not encoding.merges_path.exists()
    licences = {path.name for path in (folder / "licenses").iterdir()}
    assert {"NOTICE.txt", "mistral-common-LICENSE.txt", "dashscope-LICENSE.txt"} <= licences
    notice = (folder / "licenses" / "NOTICE.txt").read_text("utf-8")
    assert all(encoding.notice.split(". ", 1)[1] in notice for encoding in BUNDLED.values()
               if encoding.notice and encoding.shipped)


def test_command_line_lists_and_uses_every_model_encoding(references: dict[str, object]) -> None:
    listed = json.loads(run_cli("list", "--json"))["tokenizers"]
    families = {entry["spec"]: entry.get("family") for entry in listed}
    assert {name: families.get(name) for name in MODELS} == {
        "llama3": "Meta Llama", "llama4": "Meta Llama", "qwen": "Qwen", "o200k_harmony": "OpenAI", "tekken": "Mistral"}
    text = "<|im_start|>user\nHi, 世界 🎂<|im_end|>"
    for name in MODELS:
        ids = run_cli("encode", "--tokenizer", name, "--text", text, "--special", "plain").split()
        assert list(map(int, ids)) == reference_ids(references[name], text), name
    ids = run_cli("encode", "--tokenizer", "qwen", "--text", text, "--special", "allowed").split()
    assert list(map(int, ids)) == references["qwen"].encode(text, allowed_special="all")  # type: ignore[attr-defined]


def run_cli(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, text=True,
                            encoding="utf-8", timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: d.pop("vocab"), "not a Tekken file"),
    (lambda d: d["config"].pop("pattern"), "lacks a usable 'pattern'"),
    (lambda d: d["config"].update(default_vocab_size=3), "must be below default_vocab_size"),
    (lambda d: d["config"].update(default_vocab_size=400), "needs 396 tokens"),
    (lambda d: d["vocab"][3].update(rank=7), "not listed in rank order"),
    (lambda d: d["vocab"][3].update(token_bytes="!!"), "malformed"),
    # The special tokens take ranks 0, 1, 2, ... (Tekkenizer fills the rest of the block after them):
    # one beyond the block would share its id with a byte, and decode as the special token.
    (lambda d: d["special_tokens"][1].update(rank=50), "rank 50 is out of turn"),
    (lambda d: d["special_tokens"][1].update(rank=0), "rank 0 is taken twice"),
    (lambda d: d.pop("special_tokens"), "there are 20 of them"),  # the deprecated defaults, in a block of 4
])
def test_a_broken_tekken_file_says_what_is_wrong(tmp_path: Path, change: object, problem: str) -> None:
    document = {"config": {"pattern": r"\S+|\s+", "default_vocab_size": 260, "default_num_special_tokens": 4,
                           "num_vocab_tokens": 256, "version": "v3"},
                "vocab": [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None}
                          for i in range(256)],
                "special_tokens": [{"rank": 0, "token_str": "<unk>", "is_control": True},
                                   {"rank": 1, "token_str": "<s>", "is_control": True}]}
    small = tmp_path / "tekken.json"
    small.write_text(json.dumps(document))
    assert load_tokenizer(str(small)).encode("ab", "plain") == [4 + 97, 4 + 98]
    change(document)  # type: ignore[operator]
    small.write_text(json.dumps(document))
    with pytest.raises(TokenizerFileError, match=problem) as caught:
        TiktokenTokenizer.from_tekken(small)
    assert str(small) in str(caught.value)


def test_llama_without_its_package_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Llama's files are not shipped (their licence text must travel with them): without llama-models
    the picker marks them and loading says what to do, instead of 'no such file'."""
    from explorer.core.formats import tiktoken_file
    from explorer.core.sources import load

    monkeypatch.setattr(tiktoken_file, "installed_file", lambda member: None)
    with pytest.raises(ExplorerError, match=r"llama3 is not shipped .*\(pip install llama-models\)"):
        load.load_tokenizer("llama3")
    entries = {entry.name: entry for entry in load.bundled_tokenizers()}
    assert "not installed" in entries["llama4"].description and "not installed" not in entries["qwen"].description
