"""What a corpus is made of: files, folders, JSON Lines, CSV and pasted text, read lazily.

A `Source` is a small frozen description (picklable, so a child process can read it too). A
`CorpusReader` streams the texts of many sources: plain files one line at a time with line endings
kept, as the command line and Hugging Face tokenizers read them; JSON Lines and CSV one record's
field at a time; pasted text and toy samples as one text. Files that cannot be read are skipped
with a reason a person understands, and the rest of the corpus still loads.
"""

from __future__ import annotations

import codecs
import csv
import fnmatch
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, Literal, TypeVar

from explorer.core.corpora.corpus import (
    MAX_LINE_BYTES, Utf8LineError, line_too_long_error, utf8_line_batches, utf8_lines)
from explorer.core.errors import CorpusError
from explorer.core.files import missing_reason, not_regular_reason
from explorer.core.plural import plural

T = TypeVar("T")

SourceKind = Literal["file", "folder", "text", "jsonl", "csv"]
DEFAULT_FILTER = "*.txt;*.md;*.py"
SNIFF_BYTES = 8192
BLOCK_BYTES = 1 << 20
RECORD_LIMIT = 1 << 30  # characters of a CSV cell or a JSON Lines record: long texts are the point of a corpus

RECORD_SUFFIXES: dict[str, SourceKind] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "csv"}
# Formats that hold text inside a container: say what to do instead of reading garbage.
NOT_TEXT: dict[str, str] = {
    ".pdf": "a PDF document: extract its text first (for example with pdftotext)",
    ".docx": "a Word document: save it as plain text first",
    ".doc": "a Word document: save it as plain text first",
    ".odt": "an OpenDocument file: save it as plain text first",
    ".epub": "an e-book (a zip of HTML files): extract it first",
    ".xlsx": "a spreadsheet: export it as CSV first",
    ".zip": "a zip archive: unpack it and add the folder",
    ".gz": "a compressed file: decompress it first",
    ".bz2": "a compressed file: decompress it first",
    ".xz": "a compressed file: decompress it first",
    ".zst": "a compressed file: decompress it first",
    ".tar": "a tar archive: unpack it and add the folder",
    ".parquet": "a Parquet table: export the text column as JSON Lines or CSV first",
    ".arrow": "an Arrow table: export the text column as JSON Lines or CSV first",
}
ENCODINGS = ("utf-8", "utf-16", "latin-1", "cp1252", "cp1251", "koi8-r", "iso-8859-2", "shift_jis", "euc-jp",
             "gb18030", "big5", "euc-kr", "iso-8859-6", "cp1256", "iso-8859-7", "cp1253", "iso-8859-9")


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file left out of the corpus, and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class NotUtf8Error(CorpusError):
    """A file that does not decode with its encoding; the reader skips it, the pane offers a fix."""

    def __init__(self, path: str, encoding: str, line: int, offset: int) -> None:
        self.path, self.encoding, self.line, self.offset = path, encoding, line, offset
        name = "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding
        super().__init__(f"{path}: not valid {name} (line {line:,}, byte {offset:,} of the file); "
                         "choose its encoding, or read it with invalid bytes replaced")


@dataclass(frozen=True)
class Source:
    """One entry of a corpus, as the user added it.

    >>> Source.pasted("hello").name
    'pasted text (5 characters)'
    """

    kind: SourceKind
    name: str
    path: str = ""
    text: str = ""  # pasted text
    field: str = ""  # the JSON Lines field or CSV column holding the text
    include: str = DEFAULT_FILTER  # folders: which file names to read
    recursive: bool = True
    encoding: str = "utf-8"
    errors: Literal["strict", "replace"] = "strict"
    whole: bool = False  # read a file as one text (toy samples), not one text per line
    origin: str = ""  # "sample", "stdlib" or "" (added by the user)

    @classmethod
    def pasted(cls, text: str, name: str = "") -> Source:
        return cls("text", name or f"pasted text ({plural(len(text), 'character')})", text=text)

    @classmethod
    def for_path(cls, path: str | os.PathLike[str], field: str = "", include: str = DEFAULT_FILTER) -> Source:
        """A file, folder, JSON Lines or CSV source, chosen by what `path` is."""
        target = Path(path)
        if target.is_dir():
            return cls("folder", target.name or str(target), str(target), include=include)
        kind = RECORD_SUFFIXES.get(target.suffix.lower(), "file")
        return cls(kind, target.name, str(target), field=field if kind != "file" else "")

    def with_encoding(self, encoding: str, errors: Literal["strict", "replace"] = "strict") -> Source:
        codecs.lookup(encoding)  # LookupError for a name Python does not know
        return replace(self, encoding=encoding, errors=errors)

    @property
    def description(self) -> str:
        """A short line for tooltips: what is read, and how."""
        if self.kind == "text":
            return f"{len(self.text):,} characters of pasted text"
        how = {"folder": f"files matching {self.include}" + (" (recursive)" if self.recursive else ""),
               "jsonl": f"JSON Lines, field {self.field!r}", "csv": f"CSV, column {self.field!r}",
               "file": "the whole file as one text" if self.whole else "one text per line"}[self.kind]
        encoding = "" if self.encoding == "utf-8" and self.errors == "strict" else \
            f"; read as {self.encoding}" + (" with invalid bytes replaced" if self.errors == "replace" else "")
        return f"{self.path}: {how}{encoding}"


