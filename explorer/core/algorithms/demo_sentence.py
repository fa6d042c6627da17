"""A short sentence re-tokenized as each merge lands: the Training pane's live demo of BPE.

`SentenceTokens` keeps the sentence's chunks as token lists and applies each new merge only
where its pair occurs (as `HeldOutTracker` does for the held-out text), so following a run of
100,000 merges costs a dictionary look-up per merge. Applying merges in the order they were
learned gives exactly what encoding with those merges gives: a merge can only use tokens made
by earlier merges, so when merge r applies, no pair of a lower rank is left.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from explorer.core.algorithms.train import Merge
from explorer.core.algorithms.training_run import HeldOutTracker
from explorer.core.corpora.corpus_sources import CorpusReader, Source
from explorer.core.pretokenization.pretokenize import Pretokenizer

DEFAULT_SENTENCE = "The quick brown fox jumps over the lazy dog."
SENTENCE_CHARS = (20, 120)  # a sentence drawn from the corpus: long enough to show merges, short enough to read
LINES_LOOKED_AT = 200
CHARS_LOOKED_AT = 4096  # of each line: a corpus of one 16 MB line took 0.6 s (on the window's thread) to search whole
TEXT_LOOKED_AT = 1 << 18  # characters of texts in all: a JSON Lines corpus of 10 MB records is not read 200 records deep
QUICK_BYTES = 1 << 20  # a file this small is read for its sentence at once; a bigger one may start with a huge line
_ENDS = ".!?।॥؟。！？"
_SENTENCE = re.compile(rf"[^\s].*?(?:[{_ENDS}](?=\s|$)|$)", re.DOTALL)


class SentenceTokens(HeldOutTracker):
    """The tokens of `text`, in order, under the merges applied so far.

    >>> demo = SentenceTokens("aaab aab", "none")
    >>> demo.apply_merges([Merge(0, 97, 97, 256, b"aa", 3, 0)])
    >>> demo.ids()
    [256, 97, 98, 32, 256, 98]
    """

    def __init__(self, text: str, pattern: str) -> None:
        super().__init__([text], pattern)
        self.text = text
        self.applied = 0  # merges applied so far
        pieces = Pretokenizer(pattern, "tokenizers").pieces(text)  # as the trainer and the tracker split
        # HeldOutTracker keeps each distinct chunk once, in the order first seen.
        order = {chunk: index for index, chunk in enumerate(dict.fromkeys(pieces))}
        self.sequence = [order[piece] for piece in pieces]

    def apply_merges(self, merges: Sequence[Merge]) -> None:
        where = self.where
        for merge in merges:
            if (merge.left, merge.right) in where:  # most merges are not in a short sentence: skip the call
                self.apply(merge.left, merge.right, merge.new_id)
        self.applied += len(merges)

    def catch_up(self, merges: Sequence[Merge]) -> bool:
        """Apply the merges of `merges` (all of a run's so far) not applied yet; True if any were."""
        new = merges[self.applied:]
        self.apply_merges(new)
        return bool(new)

    def ids(self) -> list[int]:
        return [token for index in self.sequence for token in self.words[index]]


def first_sentence(texts: Iterable[str]) -> str:
    """A sentence from the start of a corpus to show being tokenized (or DEFAULT_SENTENCE).

    >>> first_sentence(["A Title\\n", "\\n", "Too short. This one is long enough to show merges. More."])
    'This one is long enough to show merges.'
    """
    shortest, longest = SENTENCE_CHARS
    fallback = short = ""  # a title or a long line cut short, or a short text (a toy corpus), if no sentence turns up
    read = 0
    for number, text in enumerate(texts, 1):
        for match in _SENTENCE.finditer(text, 0, CHARS_LOOKED_AT):
            sentence = " ".join(match.group().split())
            if shortest <= len(sentence) <= longest and sentence[-1] in _ENDS:
                return sentence
            if not fallback and len(sentence) >= shortest:
                fallback = sentence if len(sentence) <= longest else sentence[:longest].rsplit(" ", 1)[0]
            short = short or sentence
        read += len(text)
        if number >= LINES_LOOKED_AT or read > TEXT_LOOKED_AT:
            break  # (before the next text is read)
    return fallback or short or DEFAULT_SENTENCE


def source_sentence(source: Source) -> str:
    """`first_sentence` of one corpus source: a file, or pasted text (the Training pane walks no
    folder for it)."""
    return first_sentence(CorpusReader([source]).source_texts(source))


def read_quickly(source: Source) -> bool:
    """Whether `source_sentence` is quick for sure: pasted text, or a file of at most QUICK_BYTES.
    A file's first line or record is read whole, and one of 200 MB takes a second."""
    if source.kind == "text":
        return True
    try:
        return Path(source.path).stat().st_size <= QUICK_BYTES
    except OSError:
        return True  # (nothing to read: the reader says so)
