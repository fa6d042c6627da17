"""Reading a corpus lazily: files and folders become a stream of texts, one per line.

Lines keep their endings unchanged (`\\r\\n` stays) and are split on `\\n` only, exactly as
Hugging Face tokenizers' `Tokenizer.train(files)` reads files, so both see the same texts.
Whatever is not text is refused when it is met, with its byte offset: a device or FIFO (which
would never end), a NUL byte anywhere, invalid UTF-8, a line too long to be a line.
With `whole=True` each file is one text, as the tutorials (and the "minbpe" rules) read it.
"""

from __future__ import annotations

import codecs
import errno
import io
import itertools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from explorer.core.errors import CorpusError
from explorer.core.files import missing_reason, not_regular_reason

_SNIFF = 8192
BLOCK_BYTES = 1 << 20
MAX_LINE_BYTES = 1 << 24  # 16 MiB: a longer "line" is a file without line breaks, or not text


class Utf8LineError(CorpusError):
    """A line that is not valid UTF-8: its number, and the offset of the bad byte in the file."""

    def __init__(self, path: str, line: int, offset: int, in_line: int) -> None:
        self.path, self.line, self.offset = path, line, offset
        super().__init__(f"{path}: line {line:,} is not valid UTF-8 (byte {in_line:,} of the line, "
                         f"{offset:,} of the file); convert the file to UTF-8 first (for example with iconv)")


def binary_error(path: object, offset: int) -> CorpusError:
    return CorpusError(f"{path}: looks like a binary file (a NUL byte at byte {offset:,}); "
                       "give text files only")


def line_too_long_error(path: object, number: int, where: str = "", longest: int = MAX_LINE_BYTES,
                        advice: str = "") -> CorpusError:
    advice = advice or "a corpus is read one line at a time, so break the text into lines"
    return CorpusError(f"{path}: line {number:,}{where} is longer than {longest >> 20:,} MB; {advice}")


def looks_binary(path: Path) -> bool:
    """A NUL byte in the first 8 KB: images, archives, compiled files (a quick sniff for folders;
    reading checks every byte)."""
    with path.open("rb") as handle:
        return b"\x00" in handle.read(_SNIFF)


def utf8_lines(handle: BinaryIO, path: object, first_line: int = 1, offset: int = 0) -> Iterator[tuple[int, str]]:
    """(bytes, text) for each line of a binary file, split on b"\\n" with endings kept. A NUL
    byte, invalid UTF-8 or a line over MAX_LINE_BYTES stops it with the place in the file
    (`first_line` and `offset` say where `handle` starts in it)."""
    readline, limit = handle.readline, MAX_LINE_BYTES + 1
    for number in itertools.count(first_line):
        raw = readline(limit)
        if not raw:
            return
        nul = raw.find(b"\x00")
        try:  # decode up to a NUL first: whichever problem comes first in the file is reported
            text = (raw if nul < 0 else raw[:nul]).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Utf8LineError(str(path), number, offset + exc.start, exc.start) from None
        if nul >= 0:
            raise binary_error(path, offset + nul)
        if len(raw) == limit and not raw.endswith(b"\n"):
            raise line_too_long_error(path, number, f" (at byte {offset:,})")
        offset += len(raw)
        yield len(raw), text


def ends_mid_character(path: Path) -> bool:
    """The file's last bytes are a UTF-8 character cut short (a corpus cut at a byte count): its last
    line does not decode. Reads only the last four bytes."""
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - 4))
            tail = handle.read().lstrip(bytes(range(0x80, 0xC0)))  # the end of a character begun before
    except OSError:
        return False
    try:
        return codecs.utf_8_decode(tail, "strict", False)[1] < len(tail)
    except UnicodeDecodeError:
        return True


