"""The name a trained tokenizer gets by default: what it learned from, its pattern and its size.

"english-cl100k-1k" for the English sample; a corpus of several sources is not named after the
first one ("english" for English, Hindi, Korean and Arabic would mislead): two are joined
("english-hindi"), more are counted ("4-sources").
"""

from __future__ import annotations

import re

from explorer.core.corpora.corpus_sources import Corpus, Source

MAX_JOINED = 24  # characters: two long names joined are no longer a name


def source_stem(source: Source) -> str:
    """'Sample: English (garden story)' -> 'english'; 'notes.txt' -> 'notes'."""
    name = re.sub(r"^(Sample|Toy):\s*", "", source.name)
    return re.sub(r"[^\w]+", "-", name.split("(")[0].split(".")[0].strip().lower()).strip("-") or "corpus"


def corpus_stem(corpus: object) -> str:
    """The corpus part of the default name.

    >>> corpus_stem(Corpus((Source.pasted("a", "Sample: English (story)"), Source.pasted("b", "Sample: Hindi"))))
    'english-hindi'
    """
    sources = corpus.sources if isinstance(corpus, Corpus) else ()
    stems = list(dict.fromkeys(source_stem(source) for source in sources))
    if not stems:
        return "corpus"
    if len(stems) == 1:
        return stems[0]
    joined = "-".join(stems)
    return joined if len(stems) == 2 and len(joined) <= MAX_JOINED else f"{len(sources)}-sources"


def default_name(corpus: object, vocab_size: int, pattern: str) -> str:
    """'english-cl100k-1k', '4-sources-o200k-2k', 'notes-custom-300'."""
    size = f"{vocab_size // 1024}k" if vocab_size % 1024 == 0 else str(vocab_size)
    return f"{corpus_stem(corpus)}-{pattern if len(pattern) <= 8 else 'custom'}-{size}"
