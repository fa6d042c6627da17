"""The "minbpe" training rules give the tutorials' merges exactly, and every merge knows its tie.

The tutorials' own trainers are written out below from the seeds' text (seed 004's `train`,
seed 000's `train_bpe`, seed 002's chunked loop) and run on the same input as ours.
"""

from __future__ import annotations

from collections import Counter

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.algorithms.pair_queue import TIE_LIMIT
from explorer.core.algorithms.train import BpeTrainer, Merge, train
from explorer.core.errors import TrainingError
from explorer.core.formats.own import from_merges
from tests.core.test_train import BAKERY, CAT_MAT

# Seed 000's PATTERN (GPT-4's with single digits) and GPT-2's, as the seeds print them.
SEED_000_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


# Seed 004, steps 2-4: the whole text as one list of byte ids.

def get_pair_counts(ids: list[int]) -> dict[tuple[int, int], int]:
    counts: dict[tuple[int, int], int] = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    out = []
    i = 0
    while i < len(ids):
        if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def seed_004_train(text: str, vocab_size: int) -> tuple[dict[tuple[int, int], int], dict[int, bytes]]:
    ids = list(text.encode("utf-8"))
    merges: dict[tuple[int, int], int] = {}
    vocab = {i: bytes([i]) for i in range(256)}
    for new_id in range(256, vocab_size):
        counts = get_pair_counts(ids)
        if not counts:
            break
        pair = max(counts, key=counts.get)  # type: ignore[arg-type]
        ids = merge(ids, pair, new_id)
        merges[pair] = new_id
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
    return merges, vocab


# Seed 000, step 2: distinct chunks counted once, weighted. `split=None` is pattern "none".

def pair_counts(chunks: dict[tuple[int, ...], int]) -> Counter[tuple[int, int]]:
    counts: Counter[tuple[int, int]] = Counter()
    for ids, n in chunks.items():
        for pair in zip(ids, ids[1:]):
            counts[pair] += n
    return counts


def seed_000_train_bpe(texts: list[str], n_merges: int, pattern: str | None,
                       ties: list[set[tuple[int, int]]] | None = None) -> dict[tuple[int, int], int]:
    chunks: Counter[tuple[int, ...]] = Counter()
    for text in texts:
        for piece in (regex.findall(pattern, text) if pattern else [text]):
            chunks[tuple(piece.encode("utf-8"))] += 1
    merges: dict[tuple[int, int], int] = {}
    current: dict[tuple[int, ...], int] = dict(chunks)
    for new_id in range(256, 256 + n_merges):
        counts = pair_counts(current)
        if not counts:
            break
        pair = max(counts, key=counts.get)  # type: ignore[arg-type]
        if ties is not None:  # not in the seed: every pair with the winning count
            ties.append({p for p, n in counts.items() if n == counts[pair]})
        merges[pair] = new_id
        current = {tuple(merge(list(ids), pair, new_id)): n for ids, n in current.items()}
    return merges


# Seed 002: a list of chunks, one per occurrence (not deduplicated).