# Listing files


def skip_reason(path: Path) -> str | None:
    """Why `path` cannot be read as text, or None if it can (or might: decoding tells later)."""
    reason = NOT_TEXT.get(path.suffix.lower()) or not_regular_reason(path)
    if reason:
        return reason
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None  # UTF-16 text is full of NUL bytes; the encoding check offers utf-16
    if b"\x00" in head:
        return "binary file (it contains NUL bytes), skipped"
    return None


def _matches(name: str, include: str) -> bool:
    patterns = [p.strip() for p in include.replace(",", ";").split(";") if p.strip()]
    return not patterns or any(fnmatch.fnmatch(name.lower(), p.lower()) for p in patterns)


def list_files(source: Source) -> tuple[list[Path], list[Skipped]]:
    """The files a file or folder source will read (sorted; hidden ones left out) and those skipped."""
    if source.kind == "text":
        return [], []
    root = Path(source.path)
    if not root.exists():
        raise CorpusError(f"{root}: {missing_reason(root)}")
    if source.kind != "folder":
        reason = not_regular_reason(root) if source.kind in ("jsonl", "csv") else skip_reason(root)
        return ([], [Skipped(str(root), reason)]) if reason else ([root], [])
    files: list[Path] = []
    skipped: list[Skipped] = []
    walk = root.rglob("*") if source.recursive else root.glob("*")
    for path in sorted(walk):
        relative = path.relative_to(root).parts
        if any(part.startswith(".") or part == "__pycache__" for part in relative) or not path.is_file():
            continue
        if not _matches(path.name, source.include):
            continue
        reason = skip_reason(path)
        if reason:
            skipped.append(Skipped(str(path), reason))
        else:
            files.append(path)
    return files, skipped


SAMPLED_CHARS = 1 << 20  # of a JSON Lines or CSV file's start, read for its fields (a record cut there still counts)
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def preferred_field(fields: list[str]) -> str:
    """Of a record file's fields (`record_fields`), the one its texts come from unless the user
    picks another: `text` if there is one, else the first ("" when there are none)."""
    return "text" if "text" in fields else fields[0] if fields else ""


def record_source(path: str | os.PathLike[str]) -> Source:
    """`Source.for_path`, with a JSON Lines or CSV file read from its preferred field: for the
    command line, where no one is asked. A record file without a text field is a CorpusError."""
    if Path(path).suffix.lower() not in RECORD_SUFFIXES or not Path(path).is_file():
        return Source.for_path(path)
    field = preferred_field(record_fields(path))
    if not field:
        raise CorpusError(f"{path}: found no field with text in the first records")
    return Source.for_path(path, field=field)


def record_fields(path: str | os.PathLike[str], encoding: str = "utf-8", sample: int = 50) -> list[str]:
    """The fields of a JSON Lines file's first records (string values only), or a CSV file's header.
    The window asks when the file is added, so only the first SAMPLED_CHARS are read: a file of one
    record of a gigabyte, or with no line break at all, costs a few milliseconds, not a freeze."""
    target = Path(path)
    reason = not_regular_reason(target)
    if reason:  # a FIFO named data.jsonl would block the reader forever
        raise CorpusError(f"{target}: {reason}")
    with target.open(encoding=encoding, errors="replace", newline="") as handle:
        start = handle.read(SAMPLED_CHARS)
    whole = len(start) < SAMPLED_CHARS  # else the last line may be cut short
    if RECORD_SUFFIXES.get(target.suffix.lower()) == "csv":
        return _csv_header(target, start, whole)
    fields: dict[str, None] = {}
    lines = start.split("\n")[:sample]  # (not splitlines: a JSON string may hold a raw U+2028)
    for number, line in enumerate(lines):
        cut = not whole and number == len(lines) - 1
        fields.update(dict.fromkeys(_leading_string_fields(line) if cut else _string_fields(line)))
    return list(fields)


