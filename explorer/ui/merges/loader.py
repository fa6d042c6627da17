"""Loading a vocabulary for the Merges pane, in stages, off the GUI thread.

1. the table: every token's bytes, shown text and script (`table_ready`);
2. the merge forest, recovered from a tiktoken encoding's ranks the first time (`forest_ready`);
3. merge rank and parents of every row, then 4. the audit, then 5. corpus counts when a corpus
   is loaded (each ends with `columns_changed`).

One stage at a time: pure-Python workers share the interpreter lock with the GUI thread, so
running them side by side would only make the window stutter more. Counting a corpus of
CHILD_BYTES or more, and auditing a vocabulary of CHILD_TOKENS or more, run in a child process
instead (minutes on 400 MB, which in a thread meant minutes of a stuttering window; the audit of
a 32,768-token vocabulary froze the window 95-230 ms at a time as a training run's result was
shown): the child loads the tokenizer from its spec, or from its document when it was trained in
this session.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.merges import MergeForest
from explorer.core.analysis.audit import Audit, audit_reference, audit_vocabulary
from explorer.core.analysis.efficiency import TokenizerRef
from explorer.core.analysis.occurrences import corpus_texts, count_corpus, count_occurrences
from explorer.core.analysis.vocab_filter import IMPOSSIBLE, SPECIAL, UNDECODABLE, UNREACHABLE, VocabTable, build_table
from explorer.core.corpora.corpus_sources import Corpus
from explorer.core.formats import own
from explorer.core.generators import run_to_end
from explorer.core.sources.tokenizer import Tokenizer
from explorer.ui.session import TRAINED_PREFIX
from explorer.ui.timers import call_later
from explorer.ui.workers import Job, Workers, freeze_long_lived, one_value

KEY = "merges:"  # worker keys: a new tokenizer cancels the old jobs
PAINT_FIRST_MS = 150  # let the table paint before the next stage competes for the lock
# Corpora from this size on are counted in a child process. Below it a thread is as quick or quicker:
# a child takes 0.8 s (r50k_base) to 1.8 s (o200k_base) to start and load the tokenizer before it
# encodes anything, and a thread counts about 2 MB a second (3 MB: 1.5-2.1 s in a thread, 2.3-3.0 s
# in a child; 1 MB: 0.2 s against 1.0-2.0 s).
CHILD_BYTES = 4 << 20
# Vocabularies from this size on are audited in a child process: the audit encodes every token
# (18 ms per 1,000 tokens of pure Python), a child takes 0.5-2 s to start and load the tokenizer.
CHILD_TOKENS = 8192


class VocabLoader(QObject):
    table_ready = Signal(object)  # VocabTable
    forest_ready = Signal(object, float)  # MergeForest or None, seconds the forest took
    columns_changed = Signal()  # merges, audit flags or corpus counts are now in the table
    progress = Signal(str, object)  # what runs, fraction done or None (busy)
    idle = Signal()  # nothing left to do
    failed = Signal(str, str)  # what failed, a message for a person

    def __init__(self, workers: Workers, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workers = workers
        self.tokenizer: Tokenizer | None = None
        self.table: VocabTable | None = None
        self.forest: MergeForest | None = None
        self.audit: Audit | None = None
        self.forest_seconds: float | None = None
        self.corpus: object = None
        self.spec = ""
        self.rare_below = 10
        self.jobs: dict[str, Job] = {}
        self._queued = False

    @property
    def busy(self) -> bool:
        """Still reading, recovering, auditing or counting in the background."""
        return bool(self.jobs) or self._queued

    def load(self, tokenizer: Tokenizer, corpus: object = None, spec: str = "") -> None:
        """`spec` is how the session names `tokenizer` (a child process loads it by that name)."""
        self.cancel()
        self.tokenizer, self.table, self.forest, self.audit = tokenizer, None, None, None
        self.forest_seconds, self.corpus, self.spec = None, corpus, spec
        self._start("table", f"reading {tokenizer.name}'s vocabulary", lambda: build_table(tokenizer),
                    lambda table: self._on_table_done(tokenizer, table))

    def cancel(self) -> None:
        for job in self.jobs.values():
            job.cancel()
        self.jobs.clear()
        self._queued = False

    def count_corpus(self, corpus: object) -> None:
        """Count how often each token occurs in `corpus` (None: forget the counts)."""
        self.corpus = corpus
        if self.audit is not None:  # else the last stage will count it
            self._start_counting()

    def set_rare_below(self, value: int) -> None:
        self.rare_below = value
        if self.table is not None and self.table.seen is not None:
            self.table.apply_rare_threshold(value)
            self.columns_changed.emit()

    def finish_now(self) -> None:
        """Run every stage to the end on this thread (for the screenshot command)."""
        tokenizer = self.tokenizer
        if tokenizer is None:
            return
        self.cancel()
        if self.table is None:
            self.table = run_to_end(build_table(tokenizer))
            self.table_ready.emit(self.table)
            self.cancel()
        if self.forest_seconds is None:
            self._on_forest_done(tokenizer, _ready_forest(tokenizer), 0.0)
            self.cancel()
        if self.forest is not None and self.table.rank is None:
            self.table.set_merges(run_to_end(self.table.compute_merges(self.forest)))
        if self.audit is None:
            self._apply_audit(self.table, run_to_end(audit_vocabulary(tokenizer)))
        self.cancel()
        self.columns_changed.emit()
        self.idle.emit()

    # The stages

    def _on_table_done(self, tokenizer: Tokenizer, table: VocabTable) -> None:
        if tokenizer is not self.tokenizer:
            return
        self.table = table
        self._queued = True
        call_later(self, lambda: self._start_forest(tokenizer), PAINT_FIRST_MS)
        self.table_ready.emit(table)

    def _start_forest(self, tokenizer: Tokenizer) -> None:
        self._queued = False
        if tokenizer is not self.tokenizer or self.forest_seconds is not None:
            return  # another tokenizer since, or the forest is known already (screenshots)
        started = time.perf_counter()
        self._start("forest", "loading the merge forest",
                    lambda: one_value(lambda: _ready_forest(tokenizer)),
                    lambda forest: self._on_forest_done(tokenizer, forest, time.perf_counter() - started))

    def _on_forest_done(self, tokenizer: Tokenizer, forest: MergeForest | None, seconds: float) -> None:
        if tokenizer is not self.tokenizer:
            return
        self.forest, self.forest_seconds = forest, seconds
        table = self.table
        if forest is not None and table is not None:
            self._start("columns", "reading the merges", lambda: table.compute_merges(forest),
                        lambda columns: self._on_columns_done(table, columns))
        else:
            self._start_audit()
        self.forest_ready.emit(forest, seconds)

    def _on_columns_done(self, table: VocabTable, columns: Any) -> None:
        if table is not self.table:
            return
        table.set_merges(columns)
        self.columns_changed.emit()
        self._start_audit()

    def _start_audit(self) -> None:
        tokenizer, table = self.tokenizer, self.table
        if tokenizer is None or table is None:
            return
        reference = _reference(tokenizer, self.spec) if tokenizer.vocab_size >= CHILD_TOKENS else None
        self._start_here_or_in_child("audit", "auditing the vocabulary", lambda: audit_vocabulary(tokenizer),
                                     (audit_reference, (reference,)) if reference is not None else None,
                                     lambda audit: self._on_audit_done(table, audit))

    def _on_audit_done(self, table: VocabTable, audit: Audit) -> None:
        if table is not self.table:
            return
        self._apply_audit(table, audit)
        self.columns_changed.emit()
        self._start_counting()

    def _apply_audit(self, table: VocabTable, audit: Audit) -> None:
        self.audit = audit
        flags: dict[int, int] = {}
        for bit, ids in ((UNREACHABLE, audit.unreachable), (UNDECODABLE, audit.undecodable),
                         (IMPOSSIBLE, audit.impossible), (SPECIAL, audit.special)):
            for token_id in ids:
                flags[token_id] = flags.get(token_id, 0) | bit
        table.set_audit(flags)
        table.audited = audit.unreachable_checked

    def _start_counting(self) -> None:
        tokenizer, table, corpus = self.tokenizer, self.table, self.corpus
        if tokenizer is None or table is None:
            return
        if corpus is None:
            if table.seen is not None:
                table.set_seen(None)
                self.columns_changed.emit()
            return
        reference = _reference(tokenizer, self.spec) if corpus_bytes(corpus) >= CHILD_BYTES else None
        self._start_here_or_in_child("corpus", "counting tokens in the corpus",
                                     lambda: count_occurrences(tokenizer, corpus_texts(corpus)),
                                     (count_corpus, (reference, corpus)) if reference is not None else None,
                                     lambda counts: self._on_counts_done(table, counts))

    def _on_counts_done(self, table: VocabTable, counts: Any) -> None:
        if table is not self.table:
            return
        table.set_seen(counts, self.rare_below)
        self.columns_changed.emit()

    # Running one stage

    def _start_here_or_in_child(self, name: str, label: str, work: Callable[[], Iterator[Any]],
                                child: tuple[Callable[..., Iterator[Any]], tuple[Any, ...]] | None,
                                on_done: Callable[[Any], None]) -> None:
        """`work` on a pool thread, or `child` (a module-level generator function and its picklable
        arguments) in a child process: work long enough to matter holds no lock the window needs."""
        if child is None:
            self._start(name, label, work, on_done)
        else:
            self._watch(name, label, self.workers.start_process(label, *child, key=KEY + name), on_done)

    def _start(self, name: str, label: str, work: Callable[[], Iterator[Any]], on_done: Callable[[Any], None]) -> Job:
        # A job can end before start() returns; holding it until its signals are connected keeps
        # a fast job's `finished` from being emitted to nobody.
        connected = threading.Event()

        def gated() -> Generator[Any, None, Any]:
            connected.wait()
            return (yield from work())

        job = self.workers.start(label, gated, key=KEY + name)
        self._watch(name, label, job, on_done)
        connected.set()
        return job

    def _watch(self, name: str, label: str, job: Job, on_done: Callable[[Any], None]) -> None:
        self.jobs[name] = job
        job.batch_ready.connect(lambda batch: self._on_job_batch(label, batch))
        job.finished.connect(lambda value: self._job_finished(name, job, on_done, value))
        job.failed.connect(lambda message: (self._job_done(name, job), self.failed.emit(label, message)))
        job.cancelled.connect(lambda: self._job_done(name, job))
        self.progress.emit(label, None)

    def _job_finished(self, name: str, job: Job, on_done: Callable[[Any], None], value: Any) -> None:
        if not isValid(self):  # the window closed while the job ran: nothing is left to show its result
            return
        self._job_done(name, job)
        on_done(value)

    def _job_done(self, name: str, job: Job) -> None:
        if not isValid(self):  # the window closed: a cancelled job's signal outlived its loader
            return
        if self.jobs.get(name) is job:
            del self.jobs[name]
        if not self.busy:
            freeze_long_lived()  # the table, forest and audit stay as long as the tokenizer
            self.idle.emit()

    def _on_job_batch(self, label: str, batch: list[Any]) -> None:
        if not isValid(self):  # the window closed while the job was reading
            return
        record = batch[-1] if batch else None
        done, total = getattr(record, "done", None), getattr(record, "total", None)
        if done is not None and total:
            self.progress.emit(f"{label} ({total:,})", done / total)
        elif getattr(record, "fraction", None) is not None:
            self.progress.emit(label, record.fraction)  # type: ignore[union-attr]
        elif hasattr(record, "texts"):
            self.progress.emit(f"{label}: {record.texts:,} texts, {record.tokens:,} tokens", None)  # type: ignore[union-attr]


class _TrainedRef:
    """A tokenizer trained in this session, for a child process: it pickles as a TokenizerRef with
    the tokenizer's document, written as the child starts, on the job's relay thread (15-20 ms for
    32,768 merges that the GUI thread does not spend; `own.to_json` writes them in Python, so the
    interpreter lock changes hands between rows)."""

    def __init__(self, tokenizer: BPE) -> None:
        self.tokenizer = tokenizer

    def __reduce__(self) -> tuple[type[TokenizerRef], tuple[str, str, str]]:
        return TokenizerRef, (self.tokenizer.name, "", own.to_json(self.tokenizer))


def _reference(tokenizer: Tokenizer, spec: str) -> TokenizerRef | _TrainedRef | None:
    """How a child process gets `tokenizer`: by its spec, or (trained here) its document; None if neither."""
    if spec and not spec.startswith(TRAINED_PREFIX):
        return TokenizerRef(tokenizer.name, spec=spec)
    return _TrainedRef(tokenizer) if isinstance(tokenizer, BPE) else None


def corpus_bytes(corpus: object) -> int:
    """About how big `corpus` is, without reading it: its files' sizes, or its texts' characters."""
    if isinstance(corpus, Corpus):  # (a folder is not walked here, on the GUI thread: taken as big)
        return sum(len(s.text) if s.kind == "text" else CHILD_BYTES if s.kind == "folder" else _size(s.path)
                   for s in corpus.sources)
    if isinstance(corpus, str):
        return len(corpus)
    if isinstance(corpus, (list, tuple)):
        return sum(len(text) for text in corpus if isinstance(text, str))
    return 0


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _ready_forest(tokenizer: Tokenizer) -> MergeForest | None:
    """The forest with its lazy parts built here, off the GUI thread ("used by" indexes 200,000 merges)."""
    forest = tokenizer.forest
    if forest is not None:
        forest.children(0)
    return forest
