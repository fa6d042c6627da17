"""The bundled tiktoken encodings: ids identical to tiktoken's, and the recovered merge forest.

The reference is tiktoken's own registry (`tiktoken.get_encoding`), offline: its download
cache is filled with the bundled files, so patterns and special tokens come from tiktoken too.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tiktoken_ext import openai_public

from explorer.core.algorithms.merges import recover_merges
from explorer.core.cache import cache_dir, merges_path, read_merges, read_vocab, vocab_name
from explorer.core.errors import ExplorerError, SpecialTokenError, TokenizerFileError
from explorer.core.formats import tiktoken_file
from explorer.core.formats.tekken import read_tekken
from explorer.core.formats.tiktoken_file import BUNDLED, BundledEncoding, read_ranks, write_ranks
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
from tests.conftest import HARD_CASES
from tests.corpora import KINDS, corpus_text

NAMES = [name for name in BUNDLED if name in openai_public.ENCODING_CONSTRUCTORS]  # tiktoken's own
SLICE = 120_000  # bytes of each corpus per encoding: the whole suite stays fast
URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> object:
    """tiktoken.get_encoding, with tiktoken's cache pre-filled so it never reaches the network."""
    folder = tmp_path_factory.mktemp("tiktoken-cache")
    for name, encoding in BUNDLED.items():
        shutil.copy(encoding.path, folder / hashlib.sha1(URL.format(name).encode()).hexdigest())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
        encodings = {name: tiktoken.get_encoding(name) for name in NAMES}
    return encodings


@cache
def loaded(name: str) -> TiktokenTokenizer:
    return TiktokenTokenizer.bundled(name)


@cache
def texts() -> list[str]:
    """Whole corpus slices (long enough to be encoded in several windows) and the hard cases."""
    return [corpus_text(kind, SLICE) for kind in KINDS] + HARD_CASES


@pytest.mark.parametrize("name", NAMES)
def test_adapter_equals_tiktoken(name: str, reference: dict[str, tiktoken.Encoding]) -> None:
    ours, theirs = loaded(name), reference[name]
    assert ours.vocab_size == theirs.n_vocab and ours.special_tokens == theirs._special_tokens
    for text in texts():
        assert ours.encode(text) == theirs.encode(text), text[:40]
    text = "start<|endoftext|>middle<|endoftext|> end"
    assert ours.encode(text, special="allowed") == theirs.encode(text, allowed_special="all")
    assert ours.encode(text, special="plain") == theirs.encode_ordinary(text)
    with pytest.raises(SpecialTokenError) as caught:
        ours.encode(text)
    assert caught.value.position == 5


@pytest.mark.parametrize("name", NAMES)
def test_core_bpe_over_recovered_merges_equals_tiktoken(name: str, reference: dict[str, tiktoken.Encoding]) -> None:
    bpe, theirs = loaded(name).as_bpe(), reference[name]
    for text in texts():
        assert bpe.encode(text) == theirs.encode(text), text[:40]
    text = "x<|endoftext|>y"
    assert bpe.encode(text, special="allowed") == theirs.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", NAMES)
def test_core_bpe_on_a_cold_cache_equals_tiktoken(name: str, reference: dict[str, tiktoken.Encoding]) -> None:
    """A fresh encoder meets thousands of new chunks at once and merges them together in numpy,
    over every pair whose bytes are a token (rank_pairs): tiktoken's ids all the same."""
    bpe, theirs = TiktokenTokenizer.bundled(name).as_bpe(), reference[name]
    text = "".join(texts())
    assert bpe.encode(text, special="plain") == theirs.encode_ordinary(text)
    assert "_batch_tables" in vars(bpe)  # the numpy path ran


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_forest_of_a_bundled_encoding(name: str) -> None:
    tokenizer = loaded(name)
    forest = tokenizer.forest
    merged = sum(1 for token_id in range(tokenizer.vocab_size) if forest.parents(token_id) is not None)
    specials = len(set(tokenizer.special_tokens.values()))  # o200k_harmony gives two names one id
    assert merged == tokenizer.vocab_size - 256 - specials - _holes(tokenizer)
    hello = tokenizer.encode(" hello")[0]
    left, right = forest.parents(hello)  # type: ignore[misc]
    assert tokenizer.token_bytes(left) + tokenizer.token_bytes(right) == b" hello"
    assert forest.rank(left) < forest.rank(hello) and hello in forest.children(left)
    assert TiktokenTokenizer.bundled(name).merges == tokenizer.merges
    steps = tokenizer.trace(" tokenization")
    assert list(steps[-1].ids) == tokenizer.encode(" tokenization")


