"""How often each token occurs when a corpus is encoded: the "seen", "never seen" and "rare" columns.

The corpus is any iterable of texts (a `CorpusFiles`, a list of pasted texts). Counting is a
generator of progress records, so the GUI can run it in a worker, show progress and cancel.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from explorer.core.analysis.efficiency import TokenizerRef
from explorer.core.sources.tokenizer import SpecialMode, Tokenizer

_CHARS_PER_STEP = 32_000  # a few milliseconds of encoding between progress records
# ids turned into an array per numpy call: the call holds the interpreter lock, and a pasted text
# of 15 MB (3 million ids) held it 100-170 ms at once, a freeze of the window counting in a thread
_IDS_PER_CALL = 1 << 16


@dataclass(frozen=True, slots=True)
class CountProgress:
    """Texts and tokens counted so far; `fraction` when the corpus knows its size (files do)."""

    texts: int
    tokens: int
    fraction: float | None


def corpus_texts(corpus: object) -> Iterable[str]:
    """The texts of a corpus object: itself if it is an iterable of str, its `texts()`, or its
    `reader()` (a Corpus: the reader counts bytes read, so progress has a fraction)."""
    for method in ("texts", "reader"):
        texts = getattr(corpus, method, None)
        if callable(texts):
            return texts()  # type: ignore[no-any-return]
    if isinstance(corpus, str):
        return [corpus]
    return corpus  # type: ignore[return-value]


def count_occurrences(tokenizer: Tokenizer, texts: Iterable[str],
                      special: SpecialMode = "plain") -> Iterator[CountProgress]:
    """Yield progress while encoding every text; return an array: id -> occurrences.

    Special-token strings in the corpus count as ordinary text by default (`plain`), since a
    corpus is not a prompt with control tokens.

    >>> from explorer.core.algorithms.bpe import BPE
    >>> list(count_occurrences(BPE([(97, 116, 256)], "gpt2"), ["cat", "at"]))  # returns [.., c: 1, .., at: 2]
    [CountProgress(texts=2, tokens=3, fraction=None)]
    """
    counts = np.zeros(tokenizer.vocab_size, dtype=np.int64)
    pending: list[int] = []
    chars = text_count = tokens = 0
    total = getattr(texts, "total_bytes", None)

    def flush() -> None:
        nonlocal pending, tokens
        for start in range(0, len(pending), _IDS_PER_CALL):
            ids = np.asarray(pending[start:start + _IDS_PER_CALL], dtype=np.int64)
            counts[:] += np.bincount(ids, minlength=len(counts))[: len(counts)]
        tokens += len(pending)
        pending = []

    def progress() -> CountProgress:
        done = getattr(texts, "bytes_read", None)
        fraction = done / total if total and done is not None else None
        return CountProgress(text_count, tokens, fraction)

    for text in texts:
        pending.extend(tokenizer.encode(text, special))
        text_count += 1
        chars += len(text)
        if chars >= _CHARS_PER_STEP:
            flush()
            chars = 0
            yield progress()
    flush()
    yield progress()
    return counts


def count_corpus(tokenizer: TokenizerRef, corpus: object) -> Iterator[CountProgress]:
    """`count_occurrences` over `corpus_texts(corpus)` with the tokenizer `tokenizer` names: the form a
    child process runs (a module-level generator, picklable arguments), so that counting a big corpus
    for minutes never shares the window's interpreter lock."""
    return (yield from count_occurrences(tokenizer.load(), corpus_texts(corpus)))