def _string_fields(line: str) -> list[str]:
    """The keys of a JSON object's string values (none for a line that is no JSON object)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # (broken, thousands deep, or a number of thousands of digits)
        return []
    return [key for key, value in record.items() if isinstance(value, str)] if isinstance(record, dict) else []


def _leading_string_fields(line: str) -> list[str]:
    """The same for a JSON object cut short: the keys whose string value starts before the cut
    (a record of a gigabyte has its text field among them)."""
    decoder, fields = json.JSONDecoder(), []
    skip_space = _JSON_SPACE.match
    position = skip_space(line).end()
    if not line.startswith("{", position):
        return []
    position += 1
    try:
        while line.startswith('"', position := skip_space(line, position).end()):
            key, position = json.decoder.scanstring(line, position + 1)
            position = skip_space(line, position).end()
            if not line.startswith(":", position):
                break
            position = skip_space(line, position + 1).end()
            if line.startswith('"', position):
                fields.append(key)
            _, position = decoder.raw_decode(line, position)
            position = skip_space(line, position).end()
            if not line.startswith(",", position):
                break
            position += 1
    except (ValueError, RecursionError):  # the cut, or no JSON
        pass
    return fields


def _csv_header(path: Path, start: str, whole: bool) -> list[str]:
    """The column names of the first row of `start`, the beginning of a CSV file."""
    if "\n" not in start and not whole:
        raise CorpusError(f"{path}: the first line is over {SAMPLED_CHARS:,} characters long, so it is no "
                          "header of column names, which a CSV corpus starts with; to read the file as plain "
                          "text, one text per line, give it a .txt name")
    try:
        header = next(csv.reader(io.StringIO(start), delimiter=_delimiter(path)), [])
    except csv.Error as exc:
        raise CorpusError(f"{path}: the first row is not a CSV header of column names ({exc})") from None
    return [name for name in header if name]


def _delimiter(path: Path) -> str:
    return "\t" if path.suffix.lower() == ".tsv" else ","


# Reading texts


@dataclass
class CorpusReader:
    """Iterable over the texts of `sources`; counts bytes read (for progress) and what it skipped.

    Iterating again starts over. A file that turns out not to decode stops at the bad line and
    is reported in `skipped`; the other sources are still read.
    """

    sources: Iterable[Source]
    bytes_read: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    undecodable: list[NotUtf8Error] = field(default_factory=list)  # also in `skipped`
    total_bytes: int = field(init=False)

    def __post_init__(self) -> None:
        self.sources = list(self.sources)
        self._files = {id(source): self._listed(source) for source in self.sources}
        self.total_bytes = sum(_size(path) for files in self._files.values() for path in files)
        self.total_bytes += sum(len(s.text.encode("utf-8")) for s in self.sources if s.kind == "text")

    def _listed(self, source: Source) -> list[Path]:
        try:
            files, skipped = list_files(source)
        except CorpusError as exc:
            self.skipped.append(Skipped(source.path, str(exc).split(": ", 1)[-1]))
            return []
        self.skipped.extend(skipped)
        return files

    def __iter__(self) -> Iterator[str]:
        self.bytes_read = 0
        for source in self.sources:
            yield from self.source_texts(source)

    def batches(self, size: int = 1024) -> Iterator[list[str]]:
        """The same texts as iterating, in lists: plain UTF-8 files a block of lines at a time,
        for a consumer that takes many texts at once (Hugging Face tokenizers)."""
        self.bytes_read = 0
        batch: list[str] = []
        for source in self.sources:
            if source.kind not in ("file", "folder") or source.whole or not _plain_utf8(source):
                for text in self.source_texts(source):
                    batch.append(text)
                    if len(batch) >= size:
                        yield batch
                        batch = []
                continue
            if batch:
                yield batch
                batch = []
            for path in self._files[id(source)] if id(source) in self._files else self._listed(source):
                with self._reading(path):
                    yield from self._utf8(path, utf8_line_batches)
        if batch:
            yield batch

    def plain_files(self) -> list[Path] | None:
        """The files in reading order when every source is a plain UTF-8 file or folder read one
        text per line: then Hugging Face tokenizers' own `train(files)` reads the same texts
        (lines split on "\\n", endings kept). None when any source is read otherwise."""
        if not all(s.kind in ("file", "folder") and not s.whole and _plain_utf8(s) for s in self.sources):
            return None
        return [path for source in self.sources for path in self._files.get(id(source), [])]

    def source_texts(self, source: Source) -> Iterator[str]:
        """The texts of one source (already listed by this reader)."""
        if source.kind == "text":
            self.bytes_read += len(source.text.encode("utf-8"))
            if source.text:
                yield source.text
            return
        files = self._files[id(source)] if id(source) in self._files else self._listed(source)
        for path in files:
            with self._reading(path):
                if source.kind == "jsonl":
                    yield from self._jsonl(path, source)
                elif source.kind == "csv":
                    yield from self._csv(path, source)
                elif source.whole:
                    yield from self._whole(path, source)
                elif _plain_utf8(source):
                    yield from self._utf8(path, utf8_lines)
                else:
                    yield from self._decoded_lines(path, source.encoding, source.errors)

    @contextmanager
    def _reading(self, path: Path) -> Iterator[None]:
        """A file that cannot be read to the end is skipped from there, with the reason."""
        try:
            yield
        except NotUtf8Error as exc:
            self.undecodable.append(exc)
            self.skipped.append(Skipped(exc.path, str(exc).split(": ", 1)[1]))
        except CorpusError as exc:  # binary after the first 8 KB, a line too long
            self.skipped.append(Skipped(str(path), str(exc).split(": ", 1)[-1]))
        except OSError as exc:
            self.skipped.append(Skipped(str(path), f"cannot be read ({exc.strerror or exc})"))

    def _utf8(self, path: Path, reader: Callable[[BinaryIO, Path], Iterator[tuple[int, T]]]) -> Iterator[T]:
        """The fast path, and the command line's exact reading: binary lines split on b"\\n", as
        `reader` hands them out (`utf8_lines` one by one, `utf8_line_batches` a block at a time)."""
        with path.open("rb") as handle:
            try:
                for size, item in reader(handle, path):
                    self.bytes_read += size
                    yield item
            except Utf8LineError as exc:
                raise NotUtf8Error(exc.path, "utf-8", exc.line, exc.offset) from None

    def _decoded_lines(self, path: Path, encoding: str, errors: str, longest: int = MAX_LINE_BYTES,
                       advice: str = "") -> Iterator[str]:
        """Any encoding: decode blocks incrementally, then split on "\\n" only, endings kept. A line
        over `longest` characters stops the file (`advice`: what to do about it). A line that
        spans blocks is kept in parts until it ends, so a long one is not copied again per block."""
        decoder = codecs.getincrementaldecoder(encoding)(errors=errors)
        pending: list[str] = []  # the line that goes on in the next block
        size, number, offset = 0, 1, 0  # its characters, its number, the block's place in the file
        with path.open("rb") as handle:
            while True:
                block = handle.read(BLOCK_BYTES)
                self.bytes_read += len(block)
                try:
                    text = decoder.decode(block, final=not block)
                except UnicodeDecodeError as exc:
                    raise NotUtf8Error(str(path), encoding, number, offset + exc.start) from None
                offset += len(block)
                lines = text.split("\n")
                if len(lines) > 1:
                    lines[0] = "".join(pending) + lines[0]
                    pending, size = [], 0
                    number += len(lines) - 1
                    for line in lines[:-1]:
                        yield line + "\n"
                pending.append(lines[-1])
                size += len(lines[-1])
                if size > longest:
                    raise line_too_long_error(path, number, longest=longest, advice=advice)
                if not block:
                    break
        if size:
            yield "".join(pending)

    def _whole(self, path: Path, source: Source) -> Iterator[str]:
        data = path.read_bytes()
        self.bytes_read += len(data)
        try:
            text = data.decode(source.encoding, errors=source.errors)
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise NotUtf8Error(str(path), source.encoding, line, exc.start) from None
        if text:
            yield text

    def _jsonl(self, path: Path, source: Source) -> Iterator[str]:
        missing = bad = 0
        lines = self._decoded_lines(path, source.encoding, source.errors, RECORD_LIMIT,
                                    "a JSON Lines record is one line: split it into several records")
        keys = source.field.split(".")
        for line in lines:
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):  # (broken, thousands deep, or a number of thousands of digits)
                bad += 1
                continue
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
            if isinstance(value, str):
                if value:
                    yield value
            else:
                missing += 1
        if bad or missing:
            parts = [f"{bad:,} lines that are not JSON"] if bad else []
            parts += [f"{missing:,} records without a text field {source.field!r}"] if missing else []
            self.skipped.append(Skipped(str(path), " and ".join(parts) + " left out"))

    def _csv(self, path: Path, source: Source) -> Iterator[str]:
        csv.field_size_limit(min(RECORD_LIMIT, sys.maxsize))
        missing = 0
        with path.open("rb") as raw, io.TextIOWrapper(raw, source.encoding, source.errors, newline="") as handle:
            start = 0
            try:
                reader = csv.DictReader(handle, delimiter=_delimiter(path))
                if reader.fieldnames is not None and source.field not in reader.fieldnames:
                    raise CorpusError(f"{path}: no column {source.field!r} (columns: {', '.join(reader.fieldnames)})")
                for row in reader:
                    position = raw.tell()
                    self.bytes_read += position - start
                    start = position
                    value = row.get(source.field)
                    if value:
                        yield value
                    elif value is None:
                        missing += 1
            except UnicodeDecodeError as exc:
                raise NotUtf8Error(str(path), source.encoding, reader.line_num, start + exc.start) from None
            except csv.Error as exc:
                self.skipped.append(Skipped(str(path), f"CSV error, stopped reading: {exc}"))
            except CorpusError as exc:
                self.skipped.append(Skipped(str(path), str(exc).split(": ", 1)[1]))
        if missing:
            self.skipped.append(Skipped(str(path), f"{missing:,} rows without column {source.field!r} left out"))


def _plain_utf8(source: Source) -> bool:
    return codecs.lookup(source.encoding).name == "utf-8" and source.errors == "strict"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


@dataclass(frozen=True)
class Corpus:
    """What the Corpus pane hands to training: the sources, and a held-out text for evaluation."""

    sources: tuple[Source, ...] = ()
    held_out: Source | None = None

    @property
    def is_empty(self) -> bool:
        return not self.sources

    def __iter__(self) -> Iterator[str]:
        """The training texts, streamed (other panes count tokens over the corpus this way)."""
        return iter(self.reader())

    def reader(self, whole: bool = False) -> CorpusReader:
        """The training texts; with `whole`, each plain file is one text (as the "minbpe" rules read them)."""
        return CorpusReader(_whole(self.sources) if whole else self.sources)

    def total_bytes(self) -> int:
        """The bytes its training texts will read, its folders walked. Walking 30,000 files opens
        each (seconds): the window asks a child process (in a thread of its own process it would
        hold up the window, through the interpreter lock, tens of milliseconds at a time)."""
        return self.reader().total_bytes

    def held_out_reader(self, whole: bool = False) -> CorpusReader | None:
        if self.held_out is None:
            return None
        return CorpusReader(_whole((self.held_out,)) if whole else [self.held_out])


def _whole(sources: Iterable[Source]) -> list[Source]:
    return [replace(s, whole=True) if s.kind in ("file", "folder") else s for s in sources]


def sample_dir() -> Path:
    """The built-in sample corpora (resources/samples, shipped as package data)."""
    from importlib.resources import files

    return Path(str(files("explorer.resources") / "samples"))


SAMPLES: tuple[tuple[str, str, bool], ...] = (  # (file, name, read as one text)
    ("english.txt", "Sample: English (garden story)", False),
    ("hindi.txt", "Sample: Hindi (the same story)", False),
    ("korean.txt", "Sample: Korean (the same story)", False),
    ("arabic.txt", "Sample: Arabic (the same story)", False),
    ("garden_notebook.py", "Sample: Python code", False),
    ("toy/cat_mat.txt", "Toy: the cat sat on the mat", True),
    ("toy/aaabdaaabac.txt", "Toy: aaabdaaabac", True),
    ("toy/bakery_replies.txt", "Toy: bakery replies", True),
)


def is_toy_sample(source: Source) -> bool:
    """One of the tutorials' tiny worked examples (resources/samples/toy)."""
    return source.origin == "sample" and Path(source.path).parent.name == "toy"


def sample_sources() -> list[Source]:
    """Every built-in sample as a source, in the order the pane lists them."""
    root = sample_dir()
    return [Source("file", name, str(root / relative), whole=whole, origin="sample")
            for relative, name, whole in SAMPLES]


def stdlib_source() -> Source | None:
    """Python's standard library (top-level modules) as a code corpus, where it exists on this machine."""
    import sysconfig

    path = Path(sysconfig.get_paths().get("stdlib", ""))
    if not (path / "os.py").is_file():
        return None
    return Source("folder", f"Python {sys.version_info.major}.{sys.version_info.minor} standard library",
                  str(path), include="*.py", recursive=False, origin="stdlib")