def test_merges_of_another_file_are_recovered_once_then_cached(tmp_path: Path) -> None:
    lines = BUNDLED["r50k_base"].path.read_bytes().splitlines(keepends=True)[:3000]  # not a bundled file
    path = tmp_path / "small.tiktoken"
    path.write_bytes(b"".join(lines))
    tokenizer = TiktokenTokenizer.from_file(path, pattern="gpt2")
    assert not merges_path(tokenizer.sha256).exists()
    merges = tokenizer.merges
    assert merges == recover_merges(read_ranks(path).vocab) and len(merges) > 2000
    assert merges_path(tokenizer.sha256).exists()
    assert TiktokenTokenizer.from_file(path, pattern="gpt2").merges == merges  # read back from the cache


def _holes(tokenizer: TiktokenTokenizer) -> int:
    """Ids in the gaps of the rank table, which decoding refuses as tiktoken does."""
    holes = 0
    for token_id in range(tokenizer.vocab_size):
        try:
            tokenizer.decode_bytes([token_id])
        except ExplorerError:
            holes += 1
    return holes


@pytest.mark.parametrize("name", sorted({e.file_name: name for name, e in BUNDLED.items() if e.shipped}.values()))  # each file once
def test_shipped_merges_are_the_recovered_ones(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # an empty user cache: no merges read from or written there
    encoding = BUNDLED[name]
    shipped = read_merges(encoding.merges_path)
    assert shipped == recover_merges(shipped_vocab(encoding))
    assert TiktokenTokenizer.bundled(name).merges == shipped
    assert not any(tmp_path.rglob("merges-*.bin"))


def shipped_vocab(encoding: BundledEncoding) -> list[bytes]:
    if encoding.is_tekken:
        return read_tekken(encoding.path, expected_sha256=encoding.sha256).ranks.vocab
    return read_ranks(encoding.path, expected_sha256=encoding.sha256).vocab


def test_recover_merges_uses_lower_ranks_only() -> None:
    # "abc" could be a+bc or ab+c: BPE over its bytes merges the lower-ranked "bc" first.
    vocab = [b"a", b"b", b"c", b"bc", b"ab", b"abc", b"abcab"]
    assert recover_merges(vocab) == [(1, 2, 3), (0, 1, 4), (0, 3, 5), (5, 4, 6)]
    # A token that no pair of lower-ranked tokens builds gets no merge.
    assert recover_merges([b"a", b"b", b"c", b"abc"]) == []


def test_gpt2_alias_and_unknown_name() -> None:
    assert loaded("r50k_base").encode("hello") == TiktokenTokenizer.bundled("gpt2").encode("hello")
    with pytest.raises(Exception, match="no bundled encoding 'gpt5'"):
        TiktokenTokenizer.bundled("gpt5")


def test_user_tiktoken_file_needs_a_pattern_unless_known(tmp_path: Path) -> None:
    copy = tmp_path / "mine.tiktoken"
    shutil.copy(BUNDLED["r50k_base"].path, copy)
    assert TiktokenTokenizer.from_file(copy).encode("hi <|endoftext|>", "allowed")[-1] == 50256
    small = tmp_path / "small.tiktoken"
    small.write_bytes(b"\n".join(line for line in copy.read_bytes().splitlines()[:300]) + b"\n")
    with pytest.raises(TokenizerFileError, match="give its pattern"):
        TiktokenTokenizer.from_file(small)
    tokenizer = TiktokenTokenizer.from_file(small, pattern="gpt2")
    assert tokenizer.decode(tokenizer.encode("hello world")) == "hello world"
    assert tokenizer.special_tokens == {}


def test_a_custom_pattern_that_leaves_text_unmatched_is_refused_not_dropped(tmp_path: Path) -> None:
    """tiktoken encodes only what the pattern matches: with 'l+', "hello" gave the ids of "ll"
    alone, the rest lost without a word (and the token spans shifted onto the wrong letters)."""
    copy = tmp_path / "mine.tiktoken"
    shutil.copy(BUNDLED["r50k_base"].path, copy)
    with pytest.raises(ExplorerError, match=r"leaves part of the text unmatched \('he' at character 0\)"):
        TiktokenTokenizer.from_file(copy, pattern="l+").encode("hello")
    covering = TiktokenTokenizer.from_file(copy, pattern=r"l+|[\s\S]")
    assert covering.decode(covering.encode("hello")) == "hello"
    assert covering.encode("hello") == tiktoken.Encoding("x", pat_str=r"l+|[\s\S]", mergeable_ranks=covering._ranks,
                                                         special_tokens={}).encode("hello")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"IQ== 0\n!!!! 1\n", "line 2: bad base64"),
        (b"IQ== 0\nIg==\n", "line 2: expected 'base64-token rank'"),
        (b"IQ== 0\nIg== x\n", "line 2: the rank 'x'"),
        (b"IQ== 0\nIQ== 1\n", "appears twice"),
        (b"", "empty"),
    ],
)
def test_bad_tiktoken_files(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(content)
    with pytest.raises(TokenizerFileError, match=problem) as caught:
        read_ranks(path)
    assert str(path) in str(caught.value)


def test_a_rank_file_read_again_comes_from_the_cache_equal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "mine.tiktoken"
    write_ranks([bytes([b]) for b in range(256)] + [b"", b"ab", b"abc"], path)  # id 256 unused
    first = read_ranks(path)
    assert (first.ranks[b"abc"], first.vocab[256], len(first.ranks)) == (258, b"", 258)
    entry = cache_dir() / vocab_name(first.sha256)
    assert entry.is_file()
    monkeypatch.setattr(tiktoken_file, "_parse_ranks", lambda *_: pytest.fail("parsed although cached"))
    assert read_ranks(path) == first


def test_a_damaged_or_stale_cache_entry_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "mine.tiktoken"
    write_ranks([bytes([b]) for b in range(256)] + [b"ab"], path)
    first = read_ranks(path)
    entry = cache_dir() / vocab_name(first.sha256)
    data = bytearray(entry.read_bytes())
    data[-1] ^= 1  # one bit of the last token (b"ab" would read b"ac")
    entry.write_bytes(bytes(data))
    assert read_vocab(first.sha256) is None
    assert read_ranks(path) == first  # parsed again, and the entry mended
    assert read_vocab(first.sha256) == first.vocab
    write_ranks([bytes([b]) for b in range(256)] + [b"ba"], path)  # an edited file: another hash
    assert read_ranks(path).vocab[256] == b"ba"
    entry.write_bytes(b"")
    assert read_ranks(path).vocab[256] == b"ba"


def test_a_cache_that_cannot_be_written_only_costs_a_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    path = tmp_path / "mine.tiktoken"
    write_ranks([bytes([b]) for b in range(256)] + [b"ab"], path)
    assert read_ranks(path).ranks[b"ab"] == 256 == read_ranks(path).ranks[b"ab"]


def test_hash_mismatch_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "o200k_base.tiktoken"
    path.write_bytes(b"IQ== 0\n")
    with pytest.raises(TokenizerFileError, match="not the published") as caught:
        read_ranks(path, expected_sha256=BUNDLED["o200k_base"].sha256)
    assert str(path) in str(caught.value)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), text=st.text(alphabet="ab c", max_size=80))
