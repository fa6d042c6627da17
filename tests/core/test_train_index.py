"""The trainer's compact bookkeeping: the vectorised pair index, batched chunk counting, and the
pair queue's reusable slots. Merges themselves are checked against Hugging Face in test_train.py."""

from __future__ import annotations

import gc
import random
import weakref
from collections import Counter, defaultdict

import pytest

import explorer.core.algorithms.train as train_module
from explorer.core.algorithms.pair_queue import SHIFT, HfQueue
from explorer.core.algorithms.train import BpeTrainer, _byte_pairs


def plain_pairs(chunks: list[bytes], counts: list[int]) -> tuple[dict[int, int], dict[int, list[int]], int]:
    """The pair index the slow, obvious way."""
    pair_counts: defaultdict[int, int] = defaultdict(int)
    where: defaultdict[int, set[int]] = defaultdict(set)
    for index, (chunk, count) in enumerate(zip(chunks, counts)):
        for left, right in zip(chunk, chunk[1:]):
            pair_counts[left << SHIFT | right] += count
            where[left << SHIFT | right].add(index)
    total = sum(len(chunk) * count for chunk, count in zip(chunks, counts))
    return dict(pair_counts), {pair: sorted(held) for pair, held in where.items()}, total


@pytest.mark.parametrize("batch", [1 << 20, 97])  # one batch; many, cut anywhere
def test_byte_pairs_match_a_plain_count(batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(train_module, "PAIR_BATCH_BYTES", batch)
    rng = random.Random(16)
    # Few byte values, so pairs repeat inside a chunk; one-byte chunks; bytes 0 and 255; big counts.
    alphabet = [0, 1, 2, 0x41, 0xC3, 0xA9, 0xFF]
    chunks = [bytes(rng.choice(alphabet) for _ in range(rng.choice([1, 1, 2, 3, 8, 40]))) for _ in range(3000)]
    chunks = list(dict.fromkeys(chunks))  # distinct, as the trainer's chunks are
    counts = [rng.choice([1, 1, 2, 7, 10**12]) for _ in chunks]
    pair_counts, where, total = _byte_pairs(chunks, counts)
    expected_counts, expected_where, expected_total = plain_pairs(chunks, counts)
    assert dict(pair_counts) == expected_counts
    assert {pair: list(held) for pair, held in where.items()} == expected_where
    assert total == expected_total


def test_byte_pairs_of_one_byte_chunks_only() -> None:
    pair_counts, where, total = _byte_pairs([b"a", b"b"], [3, 4])
    assert (dict(pair_counts), where, total) == ({}, {}, 7)


def test_counting_stopped_early_keeps_counts_in_step_with_texts() -> None:
    """Pieces are counted in batches; a run stopped between two reports still has counted exactly
    the texts it says it read (the pieces join back to those texts)."""
    rng = random.Random(3)
    words = ["the", "cat", "säße", "на", "ковре", "42", "!"]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 30))) + "\n" for _ in range(4000)]
    trainer = BpeTrainer(300, "cl100k")
    stream = trainer.add_texts(lines, every=100_000)  # more pieces than a batch between two reports
    next(stream)
    stream.close()
    assert 0 < trainer.texts < len(lines)
    counted = sum(len(chunk) * n for chunk, n in trainer.chunk_counts.items())
    assert counted == trainer.chars == sum(map(len, lines[: trainer.texts]))


def test_counts_keep_the_order_chunks_were_first_seen_in() -> None:
    """The "minbpe" rules break ties by that order; a long text between short ones is counted in place."""
    texts = ["b a\n", "c " * 40_000, "d b\n"]
    trainer = BpeTrainer(300, "gpt2")
    for _ in trainer.add_texts(texts):
        pass
    expected: Counter[str] = Counter()
    for text in texts:
        expected.update(trainer.pretokenizer.pieces(text))
    assert list(trainer.chunk_counts.items()) == list(expected.items())


def test_queue_reuses_the_slots_of_popped_entries() -> None:
    """The chunks of each waiting entry sit in a slot; a popped entry's slot is reused, so the slots
    never outnumber the entries that were ever waiting at once."""
    words = [[1, 2, 3]] * 50
    pair_counts = {1 << SHIFT | 2: 50, 2 << SHIFT | 3: 50}
    where = {pair: list(range(50)) for pair in pair_counts}
    queue = HfQueue(pair_counts, where, list(range(600)), words, [bytes([b]) for b in range(256)])
    for step in range(200):
        pair, count, held = queue.pop()  # type: ignore[misc]
        assert list(held) == list(range(50))
        new_pair = (256 + step) << SHIFT | 3
        pair_counts[pair] = 0
        pair_counts[new_pair] = 50 - step % 7
        queue.push({new_pair: set(range(50))})
    assert len(queue.heap) == 2
    assert len(queue.held) <= 3 and len(queue.held) - len(queue.free) == len(queue.heap)


def test_an_entry_of_one_chunk_carries_it_without_a_slot() -> None:
    words = [[5, 6], [7, 8], [5, 6]]
    pair_counts = {5 << SHIFT | 6: 2, 7 << SHIFT | 8: 1}
    where = {5 << SHIFT | 6: [0, 2], 7 << SHIFT | 8: [1]}
    queue = HfQueue(pair_counts, where, list(range(300)), words, [bytes([b]) for b in range(256)])
    assert len(queue.held) == 1  # only the pair held by two chunks takes a slot
    assert [(pair, count, list(held)) for pair, count, held in (queue.pop(), queue.pop())] == [  # type: ignore[misc]
        (5 << SHIFT | 6, 2, [0, 2]), (7 << SHIFT | 8, 1, [1])]
    pair_counts[9 << SHIFT | 8] = 3
    queue.push({9 << SHIFT | 8: {123_456}})
    assert queue.pop() == (9 << SHIFT | 8, 3, (123_456,))
    assert queue.pop() is None


def test_the_pair_index_is_let_go_once_queued(monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue copies which chunks hold each pair; the index's own arrays are freed before the
    first merge, not held by the trainer to the end of training."""
    held: list[weakref.ref[object]] = []

    def index(chunks: list[bytes], counts: list[int]) -> train_module.PairIndex:
        pairs = _byte_pairs(chunks, counts)
        held.extend(weakref.ref(chunks_of_pair) for chunks_of_pair in pairs[1].values())
        return pairs

    monkeypatch.setattr(train_module, "_byte_pairs", index)
    trainer = BpeTrainer(300, "gpt2")
    trainer.add_text("the cat sat on the mat. the cat ate the rat.")
    merges = trainer.merges()
    assert next(merges).token == b"at"
    gc.collect()
    assert held and all(ref() is None for ref in held)
