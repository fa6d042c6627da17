"""Bad tokenizer files, ids and names: each refused at once with one clear line, never silently
used, never a traceback, a Rust panic or a MemoryError (issue 13, "Bad input")."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tiktoken
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

from explorer.core.algorithms.bytelevel import to_chars
from explorer.core.algorithms.train import BpeTrainer, check_vocab_size
from explorer.core.errors import ExplorerError, PatternError, TokenizerFileError, TrainingError
from explorer.core.formats import own
from explorer.core.formats.export import export
from explorer.core.formats.tiktoken_file import BUNDLED, read_ranks
from explorer.core.pretokenization.pretokenize import NAMED_PATTERNS, Pretokenizer
from explorer.core.sources.hf_tokenizer import HFTokenizer
from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.rust_calls import RustCall, rust_panic
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer

HUGE = 10**9
BACKTRACKING = r"(?:a|aa)+(?=b)|\s+|."  # fancy-regex gives up on "aaa...c" (tiktoken panics)
ONIG_RETRY = r"(a|aa)+$|\s+|."  # Oniguruma's retry limit on "aaa...c" (tokenizers panics)
STUCK = "a" * 40 + "c"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, text=True,
                          encoding="utf-8", timeout=120, env={**os.environ, "RUST_BACKTRACE": "1"})


def assert_one_line_error(result: subprocess.CompletedProcess[str], *messages: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "panicked" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for message in messages:
        assert message in result.stderr, result.stderr


def own_file(tmp_path: Path, merges: list[list[int]], specials: dict[str, int] | None = None,
             pattern: str = "gpt2") -> Path:
    path = tmp_path / "tok.json"
    path.write_text(json.dumps({"format": own.FORMAT, "version": own.VERSION, "name": "tok",
                                "pattern": {"name": pattern, "regex": pattern}, "merges": merges,
                                "special_tokens": specials or {}}), encoding="utf-8")
    return path


def rank_file(tmp_path: Path, ranks: dict[bytes, int], name: str = "ranks.tiktoken") -> Path:
    path = tmp_path / name
    path.write_text("".join(f"{base64.b64encode(token).decode()} {rank}\n" for token, rank in ranks.items()),
                    encoding="ascii")
    return path


def byte_ranks() -> dict[bytes, int]:
    return {bytes([b]): b for b in range(256)}


def split_tokenizer_json(tmp_path: Path, pattern: str) -> Path:
    """A byte-level tokenizer.json with this Split pattern and a few merges, as tokenizers writes it."""
    hf = Tokenizer(models.BPE(vocab={to_chars(bytes([b])): b for b in range(256)}, merges=[]))
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    hf.decoder = decoders.ByteLevel()
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    return path


def test_a_negative_rank_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "negative.tiktoken"
    path.write_text("YQ== 0\n\nYg== -5\n", encoding="ascii")
    with pytest.raises(TokenizerFileError, match="line 3 gives a negative rank"):
        TiktokenTokenizer.from_file(path, pattern="gpt2")


def test_an_added_token_that_claims_a_byte_id_gets_the_librarys_id(tmp_path: Path) -> None:
    """An edited tokenizer.json gave the byte 0x05's id to "<|x|>": tokenizers encodes "<|x|>"
    as a new id (256 here) and decodes 5 as the byte; we decoded 5 as "<|x|>"."""
    path = split_tokenizer_json(tmp_path, r"\s+|\S")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["added_tokens"] = [{"id": 5, "content": "<|x|>", "single_word": False, "lstrip": False,
                                 "rstrip": False, "normalized": False, "special": True}]
    path.write_text(json.dumps(document), encoding="utf-8")
    library, ours = Tokenizer.from_file(str(path)), HFTokenizer.from_file(path)
    text = "a\x05<|x|>b"
    assert ours.encode(text, "allowed") == library.encode(text, add_special_tokens=False).ids == [97, 5, 256, 98]
    assert ours.decode([5]) == "\x05" and ours.decode([256]) == "<|x|>"
    assert ours.special_tokens == {"<|x|>": 256}


# Decoding: ids that name no token are refused, as tiktoken refuses them.

@pytest.mark.parametrize(("name", "token_id", "problem"), [
    ("cl100k_base", -1, "cl100k_base has ids 0 to 100276"),
    ("cl100k_base", 100261, "gap"),
    ("o200k_base", 199998, "gap"),
    ("o200k_base", 300_000, "o200k_base has ids 0 to 200018"),
    ("gpt2", -5, "has ids 0 to 50256"),
])
def test_bundled_decode_refuses_what_tiktoken_refuses(name: str, token_id: int, problem: str) -> None:
    tokenizer = load_tokenizer(name)
    with pytest.raises(ExplorerError, match=f"unknown token id {token_id}: .*{problem}"):
        tokenizer.decode([15, token_id])
    with pytest.raises(ExplorerError, match=f"unknown token id {token_id}"):
        tokenizer.token_bytes(token_id)
    encoding = BUNDLED[load_tokenizer(name).name]
    reference = tiktoken.Encoding(encoding.name, pat_str=encoding.pattern,
                                  mergeable_ranks=read_ranks(encoding.path).ranks,
                                  special_tokens=encoding.special_tokens)
    with pytest.raises((KeyError, OverflowError, ValueError)):
        reference.decode_bytes([15, token_id])


def test_every_kind_of_file_refuses_negative_and_gap_ids(tmp_path: Path) -> None:
    ours = own.load(own_file(tmp_path, [[97, 97, 256]], {"<|x|>": 300}))  # ids 257-299 are a gap
    export(ours, "hf", tmp_path / "tokenizer.json")
    export(ours, "tiktoken", tmp_path / "ours.tiktoken")
    model = tmp_path / "toy.model"
    model.write_text("minbpe v1\n\n1\n<|x|> 300\n97 97\n", encoding="utf-8")
    kinds = {"own": ours, "hf": load_tokenizer(str(tmp_path / "tokenizer.json")),
             "tiktoken": load_tokenizer(str(tmp_path / "ours.tiktoken"), pattern="gpt2"),
             "minbpe": load_tokenizer(str(model))}
    for kind, tokenizer in kinds.items():
        assert tokenizer.decode([256, 97]) == "aaa", kind
        for bad in (-1, -300, 280, 10**6):
            with pytest.raises(ExplorerError, match=f"unknown token id {bad}"):
                tokenizer.decode([97, bad])


# Corrupt files: refused on load, naming the file and the first offending entry.

@pytest.mark.parametrize(("merges", "specials", "problem"), [
    ([[120, 121, 97]], {}, r"merge 0 \(120 \+ 121 -> 97\) would make id 97 b'xy', but id 97 is already b'a'"),
    ([[97, 98, 256], [120, 121, 256]], {}, "merge 1 .* id 256 is already b'ab'"),
    ([[-1, 97, 256]], {}, "merge 0 .* uses token -1 before it exists"),
    ([[97, 97, 256], [98, 98, 257], [97, 97, 258]], {}, r"merge 2 \(97 \+ 97 -> 258\) repeats the pair of merge 0"),
    ([[97, 97, -2]], {}, "makes an id outside 0 to"),
    ([[97, 97, 256]], {"<|x|>": 97}, "special token '<|x|>' has id 97, which is already the token b'a'"),
    ([[97, 97, 256]], {"<|x|>": 256}, "which is already the token b'aa'"),
    ([[97, 97, 256]], {"<|x|>": 257, "<|y|>": 257}, "has id 257, which is already the token b'<|x|>'"),
    ([[97, 97, 256]], {"<|x|>": -1}, "outside 0 to"),
    ([], {"": 256}, "special token cannot be empty"),
])
def test_inconsistent_own_files_are_refused(tmp_path: Path, merges: list[list[int]], specials: dict[str, int],
                                            problem: str) -> None:
    path = own_file(tmp_path, merges, specials)
    with pytest.raises(TokenizerFileError, match=problem) as caught:
        load_tokenizer(str(path))
    assert str(path) in str(caught.value)


def test_a_special_token_may_share_the_id_of_a_token_with_its_bytes(tmp_path: Path) -> None:
    tokenizer = load_tokenizer(str(own_file(tmp_path, [[97, 97, 256]], {"aa": 256})))  # as HF's trainer allows
    assert tokenizer.encode("aaa", "allowed") == [256, 97] and tokenizer.decode([256]) == "aa"


def test_minbpe_special_on_a_byte_id_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.model"
    path.write_text("minbpe v1\n\n1\n<|x|> 98\n97 97\n", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="has id 98, which is already the token b'b'"):
        load_tokenizer(str(path))


def test_tiktoken_without_every_single_byte_is_refused_on_load(tmp_path: Path) -> None:
    ranks = byte_ranks()
    del ranks[b"z"]
    path = rank_file(tmp_path, ranks)
    with pytest.raises(TokenizerFileError, match="no token for the byte 0x7A"):
        load_tokenizer(str(path), pattern="gpt2")
    try:  # what tiktoken itself does with such ranks: it panics on the first "z"
        tiktoken.Encoding("z", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={}).encode_ordinary("z")
    except BaseException as exc:  # noqa: B036 - a PanicException is a BaseException
        assert rust_panic(exc) is not None
    else:
        pytest.fail("tiktoken no longer panics: the load-time check may be relaxed")


def test_a_special_token_on_the_id_of_a_ranked_token_is_refused(tmp_path: Path) -> None:
    """It would encode as the special token and decode as the ranked one (tiktoken decodes `(`)."""
    path = rank_file(tmp_path, byte_ranks())
    with pytest.raises(TokenizerFileError, match=r"'<s>' has id 40, which is already the token b'\('"):
        TiktokenTokenizer.from_file(path, pattern="gpt2", special_tokens={"<s>": 40})
    assert TiktokenTokenizer.from_file(path, pattern="gpt2", special_tokens={"<s>": 256}).decode([256]) == "<s>"


def test_a_rank_file_with_a_byte_order_mark_says_so(tmp_path: Path) -> None:
    path = rank_file(tmp_path, byte_ranks())
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # (saved by an editor that adds one)
    with pytest.raises(TokenizerFileError, match=r"starts with a byte-order mark \(EF BB BF\).*without one"):
        load_tokenizer(str(path), pattern="gpt2")


# Huge ids: refused at once, not after minutes of allocating.

def _own_huge_merge(tmp_path: Path) -> Path:
    return own_file(tmp_path, [[97, 97, HUGE]])


def _own_huge_special(tmp_path: Path) -> Path:
    return own_file(tmp_path, [[97, 97, 256]], {"<|x|>": HUGE})


def _tiktoken_huge_rank(tmp_path: Path) -> Path:
    return rank_file(tmp_path, {**byte_ranks(), b"ab": HUGE})


def _hf_huge_id(tmp_path: Path) -> Path:
    path = split_tokenizer_json(tmp_path, r"\S+|\s+")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["model"]["vocab"]["ab"] = HUGE
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _minbpe_huge_special(tmp_path: Path) -> Path:
    path = tmp_path / "huge.model"
    path.write_text(f"minbpe v1\n\n1\n<|x|> {HUGE}\n97 97\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("make", [_own_huge_merge, _own_huge_special, _tiktoken_huge_rank, _hf_huge_id,
                                  _minbpe_huge_special])
def test_huge_ids_fail_fast(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    started = time.monotonic()
    with pytest.raises(TokenizerFileError, match=f"{HUGE}|outside 0 to|below"):
        load_tokenizer(str(path), pattern="gpt2")
    assert time.monotonic() - started < 5


# Rust panics: our error, and nothing of the panic on stderr.

def test_tiktoken_panic_on_a_custom_pattern_becomes_an_error(tmp_path: Path) -> None:
    tokenizer = TiktokenTokenizer.from_file(rank_file(tmp_path, byte_ranks()), pattern=BACKTRACKING)
    assert tokenizer.encode("aab") == [97, 97, 98]
    with pytest.raises(ExplorerError, match="tiktoken failed to encode .*BacktrackLimitExceeded"):
        tokenizer.encode(STUCK)


def test_tiktoken_panic_on_a_pattern_that_matches_empty_text_says_so(tmp_path: Path) -> None:
    """tiktoken panics on `x*` ("range end index 2 out of range"); the message blamed complexity."""
    tokenizer = TiktokenTokenizer.from_file(rank_file(tmp_path, byte_ranks()), pattern="x*")
    with pytest.raises(ExplorerError, match="can match empty text, which tiktoken cannot take") as caught:
        tokenizer.encode("hello the")
    assert "too complex" not in str(caught.value)


def test_tokenizers_panic_on_a_split_pattern_becomes_an_error(tmp_path: Path) -> None:
    tokenizer = HFTokenizer.from_file(split_tokenizer_json(tmp_path, ONIG_RETRY))
    assert tokenizer.encode("aab") == Tokenizer.from_file(str(tmp_path / "tokenizer.json")).encode("aab").ids
    with pytest.raises(ExplorerError, match="tokenizers failed to encode .*retry-limit"):
        tokenizer.encode(STUCK)


def test_held_stderr_is_passed_on_unless_the_call_panicked(capfd: pytest.CaptureFixture[str]) -> None:
    with RustCall(lambda panic: ExplorerError(panic), hold=True):
        os.write(2, b"native warning\n")
    assert "native warning" in capfd.readouterr().err
    ranks = byte_ranks()
    del ranks[b"z"]
    with pytest.raises(ExplorerError, match="no entry found"):
        with RustCall(lambda panic: ExplorerError(panic), hold=True):
            tiktoken.Encoding("x", pat_str=r".", mergeable_ranks=ranks, special_tokens={}).encode_ordinary("z")
    assert "panicked" not in capfd.readouterr().err
    with RustCall(lambda panic: ExplorerError(panic), hold=True):
        os.write(2, b"still on\n")  # file descriptor 2 is back where it was
    assert "still on" in capfd.readouterr().err


# Names: patterns, special tokens and bundled encodings.

@pytest.mark.parametrize(("pattern", "hint"), [("gpt4", "did you mean gpt2?"), ("GPT2", "did you mean gpt2?"),
                                                ("cl100k_base", "did you mean cl100k?"), ("words", "")])
def test_a_bare_word_that_is_no_pattern_name_is_refused(pattern: str, hint: str) -> None:
    with pytest.raises(PatternError, match=f"{pattern!r} is not a pattern name; {hint}") as caught:
        Pretokenizer(pattern)
    assert ", ".join(NAMED_PATTERNS) in str(caught.value)
    assert f"regex:{pattern}" in str(caught.value)
    with pytest.raises(PatternError):
        BpeTrainer(300, pattern)


def test_a_word_can_still_be_forced_as_a_regex(tmp_path: Path) -> None:
    for forced in ("regex:gpt4", "(?:gpt4)"):
        assert Pretokenizer(forced).pieces("gpt4 gpt4") == ["gpt4", " ", "gpt4"]
    trainer = BpeTrainer(258, "regex:gpt4")
    trainer.add_text("gpt4 gpt4 gpt4")
    tokenizer = own.from_merges(list(trainer.merges()), trainer.pretokenizer.regex)
    own.save(tokenizer, tmp_path / "forced.json")
    assert load_tokenizer(str(tmp_path / "forced.json")).encode("gpt4") == tokenizer.encode("gpt4")
    assert Pretokenizer("regex:[a-z]+").regex == "[a-z]+"


def test_empty_special_tokens_are_refused_before_training() -> None:
    with pytest.raises(TrainingError, match="special token cannot be empty"):
        check_vocab_size(300, ["<|a|>", ""])
    with pytest.raises(TrainingError, match="special token cannot be empty"):
        BpeTrainer(300, "gpt2", [""])


@pytest.mark.parametrize(("spec", "suggestion"), [("o200k", "o200k_base"), ("CL100K_BASE", "cl100k_base"),
                                                  ("GPT-4", "cl100k_base"), ("r50k", "r50k_base")])
def test_a_near_miss_of_a_bundled_name_suggests_it(spec: str, suggestion: str) -> None:
    with pytest.raises(TokenizerFileError, match=f"no such file.*did you mean {suggestion}\\b"):
        load_tokenizer(spec)


# The command line: one line, exit 1, nothing written.

def test_cli_decode_refuses_negative_and_gap_ids() -> None:
    assert_one_line_error(run("decode", "--tokenizer", "cl100k_base", "--", "-1"), "unknown token id -1",
                          "ids 0 to 100276")
    assert_one_line_error(run("decode", "--tokenizer", "cl100k_base", "100261"), "100261", "gap")
    assert_one_line_error(run("decode", "--tokenizer", "o200k_base", "15339", "199998"), "199998", "gap")


def test_cli_refuses_corrupt_and_huge_files(tmp_path: Path) -> None:
    assert_one_line_error(run("encode", "--tokenizer", str(own_file(tmp_path, [[120, 121, 97]])), "--text", "a"),
                          str(tmp_path), "merge 0", "already b'a'")
    started = time.monotonic()
    assert_one_line_error(run("encode", "--tokenizer", str(_own_huge_merge(tmp_path)), "--text", "a"), str(HUGE))
    assert_one_line_error(run("encode", "--tokenizer", str(_tiktoken_huge_rank(tmp_path)), "--pattern", "gpt2",
                              "--text", "a"), str(HUGE))
    assert time.monotonic() - started < 60
    ranks = byte_ranks()
    del ranks[b"z"]
    assert_one_line_error(run("encode", "--tokenizer", str(rank_file(tmp_path, ranks, "noz.tiktoken")), "--pattern",
                              "gpt2", "--text", "z"), "no token for the byte 0x7A")


def test_cli_panics_are_one_line(tmp_path: Path) -> None:
    assert_one_line_error(run("encode", "--tokenizer", str(rank_file(tmp_path, byte_ranks())), "--pattern",
                              BACKTRACKING, "--text", STUCK), "tiktoken failed to encode")
    assert_one_line_error(run("encode", "--tokenizer", str(split_tokenizer_json(tmp_path, ONIG_RETRY)),
                              "--text", STUCK), "tokenizers failed to encode", "simplify the pattern")


def test_cli_refuses_bad_names_before_any_work(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world\n" * 10, encoding="utf-8")
    out = tmp_path / "out.json"
    assert_one_line_error(run("train", "--vocab-size", "300", "--special", "", "--out", str(out), str(corpus)),
                          "special token cannot be empty")
    assert_one_line_error(run("train", "--vocab-size", "300", "--pattern", "GPT2", "--out", str(out), str(corpus)),
                          "'GPT2' is not a pattern name; did you mean gpt2?")
    assert not out.exists()
    assert_one_line_error(run("chunks", "--pattern", "gpt4", "--text", "hello"), "did you mean gpt2?",
                          "regex:gpt4")
    forced = run("chunks", "--pattern", "regex:hello", "--text", "hello world")
    assert forced.returncode == 0 and forced.stdout.startswith("0\t5\t"), forced.stderr
    assert_one_line_error(run("encode", "--tokenizer", "o200k", "--text", "hi"), "did you mean o200k_base")


def test_tokenizer_json_with_an_id_given_twice_is_refused(tmp_path: Path) -> None:
    path = split_tokenizer_json(tmp_path, r"\S+|\s+")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["model"]["vocab"]["ab"] = 97  # already "a"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="gives the id 97 to 'a' and 'ab'"):
        load_tokenizer(str(path))


def test_a_special_token_spelt_like_a_byte_level_token_shares_its_id(tmp_path: Path) -> None:
    """`Ġ` is how a byte-level vocabulary spells the space: Hugging Face's trainer gives both one id."""
    tokenizer = load_tokenizer(str(own_file(tmp_path, [[97, 97, 256]], {"Ġ": 32})))
    assert tokenizer.decode([32]) == " " and tokenizer.encode("a Ġ", "allowed") == [97, 32, 32]


