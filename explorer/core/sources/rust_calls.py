"""Calls into tiktoken and tokenizers (Rust) that may panic, turned into our own errors.

pyo3 raises a Rust panic as `pyo3_runtime.PanicException`, which derives from BaseException (so
`except Exception` misses it) and is a different class in each extension, so it is recognised by
name. Before Python sees it, Rust's panic hook has already written "thread '...' panicked at ..."
(and, with RUST_BACKTRACE set, a backtrace) straight to file descriptor 2, above our one-line
message. `RustCall(..., hold=True)` holds back what native code writes there during the call and
passes it on afterwards, unless the call panicked. Holding costs a temporary file per call, so
callers ask for it only where a panic can happen at all: a split pattern that is not one of the
known ones (a regex engine's backtracking limit is the one panic that cannot be checked before),
and reading a tokenizer.json (tokenizers panics on some files its own checks let through).
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Callable
from types import TracebackType
from typing import IO

from explorer.core.errors import ExplorerError

_HELD = threading.Lock()  # file descriptor 2 is one per process: one holder at a time


def rust_panic(error: BaseException) -> str | None:
    """The message of a Rust panic inside tiktoken or tokenizers, or None for any other exception."""
    if type(error).__name__ != "PanicException":
        return None
    return str(error) or "a Rust panic"


class RustCall:
    """A context for one call into Rust: a panic becomes `error(panic message)`, raised from None.

    >>> with RustCall(lambda panic: ExplorerError(f"tiktoken failed: {panic}")):
    ...     pass
    """

    def __init__(self, error: Callable[[str], ExplorerError], hold: bool = False) -> None:
        self._error = error
        self._hold = hold
        self._saved = -1
        self._capture: IO[bytes] | None = None

    def __enter__(self) -> RustCall:
        if self._hold:
            _HELD.acquire()
            try:
                _flush_stderr()
                self._capture = tempfile.TemporaryFile()
                self._saved = os.dup(2)
                os.dup2(self._capture.fileno(), 2)
            except OSError:  # no stderr to hold (closed), no temporary file: run the call as it is
                self._release(pass_on=False)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        panic = rust_panic(error) if error is not None else None
        if self._hold:
            self._release(pass_on=panic is None)
        if panic is not None:
            raise self._error(panic) from None

    def _release(self, pass_on: bool) -> None:
        """Put file descriptor 2 back; pass on what was written meanwhile unless it was a panic's report."""
        try:
            _flush_stderr()  # what Python wrote meanwhile belongs to the held part
            if self._saved >= 0:
                os.dup2(self._saved, 2)
                os.close(self._saved)
                self._saved = -1
            if self._capture is not None:
                if pass_on:
                    self._capture.seek(0)
                    held = self._capture.read()
                    if held:
                        os.write(2, held)
                self._capture.close()
                self._capture = None
        finally:
            self._hold = False
            _HELD.release()


def _flush_stderr() -> None:
    """Flush Python's stderr, if it is there and open (a GUI started without a console has none)."""
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
