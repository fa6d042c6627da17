"""Statistics of corpus sources: size, lines, words, distinct chunks and scripts, streamed.

`scan_sources` reads each source once and yields a `SourceStats` snapshot now and then, so a
progress bar can follow; the last snapshot of a source has `done` set and carries a set of stable
64-bit hashes of its distinct chunks, so the total over several sources (scanned at different
times, even in different processes) is the size of a union, not a sum.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from explorer.core.analysis.compare import count_words
from explorer.core.analysis.script_stats import count_scripts
from explorer.core.corpora.corpus_sources import CorpusReader, Skipped, Source, list_files
from explorer.core.errors import CorpusError
from explorer.core.pretokenization.pretokenize import Pretokenizer

REPORT_BYTES = 1 << 18  # a snapshot about every 256 KB


@dataclass
class SourceStats:
    """What one source holds; `fraction` of it read so far."""

    source: Source
    files: int = 0
    bytes: int = 0  # bytes read from disk (in the file's own encoding)
    chars: int = 0
    lines: int = 0
    words: int = 0  # whitespace-separated, as in tokens-per-word figures
    distinct_chunks: int = 0
    scripts: Counter[str] = field(default_factory=Counter)
    skipped: list[Skipped] = field(default_factory=list)
    undecodable: list[tuple[str, str]] = field(default_factory=list)  # (path, message)
    fraction: float = 0.0
    done: bool = False
    error: str = ""  # the source cannot be read at all
    chunk_hashes: frozenset[int] = frozenset()  # only on the final snapshot

    def snapshot(self) -> SourceStats:
        """A copy to hand over while this one keeps counting."""
        copy = SourceStats(**{**self.__dict__, "scripts": Counter(self.scripts), "skipped": list(self.skipped),
                              "undecodable": list(self.undecodable)})
        return copy


def chunk_hash(chunk: str) -> int:
    """A 64-bit hash that is the same in every process (Python's `hash` is salted per process)."""
    return int.from_bytes(hashlib.blake2b(chunk.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def scan_sources(sources: Iterable[Source], pattern: str = "cl100k") -> Iterator[SourceStats]:
    """Read every source once, yielding snapshots as it goes and a final one per source.

    >>> final = [s for s in scan_sources([Source.pasted("the cat sat on the mat")], "gpt2") if s.done][0]
    >>> final.words, final.distinct_chunks, final.scripts["Latin"]
    (6, 6, 17)
    """
    pretokenizer = Pretokenizer(pattern)
    for source in sources:
        yield from _scan(source, pretokenizer)


def _scan(source: Source, pretokenizer: Pretokenizer) -> Iterator[SourceStats]:
    stats = SourceStats(source)
    try:
        files, _ = list_files(source)
    except CorpusError as exc:
        stats.error, stats.done, stats.fraction = str(exc), True, 1.0
        yield stats
        return
    reader = CorpusReader([source])
    stats.files = len(files)
    total = max(reader.total_bytes, 1)
    chunks: set[str] = set()
    pieces, add_chunks, scripts = pretokenizer.pieces, chunks.update, stats.scripts
    next_report = REPORT_BYTES
    chars = lines = words = 0
    for text in reader:
        chars += len(text)
        lines += text.count("\n") + (not text.endswith("\n"))  # a text without a final newline ends a line too
        words += count_words(text)
        add_chunks(pieces(text))
        count_scripts(text, scripts)
        if reader.bytes_read >= next_report:
            next_report = reader.bytes_read + REPORT_BYTES
            stats.chars, stats.lines, stats.words, stats.bytes = chars, lines, words, reader.bytes_read
            stats.distinct_chunks, stats.fraction = len(chunks), min(reader.bytes_read / total, 0.99)
            yield stats.snapshot()
    stats.chars, stats.lines, stats.words, stats.bytes = chars, lines, words, reader.bytes_read
    stats.distinct_chunks, stats.fraction, stats.done = len(chunks), 1.0, True
    stats.skipped = list(reader.skipped)
    stats.undecodable = [(exc.path, str(exc)) for exc in reader.undecodable]
    stats.chunk_hashes = frozenset(map(chunk_hash, chunks))
    yield stats
