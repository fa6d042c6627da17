"""Table models of the Corpus pane: the sources with their statistics, and the efficiency table.

Both compute `data()` on demand from core records (SourceStats, Measurement); custom roles sit
beside them. The sources table ends with a Total row: sums, and distinct chunks as the size of
the union of every source's chunks (stable hashes), not their sum.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from explorer.core.analysis.corpus_stats import SourceStats
from explorer.core.analysis.efficiency import Measurement, premium
from explorer.core.analysis.script_stats import describe_shares
from explorer.core.corpora.corpus_sources import Source
from explorer.core.plural import human_bytes

ModelIndex = QModelIndex | QPersistentModelIndex

SOURCE_COLUMNS = ("Source", "Status", "Files", "Bytes", "Characters", "Lines", "Words", "Distinct chunks", "Scripts")
NAME, STATUS, FILES, BYTES, CHARS, LINES, WORDS, CHUNKS, SCRIPTS = range(len(SOURCE_COLUMNS))
ALL_SCRIPTS = 12  # scripts a description names at most (the Scripts cell and its tooltip)
ScriptsRole = Qt.ItemDataRole.UserRole + 1  # Counter of characters per script (the bar delegate draws it)
SourceRole = Qt.ItemDataRole.UserRole + 2  # the Source of a row (None on the total row)
FractionRole = Qt.ItemDataRole.UserRole + 3  # how much of the source has been read, 0..1

_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class SourcesModel(QAbstractTableModel):
    """One row per source, then the total."""

    def __init__(self, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.sources: list[Source] = []
        self.stats: dict[Source, SourceStats] = {}
        self._bold = QFont()
        self._bold.setBold(True)
        self._total: SourceStats | None = None
        self._distinct_total = 0

    # Feeding

    def set_sources(self, sources: list[Source]) -> None:
        self.beginResetModel()
        self.sources = list(sources)
        self.stats = {s: st for s, st in self.stats.items() if s in self.sources}
        self._recount()
        self.endResetModel()

    def clear_stats(self) -> None:
        self.beginResetModel()
        self.stats = {}
        self._recount()
        self.endResetModel()

    def update_stats(self, snapshots: list[SourceStats]) -> None:
        """Take a batch of snapshots; a finished source also changes the total row."""
        rows = set()
        for snapshot in snapshots:
            if snapshot.source in self.sources:
                self.stats[snapshot.source] = snapshot
                rows.add(self.sources.index(snapshot.source))
        if not rows:
            return
        self._recount()
        last = len(SOURCE_COLUMNS) - 1
        self.dataChanged.emit(self.index(min(rows), 0), self.index(len(self.sources), last))

    def _recount(self) -> None:
        total = SourceStats(Source.pasted("", name="Total"))
        hashes: set[int] = set()
        for source in self.sources:
            stats = self.stats.get(source)
            if stats is None:
                continue
            total.files += stats.files
            total.bytes += stats.bytes
            total.chars += stats.chars
            total.lines += stats.lines
            total.words += stats.words
            total.scripts.update(stats.scripts)
            hashes |= stats.chunk_hashes
        self._distinct_total = len(hashes)
        self._total = total

    @property
    def scanning(self) -> bool:
        return any(s not in self.stats or not self.stats[s].done for s in self.sources)

    def problems(self) -> list[tuple[Source, str]]:
        """Sources that could not be read completely: (source, what went wrong)."""
        found = []
        for source in self.sources:
            stats = self.stats.get(source)
            if stats is not None and stats.done and (stats.error or stats.undecodable):
                found.append((source, stats.error or stats.undecodable[0][1]))
        return found

    def skipped(self) -> list[str]:
        return [str(item) for source in self.sources if (stats := self.stats.get(source)) is not None
                for item in stats.skipped if not any(item.path == path for path, _ in stats.undecodable)]

    # Qt model interface

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() or not self.sources else len(self.sources) + 1

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(SOURCE_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(SOURCE_COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return SOURCE_COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return {CHUNKS: "Distinct chunks under the chosen pre-tokenizer pattern (the total counts shared ones once)",
                    SCRIPTS: "Share of each writing system among the letters (digits, spaces, punctuation left out)",
                    WORDS: "Whitespace-separated words", BYTES: "Bytes on disk, in the file's own encoding"
                    }.get(section)
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() <= len(self.sources):
            return None
        row, column = index.row(), index.column()
        is_total = row == len(self.sources)
        source = None if is_total else self.sources[row]
        stats = self._total if is_total else self.stats.get(source)  # type: ignore[arg-type]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(source, stats, column)
        if role == Qt.ItemDataRole.FontRole and is_total:
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and FILES <= column <= CHUNKS:
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == SCRIPTS and stats is not None:
                return describe_shares(stats.scripts, limit=ALL_SCRIPTS)
            if source is not None:
                return self._tooltip(source, stats)
            return None
        if role == ScriptsRole:
            return stats.scripts if stats is not None else Counter()
        if role == SourceRole:
            return source
        if role == FractionRole:
            return 1.0 if is_total else (stats.fraction if stats is not None else 0.0)
        return None

    def _text(self, source: Source | None, stats: SourceStats | None, column: int) -> str:
        if column == NAME:
            return "Total" if source is None else source.name
        if column == STATUS:
            return self._status(source, stats)
        if stats is None:
            return ""
        if column == FILES:
            return "" if source is not None and source.kind == "text" else f"{stats.files:,}"
        if column == BYTES:
            return human_bytes(stats.bytes)
        if column == CHARS:
            return f"{stats.chars:,}"
        if column == LINES:
            return f"{stats.lines:,}"
        if column == WORDS:
            return f"{stats.words:,}"
        if column == CHUNKS:
            return f"{self._distinct_total if source is None else stats.distinct_chunks:,}"
        if column == SCRIPTS:
            return describe_shares(stats.scripts, limit=ALL_SCRIPTS)  # (the delegate names fewer if it must)
        return ""

    def _status(self, source: Source | None, stats: SourceStats | None) -> str:
        if source is None:
            return "counting..." if self.scanning else ""
        if stats is None:
            return "waiting"
        if stats.error:
            return "cannot be read"
        if not stats.done:
            return f"counting {stats.fraction:.0%}"
        if stats.undecodable:
            return "not UTF-8: choose an encoding"
        if stats.skipped:
            return f"ok, {len(stats.skipped)} skipped"
        return "ok"

    def _tooltip(self, source: Source, stats: SourceStats | None) -> str:
        lines = [source.description]
        if stats is not None:
            lines += [stats.error] if stats.error else []
            lines += [message for _, message in stats.undecodable[:3]]
            lines += [str(item) for item in stats.skipped[:5]]
        return "\n".join(lines)


EFFICIENCY_COLUMNS = ("Tokenizer", "Source", "Tokens", "Bytes/token", "Tokens/word", "Premium")
TOKENIZER, SOURCE, TOKENS, BPT, TPW, PREMIUM = range(len(EFFICIENCY_COLUMNS))
MeasurementRole = Qt.ItemDataRole.UserRole + 10
SortRole = Qt.ItemDataRole.UserRole + 11


class EfficiencyModel(QAbstractTableModel):
    """Rows of Measurement: a tokenizer on a source; the premium is against `reference`."""

    def __init__(self, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.rows: list[Measurement] = []
        self.reference = ""

    def clear(self) -> None:
        self.beginResetModel()
        self.rows = []
        self.endResetModel()

    def add(self, rows: list[Measurement]) -> None:
        if not rows:
            return
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(rows) - 1)
        self.rows.extend(rows)
        self.endInsertRows()
        self._premiums_changed()

    def set_reference(self, reference: str) -> None:
        self.reference = reference
        self._premiums_changed()

    def _premiums_changed(self) -> None:
        if self.rows:
            self.dataChanged.emit(self.index(0, PREMIUM), self.index(len(self.rows) - 1, PREMIUM))

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(EFFICIENCY_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(EFFICIENCY_COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return EFFICIENCY_COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return {BPT: "UTF-8 bytes divided by tokens: higher is better",
                    TPW: "Tokens per whitespace-separated word",
                    PREMIUM: "Tokens on this source / tokens on the reference source, same tokenizer "
                             "(for parallel texts: how much more the same content costs)"}.get(section)
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row, column = self.rows[index.row()], index.column()
        if role in (Qt.ItemDataRole.DisplayRole, SortRole):
            value = self._value(row, column)
            if role == SortRole:
                return value if value is not None else -1.0
            return self._format(row, column, value)
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= TOKENS:
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole and row.error:
            return row.error
        if role == MeasurementRole:
            return row
        return None

    def _value(self, row: Measurement, column: int) -> object:
        if column == TOKENIZER:
            return row.tokenizer
        if column == SOURCE:
            return row.source
        if row.error:
            return None
        if column == TOKENS:
            return row.tokens
        if column == BPT:
            return row.bytes_per_token
        if column == TPW:
            return row.tokens_per_word if row.words else None
        return premium(self.rows, row, self.reference) if self.reference else None

    def _format(self, row: Measurement, column: int, value: object) -> str:
        if column in (TOKENIZER, SOURCE):
            return str(value)
        if row.error:
            return "error: " + row.error.split(":")[0] if column == TOKENS else ""
        if value is None:
            return "—"
        if column == TOKENS:
            return f"{value:,}"
        if column == PREMIUM:
            return "reference" if row.source == self.reference else f"×{value:.2f}"
        return f"{value:.2f}"
