"""Small file helpers shared by every format: atomic writes, checks of where a file will be
written (before the work that fills it), and friendly read errors."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from explorer.core.errors import OutputFileError, TokenizerFileError

StrPath = str | os.PathLike[str]


def display_path(path: StrPath) -> str:
    """A path as text that can be printed or stored in JSON: bytes of a file name that are not
    UTF-8 (Python keeps them as lone surrogates) become U+FFFD."""
    return os.fsencode(path).decode("utf-8", errors="replace")


def check_output(path: StrPath, inputs: Iterable[StrPath] = ()) -> None:
    """Refuse, before any work, a file to write that would fail or destroy something: a folder,
    a device or FIFO, a missing or read-only folder, or one of the `inputs` (also through a
    symbolic link or another name of the same file)."""
    target = Path(path)
    shown = display_path(target)
    if target.is_dir():
        raise OutputFileError(f"{shown}: is a folder; name a file to write inside it")
    if target.exists():
        if not stat.S_ISREG(target.stat().st_mode):
            raise OutputFileError(f"{shown}: not a regular file (a device, FIFO or socket); "
                                  "name an ordinary file to write")
        for source in inputs:
            if _same_file(target, source):
                also = "" if os.path.abspath(source) == os.path.abspath(target) else f" ({display_path(source)})"
                raise OutputFileError(f"{shown}: is also an input{also}; writing it would destroy that input, "
                                      "so name another file to write")
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise OutputFileError(f"{shown}: the folder {display_path(folder)} {what}; create it or "
                              "name a file in another folder")
    try:  # the one sure test of writing there, for root and read-only file systems alike
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputFileError(f"{shown}: cannot write in the folder {display_path(folder)} "
                              f"({exc.strerror or exc}); name a file in another folder") from None
    os.close(fd)
    os.unlink(probe)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def check_png_output(path: StrPath) -> None:
    """Refuse a picture's file name that does not end in .png (the picture is PNG whatever the
    name says), or an existing file that is not a PNG picture: a mistyped --out would lose it."""
    target = Path(path)
    shown = display_path(target)
    if target.suffix.lower() != ".png":
        raise OutputFileError(f"{shown}: the picture is written as PNG; name a file ending in .png")
    if target.is_file() and target.stat().st_size:
        with target.open("rb") as handle:
            if handle.read(len(PNG_SIGNATURE)) != PNG_SIGNATURE:
                raise OutputFileError(f"{shown}: exists and is not a PNG picture; the screenshot would replace it, "
                                      "so name another file (or delete this one first)")


def _same_file(one: StrPath, other: StrPath) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:  # an input that has gone is not this file
        return False


def unused_path(path: StrPath) -> Path:
    """`path`, or `name-2.ext`, `name-3.ext`... if it is taken: somewhere to save without replacing."""
    target = Path(path)
    number = 2
    while target.exists():
        target = Path(path).with_name(f"{Path(path).stem}-{number}{Path(path).suffix}")
        number += 1
    return target


def rescue_paths(path: StrPath) -> list[Path]:
    """Where to save work that could not be written to `path`: beside it, in the current folder,
    then in the temporary folder (names not yet taken)."""
    name = Path(path).name or "rescued"
    places = [Path(path).parent, Path.cwd(), Path(tempfile.gettempdir())]
    return [unused_path(folder / name) for folder in dict.fromkeys(places) if folder.is_dir()]


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
    except OSError as exc:  # (a full disk, a target marked immutable): again the file asked for
        Path(temporary).unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def not_regular_reason(path: Path, wanted: str = "a text file") -> str | None:
    """Why `path` is no file to read (a device, FIFO or socket would block or never end), or
    None for a regular file or a folder. Missing paths are the caller's business."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return f"not a regular file (a device, FIFO or socket); give {wanted}"


def missing_reason(path: Path) -> str:
    """Why a path that does not exist cannot be read: missing, or a symbolic link that leads
    nowhere (to a missing target, or round in a loop), which a listing still shows.

    >>> missing_reason(Path("/no/such/place"))
    'no such file or folder'
    """
    if not path.is_symlink():
        return "no such file or folder"
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that leads round in a loop (to itself, or through other links)"
    return f"a symbolic link to {os.readlink(path)}, which does not exist"


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a tokenizer file, turning OS errors into one clear TokenizerFileError (and a FIFO,
    which would wait for a writer for ever, into one before reading)."""
    if reason := not_regular_reason(Path(path), "a tokenizer file"):
        raise TokenizerFileError(path, reason)
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


NESTED_TOO_DEEPLY = "its JSON nests lists or objects too deeply to read (thousands of levels): not a file this app writes or reads"
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class UnusableJSON(ValueError):
    """Valid JSON, or nearly, that Python cannot read or nothing could use; the message says why."""


def json_document(text: str) -> Any:
    """`text` parsed as JSON: json.JSONDecodeError where it is broken (the caller names the line
    and column), UnusableJSON where it nests thousands deep, holds a number of thousands of
    digits (Python refuses to convert it) or a lone surrogate (`"\\ud800"`: half a character,
    which no text can hold: printing or encoding it fails later, far from the file)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:  # ('[[[[...' a hundred thousand deep: Python's parser gives up)
        raise UnusableJSON(NESTED_TOO_DEEPLY) from None
    except ValueError:  # ('Exceeds the limit (4300 digits) for integer string conversion')
        raise UnusableJSON("it holds a number of over 4,300 digits, which no file this app reads has: "
                           "the file is damaged") from None
    if _SURROGATE_ESCAPE.search(text):  # (pairs are common: every emoji, where non-ASCII is escaped)
        try:
            json.dumps(document, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            escape = f"\\u{ord(exc.object[exc.start]):04x}"
            raise UnusableJSON(f"it holds {escape}, half of a character that needs two such escapes "
                               f"(a lone surrogate): not text; search the file for {escape} and mend it") from None
    return document


def parse_json(text: str, path: object) -> Any:
    try:
        return json_document(text)
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(path, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                                 "the file may be truncated") from None
    except UnusableJSON as exc:
        raise TokenizerFileError(path, str(exc)) from None