DEEP = "[" * 100_000  # Python's JSON parser gives up on it with RecursionError


@pytest.mark.parametrize("name", ["tokenizer.json", "tekken.json", "mine.json"])
def test_json_nested_too_deeply_is_refused_in_one_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="nests lists or objects too deeply"):
        load_tokenizer(str(path))
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer.json").write_text(DEEP, encoding="utf-8")
    done = run("encode", "--tokenizer", str(folder), "--text", "hi")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "too deeply" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize(("insert", "problem"), [
    ('"x": ' + "9" * 5000 + ", ", "holds a number of over 4,300 digits"),  # Python refuses to convert it
    ('"x": "\\ud800", ', r"holds \ud800, half of a character"),  # a lone surrogate: printing it would fail
])
def test_json_python_cannot_use_is_refused_in_one_line(tmp_path: Path, insert: str, problem: str) -> None:
    path = own_file(tmp_path, [[97, 97, 256]])
    path.write_text(path.read_text(encoding="utf-8").replace("{", "{" + insert, 1), encoding="utf-8")
    for command in (("encode", "--text", "hi"), ("audit",)):
        done = run(command[0], "--tokenizer", str(path), *command[1:])
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert problem in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_an_emoji_escaped_as_two_halves_in_a_tokenizer_file_is_text(tmp_path: Path) -> None:
    path = own_file(tmp_path, [[97, 97, 256]], {"\U0001f600": 257})
    path.write_text(json.dumps(json.loads(path.read_text(encoding="utf-8")), ensure_ascii=True), encoding="utf-8")
    assert "\\ud83d\\ude00" in path.read_text(encoding="utf-8")
    assert load_tokenizer(str(path)).encode("aa\U0001f600", "allowed") == [256, 257]


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("special_tokens", 255, "damaged tokenizer file"), ("special_tokens", "x", "damaged tokenizer file"),
    # int() read these as 1, 256 and 256: a file edited by hand, or written by another program
    ("special_tokens", {"<s>": True}, "True where a whole number belongs"),
    ("merges", [[97, 97, 256.0]], "256.0 where a whole number belongs"),
    ("merges", [[97, 97, "256"]], "'256' where a whole number belongs")])
def test_own_file_with_a_field_of_the_wrong_type_is_refused(tmp_path: Path, field: str, value: object,
                                                           problem: str) -> None:
    path = own_file(tmp_path, [[97, 97, 256]])
    document = json.loads(path.read_text(encoding="utf-8"))
    document[field] = value
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=problem):
        load_tokenizer(str(path))


@pytest.mark.parametrize("value", [1, "x", {"id": 5}])
def test_tokenizer_json_whose_added_tokens_are_no_list_is_refused(tmp_path: Path, value: object) -> None:
    path = split_tokenizer_json(tmp_path, r"\S+|\s+")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["added_tokens"] = value
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match='"added_tokens" is .*, not a list'):
        load_tokenizer(str(path))


def test_a_pattern_holding_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    """JSON can spell one (\\ud800); no UTF-8 file can hold it, so exporting such a file failed."""
    path = own_file(tmp_path, [[97, 97, 256]], pattern="\\w+|\ud800")
    with pytest.raises(TokenizerFileError, match=r"it holds \\ud800, half of a character"):  # (any string in the file)
        load_tokenizer(str(path))
    with pytest.raises(PatternError, match="lone surrogate"):
        Pretokenizer("x|\udcff")
