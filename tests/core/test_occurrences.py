"""How often each token occurs in a corpus: the counts, and that counting never holds the
interpreter lock long (the Merges pane counts in a thread of the window's process)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from explorer.core.algorithms.bpe import BPE
from explorer.core.analysis import occurrences
from explorer.core.analysis.occurrences import count_occurrences
from explorer.core.generators import run_to_end


def test_counts_are_the_ids_of_every_text() -> None:
    bpe = BPE([(97, 116, 256)], "gpt2")  # "at"
    texts = ["cat at", "bat", "at" * 10]
    counts = run_to_end(count_occurrences(bpe, texts))
    expected = Counter(i for text in texts for i in bpe.encode(text, "plain"))
    assert {i: int(n) for i, n in enumerate(counts) if n} == dict(expected)


def test_a_long_text_reaches_numpy_in_bounded_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pasted text of millions of ids went to numpy in one call, which held the lock (and
    froze the window closing or repainting) for 100-170 ms."""
    sizes: list[int] = []
    real = np.asarray

    def recording(values, *args, **kwargs):  # type: ignore[no-untyped-def]
        sizes.append(len(values))
        return real(values, *args, **kwargs)

    monkeypatch.setattr(occurrences.np, "asarray", recording)
    bpe = BPE([(97, 116, 256)], "gpt2")
    text = "cat " * 100_000  # 300,000 ids: "c", "at", " c", "at", ...
    counts = run_to_end(count_occurrences(bpe, [text]))
    assert int(counts.sum()) == len(bpe.encode(text, "plain"))
    assert max(sizes) <= 100_000, f"{max(sizes):,} ids in one numpy call"