def utf8_line_batches(handle: BinaryIO, path: object) -> Iterator[tuple[int, list[str]]]:
    """`utf8_lines` a block at a time: (bytes, the block's lines). The same lines and the same
    errors, with one decode and one split per megabyte instead of Python work per line (a
    400 MB corpus has ten million lines). A block with a NUL byte, invalid UTF-8 or a line that
    may be too long goes through `utf8_lines`, which finds the place to report."""
    carry, number, offset = b"", 1, 0
    while True:
        block = handle.read(BLOCK_BYTES)
        data = carry + block if carry else block
        end = data.rfind(b"\n") + 1 if block else len(data)
        if block and end == 0:
            if len(data) <= MAX_LINE_BYTES:
                carry = data  # a long line goes on in the next block
                continue
            end = len(data)  # too long: utf8_lines says so
        chunk, carry = data[:end], data[end:]
        try:
            if b"\x00" in chunk or len(chunk) > MAX_LINE_BYTES:
                raise ValueError("a block utf8_lines must check line by line")
            lines = chunk.decode("utf-8").split("\n")
            last = lines.pop()  # "" after a final line break
            batch = [line + "\n" for line in lines]
            if last:
                batch.append(last)
        except (UnicodeDecodeError, ValueError):
            batch, good = [], 0
            try:
                for size, text in utf8_lines(io.BytesIO(chunk), path, number, offset):
                    batch.append(text)
                    good += size
            except CorpusError:
                if batch:  # the lines before the problem are read, as utf8_lines reads them
                    yield good, batch
                raise
        if batch:
            yield len(chunk), batch
        number, offset = number + len(batch), offset + len(chunk)
        if not block:
            return


def read_text_file(path: str | os.PathLike[str]) -> str:
    """A whole UTF-8 text file; a device or FIFO (which might never end) is refused unread."""
    reason = not_regular_reason(Path(path))
    if reason:
        raise CorpusError(f"{path}: {reason}")
    try:
        with open(path, "rb") as handle:
            return read_utf8(handle, path)
    except IsADirectoryError:
        raise CorpusError(f"{path}: is a folder; give a text file") from None
    except FileNotFoundError:
        raise CorpusError(f"{path}: no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CorpusError(f"{path}: {missing_reason(Path(path))}") from None
        raise CorpusError(f"{path}: {exc.strerror or exc}") from None


def read_utf8(handle: BinaryIO, name: object) -> str:
    """All of a binary stream as text, read in blocks: a NUL byte or invalid UTF-8 is refused
    with its byte offset as soon as it is met, not after reading everything."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts: list[str] = []
    offset = 0  # of the block being decoded; the decoder may hold back the start of a character
    try:
        while block := handle.read(BLOCK_BYTES):
            nul = block.find(b"\x00")
            held = len(decoder.getstate()[0])
            parts.append(decoder.decode(block if nul < 0 else block[:nul]))
            if nul >= 0:
                raise binary_error(name, offset + nul)
            offset += len(block)
            if len(block) < BLOCK_BYTES:  # a buffered read is short only at the end (a terminal's Ctrl-D)
                break
        held = len(decoder.getstate()[0])
        parts.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{name}: not UTF-8 text (byte {offset - held + exc.start:,}); "
                          "convert it to UTF-8 first (for example with iconv)") from None
    return "".join(parts)


def expand_paths(paths: Iterable[str | os.PathLike[str]], skipped: list[str] | None = None) -> list[Path]:
    """Files named directly, plus every file under named folders (sorted, hidden ones left out)."""
    files: list[Path] = []
    for entry in map(Path, paths):
        if entry.is_dir():
            for path in sorted(entry.rglob("*")):
                if path.is_file() and not any(part.startswith(".") for part in path.relative_to(entry).parts):
                    if looks_binary(path):
                        if skipped is not None:
                            skipped.append(f"{path}: binary file, skipped")
                        continue
                    files.append(path)
        elif entry.is_file():
            files.append(entry)
        elif entry.exists():
            raise CorpusError(f"{entry}: {not_regular_reason(entry)}")
        else:
            raise CorpusError(f"{entry}: {missing_reason(entry)}")
    return files


@dataclass
class CorpusFiles:
    """Iterable over the lines of several files; tracks bytes read for progress bars."""

    files: list[Path]
    whole: bool = False  # each file one text instead of one text per line
    bytes_read: int = 0
    total_bytes: int = field(init=False)

    def __post_init__(self) -> None:
        self.total_bytes = sum(path.stat().st_size for path in self.files)

    def plain_files(self) -> list[Path] | None:
        """The files, when each line is a text (None when each file is one), as `CorpusReader.plain_files`."""
        return None if self.whole else list(self.files)

    def __iter__(self) -> Iterator[str]:
        self.bytes_read = 0
        for path in self.files:
            lines = self._lines(path)
            if self.whole:
                text = "".join(lines)
                if text:
                    yield text
            else:
                yield from lines

    def _lines(self, path: Path) -> Iterator[str]:
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise CorpusError(f"{path}: {exc.strerror}") from None
        with handle:
            for size, text in utf8_lines(handle, path):
                self.bytes_read += size
                yield text