def test_core_bpe_of_a_rank_file_follows_tiktoken(seed: int, text: str) -> None:
    """A vocabulary grown by joining random pairs (many tokens spelt by several pairs, some only
    by higher-ranked ones, as Llama 3's are): our BPE over its ranks gives tiktoken's ids."""
    rng = random.Random(seed)
    vocab = [bytes([b]) for b in range(256)]
    letters = [b"a", b"b", b"c", b" "]
    while len(vocab) < 256 + 60:
        joined = rng.choice(letters) + rng.choice(letters)
        if joined not in vocab and len(joined) <= 6:
            vocab.append(joined)
            letters.append(joined)
    grown = vocab[256:]
    rng.shuffle(grown)  # ranks no longer follow the order the tokens were built in
    vocab[256:] = grown
    ranks = {token: rank for rank, token in enumerate(vocab)}
    theirs = tiktoken.Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    path = Path(tempfile.mkdtemp()) / "toy.tiktoken"
    write_ranks(vocab, path)
    ours = TiktokenTokenizer.from_file(path, pattern=r"\S+|\s+")
    assert ours.as_bpe().encode(text) == theirs.encode(text)
    word = text.split(" ")[0].encode()
    if word:  # the encode trace ends in the ids of the chunk
        steps = ours.trace(word)
        assert (list(steps[-1].ids) if steps else ours.as_bpe().byte_tokens(word)) == theirs.encode_ordinary(word.decode())


