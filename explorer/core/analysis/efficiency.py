"""How efficiently tokenizers encode each corpus source: the table of seed 000 and seed 004's bill.

For every (tokenizer, source): tokens, bytes per token (higher is better), tokens per
whitespace-separated word, and the premium against a reference source: with parallel texts (the
same content in English and Hindi) a premium of x2.5 means the Hindi costs two and a half times
as many tokens. Runs as a generator of records, so it can stream into a table in the background.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from explorer.core.analysis.compare import TokenRates, count_words
from explorer.core.corpora.corpus_sources import CorpusReader, Source
from explorer.core.errors import ExplorerError
from explorer.core.sources.tokenizer import Tokenizer

REPORT_BYTES = 1 << 18


@dataclass(frozen=True)
class TokenizerRef:
    """A tokenizer a child process can load: a spec for `load_tokenizer`, or our own JSON document."""

    label: str
    spec: str = ""
    document: str = ""  # explorer.core.formats.own.to_json(...) for tokenizers trained in this session

    def load(self) -> Tokenizer:
        if self.document:
            import json

            from explorer.core.formats import own

            return own.from_document(json.loads(self.document), self.label)
        from explorer.core.sources.load import load_tokenizer

        return load_tokenizer(self.spec)


@dataclass(frozen=True, slots=True)
class Measurement(TokenRates):
    """One cell group of the table: a tokenizer on a source."""

    tokenizer: str
    source: str
    tokens: int = 0
    bytes: int = 0  # UTF-8 bytes of the text
    words: int = 0
    error: str = ""
    chars: int = 0  # characters of the text (code points)

    @property
    def tokens_per_char(self) -> float:
        return self.tokens / self.chars if self.chars else 0.0


@dataclass(frozen=True, slots=True)
class EfficiencyProgress:
    tokenizer: str
    source: str
    fraction: float  # of this (tokenizer, source) pair
    pairs_done: int
    pairs_total: int


def measure(tokenizer: Tokenizer, source: Source) -> Iterator[float | Measurement]:
    """Encode every text of `source` (special-token strings as plain text); fractions, then the result."""
    reader = CorpusReader([source])
    total = max(reader.total_bytes, 1)
    tokens = size = words = chars = 0
    next_report = REPORT_BYTES
    for text in reader:
        tokens += len(tokenizer.encode(text, special="plain"))
        size += len(text.encode("utf-8"))
        chars += len(text)
        words += count_words(text)
        if reader.bytes_read >= next_report:
            next_report = reader.bytes_read + REPORT_BYTES
            yield min(reader.bytes_read / total, 0.99)
    problem = "; ".join(map(str, reader.skipped[:2]))
    yield Measurement(tokenizer.name, source.name, tokens, size, words, problem if not size else "", chars)


def measure_all(tokenizers: Sequence[TokenizerRef], sources: Sequence[Source]) -> Iterator[object]:
    """Every tokenizer on every source: EfficiencyProgress records and one Measurement per pair.

    A tokenizer that fails to load gives rows with its error; the others still run.
    """
    total, done = len(tokenizers) * len(sources), 0
    for ref in tokenizers:
        try:
            tokenizer = ref.load()
        except ExplorerError as exc:
            for source in sources:
                done += 1
                yield Measurement(ref.label, source.name, error=str(exc))
            continue
        for source in sources:
            for item in measure(tokenizer, source):
                if isinstance(item, Measurement):
                    done += 1
                    yield Measurement(ref.label, *_fields(item)[1:])
                else:
                    yield EfficiencyProgress(ref.label, source.name, item, done, total)


def _fields(m: Measurement) -> tuple[str, str, int, int, int, str, int]:
    return m.tokenizer, m.source, m.tokens, m.bytes, m.words, m.error, m.chars


def premium(rows: Iterable[Measurement], row: Measurement, reference: str) -> float | None:
    """Tokens of `row` over tokens of the same tokenizer on the `reference` source (None if unknown).

    >>> rows = [Measurement("t", "en", 10, 38, 7), Measurement("t", "hi", 31, 80, 7)]
    >>> round(premium(rows, rows[1], "en"), 2)
    3.1
    """
    for other in rows:
        if other.tokenizer == row.tokenizer and other.source == reference and other.tokens and row.tokens:
            return row.tokens / other.tokens
    return None


CSV_COLUMNS = ["tokenizer", "source", "tokens", "bytes", "words", "bytes_per_token", "tokens_per_word",
               "premium_vs_reference", "reference", "error", "chars", "tokens_per_char"]


def to_csv(rows: Sequence[Measurement], reference: str = "") -> str:
    """The table as CSV text, numbers unformatted (for spreadsheets and scripts)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        ratio = premium(rows, row, reference) if reference else None
        writer.writerow([row.tokenizer, row.source, row.tokens, row.bytes, row.words,
                         f"{row.bytes_per_token:.4f}" if row.tokens else "",
                         f"{row.tokens_per_word:.4f}" if row.words else "",
                         f"{ratio:.4f}" if ratio is not None else "", reference, row.error, row.chars,
                         f"{row.tokens_per_char:.4f}" if row.chars else ""])
    return out.getvalue()


# The pivot: sources down, tokenizers across, one figure per cell (the slide of seed 004)

METRICS: dict[str, str] = {"tokens_per_word": "tokens per word", "tokens_per_char": "tokens per character",
                           "bytes_per_token": "bytes per token"}


def metric_value(row: Measurement, metric: str) -> float | None:
    """One figure of a measurement; None when it cannot be computed (an error, no words)."""
    if row.error or not row.tokens:
        return None
    if metric == "tokens_per_word":
        return row.tokens_per_word if row.words else None
    if metric == "tokens_per_char":
        return row.tokens_per_char if row.chars else None
    if metric == "bytes_per_token":
        return row.bytes_per_token
    raise ExplorerError(f"unknown efficiency figure {metric!r}; choose one of {', '.join(METRICS)}")


@dataclass(frozen=True, slots=True)
class Pivot:
    """`values[i][j]`: the figure of tokenizer j on source i (None where unknown)."""

    metric: str
    sources: tuple[str, ...]
    tokenizers: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]


def pivot(rows: Iterable[Measurement], metric: str = "tokens_per_word") -> Pivot:
    """Sources x tokenizers, in the order they first appear.

    >>> table = pivot([Measurement("t", "en", 10, 40, 8), Measurement("t", "hi", 30, 90, 8)])
    >>> table.sources, table.tokenizers, table.values
    (('en', 'hi'), ('t',), ((1.25,), (3.75,)))
    """
    rows = list(rows)
    sources = tuple(dict.fromkeys(row.source for row in rows))
    tokenizers = tuple(dict.fromkeys(row.tokenizer for row in rows))
    cells = {(row.source, row.tokenizer): metric_value(row, metric) for row in rows}
    return Pivot(metric, sources, tokenizers,
                 tuple(tuple(cells.get((source, tokenizer)) for tokenizer in tokenizers) for source in sources))
