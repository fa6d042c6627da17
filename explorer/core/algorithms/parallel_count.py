"""Stage 1 of training on several cores: a corpus of plain UTF-8 files counted by forked helpers.

Counting is pure Python under the interpreter lock (the ASCII fast path is stdlib `re`, which never
lets go of it), so threads cannot share it: processes can. The files are cut into consecutive parts
at line breaks. Each line is a text of its own, so a part's chunk counts are exactly what one pass
counts over those lines. This process counts the first part while forked helpers count the others;
their counts are then added part by part, in order, so every chunk keeps the place one pass first
saw it at (the "minbpe" rules give a tie to the pair counted first).

Only where that is safe and pays (`plan`); anything else is counted in one pass, as before. A part
that does not read (a NUL byte, invalid UTF-8, a line too long, a file gone) makes the trainer
count the whole corpus again in one pass, which skips or reports it exactly as before.
"""

from __future__ import annotations

import ctypes
import gc
import mmap
import os
import pickle
import select
import signal
import threading
import traceback
from collections import Counter
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import BinaryIO, NoReturn, Protocol

from explorer.core.algorithms.train import BpeTrainer, CountProgress
from explorer.core.corpora.corpus import BLOCK_BYTES, ends_mid_character, utf8_line_batches
from explorer.core.errors import CorpusError, TrainingError

MAX_PROCESSES = 4  # the parts are added up in this process, one after another: more would wait on that
# Bytes per process at least. Measured on prose, 2 CPUs: parts of 0.5-1 MB would save 20-35 ms of
# CPU time on the critical path (of 60-90), and cost about as much on a machine whose other core is busy.
PART_BYTES = 2 << 20
WAIT_SECONDS = 0.1  # how often progress is reported while this process waits for a helper
# Distinct chunks per message from a helper: this process adds one while the helper pickles the next,
# and neither holds all of them pickled.
SEND_CHUNKS = 1 << 13
HELPER_REPORT_CHARS = 1 << 18  # how often a helper publishes its progress
_FIGURES = 3  # per helper, in shared memory: bytes read, texts, characters


class LineFiles(Protocol):
    """A corpus reader (`CorpusFiles`, `CorpusReader`) that can say it reads plain UTF-8 files by lines."""

    bytes_read: int

    def plain_files(self) -> list[Path] | None: ...


@dataclass(frozen=True)
class Segment:
    """Bytes `start` to `end` of a file (None: to its end), starting at a line's first byte."""

    path: Path
    start: int
    end: int | None


Part = list[Segment]


