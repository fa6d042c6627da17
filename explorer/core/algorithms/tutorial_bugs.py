"""The two bugs seed 004 makes on purpose, as code that runs beside the fix on the same text.

- Arjun's first decode, `"".join(vocab[i].decode("utf-8") for i in ids)`, raises on the first
  token that ends inside a character (a third of a Devanagari letter is not text).
- Arjun's first encode picks the most frequent pair of the *new* text, `max(counts,
  key=counts.get)`, instead of the pair merged earliest: it applies merges out of order, and
  stops with a KeyError on a pair that was never learned (`(89, 111)`, "Yo").

A speaker shows the bug and the fix with the same input; these give the bug's exact behaviour.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from explorer.core.algorithms.bpe import BPE, TraceStep, _pair_positions, _replace_pair
from explorer.core.text.utf8 import utf8


@dataclass(frozen=True, slots=True)
class DecodeFailure:
    """Where the naive decode raised: the token's position, and what Python says."""

    index: int
    message: str


def naive_decode_failure(token_bytes: Iterable[bytes]) -> DecodeFailure | None:
    """The first token that does not decode alone as strict UTF-8, or None if every one does.

    >>> naive_decode_failure([b"ok", "मा".encode()[:1]]).message
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe0 in position 0: unexpected end of data"
    """
    for index, data in enumerate(token_bytes):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return DecodeFailure(index, f"UnicodeDecodeError: {exc}")
    return None


@dataclass(frozen=True, slots=True)
class NaiveEncode:
    """The naive encode of one chunk: the merges it applied, and the pair it stopped on (or None)."""

    steps: tuple[TraceStep, ...]
    unknown_pair: tuple[int, int] | None  # the most frequent pair, never learned: KeyError
    count: int  # how often that pair occurred


def naive_encode(tokenizer: BPE, chunk: str) -> NaiveEncode:
    """Seed 004's `encode_naive` on one chunk, step by step.

    Each step counts the pairs of the chunk as it stands and takes the most frequent (the first
    counted on a tie, as `max` over a dict does); a pair that was never learned ends it, as the
    seed's KeyError does. A chunk merged down to one token ends it too.
    """
    ids = tokenizer.byte_tokens(utf8(chunk))
    steps: list[TraceStep] = []
    while len(ids) >= 2:
        counts: dict[tuple[int, int], int] = {}
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        pair = max(counts, key=counts.get)  # type: ignore[arg-type]
        if pair not in tokenizer.merged:
            return NaiveEncode(tuple(steps), pair, counts[pair])
        new_id = tokenizer.merged[pair]
        positions = tuple(_pair_positions(ids, pair))
        ids = _replace_pair(ids, pair, new_id)
        steps.append(TraceStep(tokenizer.ranks[pair], pair[0], pair[1], new_id, positions, tuple(ids)))
    return NaiveEncode(tuple(steps), None, 0)


def key_error(pair: tuple[int, int], vocab: Sequence[bytes]) -> str:
    """What Python prints for it, and which bytes the pair is."""
    return f"KeyError: {pair}  ({(vocab[pair[0]] + vocab[pair[1]])!r} was never learned)"
