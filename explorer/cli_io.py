"""What every command of the command line shares: reading the input text, loading the tokenizer,
and a progress bar on stderr."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterable
from itertools import islice
from typing import Any, TextIO

from explorer.core.corpora.corpus import CorpusFiles, expand_paths, read_text_file, read_utf8
from explorer.core.errors import CorpusError, ExplorerError
from explorer.core.generators import run_to_end
from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.tokenizer import Tokenizer

PROG = "tokenizer-explorer"


class Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.stream, self.width, self._last = stream, width, 0.0

    def show(self, fraction: float, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        fraction = min(max(fraction, 0.0), 1.0)
        filled = int(fraction * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r[{bar}] {fraction:6.1%} {text}\x1b[K")
        self.stream.flush()

    def done(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def read_input(args: argparse.Namespace) -> str:
    """The text of --text, --file or stdin, refused with the byte offset if it is not UTF-8 (for
    every tokenizer alike: none of them silently turns bad bytes into U+FFFD)."""
    if args.text is not None:
        return _argument_text(str(args.text))
    if args.file is not None and args.file != "-":  # (`--file -`: stdin, as for most tools)
        return read_text_file(args.file)
    if sys.stdin.isatty():
        print(f"{PROG}: reading the text from stdin; end it with Ctrl-D (Ctrl-Z Enter on Windows), "
              "or give --text or --file", file=sys.stderr)
    return read_utf8(sys.stdin.buffer, "stdin")


def _argument_text(text: str) -> str:
    """Python keeps the bytes of an argument that are not UTF-8 as lone surrogates: refuse them."""
    problem = _not_utf8(text)
    if problem:
        raise ExplorerError(f"--text {problem}")
    return text


def token_id(value: str) -> int:
    """argparse type of a token id: digits 0-9, perhaps after a minus (a negative id gets its own
    message later). `int` alone took '١٢٣' and '1_000' as ids, and echoed a 5,000-digit one whole."""
    digits = value.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"{printable(value[:24])}{'...' if len(value) > 24 else ''} is not a "
                                         "token id (a whole number in the digits 0-9)")
    if len(digits) > 18:
        raise argparse.ArgumentTypeError(f"{value[:12]}... ({len(digits):,} digits) is no tokenizer's token id")
    return int(value)


def print_json(document: dict[str, Any], key: str, items: Iterable[Any], block: int = 10_000) -> None:
    """Print `document` with `key` holding `items`, as json.dumps writes it, a block of items at
    a time: built whole, the JSON of a few megabytes of text took gigabytes (a dict per token,
    then one string of them all)."""
    write = sys.stdout.write
    head = json.dumps(document, ensure_ascii=False)[:-1]  # (without its closing brace)
    write(f"{head}{', ' if document else ''}{json.dumps(key)}: [")
    items, separator = iter(items), ""
    while part := list(islice(items, block)):
        write(separator + json.dumps(part, ensure_ascii=False)[1:-1])  # (the block's items)
        separator = ", "
    write("]}\n")


def whole_number(value: str) -> int:
    """argparse type of a number checked later against its own range (--vocab-size): digits 0-9
    only, as `int` alone took '٣٠٠' and '1_000'."""
    if not (value.isascii() and value.isdigit()):
        raise argparse.ArgumentTypeError(f"{printable(value[:24])!r} is not a whole number in the digits 0-9")
    if len(value) > 18:
        raise argparse.ArgumentTypeError(f"{value[:12]}... ({len(value):,} digits) is far too big")
    return int(value)


def positive_int(value: str) -> int:
    """argparse type of a count that must be at least 1 (--limit, --rare): 0 or -3 gave wrong
    "N more" counts, and digits of other scripts ('١٢') are not what anyone typed on purpose."""
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return int(value)


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(message: str) -> str:
    """`message` with control characters (other than line breaks and tabs) shown as \\xNN: a name
    read from a file could otherwise send escape sequences to the terminal."""
    return _CONTROLS.sub(lambda found: f"\\x{ord(found.group()):02x}", message)


def utf8_argument(value: str) -> str:
    """argparse type of an option that is text, not a path (a pattern, a special token, a name): bytes
    that are not UTF-8 are refused before any work, not after training when the result is saved."""
    problem = _not_utf8(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def _not_utf8(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"is not valid UTF-8 (byte {len(text[:exc.start].encode('utf-8')):,}); use a "
                "UTF-8 terminal, or convert the text to UTF-8 first (for example with iconv)")
    return None


def add_input_arguments(parser: argparse.ArgumentParser, stdin: bool = True) -> None:
    group = parser.add_mutually_exclusive_group(required=not stdin)
    group.add_argument("--text", help="the text itself")
    where = " (default, or -: stdin)" if stdin else ""
    group.add_argument("--file", help=f"read the text from this UTF-8 file{where}")


def corpus_files(paths: list[str], whole: bool = False) -> CorpusFiles:
    """The files of a --corpus (folders expanded), each file left out said on stderr; a corpus
    with no file left is refused before any work (it would count or learn nothing)."""
    skipped: list[str] = []
    files = expand_paths(paths, skipped)
    for message in skipped:
        print(f"{PROG}: {message}", file=sys.stderr)
    if not files:
        why = " (binary files are skipped)" if skipped else ""
        raise CorpusError(f"{', '.join(paths)}: no text file to read{why}")
    return CorpusFiles(files, whole=whole)


def load(args: argparse.Namespace, spec: str | None = None) -> Tokenizer:
    return load_tokenizer(spec or args.tokenizer, pattern=args.pattern)


def drain(generator, progress: Progress, label: str) -> object:  # type: ignore[no-untyped-def]
    """Run a core generator of progress records to its end, showing a bar; return its value."""
    def show(record: object) -> None:
        done, total = getattr(record, "done", None), getattr(record, "total", None)
        fraction = getattr(record, "fraction", None) or (done / total if done is not None and total else 0.0)
        progress.show(fraction, label)

    value = run_to_end(generator, show)
    progress.show(1.0, label, force=True)
    progress.done()
    return value