def processes_available() -> int:
    """CPUs this process may run on, capped at MAX_PROCESSES."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return min(cpus, MAX_PROCESSES)


def plan(texts: object, trainer: BpeTrainer) -> list[Part] | None:
    """The parts to count `texts` in, one per process, or None to count it in one pass.

    In parts only when all of these hold:
    - `texts` reads plain UTF-8 files one line per text (not pasted text, JSON Lines, CSV, another
      encoding, nor whole files as the "minbpe" rules read them), and no file ends within a character
      (its last line would not decode and the whole corpus be counted twice);
    - the trainer has counted nothing yet (the parts' counts must come first);
    - there is more than one CPU, and PART_BYTES for each process;
    - the process can fork safely (`can_fork`).
    """
    plain_files = getattr(texts, "plain_files", None)
    files = plain_files() if plain_files is not None else None
    if not files or trainer.texts or trainer.chunk_counts or trainer.learned or not can_fork():
        return None
    try:
        sizes = [path.stat().st_size for path in files]
    except OSError:  # a file gone: one pass says so
        return None
    count = min(processes_available(), sum(sizes) // PART_BYTES)
    if count < 2 or any(map(ends_mid_character, files)):
        return None
    return cut(files, sizes, count)


def can_fork() -> bool:
    """Whether forking here is safe: POSIX, and no other Python thread is running.

    A forked child has only the thread that forked; a lock another thread held at that moment (the
    import lock, an I/O buffer's, a queue's) stays held in the child forever. With this thread the
    only Python thread (and the main one: a thread that Qt or a C library started need not show in
    `threading`), no Python lock is held elsewhere. Native threads that may run here are fork-safe:
    glibc's malloc and OpenBLAS's pool (started when numpy is imported) reset themselves in the child
    through `pthread_atfork`, and a helper runs only the regex engines, `Counter`, file reads and pickle.
    """
    return hasattr(os, "fork") and threading.current_thread() is threading.main_thread() \
        and threading.active_count() == 1


def cut(files: Sequence[Path], sizes: Sequence[int], count: int) -> list[Part]:
    """`files` (of `sizes` bytes) cut into `count` parts of about equal size, each beginning a line
    (fewer parts when lines are longer than a part)."""
    total = sum(sizes)
    bounds = [(0, 0)]  # (file index, byte) where each part begins
    for k in range(1, count):
        index, offset = _locate(sizes, total * k // count)
        offset = _line_start(files[index], offset, sizes[index])
        if offset >= sizes[index]:
            index, offset = index + 1, 0
        bounds.append(max(bounds[-1], (index, offset)))
    bounds.append((len(files), 0))
    parts: list[Part] = []
    for (first, start), (last, end) in zip(bounds, bounds[1:]):
        part = [Segment(files[i], start if i == first else 0, end if i == last else None)
                for i in range(first, min(last + 1, len(files)))]
        part = [segment for segment in part if segment.end is None or segment.end > segment.start]
        if part:
            parts.append(part)
    return parts


def _locate(sizes: Sequence[int], target: int) -> tuple[int, int]:
    """(file index, byte in it) of byte `target` of the files laid end to end."""
    for index, size in enumerate(sizes):
        if target < size:
            return index, target
        target -= size
    return len(sizes) - 1, sizes[-1]


def _line_start(path: Path, offset: int, size: int) -> int:
    """The first byte at or after `offset` that begins a line of `path` (`size` at the end)."""
    if offset == 0:
        return 0
    with path.open("rb") as handle:
        handle.seek(offset - 1)  # a line break just before `offset` makes it a line start
        position = offset - 1
        while block := handle.read(BLOCK_BYTES):
            found = block.find(b"\n")
            if found >= 0:
                return position + found + 1
            position += len(block)
    return size


class _Span:
    """The next `size` bytes of a file, as a file that ends there (for `utf8_line_batches`)."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self.handle, self.left = handle, size

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(self.left if size < 0 else min(size, self.left))
        self.left -= len(data)
        return data


def part_texts(part: Part, bytes_read: list[int]) -> Iterator[str]:
    """The lines of `part` as a corpus reader gives them (with their "\\n"), adding the bytes read
    to `bytes_read[0]`. Raises CorpusError (or OSError) where a reader would stop."""
    for segment in part:
        with segment.path.open("rb") as handle:
            handle.seek(segment.start)
            source = handle if segment.end is None else _Span(handle, segment.end - segment.start)
            for size, lines in utf8_line_batches(source, segment.path):  # type: ignore[arg-type]
                bytes_read[0] += size
                yield from lines


@dataclass
class _Helper:
    pid: int
    results: BinaryIO  # the pipe its counts arrive on
    reaped: bool = False


def count(trainer: BpeTrainer, texts: LineFiles, parts: list[Part], every: int
          ) -> Generator[CountProgress, None, bool]:
    """Count `parts` into `trainer`: the first here, the others in forked helpers, added in order.

    Yields the progress of all processes so far, setting `texts.bytes_read` too, about
    every `every` characters counted here and every WAIT_SECONDS while waiting for a helper. Returns
    True with the trainer's figures those of all parts; False, with the trainer as it was (empty),
    when a part could not be read or a helper not be started: the caller then counts in one pass,
    which says why as a reader does. Closing the generator kills the helpers and reaps them, at once.
    """
    figures = mmap.mmap(-1, 8 * _FIGURES * len(parts))  # shared with the helpers (MAP_SHARED)
    published = memoryview(figures).cast("q")
    helpers: list[_Helper] = []
    added = [0, 0, 0]  # bytes, texts and characters of the helpers whose counts are added
    read_here = [0]

    def progress() -> CountProgress:
        """Distinct chunks are this process's: the helpers' may be the same ones."""
        texts.bytes_read = read_here[0] + added[0] + sum(published[0::_FIGURES])
        return CountProgress(trainer.texts + added[1] + sum(published[1::_FIGURES]),
                             trainer.chars + added[2] + sum(published[2::_FIGURES]), len(trainer.chunk_counts))

    try:
        try:
            for slot, part in enumerate(parts[1:]):
                helpers.append(_fork(trainer, part, published, slot))
        except OSError:  # no more processes allowed, or no memory for one: count in one pass
            return False
        try:
            for _ in trainer.count_texts(part_texts(parts[0], read_here), every):
                yield progress()
        except (CorpusError, OSError):
            _reset(trainer, texts)
            return False
        for slot, helper in enumerate(helpers):
            while not select.select([helper.results], [], [], WAIT_SECONDS)[0]:
                yield progress()
            figures_of_part = _add_counts(trainer, helper)
            if figures_of_part is None:
                _reset(trainer, texts)
                return False
            for i in range(_FIGURES):
                added[i] += figures_of_part[i]
                published[slot * _FIGURES + i] = 0
        texts.bytes_read = read_here[0] + added[0]
        trainer.texts += added[1]
        trainer.chars += added[2]
        yield CountProgress(trainer.texts, trainer.chars, len(trainer.chunk_counts))
        return True
    finally:
        for helper in helpers:
            _end(helper)
        published.release()
        figures.close()


def _reset(trainer: BpeTrainer, texts: LineFiles) -> None:
    trainer.chunk_counts, trainer.texts, trainer.chars = Counter(), 0, 0
    texts.bytes_read = 0


def _fork(trainer: BpeTrainer, part: Part, published: memoryview, slot: int) -> _Helper:
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _helper_main(trainer, part, published, slot, write_end, parent)
    os.close(write_end)
    return _Helper(pid, os.fdopen(read_end, "rb"))


def _helper_main(trainer: BpeTrainer, part: Part, published: memoryview, slot: int, write_end: int,
                 parent: int) -> NoReturn:
    """A helper: count `part` on a copy of the (empty) trainer, then send the counts in order, in
    messages of SEND_CHUNKS chunks, and end with ("done", bytes, texts, chars), ("unreadable",) or
    ("failed", traceback). It never returns: it must not run the parent's code after the fork."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends us
        gc.freeze()  # the parent's objects stay out of collections here: walking them would copy their pages
        _die_with(parent)
        with os.fdopen(write_end, "wb") as out:
            try:
                bytes_read = [0]
                at = slot * _FIGURES
                for _ in trainer.count_texts(part_texts(part, bytes_read), HELPER_REPORT_CHARS):
                    published[at], published[at + 1], published[at + 2] = bytes_read[0], trainer.texts, trainer.chars
                    if os.getppid() != parent:  # orphaned where `_die_with` cannot ask the system
                        os._exit(1)
            except (CorpusError, OSError):
                pickle.dump(("unreadable",), out)
            except BaseException:  # a bug: the parent says so
                pickle.dump(("failed", traceback.format_exc(limit=6)), out)
            else:
                chunks, times = iter(trainer.chunk_counts), iter(trainer.chunk_counts.values())
                while batch := list(islice(chunks, SEND_CHUNKS)):  # two lists: a third of the time tuples take
                    pickle.dump(("counts", batch, list(islice(times, len(batch)))), out, protocol=pickle.HIGHEST_PROTOCOL)
                pickle.dump(("done", bytes_read[0], trainer.texts, trainer.chars), out)
                status = 0
    finally:
        os._exit(status)


def _die_with(parent: int) -> None:
    """Have the system kill this helper when its parent ends (Linux), even by SIGKILL: no orphan
    counting on. Elsewhere the helper looks for a new parent between blocks."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before prctl
        os._exit(1)


def _add_counts(trainer: BpeTrainer, helper: _Helper) -> tuple[int, int, int] | None:
    """Add one helper's counts after the trainer's; (bytes, texts, characters) it counted, or None
    when its part did not read. A helper that crashed raises TrainingError."""
    counts = trainer.chunk_counts
    while True:
        try:
            message = pickle.load(helper.results)
        except (EOFError, pickle.UnpicklingError):
            raise TrainingError(f"counting the corpus failed: a helper process {_how_it_ended(helper)}; "
                                "it may have run out of memory") from None
        kind = message[0]
        if kind == "counts":
            get = counts.get  # not `+=`: a Counter's __missing__ is a Python call for each new chunk
            for chunk, times in zip(message[1], message[2]):
                counts[chunk] = get(chunk, 0) + times
        elif kind == "done":
            return message[1], message[2], message[3]
        elif kind == "unreadable":
            return None
        else:
            raise TrainingError(f"counting the corpus failed in a helper process:\n{message[1]}")


def _how_it_ended(helper: _Helper) -> str:
    _, status = os.waitpid(helper.pid, 0)
    helper.reaped = True
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"was ended by signal {number} ({signal.Signals(number).name})"
    return f"ended with exit code {os.waitstatus_to_exitcode(status)} before sending its counts"


def _end(helper: _Helper) -> None:
    """Kill the helper if it still runs, and reap it (no zombie)."""
    helper.results.close()
    if helper.reaped:
        return
    try:
        os.kill(helper.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(helper.pid, 0)
    helper.reaped = True
