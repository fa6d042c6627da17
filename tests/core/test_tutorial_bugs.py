"""Seed 004's two deliberate bugs behave exactly as the seed's code does, on the same input."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.algorithms.train import train
from explorer.core.algorithms.tutorial_bugs import key_error, naive_decode_failure, naive_encode
from explorer.core.formats.own import from_merges
from tests.core.test_train import BAKERY
from tests.core.test_train_rules import get_pair_counts, merge

TOKENIZER = from_merges(list(train([BAKERY], 256 + 30, "none", rules="minbpe")), "none")
MERGES = {(left, right): new_id for left, right, new_id in TOKENIZER.merges}
VOCAB = {i: data for i, data in enumerate(TOKENIZER.vocab)}


def decode_naive(ids: list[int]) -> str:  # seed 004, "Arjun's first decode"
    return "".join(VOCAB[i].decode("utf-8") for i in ids)


def encode_naive(text: str) -> list[int]:  # seed 004, "Arjun's first encode"
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        counts = get_pair_counts(ids)
        pair = max(counts, key=counts.get)  # type: ignore[arg-type]
        ids = merge(ids, pair, MERGES[pair])
    return ids


def test_naive_encode_stops_where_the_seed_raises_key_error() -> None:
    result = naive_encode(TOKENIZER, "Your cake is late.")
    assert result.steps == () and result.unknown_pair == (89, 111)  # "KeyError: (89, 111)", 'Yo'
    assert key_error(result.unknown_pair, TOKENIZER.vocab) == "KeyError: (89, 111)  (b'Yo' was never learned)"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="Your eggless cake is out for delivery.\n", max_size=30))
def test_naive_encode_is_the_seeds(text: str) -> None:
    result = naive_encode(TOKENIZER, text)
    try:
        expected = encode_naive(text)
    except KeyError as error:
        assert result.unknown_pair == error.args[0]
    else:
        assert result.unknown_pair is None
        assert (result.steps[-1].ids if result.steps else tuple(text.encode())) == tuple(expected)


def test_naive_decode_fails_where_the_seeds_does() -> None:
    ids = list("मावा".encode("utf-8"))
    try:
        decode_naive(ids)
    except UnicodeDecodeError as error:
        expected = f"UnicodeDecodeError: {error}"
    failure = naive_decode_failure(VOCAB[i] for i in ids)
    assert failure is not None and failure.index == 0 and failure.message == expected
    assert expected == "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe0 in position 0: unexpected end of data"
    assert naive_decode_failure(VOCAB[i] for i in [256 + 7, 256 + 24, 256 + 26]) is None  # "Your eggless cake "
