"""The vectorised merge against the Python loop (`FlatWords`, in place): the same words,
pair counts, tokens removed and new pairs (in the same order, each set built in the same order),
so training gives the same merges, counts, totals and ties whichever path runs."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

import explorer.core.algorithms.flat_words as flat_words
from explorer.core.algorithms.flat_words import FlatWords
from explorer.core.algorithms.train import BpeTrainer, Merge, _byte_pairs
from tests.hf_reference import hf_train_merges

# Few, repeating pieces: runs of one letter (pairs a a), multi-byte letters, emoji, digits, spaces.
PIECES = ["a", "aa", "aaa", "b", "ab", "é", "ж", "жж", "中", "文", "😀", "1", " ", "  ", "ba"]


def random_lines(seed: int, lines: int = 400) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40))) + "\n" for _ in range(lines)]


def learn(lines: list[str], vocab_size: int, rules: str, pattern: str, vectorised: bool,
          monkeypatch: pytest.MonkeyPatch) -> list[Merge]:
    """Train with every merge vectorised, or none of them."""
    monkeypatch.setattr(flat_words, "VECTOR_HELD", 1 if vectorised else 10**9)
    trainer = BpeTrainer(vocab_size, pattern, rules=rules, explain_ties=True)  # type: ignore[arg-type]
    if rules == "minbpe":
        trainer.add_text("".join(lines))
    else:
        for _ in trainer.add_texts(lines):
            pass
    return list(trainer.merges())


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rules,pattern", [("hf", "cl100k"), ("hf", "none"), ("minbpe", "gpt2")])
def test_training_vectorised_gives_the_same_merges_and_ties(seed: int, rules: str, pattern: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    lines = random_lines(seed)
    python = learn(lines, 700, rules, pattern, False, monkeypatch)
    vectorised = learn(lines, 700, rules, pattern, True, monkeypatch)
    assert len(python) > 300
    assert vectorised == python  # rank, pair, id, token, count, total_tokens
    assert [m.tie for m in vectorised] == [m.tie for m in python]  # not part of equality
    assert sum(m.tie is not None for m in python) > 50  # a corpus of many ties


def test_vectorised_training_matches_hugging_face(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = random_lines(7, 600)
    ours = [m.token for m in learn(lines, 600, "hf", "cl100k", True, monkeypatch)]
    assert ours == hf_train_merges(lines, 600, "cl100k")


def plain_merge(word: list[int], left: int, right: int, new_id: int) -> list[int]:
    """Left to right, without overlaps: the obvious way."""
    out: list[int] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == left and word[i + 1] == right:
            out.append(new_id)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def merge_both(chunks: list[bytes], counts: list[int], steps: list[tuple[int, int, int, list[int]]]) -> None:
    """Run the same merges in the Python loop and vectorised, comparing them after each step."""
    plain = [list(chunk) for chunk in chunks]
    loop, vectorised = FlatWords(chunks, counts), FlatWords(chunks, counts)
    counts_loop, _, _ = _byte_pairs(chunks, counts)
    counts_vectorised = defaultdict(int, counts_loop)
    for left, right, new_id, held in steps:
        expected = loop._merge_in_place(held, counts, left, right, new_id, counts_loop)
        got = vectorised._merge_vectorised(held, left, right, new_id, counts_vectorised)
        for index in held:
            plain[index] = plain_merge(plain[index], left, right, new_id)
        assert got[1] == expected[1]  # tokens removed
        assert [(pair, list(chunks)) for pair, chunks in got[0].items()] == \
            [(pair, list(chunks)) for pair, chunks in expected[0].items()]  # order too
        assert {p: c for p, c in counts_vectorised.items() if c} == {p: c for p, c in counts_loop.items() if c}
        assert [list(word) for word in vectorised] == [list(word) for word in loop] == plain


def test_runs_of_one_token_merge_two_by_two_from_the_left() -> None:
    a, b, x = ord("a"), ord("b"), 256  # aaaa -> x x, aaa -> x a, aaaaaaa -> x x x a
    chunks = [b"aaaa", b"aaa", b"baaab", b"a", b"aab", b"aaaaaaa", b"ab"]
    counts = [1, 2, 3, 4, 5, 6, 10**12]
    merge_both(chunks, counts, [(a, a, x, list(range(len(chunks)))), (x, x, x + 1, [5, 0]), (x, a, x + 2, [6, 5, 1, 2]),
                                (b, x, x + 3, [2, 4])])


@pytest.mark.parametrize("seed", range(6))
def test_random_merges_match_the_loop(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = b"aab\xc3\xa9\xd0\xb6"
    chunks = list(dict.fromkeys(bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(500)))
    counts = [rng.choice([1, 1, 2, 9, 10**12]) for _ in chunks]
    tokens = sorted(set(alphabet))
    steps = []
    for new_id in range(256, 300):
        left, right = rng.choice(tokens), rng.choice(tokens)  # pairs that may be anywhere, or nowhere
        held = rng.sample(range(len(chunks)), rng.randint(1, len(chunks)))
        steps.append((left, right, new_id, held))
        tokens.append(new_id)
    merge_both(chunks, counts, steps)



@pytest.mark.parametrize("seed", range(3))
def test_every_chunk_stays_framed_by_minus_ones(seed: int) -> None:
    """The in-place merge reads a pair's neighbours without bounds checks: it relies on the id
    before each chunk (the chunk before's -1, or the end of `flat` for the first) and the one after
    it being -1 whatever merges did, in the loop or vectorised."""
    rng = random.Random(seed)
    chunks = list(dict.fromkeys(bytes(rng.choice(b"aab") for _ in range(rng.randint(1, 12))) for _ in range(300)))
    counts = [rng.randint(1, 5) for _ in chunks]
    pair_counts, _, _ = _byte_pairs(chunks, counts)
    words = FlatWords(chunks, counts)
    tokens = [ord("a"), ord("b")]
    for new_id in range(256, 290):
        left, right = rng.choice(tokens), rng.choice(tokens)
        held = rng.sample(range(len(chunks)), rng.randint(1, len(chunks)))
        if new_id % 2:
            words._merge_vectorised(held, left, right, new_id, pair_counts)
        else:
            words._merge_in_place(held, counts, left, right, new_id, pair_counts)
        tokens.append(new_id)
        for start, length in zip(words.starts, words.lengths):
            assert words.flat[start - 1] == -1 and words.flat[start + length] == -1
