"""tiktoken's merge rule on many chunks at once: the pair table of a rank file (rank_pairs) and the
numpy batch merge over it (merge_batch), against tiktoken itself."""

from __future__ import annotations

import random

import numpy as np
import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.algorithms import cached_encoding, merge_batch, rank_pairs
from explorer.core.cache import cache_dir
from explorer.core.formats.tiktoken_file import write_ranks
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer


def splits_one_by_one(ranks: dict[bytes, int]) -> set[tuple[int, int, int]]:
    """Every (left, right, joined) with bytes(left) + bytes(right) == bytes(joined), the slow way."""
    return {(ranks[token[:cut]], ranks[token[cut:]], joined) for token, joined in ranks.items()
            for cut in range(1, len(token)) if token[:cut] in ranks and token[cut:] in ranks}


def as_set(joins: np.ndarray) -> set[tuple[int, int, int]]:
    return set(map(tuple, joins.tolist()))


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base"])
def test_pair_table_lists_every_split_of_every_token(name: str) -> None:
    ranks = TiktokenTokenizer.bundled(name)._ranks
    joins = rank_pairs.joinable_pairs(ranks)
    assert len(joins) == len(as_set(joins)) and as_set(joins) == splits_one_by_one(ranks)


def test_pair_table_confirms_what_the_hash_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a hash that only adds the bytes up, `ad` looks like the token `bc`: the byte check
    turns the false pair (bc, z) for `adz` away; anagram tokens make the keys collide, and the
    table is then made one split at a time."""
    monkeypatch.setattr(rank_pairs, "_BASE", np.uint64(1))
    ranks = {token: rank for rank, token in enumerate([b"a", b"b", b"c", b"d", b"z", b"bc", b"adz"])}
    assert as_set(rank_pairs.joinable_pairs(ranks)) == {(1, 2, 5)}
    ranks[b"cb"] = len(ranks)  # the same bytes as `bc`, reordered: the same key
    assert as_set(rank_pairs.joinable_pairs(ranks)) == {(1, 2, 5), (2, 1, 7)}


def test_pair_table_is_kept_in_the_user_cache() -> None:
    ranks = {token: rank for rank, token in enumerate([b"a", b"b", b"ab", b"ba", b"aba"])}
    path = cache_dir() / "joins-0123abcd.bin"
    path.unlink(missing_ok=True)
    made = rank_pairs.cached_joinable_pairs(ranks, "0123abcd")
    assert path.exists() and as_set(made) == splits_one_by_one(ranks)
    assert as_set(rank_pairs.cached_joinable_pairs({}, "0123abcd")) == as_set(made)  # read back, not recomputed
    data = bytearray(path.read_bytes())
    data[-1] ^= 1  # damaged: its checksum no longer matches, so it is made again
    path.write_bytes(bytes(data))
    assert as_set(rank_pairs.cached_joinable_pairs(ranks, "0123abcd")) == as_set(made)
    assert rank_pairs.cached_joinable_pairs(ranks, "0123abcd").tolist() == made.tolist()


def grown_vocabulary(seed: int, size: int = 40) -> list[bytes]:
    """Tokens made by joining random pairs, then ranked in a shuffled order: many are spelt by
    several pairs, and many join a neighbour into a lower-ranked token (as Llama 3's do)."""
    rng = random.Random(seed)
    vocab = [bytes([b]) for b in range(256)]
    letters = [b"a", b"b"]
    while len(vocab) < 256 + size:
        joined = rng.choice(letters) + rng.choice(letters)
        if joined not in vocab and len(joined) <= 8:
            vocab.append(joined)
            letters.append(joined)
    grown = vocab[256:]
    rng.shuffle(grown)
    vocab[256:] = grown
    return vocab


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**6), words=st.lists(st.text(alphabet="ab", min_size=1, max_size=40), min_size=1,
                                                  max_size=60), few=st.sampled_from([1, 32]))
def test_a_cold_cache_merges_a_rank_files_chunks_together_as_tiktoken(seed: int, words: list[str], few: int,
                                                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every new chunk goes through the numpy rounds (to the end, or the last ones one by one
    from where they stand): tiktoken's ids all the same."""
    vocab = grown_vocabulary(seed)
    ranks = {token: rank for rank, token in enumerate(vocab)}
    theirs = tiktoken.Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    path = tmp_path_factory.mktemp("toy") / "toy.tiktoken"
    write_ranks(vocab, path)
    ours = TiktokenTokenizer.from_file(path, pattern=r"\S+|\s+").as_bpe()
    text = " ".join(words)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cached_encoding, "_MANY", 1)  # any number of new chunks is merged together
        patch.setattr(merge_batch, "_FEW", few)
        assert ours.encode(text) == theirs.encode(text)
    assert "_batch_tables" in vars(ours)  # the numpy path ran


def test_merging_every_place_of_a_pair_at_once_would_differ_from_tiktoken() -> None:
    """Why some pairs merge at their leftmost place only: `bb` joins a `b` into the lower-ranked
    `bbb`, so in `bbbb` tiktoken makes `bbb` after the first `bb`, before any second `bb`."""
    vocab = [bytes([b]) for b in range(256)] + [b"bbb", b"bb"]  # ranks 256, 257
    ranks = {token: rank for rank, token in enumerate(vocab)}
    theirs = tiktoken.Encoding("toy", pat_str=r"\S+", mergeable_ranks=ranks, special_tokens={})
    table = merge_batch.PairRanks.of_joins(rank_pairs.joinable_pairs(ranks), len(vocab))
    assert table.one_at_a_time is not None and table.one_at_a_time[257] and not table.one_at_a_time[256]
    assert theirs.encode_ordinary("bbbb") == [256, 98]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(merge_batch, "_FEW", 1)  # numpy to the end
        assert merge_batch.merge_chunks([b"bbbb"] * 40, np.arange(256), table, list) == [(256, 98)] * 40
        patch.setattr(table, "one_at_a_time", None)  # every place at once, as for a merge list
        assert merge_batch.merge_chunks([b"bbbb"] * 40, np.arange(256), table, list) == [(257, 257)] * 40


def test_prepare_builds_the_pair_tables_before_the_first_encode() -> None:
    """bench_tiktoken_encode times a cold cache after `prepare`, as tiktoken's encode after its
    Encoding is made: the tables must then be there, and the ids the same."""
    tokenizer = TiktokenTokenizer.bundled("r50k_base")
    ours = tokenizer.as_bpe()
    assert "_batch_tables" not in vars(ours)
    ours.prepare()
    byte_ids, ranks = vars(ours)["_batch_tables"]
    assert ranks._byte_pairs is not None
    text = " ".join(f"word{number}" for number in range(2000))  # over _MANY new chunks: the numpy path
    assert ours.encode(text) == tokenizer._encoding.encode(text)