def test_a_chunk_that_is_a_token_is_taken_whole_as_tiktoken_does(tmp_path: Path) -> None:
    """`abcd` is a token that no merge builds (`bc` is the only other one): tiktoken looks a
    chunk up whole before merging, and so does the built-in encoder over the recovered merges."""
    import base64

    tokens = [bytes([b]) for b in range(256)] + [b"bc", b"abcd"]
    path = tmp_path / "unreachable.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % rank for rank, t in enumerate(tokens)))
    tokenizer = TiktokenTokenizer.from_file(path, pattern="gpt2")
    assert tokenizer.encode("abcd xbcd") == [257, 32, 120, 256, 100]  # tiktoken's own ids
    assert tokenizer.as_bpe().encode("abcd xbcd") == tokenizer.encode("abcd xbcd")


_MIXED = st.sampled_from(["the", " the", "The", " cat", "'s", "'LL", "don't", "123", "4567", " ", "  ", "\n", "\n\n",
                          "\t", " \n", "\r\n", "...", "!!", " -", "é", "ä", "\xa0", "…", "“", "🎂", "🏳️‍🌈", "न", "नमस्ते",
                          "中文", "ß", "e\u0301", "\u200d", "\x00", "\x7f", "ＡＢ", "Ǆ", "ⅷ", "٣", "\U0003EA9D"])


@settings(max_examples=120, deadline=None)
@given(name=st.sampled_from(["cl100k_base", "o200k_base", "r50k_base"]),
       parts=st.lists(st.one_of(_MIXED, st.text(max_size=12)), max_size=120),
       few=st.sampled_from([1, 32]), waiting=st.sampled_from([1, 7, 64]), together=st.sampled_from([1, 5, 1 << 14]),
       limit=st.sampled_from([3, 1 << 20]), longest=st.sampled_from([2, 6, 256]))
def test_a_cold_cache_follows_tiktoken_on_any_text(name: str, parts: list[str], few: int, waiting: int, together: int,
                                                   limit: int, longest: int,
                                                   reference: dict[str, tiktoken.Encoding]) -> None:
    """Arbitrary Unicode and byte-heavy text on an empty chunk cache, every new chunk merged in
    numpy (merge_batch), in small windows that wait for each other's new chunks and a cache
    that fills up, with whole tokens, long chunks (over `longest` bytes: the heap) and merged
    ones in one fill: tiktoken's ids. (On real text these paths need megabytes to be reached.)"""
    from explorer.core.algorithms import cached_encoding as bpe_module
    from explorer.core.algorithms import merge_batch
    from explorer.core.pretokenization.pretokenize import Pretokenizer

    text = "".join(parts)
    windows = Pretokenizer.iter_pieces
    bpe = loaded(name).as_bpe()
    bpe._cache.clear()  # cold
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bpe_module, "_MANY", 1)
        patch.setattr(bpe_module, "_WAITING", waiting)
        patch.setattr(bpe_module, "_TOGETHER", together)
        patch.setattr(bpe_module, "_CACHE_LIMIT", limit)
        patch.setattr(bpe_module, "_BATCH_LONGEST", longest)
        patch.setattr(merge_batch, "_FEW", few)
        patch.setattr(Pretokenizer, "iter_pieces", lambda self, text: windows(self, text, 16))  # many windows
        assert bpe.encode(text, special="plain") == reference[name].encode_ordinary(text)
    assert all(isinstance(ids, tuple) and ids for ids in bpe._cache.values())  # no list left unfilled


