"""Reading a corpus lazily: files and folders become a stream of texts, one per line.

Lines keep their endings unchanged (`\\r\\n` stays) and are split on `\\n` only, exactly as
Hugging Face tokenizers' `Tokenizer.train(files)` reads files, so both see the same texts.
With `whole=True` each file is one text, as the tutorials (and the "minbpe" rules) read it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.errors import CorpusError

_SNIFF = 8192


def looks_binary(path: Path) -> bool:
    """A NUL byte in the first 8 KB: images, archives, compiled files."""
    with path.open("rb") as handle:
        return b"\x00" in handle.read(_SNIFF)


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
        else:
            raise CorpusError(f"{entry}: no such file or folder")
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
        if looks_binary(path):
            raise CorpusError(f"{path}: looks like a binary file (it contains NUL bytes); remove it from the corpus")
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise CorpusError(f"{path}: {exc.strerror}") from None
        with handle:
            for number, raw in enumerate(handle, start=1):
                self.bytes_read += len(raw)
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise CorpusError(
                        f"{path}: line {number} is not valid UTF-8 (byte {exc.start} of the line); "
                        "convert the file to UTF-8 first (for example with iconv)"
                    ) from None
