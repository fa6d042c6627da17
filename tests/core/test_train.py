"""Training: the seeds' worked examples, and identity with Hugging Face's BpeTrainer."""

from __future__ import annotations

import pytest

from explorer.core.algorithms.train import BpeTrainer, Merge, train
from explorer.core.errors import TrainingError
from explorer.core.formats.own import from_merges
from tests.corpora import KINDS, corpus_lines
from tests.hf_reference import hf_train_merges

CAT_MAT = "the cat sat on the mat. the cat ate the rat."
BAKERY = """Your eggless chocolate cake is out for delivery.
Your plum cake is out for delivery and will reach you soon.
Sorry, your delivery is late. Your eggless cake will reach you by 6 pm.
Our eggless cakes are baked in a separate kitchen.
Your refund for the late delivery is on its way."""


def learn(texts: list[str], vocab_size: int, pattern: str, specials: list[str] = ()) -> list[Merge]:  # type: ignore[assignment]
    return list(train(texts, vocab_size, pattern, specials))


def test_aaabdaaabac_is_wikipedias_example() -> None:
    merges = learn(["aaabdaaabac"], 259, "none")
    assert [m.token for m in merges] == [b"aa", b"ab", b"aaab"]  # Z = aa, Y = ab, X = ZY
    assert merges[0].count == 4  # (a, a) is counted 4 times, overlaps included
    assert [m.total_tokens for m in merges] == [9, 7, 5]  # 11 characters shrink to XdXac
    assert (merges[2].left, merges[2].right) == (256, 257)


def test_cat_mat_merges_and_encoding_from_seed_000() -> None:
    merges = learn([CAT_MAT], 262, "digits")
    assert merges[0].token == b"at" and merges[0].count == 6
    assert merges[1].count == 4  # the t+h / h+e tie; HF takes the smaller pair of ids, h+e
    assert [m.token for m in merges] == [b"at", b"he", b"the", b" the", b"cat", b" cat"]
    # Each merge shortens the text by exactly the pair's count (no overlaps in this sentence).
    totals = [len(CAT_MAT.encode())] + [m.total_tokens for m in merges]
    assert [a - b for a, b in zip(totals, totals[1:])] == [m.count for m in merges]
    specials = ["<|endoftext|>"] + [f"<|reserved_{i}|>" for i in range(7)]
    tokenizer = from_merges(merges, "digits", specials)
    ids = tokenizer.encode("the cat ate the hat.<|endoftext|>", special="allowed")
    assert ids == [258, 261, 32, 256, 101, 259, 32, 104, 256, 46, 262]
    assert [tokenizer.decode([i]) for i in ids] == ["the", " cat", " ", "at", "e", " the", " ", "h", "at", ".",
                                                    "<|endoftext|>"]


def test_bakery_first_merges_from_seed_004() -> None:
    merges = learn([BAKERY], 256 + 30, "none")
    tokens = [m.token for m in merges]
    assert tokens[:2] == [b"ou", b"r "] and merges[0].count == 9  # 'ou' seen 9 times, then 'r '
    assert tokens[12] == b"de"  # merge 13, as in the seed
    # "Nobody told it delivery was a word": assembled a piece at a time. Ties are broken the
    # Hugging Face way here, so the middle pieces differ from the seed's (del, delive).
    assert tokens.index(b"de") < tokens.index(b"deliv") < tokens.index(b"delivery") < 20


def test_merge_log_shape_like_seed_002() -> None:
    text = "To be, or not to be, that is the question: the thee thou that this " * 40
    merges = learn([text], 300, "gpt2")
    assert [m.rank for m in merges] == list(range(len(merges)))
    assert [m.new_id for m in merges] == list(range(256, 256 + len(merges)))
    assert all(m.token == (bytes([m.left]) if m.left < 256 else merges[m.left - 256].token)
               + (bytes([m.right]) if m.right < 256 else merges[m.right - 256].token) for m in merges)
    built_from_merges = [m for m in merges if m.left >= 256 and m.right >= 256]
    assert built_from_merges, "later merges build on earlier ones (like ' t' + 'he')"
    totals = [m.total_tokens for m in merges]
    assert totals == sorted(totals, reverse=True)


def test_vocab_too_small_is_refused() -> None:
    with pytest.raises(TrainingError, match="at least 258"):
        BpeTrainer(257, special_tokens=["<a>", "<b>"])
    with pytest.raises(TrainingError, match="at least 256"):
        BpeTrainer(100)


def test_empty_corpus_is_refused() -> None:
    with pytest.raises(TrainingError, match="empty"):
        list(BpeTrainer(300).merges())


def test_learning_lets_the_chunk_counts_go() -> None:
    """Once laid out as bytes the chunk counts are dropped (they held memory to the end of training
    for nothing), so a trainer learns once; asking again says so instead of training on nothing."""
    trainer = BpeTrainer(300, "gpt2")
    trainer.add_text(CAT_MAT)
    assert len(trainer.chunk_counts) == 9
    merges = trainer.merges()
    first = next(merges)
    assert first.token == b"at" and not trainer.chunk_counts
    assert [m.token for m in [first, *merges]] == [m.token for m in learn([CAT_MAT], 300, "gpt2")]
    with pytest.raises(TrainingError, match="learned its merges already"):
        next(trainer.merges())


def test_training_is_a_cancellable_stream() -> None:
    stream = train([CAT_MAT * 10], 1000, "gpt2")
    first = next(stream)
    assert first.rank == 0
    stream.close()  # cancelling between merges is closing the generator
    with pytest.raises(StopIteration):
        next(stream)


def test_special_tokens_reserve_vocabulary() -> None:
    merges = learn([CAT_MAT], 262, "digits", ["<|endoftext|>", "<|pad|>"])
    assert len(merges) == 4
    tokenizer = from_merges(merges, "digits", ["<|endoftext|>", "<|pad|>"])
    assert tokenizer.special.tokens == {"<|endoftext|>": 260, "<|pad|>": 261}
    assert tokenizer.vocab_size == 262


@pytest.mark.parametrize("pattern", ["none", "gpt2", "digits", "cl100k", "o200k"])
@pytest.mark.parametrize("text", [["aaabdaaabac"], [CAT_MAT], [BAKERY], ["aaaa aaaaa aaa ab ab abab " * 7]])
def test_identical_to_hf_on_seed_examples(pattern: str, text: list[str]) -> None:
    ours = [m.token for m in learn(text, 320, pattern)]
    assert ours == hf_train_merges(text, 320, pattern)


@pytest.mark.parametrize("corpus", KINDS)
@pytest.mark.parametrize("pattern", ["cl100k", "gpt2", "o200k", "digits"])
def test_identical_to_hf_on_real_text(corpus: str, pattern: str) -> None:
    lines = corpus_lines(corpus, 300_000)
    specials = ["<|endoftext|>", "<|pad|>"]
    ours = [m.token for m in learn(lines, 3000, pattern, specials)]
    theirs = hf_train_merges(lines, 3000, pattern, specials)
    assert len(ours) == len(theirs) == 3000 - 256 - 2
    assert ours == theirs


def test_identical_to_hf_with_crlf_and_special_text() -> None:
    lines = ["a line\r\n", "another\r\n", "<|endoftext|> appears in text\n", "no newline at the end"] * 50
    assert [m.token for m in learn(lines, 400, "cl100k", ["<|endoftext|>"])] == hf_train_merges(
        lines, 400, "cl100k", ["<|endoftext|>"])