def test_a_failed_encode_leaves_no_empty_chunk_behind(reference: dict[str, tiktoken.Encoding]) -> None:
    """Chunking that fails (a custom pattern's timeout) or merging that is interrupted while
    batches wait for their new chunks to be merged: none of those chunks may stay in the cache
    without its ids."""
    from explorer.core.errors import PatternTimeoutError
    from explorer.core.pretokenization.pretokenize import Pretokenizer

    windows = Pretokenizer.iter_pieces

    def timing_out(self: Pretokenizer, text: str) -> Iterator[list[str]]:
        yield from windows(self, text, 16)
        raise PatternTimeoutError(self.regex, 1.0)

    def interrupted(data: bytes) -> list[int]:
        raise KeyboardInterrupt

    bpe, theirs = loaded("cl100k_base").as_bpe(), reference["cl100k_base"]
    words = " ".join(f"w{index}x" for index in range(300))
    for failing, merge, error in [(timing_out, bpe.encode_bytes, PatternTimeoutError),
                                  (lambda self, text: windows(self, text, 16), interrupted, KeyboardInterrupt)]:
        bpe._cache.clear()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Pretokenizer, "iter_pieces", failing)  # many windows, then the failure
            patch.setattr(bpe, "encode_bytes", merge)
            with pytest.raises(error):
                bpe.encode(words, special="plain")
        assert bpe.encode(words, special="plain") == theirs.encode_ordinary(words)


def test_threads_sharing_a_cold_cache_get_tiktokens_ids(reference: dict[str, tiktoken.Encoding]) -> None:
    """Two threads encode with one tokenizer (a worker and the window): neither may meet the
    other's new chunks before their ids are in, nor add chunks under it. A tiny switch interval
    makes the threads take turns inside each other's batches."""
    import sys
    import threading

    from explorer.core.algorithms import cached_encoding as bpe_module
    from explorer.core.pretokenization.pretokenize import Pretokenizer

    windows = Pretokenizer.iter_pieces
    bpe, theirs = loaded("o200k_base").as_bpe(), reference["o200k_base"]
    bpe._cache.clear()
    texts = [" ".join(f"{word}{index}" for index in range(2000)) for word in ("left", "right")]
    results: dict[int, list[int]] = {}
    interval = sys.getswitchinterval()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bpe_module, "_MANY", 1)
        patch.setattr(Pretokenizer, "iter_pieces", lambda self, text: windows(self, text, 64))
        sys.setswitchinterval(1e-6)
        try:
            threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, bpe.encode(texts[i], "plain")))
                       for i in range(2)]
            threads.append(threading.Thread(target=lambda: results.__setitem__(
                2, [i for piece in bpe.pretokenizer.pieces(texts[0]) for i in bpe.encode_chunk(piece)])))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            sys.setswitchinterval(interval)
    assert results[0] == results[2] == theirs.encode_ordinary(texts[0])
    assert results[1] == theirs.encode_ordinary(texts[1])


def test_an_encode_never_waits_for_another_threads_cold_fill(reference: dict[str, tiktoken.Encoding]) -> None:
    """The window encodes a word while a worker's cold encode of a corpus holds the cache (its
    new chunks waiting as empty lists): the window gets tiktoken's ids at once, not when the
    worker is done, and keeps nothing in the cache under it."""
    import threading

    bpe, theirs = loaded("cl100k_base").as_bpe(), reference["cl100k_base"]
    text = "Hello world, नमस्ते 👋🏽 tokenization"
    bpe._cache.clear()
    bpe._cache[" world"] = []  # a chunk the worker met and has not filled yet
    results: list[list[int]] = []
    bpe._cache_lock.acquire()  # as the worker's encode holds it while its windows wait
    try:
        thread = threading.Thread(target=lambda: results.append(bpe.encode(text, "plain")), daemon=True)
        thread.start()
        thread.join(5)
        assert not thread.is_alive(), "the encode waited for the other thread's encode to end"
        assert bpe.encode_chunk(" world") == tuple(theirs.encode_ordinary(" world"))
        assert list(bpe._cache) == [" world"] and bpe._cache[" world"] == []  # nothing added under the worker
    finally:
        del bpe._cache[" world"]  # (the worker would fill it)
        bpe._cache_lock.release()
    assert results == [theirs.encode_ordinary(text)]
    assert bpe.encode(text, "plain") == theirs.encode_ordinary(text)  # the worker gone: cached as usual


def test_a_tokenizer_pickles_for_a_child_process() -> None:
    import pickle

    bpe = loaded("r50k_base").as_bpe()
    bpe.encode("hello world", "plain")
    copy = pickle.loads(pickle.dumps(bpe))
    assert copy.encode("hello world, again", "plain") == bpe.encode("hello world, again", "plain")