def seed_002_train(text: str, n_merges: int, pattern: str) -> dict[tuple[int, int], int]:
    ids = [list(chunk.encode("utf-8")) for chunk in regex.findall(pattern, text)]
    merges: dict[tuple[int, int], int] = {}
    for k in range(n_merges):
        counts: dict[tuple[int, int], int] = {}
        for chunk in ids:
            for pair in zip(chunk[:-1], chunk[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        max_pair = max(counts, key=counts.get)  # type: ignore[arg-type]
        merges[max_pair] = 256 + k
        ids = [merge(chunk, max_pair, 256 + k) for chunk in ids]
    return merges


def learned(merges: list[Merge]) -> dict[tuple[int, int], int]:
    return {(m.left, m.right): m.new_id for m in merges}


def minbpe(texts: list[str], vocab_size: int, pattern: str) -> list[Merge]:
    return list(train(texts, vocab_size, pattern, rules="minbpe"))


def test_bakery_30_merges_are_seed_004s() -> None:
    merges = minbpe([BAKERY], 256 + 30, "none")
    expected, vocab = seed_004_train(BAKERY, 256 + 30)
    assert learned(merges) == expected
    tokens = [m.token for m in merges]
    assert tokens == [vocab[new_id] for new_id in expected.values()]
    # What the seed prints: merges 1, 2, then 13, 14, 18 and 25.
    assert tokens[:2] == [b"ou", b"r "] and merges[0].count == 9
    assert (tokens[12], tokens[13], tokens[17], tokens[24]) == (b"de", b"del", b"delivery", b"eggless ")
    assert tokens[2:8] == [b"s ", b"e ", b"our ", b"ak", b"ry", b"Your "]
    tokenizer = from_merges(merges, "none")
    assert tokenizer.decode([256 + 7, 256 + 24, 256 + 26]) == "Your eggless cake "  # seed 004, step 5
    ids = tokenizer.encode("Your eggless cake is out for delivery.")
    assert [tokenizer.decode([i]) for i in ids] == ["Your ", "eggless ", "cake ", "is ", "ou", "t", " for ",
                                                    "delivery", "."]  # seed 004, step 6


def test_bakery_with_hf_rules_still_differs() -> None:
    hf = [m.token for m in train([BAKERY], 256 + 30, "none")]
    assert hf[:8] == [b"ou", b"r ", b"s ", b"e ", b"ak", b"ry", b"our ", b".\n"]  # ties to the smaller ids


def test_cat_mat_merges_are_seed_000s() -> None:
    merges = minbpe([CAT_MAT], 262, "digits")
    assert learned(merges) == seed_000_train_bpe([CAT_MAT], 6, SEED_000_PATTERN)
    assert merges[0].token == b"at" and merges[0].count == 6
    assert merges[1].token == b"th"  # "the trainer takes whichever it counted first"
    specials = ["<|endoftext|>"] + [f"<|reserved_{i}|>" for i in range(7)]
    tokenizer = from_merges(merges, "digits", specials)
    ids = tokenizer.encode("the cat ate the hat.<|endoftext|>", special="allowed")
    assert ids == [258, 261, 32, 256, 101, 259, 32, 104, 256, 46, 262]  # seed 000's printed ids


def test_cat_mat_merge_2_is_a_tie_both_rules_see() -> None:
    for rules in ("hf", "minbpe"):
        tie = list(train([CAT_MAT], 262, "digits", rules=rules, explain_ties=True))[1].tie  # type: ignore[arg-type]
        assert tie is not None and tie.complete
        assert set(tie.pairs) == {(ord("t"), ord("h")), (ord("h"), ord("e"))}
        assert tie.minbpe_pick == (ord("t"), ord("h")) and tie.hf_pick == (ord("h"), ord("e"))
    assert list(train([CAT_MAT], 262, "digits"))[0].tie is None  # 'at' won alone, 6 times
    cheap = list(train([CAT_MAT], 262, "digits"))[1].tie  # without explain_ties, "hf" rules skip the scan
    assert cheap is not None and cheap.hf_pick == (ord("h"), ord("e")) and cheap.minbpe_pick is None


def test_a_tie_keeps_its_pairs_in_eight_bytes_each() -> None:
    """Most merges of a long run are ties: their pairs are kept packed in one bytes object (a tuple
    of ints took over three times the memory), and read back as the same pairs."""
    tie = list(train([CAT_MAT], 262, "digits", explain_ties=True))[1].tie
    assert tie is not None and isinstance(tie.data, bytes) and len(tie.data) == 8 * len(tie.packed) == 16
    assert tie.pairs == ((ord("h"), ord("e")), (ord("t"), ord("h")))  # the winner first


def test_aaabdaaabac_three_merges_five_tokens() -> None:
    merges = minbpe(["aaabdaaabac"], 259, "none")
    assert learned(merges) == seed_004_train("aaabdaaabac", 259)[0]
    assert [m.total_tokens for m in merges] == [9, 7, 5]  # 11 characters, 3 merges, 5 tokens
    # Seed 001: "Merge 2 combines token 256 ... with a": (aa, a) and (a, b) tie at 2, (aa, a) is seen first.
    assert (merges[1].left, merges[1].right) == (256, ord("a"))
    assert [m.token for m in merges] == [b"aa", b"aaa", b"aaab"]
    tie = merges[1].tie
    assert tie is not None and tie.hf_pick == (ord("a"), ord("b")) and tie.minbpe_pick == (256, ord("a"))
    hf = list(train(["aaabdaaabac"], 259, "none", explain_ties=True))
    assert [m.token for m in hf] == [b"aa", b"ab", b"aaab"]  # Wikipedia's Z, Y, X
    assert hf[1].tie is not None and hf[1].tie.pairs == tie.pairs[::-1]  # the same tie, each winner first
    assert (hf[1].tie.hf_pick, hf[1].tie.minbpe_pick) == (tie.hf_pick, tie.minbpe_pick)


def test_seed_002_chunk_list_gives_the_same_merges() -> None:
    text = "First Citizen: Before we proceed any further, hear me speak. All: Speak, speak. " * 3 + "the thee thou"
    merges = minbpe([text], 256 + 40, "gpt2")
    assert learned(merges) == seed_002_train(text, 40, GPT2_PATTERN)


def test_minbpe_rules_number_merges_as_the_tutorials() -> None:
    # Merge k makes id 256 + k, always (Hugging Face would reuse the id of bytes made before).
    texts = ["abcabc abxbcy abcab bcbc"]
    merges = minbpe(texts, 256 + 12, "none")
    assert [m.new_id for m in merges] == list(range(256, 256 + len(merges)))
    assert learned(merges) == seed_000_train_bpe(texts, 12, None)


def test_unknown_rules_are_refused() -> None:
    with pytest.raises(TrainingError, match="hf, minbpe"):
        BpeTrainer(300, rules="sentencepiece")  # type: ignore[arg-type]


texts_strategy = st.lists(st.text(alphabet="ab c\ne\u00e9", min_size=0, max_size=40), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(texts=texts_strategy, n_merges=st.integers(1, 25), pattern=st.sampled_from([None, GPT2_PATTERN]))
def test_minbpe_rules_equal_the_naive_trainer(texts: list[str], n_merges: int, pattern: str | None) -> None:
    trainer = BpeTrainer(256 + n_merges, "gpt2" if pattern else "none", rules="minbpe")
    for text in texts:
        trainer.add_text(text)
    if not trainer.chunk_counts:
        return
    ties: list[set[tuple[int, int]]] = []
    expected = seed_000_train_bpe(texts, n_merges, pattern, ties)
    merges = list(trainer.merges())
    assert learned(merges) == expected
    for merge, tied in zip(merges, ties):  # the tie each merge records is the naive one
        if len(tied) == 1:
            assert merge.tie is None
        else:
            assert merge.tie is not None and merge.tie.minbpe_pick == (merge.left, merge.right)
            if len(tied) <= TIE_LIMIT:
                assert merge.tie.complete and set(merge.tie.pairs) == tied


def naive_hf(texts: list[str], n_merges: int, pattern: str | None) -> list[tuple[tuple[int, int], list[tuple[int, int]]]]:
    """Hugging Face's rule the slow way: recount, most frequent, ties to the smaller ids in its id
    space (bytes in code-point order of their characters, new tokens by id), equal bytes one id.
    Returns each merge's pair and every pair tied with it, in the order first seen."""
    from explorer.core.algorithms.bytelevel import hf_byte_order

    key = list(hf_byte_order())
    chunks: Counter[tuple[int, ...]] = Counter()
    for text in texts:
        for piece in (regex.findall(pattern, text) if pattern else [text]):
            chunks[tuple(piece.encode("utf-8"))] += 1
    vocab = [bytes([b]) for b in range(256)]
    current = dict(chunks)
    out = []
    for _ in range(n_merges):
        counts = pair_counts(current)
        if not counts:
            break
        best = max(counts.values())
        tied = [p for p, n in counts.items() if n == best]
        pair = min(tied, key=lambda p: (key[p[0]], key[p[1]]))
        token = vocab[pair[0]] + vocab[pair[1]]
        if token in vocab:
            new_id = vocab.index(token)
        else:
            new_id = len(vocab)
            vocab.append(token)
            key.append(new_id)
        out.append((pair, tied))
        current = {tuple(merge(list(ids), pair, new_id)): n for ids, n in current.items()}
    return out


@settings(max_examples=200, deadline=None)
@given(texts=texts_strategy, n_merges=st.integers(1, 25), pattern=st.sampled_from([None, GPT2_PATTERN]))
def test_hf_rules_ties_equal_the_naive_ones(texts: list[str], n_merges: int, pattern: str | None) -> None:
    trainer = BpeTrainer(256 + n_merges, "gpt2" if pattern else "none", explain_ties=True)
    for text in texts:
        trainer.add_text(text)
    if not trainer.chunk_counts:
        return
    merges = list(trainer.merges())
    expected = naive_hf(texts, n_merges, pattern)
    assert [(m.left, m.right) for m in merges] == [pair for pair, _ in expected]
    for merge, (_, tied) in zip(merges, expected):
        if len(tied) == 1:
            assert merge.tie is None
        elif len(tied) <= TIE_LIMIT:
            assert merge.tie is not None and merge.tie.complete and set(merge.tie.pairs) == set(tied)
            assert merge.tie.hf_pick == (merge.left, merge.right) and merge.tie.minbpe_pick == tied[0]


def test_compare_rules_finds_where_the_merge_lists_part() -> None:
    from explorer.core.algorithms.training_run import TrainingSettings
    from explorer.core.analysis.rules_compare import compare_rules
    from explorer.core.corpora.corpus_sources import Corpus, Source

    generator = compare_rules(Corpus((Source.pasted(BAKERY),)), TrainingSettings(256 + 30, "none"))
    progress = []
    while True:
        try:
            progress.append(next(generator))
        except StopIteration as stop:
            comparison = stop.value
            break
    assert [p.rules for p in progress if p.merges == 0] == ["hf", "minbpe"]
    assert comparison.minbpe == tuple(train([BAKERY], 256 + 30, "none", rules="minbpe"))
    assert [m.token for m in comparison.hf] == [m.token for m in train([BAKERY], 256 + 30, "none")]
    assert comparison.first_difference == 4  # merge 5: 'ak' (hf) or 'our ' (minbpe), tied at 5
    shared = {m.token for m in comparison.hf} & {m.token for m in comparison.minbpe}
    assert comparison.shared_tokens == len(shared) < 30
    assert comparison.summary() == (f"{len(shared)} of 30 learned tokens are the same; the merge lists agree up to "
                                    "merge 4 and part at merge 5 (a tie, broken differently).")


def test_a_long_text_is_counted_in_windows_with_the_same_chunks_in_the_same_order() -> None:
    from explorer.core.algorithms.train import LONG_TEXT
    from explorer.core.pretokenization.pretokenize import Pretokenizer

    text = ("Our eggless cakes are baked in a separate kitchen.\n\n  मावा केक 🎂 1969   \r\n" * 2000)[: LONG_TEXT * 2]
    trainer = BpeTrainer(300, "cl100k", rules="minbpe")
    trainer.add_text(text)
    whole = Counter(Pretokenizer("cl100k").pieces(text))
    assert list(trainer.chunk_counts.items()) == list(whole.items())  # the order matters to minbpe rules


def test_a_merge_equals_the_same_merge_whatever_its_tie_record() -> None:
    explained = list(train([CAT_MAT], 262, "digits", explain_ties=True))
    quick = list(train([CAT_MAT], 262, "digits"))
    assert explained == quick and explained[1].tie != quick[1].tie  # the window explains, the CLI counts
