"""Small file helpers shared by every format: atomic writes and friendly read errors."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from explorer.core.errors import TokenizerFileError


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write to a temporary file beside `path`, then rename: a crash never leaves half a file."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, temporary = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:  # name the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a tokenizer file, turning OS errors into one clear TokenizerFileError."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise TokenizerFileError(path, "no such file") from None
    except IsADirectoryError:
        raise TokenizerFileError(path, "is a folder, not a tokenizer file") from None
    except OSError as exc:
        raise TokenizerFileError(path, exc.strerror or str(exc)) from None


def read_text(path: str | os.PathLike[str]) -> str:
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TokenizerFileError(path, f"not UTF-8 text (byte {exc.start})") from None


def read_json(path: str | os.PathLike[str]) -> tuple[str, Any]:
    """The text of a JSON file and its parsed document; a broken file names the line and column."""
    text = read_text(path)
    return text, parse_json(text, path)


def parse_json(text: str, path: object) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(path, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                                 "the file may be truncated") from None
