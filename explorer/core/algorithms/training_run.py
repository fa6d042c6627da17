"""One training run as a stream of records: counting progress, then merges with held-out figures.

`run_training(corpus, settings)` is what the Training pane runs (in a child process, so the
window never waits for the interpreter lock). It counts the corpus, announces the merge stage,
then yields one `Learned` record per merge, each carrying the token count of the held-out text
after that merge, so "bytes per token on text the tokenizer never saw" is a curve, not a number.

Held-out tokens are tracked incrementally (`HeldOutTracker`): each merge is applied only to the
held-out chunks that contain its pair, as training does, which costs almost nothing per merge.
With the Hugging Face engine, the merges arrive all at once when its trainer finishes, with
counts measured on the corpus's distinct chunks, counted while its trainer learns.
"""

from __future__ import annotations

from collections import Counter, defaultdict
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, Generic, Literal, TypeVar

import numpy as np

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.bytelevel import from_chars
from explorer.core.algorithms.hf_progress import HfProgress
from explorer.core.algorithms.train import (BYTE_VOCAB, LONG_TEXT, BpeTrainer, Merge, Rules, check_rules, check_vocab_size,
                                            vocabulary_size)
from explorer.core.corpora.corpus import BLOCK_BYTES, MAX_LINE_BYTES, ends_mid_character
from explorer.core.corpora.corpus_sources import Corpus, CorpusReader
from explorer.core.errors import CorpusError, TrainingError
from explorer.core.formats.hf import merge_pairs, training_pipeline
from explorer.core.formats.own import from_merges
from explorer.core.pretokenization.pretokenize import Pretokenizer

Engine = Literal["builtin", "hf"]
ENGINES: dict[str, str] = {"builtin": "built-in (streams every merge)",
                           "hf": "Hugging Face tokenizers (same merges, shown when done)"}
COUNT_REPORT_CHARS = 1 << 18
REPORT_SECONDS = 0.25  # how often a run inside one long call (Hugging Face) reports progress
MEASURE_BATCH = 8192  # distinct chunks per encode_batch call when measuring merge counts
JOIN_CHUNKS = 256  # distinct chunks per text handed to HF's encoder when measuring
SEPARATOR = "\x00"  # between them
# Texts per list handed to HF: it reads 256 lists ahead, so small lists keep that (and the
# memory it holds) to a few megabytes, and the bytes read close to what it has really cut.
FEED_TEXTS = 256
DISTINCT_WINDOW = 1 << 19  # distinct texts held before they are cut into chunks (bounds memory)
# While HF reads files itself, our reading of them keeps at most this share of the corpus ahead
# of HF's bar: the two share the cores evenly, so HF's pace, which the time left is timed by,
# stays the same from start to end (running ahead, ours slowed HF's first quarter, not the rest).
READ_AHEAD = 0.02
PACE_SECONDS = 0.02
T = TypeVar("T")


@dataclass(frozen=True)
class TrainingSettings:
    vocab_size: int
    pattern: str = "cl100k"
    special_tokens: tuple[str, ...] = ()
    engine: Engine = "builtin"
    rules: Rules = "hf"  # "minbpe": the tutorials' rules (built-in engine only)

    @property
    def target_merges(self) -> int:
        """Merges that fill the vocabulary if none rebuilds a special token (each that does adds one)."""
        return max(0, self.vocab_size - BYTE_VOCAB - len(set(self.special_tokens)))


@dataclass(frozen=True, slots=True)
class Counting:
    """The counting stage: bytes of the corpus read so far, and distinct chunks found."""

    bytes_read: int
    total_bytes: int
    texts: int
    distinct_chunks: int  # Hugging Face engine: distinct texts
    phase: Literal["reading", "learning", "measuring"] = "reading"  # the last two: Hugging Face engine
    stage: str = ""  # Hugging Face engine: what it is doing ("Compute merges"), and how far
    step: int = 0
    steps: int = 0
    # The child's CPU seconds so far, all its threads (HF's too): what follows reading is priced in
    # CPU time, and against the wall clock this is the share of the machine the run gets (HfRunEta).
    cpu_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class MergeStage:
    """Counting is done; merges follow. Token counts here are before the first merge (bytes)."""

    target_merges: int
    corpus_tokens: int  # UTF-8 bytes of the training text = its tokens before any merge
    distinct_chunks: int
    held_out_tokens: int  # bytes of the held-out text, 0 if there is none
    skipped: tuple[str, ...]  # files left out, with the reason


@dataclass(frozen=True, slots=True)
class Learned:
    """One merge, and the held-out text's token count after it (-1 without held-out text)."""

    merge: Merge
    held_out_tokens: int

    def __reduce__(self) -> tuple[type[Learned], tuple[Merge, int]]:
        return Learned, (self.merge, self.held_out_tokens)  # cheap to unpickle, as `Merge.__reduce__`


@dataclass(frozen=True, slots=True)
class RunSummary:
    merges: int
    stopped_early: bool  # the corpus ran out of pairs before the vocabulary was full
    tokenizer: BPE | None = None  # built where the merges are, when the run was given a name


class HeldOutTracker:
    """Token count of a held-out text under the merges learned so far, updated merge by merge.

    >>> tracker = HeldOutTracker(["aaab"], "none")
    >>> tracker.tokens, tracker.apply(97, 97, 256), tracker.apply(256, 97, 257)
    (4, 3, 2)
    """

    def __init__(self, texts: Iterable[str], pattern: str) -> None:
        pieces = Pretokenizer(pattern, "tokenizers").pieces  # as the trainer (HF BpeTrainer) splits
        chunk_counts: Counter[str] = Counter()
        for text in texts:
            chunk_counts.update(pieces(text))
        self.words = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
        self.counts = list(chunk_counts.values())
        self.bytes = self.tokens = sum(len(w) * c for w, c in zip(self.words, self.counts))
        self.where: defaultdict[tuple[int, int], set[int]] = defaultdict(set)
        for index, word in enumerate(self.words):
            for pair in zip(word, word[1:]):
                self.where[pair].add(index)

    def apply(self, left: int, right: int, new_id: int) -> int:
        """Merge `left`+`right` into `new_id` wherever it occurs; returns the new token count."""
        for index in self.where.pop((left, right), ()):
            word, i, merged = self.words[index], 0, 0
            while i < len(word) - 1:
                if word[i] == left and word[i + 1] == right:
                    word[i : i + 2] = (new_id,)
                    merged += 1
                    if i:
                        self.where[word[i - 1], new_id].add(index)
                    if i + 1 < len(word):
                        self.where[new_id, word[i + 1]].add(index)
                i += 1
            self.tokens -= merged * self.counts[index]
        return self.tokens


def run_training(corpus: Corpus, settings: TrainingSettings, name: str = "",
                 metadata: dict[str, Any] | None = None) -> Generator[object, None, RunSummary]:
    """Count `corpus`, then learn merges: yields Counting, one MergeStage, then Learned records.

    With a `name`, the summary also carries the finished tokenizer: built here, in the process
    that has the merges, it costs the window nothing.
    """
    check_vocab_size(settings.vocab_size, settings.special_tokens)
    check_rules(settings.rules)
    if corpus.is_empty:
        raise TrainingError("the corpus is empty: add files, folders, pasted text or a sample in the Corpus pane")
    if settings.rules != "hf" and settings.engine == "hf":
        raise TrainingError(f"Hugging Face tokenizers trains with its own rules only: choose the built-in engine "
                            f"for {settings.rules} rules")
    whole = settings.rules == "minbpe"  # the tutorials read a file as one text
    held_out = corpus.held_out_reader(whole)
    tracker = HeldOutTracker(held_out, settings.pattern) if held_out is not None else None
    reader = corpus.reader(whole)
    if settings.engine == "hf":
        merges = yield from _run_hf(reader, settings, tracker)
        summary = RunSummary(len(merges), _stopped_early(merges, settings))
        return _with_tokenizer(summary, settings, name, metadata, merges)
    trainer = BpeTrainer(settings.vocab_size, settings.pattern, settings.special_tokens, settings.rules,
                         explain_ties=True)
    for progress in trainer.add_texts(reader, every=COUNT_REPORT_CHARS):
        yield Counting(reader.bytes_read, reader.total_bytes, progress.texts, progress.distinct_chunks)
    if not trainer.chunk_counts:
        raise TrainingError("the corpus holds no text" + _skipped_note(reader))
    corpus_tokens = sum(len(chunk.encode("utf-8")) * n for chunk, n in trainer.chunk_counts.items())
    yield MergeStage(settings.target_merges, corpus_tokens, len(trainer.chunk_counts),
                     tracker.bytes if tracker else 0, tuple(map(str, reader.skipped)))
    learned: list[Merge] = []
    for merge in trainer.merges():
        learned.append(merge)
        yield Learned(merge, tracker.apply(merge.left, merge.right, merge.new_id) if tracker else -1)
    summary = RunSummary(len(learned), _stopped_early(learned, settings))
    return _with_tokenizer(summary, settings, name, metadata, learned)


def _stopped_early(merges: list[Merge], settings: TrainingSettings) -> bool:
    """The corpus ran out of pairs first. Not `len(merges) < target_merges`: a merge that rebuilds a
    special token (or bytes another merge made) takes no slot, so a full run can have more merges."""
    return vocabulary_size(merges, settings.special_tokens) < settings.vocab_size


def _with_tokenizer(summary: RunSummary, settings: TrainingSettings, name: str, metadata: dict[str, Any] | None,
                    merges: list[Merge] | None = None) -> RunSummary:
    if not name or merges is None:
        return summary
    return RunSummary(summary.merges, summary.stopped_early, build_tokenizer(merges, settings, name, metadata))


def build_tokenizer(merges: list[Merge], settings: TrainingSettings, name: str,
                    metadata: dict[str, Any] | None = None) -> BPE:
    """The tokenizer of a run's merges (also of a run that was stopped early); its file records the rules."""
    return from_merges(merges, settings.pattern, settings.special_tokens, name=name,
                       metadata={**(metadata or {}), "rules": settings.rules})

def _skipped_note(reader: CorpusReader) -> str:
    if not reader.skipped:
        return ""
    return f" (skipped: {'; '.join(map(str, reader.skipped[:3]))}{' ...' if len(reader.skipped) > 3 else ''})"


def _run_hf(reader: CorpusReader, settings: TrainingSettings,
            tracker: HeldOutTracker | None) -> Generator[object, None, list[Merge]]:
    """Train with Hugging Face tokenizers, measure how often each merge applied, then replay the merges.

    Its trainer is one call that lets go of the interpreter lock, so it runs on a thread while this
    generator reports how much of the corpus it has read, then what its progress bars say
    (`HfProgress`). It does not report merge counts: they follow from the corpus's distinct chunks
    and how often each occurs (`chunk_merge_counts`), which `DistinctTexts` counts. A corpus of
    plain UTF-8 files HF reads itself, in Rust, while a thread here counts the same lines
    (`_hf_on_files`); any other corpus HF reads through this process, each text passing through
    `DistinctTexts` on its way (`_hf_on_texts`). Either way the corpus is read once by each.
    """
    distinct = DistinctTexts(settings.pattern)
    progress = HfProgress()
    files = reader.plain_files()
    if files and any(map(ends_mid_character, files)):
        # HF would fail on its last line only once it had read the whole file, and the corpus be
        # read a second time; our reading leaves that line out (reported as skipped): HF reads ours.
        files = None
    tokenizer = None
    if files:
        tokenizer = yield from _hf_on_files(reader, [str(path) for path in files], distinct, settings, progress)
        if tokenizer is None:  # our reading skipped part of a file: read the corpus as HF cannot
            reader, distinct, progress = CorpusReader(reader.sources), DistinctTexts(settings.pattern), HfProgress()
    if tokenizer is None:
        tokenizer = yield from _hf_on_texts(reader, distinct, settings, progress)
    merges = _hf_merges(tokenizer)
    if not merges and reader.bytes_read == 0:
        raise TrainingError("the corpus holds no text" + _skipped_note(reader))
    distinct.finish()  # HF left texts unread (it reads them all) or the corpus was empty

    encoded = [0, 0]  # distinct chunks encoded, of how many: the measuring's own progress, for the time left

    def measure() -> tuple[list[int], int]:
        return chunk_merge_counts(tokenizer.model, merges, distinct.result(), encoded)

    def measuring() -> Counting:
        stage, step, steps = (("encoding chunks", *encoded) if encoded[1] else
                              ("counting chunks", distinct.counted, distinct.seen))
        return Counting(reader.bytes_read, reader.total_bytes, distinct.texts_added, distinct.seen, "measuring",
                        stage, step, steps, time.process_time())

    counts, corpus_tokens = yield from _in_background(measure, measuring)
    yield MergeStage(settings.target_merges, corpus_tokens, len(distinct.chunk_counts), tracker.bytes if tracker else 0,
                     tuple(map(str, reader.skipped)))
    distinct.chunk_counts = Counter()  # the chunks are let go before the merges are replayed
    total = corpus_tokens
    learned: list[Merge] = []
    for merge, count in zip(merges, counts):
        total -= count
        merge = Merge(merge.rank, merge.left, merge.right, merge.new_id, merge.token, count, total)
        learned.append(merge)
        yield Learned(merge, tracker.apply(merge.left, merge.right, merge.new_id) if tracker else -1)
    return learned


def _hf_on_texts(reader: CorpusReader, distinct: DistinctTexts, settings: TrainingSettings,
                 progress: HfProgress) -> Generator[object, None, Any]:
    """HF trained on the texts `reader` gives, handed to it from this process; `distinct` sees each."""
    texts = _CountedTexts(reader.batches(), distinct)

    def reading() -> Counting:
        if reader.bytes_read < reader.total_bytes or not progress.stage or progress.stage.startswith("Pre-process"):
            return Counting(reader.bytes_read, reader.total_bytes, distinct.texts_added, distinct.seen, "reading",
                            cpu_seconds=time.process_time())
        return _learning(reader, distinct, progress)

    with progress:
        return (yield from _in_background(lambda: _hf_fit(texts, settings, progress.available), reading))


def _hf_on_files(reader: CorpusReader, files: list[str], distinct: DistinctTexts, settings: TrainingSettings,
                 progress: HfProgress) -> Generator[object, None, Any | None]:
    """HF trained on `files` as it reads them itself (on all cores, without the interpreter lock),
    while a thread here reads the same files with `reader` into `distinct`: both at once, each once.

    Progress is HF's "Pre-processing files" bar (our reading is quicker, HF's is what takes the
    time), or our bytes read where there are no bars. None when the texts may differ from the
    ones HF read: our reading skipped part of a file (a NUL byte, invalid UTF-8, a line too
    long, a file gone) or HF failed; the caller then reads the corpus as before.
    """
    hf_done = threading.Event()

    def hf_read() -> int | None:
        """Bytes HF has read by its bar; None when it does not say (no bars, or reading is over)."""
        stage = progress.stage
        if hf_done.is_set() or not progress.available or (stage and not stage.startswith("Pre-process")):
            return None
        return reader.total_bytes * progress.step // progress.steps if stage and progress.steps else 0

    ours = [0]  # bytes our reading has read

    def count() -> None:
        ahead = max(BLOCK_BYTES, int(reader.total_bytes * READ_AHEAD))
        for path in files:
            for size, lines, last in line_blocks(path):
                distinct.add_lines(lines)
                if last:
                    distinct.add([last.decode("utf-8")])
                ours[0] += size
                while (read := hf_read()) is not None and ours[0] > read + ahead:
                    hf_done.wait(PACE_SECONDS)
        distinct.finish()

    def report() -> Counting:
        read = hf_read()
        if read is None and progress.stage and not progress.stage.startswith("Pre-process"):
            return _learning(reader, distinct, progress)
        done = ours[0] if read is None else min(read, ours[0])
        return Counting(done, reader.total_bytes, distinct.texts_added, distinct.seen, "reading",
                        cpu_seconds=time.process_time())

    counting = _Thread(count)
    try:
        with progress:
            tokenizer = yield from _in_background(lambda: _hf_fit((), settings, progress.available, files), report)
    except TrainingError:
        tokenizer = None
    finally:
        hf_done.set()  # our reading waits for HF no more (also when the run is closed meanwhile)
    while not counting.done(REPORT_SECONDS):
        yield report()
    try:
        counting.result()
    except (CorpusError, UnicodeDecodeError, OSError):  # our reading would stop there: the caller's says why
        return None
    reader.bytes_read = ours[0]
    return tokenizer


def line_blocks(path: str) -> Iterator[tuple[int, list[bytes], bytes]]:
    """A plain UTF-8 file as HF's `train(files)` reads it, a block at a time: (bytes, the block's lines
    without their b"\n", and at the end the last line when no line break ends it). Bytes, not text: a
    corpus repeats its lines, and `DistinctTexts` decodes each distinct line once (400 MB: 2.2 s of CPU
    time, against 4.2 s decoding, splitting and counting text, taken from HF's own reading). A NUL byte
    or a line too long raise CorpusError (invalid UTF-8 raises when decoded): where our reading of the
    file would stop, the texts may differ from HF's."""
    with open(path, "rb") as handle:
        carry = b""
        while block := handle.read(BLOCK_BYTES):
            data = carry + block if carry else block
            end = data.rfind(b"\n") + 1
            carry = data[end:]
            if b"\x00" in block or len(carry) > MAX_LINE_BYTES:
                raise CorpusError(f"{path}: a NUL byte or a line too long")
            lines = data[: end - 1].split(b"\n") if end else []
            yield len(block), lines, b""
        if carry:
            yield 0, [], carry


def _learning(reader: CorpusReader, distinct: DistinctTexts, progress: HfProgress) -> Counting:
    """HF has read the corpus and is learning: its stage and how far it is."""
    return Counting(reader.total_bytes, reader.total_bytes, distinct.texts_added, distinct.seen, "learning",
                    progress.stage, progress.step, progress.steps, time.process_time())


def _hf_fit(texts: Iterable[str] | Iterable[list[str]], settings: TrainingSettings, show_progress: bool = False,
            files: list[str] | None = None) -> Any:
    """A `tokenizers.Tokenizer` trained on `texts` (or lists of texts) with our pipeline, or on
    `files` as HF reads them itself; `show_progress` draws its bars on stderr, for `HfProgress`."""
    from tokenizers import pre_tokenizers, trainers

    tokenizer = training_pipeline(settings.pattern)
    trainer = trainers.BpeTrainer(vocab_size=settings.vocab_size, special_tokens=list(settings.special_tokens),
                                  show_progress=show_progress, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    try:
        if files is not None:
            tokenizer.train(files, trainer)
        else:
            tokenizer.train_from_iterator(texts, trainer)
    except Exception as exc:  # tokenizers raises plain exceptions for bad regexes and the like
        raise TrainingError(f"Hugging Face tokenizers could not train: {exc}") from None
    return tokenizer


def _hf_merges(tokenizer: Any) -> list[Merge]:
    """Its merges in our id space: bytes are 0-255, each new token the next id (or the id it
    already has, when two pairs make the same bytes). Counts are filled in by `merge_counts`."""
    vocab = [bytes([b]) for b in range(BYTE_VOCAB)]
    id_of = {token: index for index, token in enumerate(vocab)}
    merges: list[Merge] = []
    for rank, (left_bytes, right_bytes) in enumerate(merge_pairs(tokenizer)):
        left, right = id_of[left_bytes], id_of[right_bytes]
        token = vocab[left] + vocab[right]
        new_id = id_of.get(token)
        if new_id is None:
            new_id = id_of[token] = len(vocab)
            vocab.append(token)
        merges.append(Merge(rank, left, right, new_id, token, 0, 0))
    return merges


def merge_counts(model: Any, pattern: str, merges: list[Merge], texts: Iterable[str]) -> tuple[list[int], int]:
    """How often each merge applied while training on `texts`, and the corpus's tokens before any merge.

    `model` is the trained `tokenizers.models.BPE`; `texts` are cut with `pattern` as its trainer cut them.
    """
    counter = BpeTrainer(BYTE_VOCAB, pattern)
    for text in texts:
        counter.add_text(text)
    return chunk_merge_counts(model, merges, counter.chunk_counts)


def chunk_merge_counts(model: Any, merges: list[Merge], chunk_counts: Mapping[str, int],
                       encoded: list[int] | None = None) -> tuple[list[int], int]:
    """`merge_counts` from the training text's distinct chunks and how often each occurs.

    Encoding a chunk with the finished merges ends where training ended for it, so encoding
    each distinct chunk once, weighted by its count, gives the corpus's final tokens without
    encoding the corpus again. Every token an occurrence of merge m made is either still there
    at the end or was used up by a later merge; walking the merges from last to first adds the
    two. Each chunk is one word (no regex), run without special tokens, as the trainer saw it.
    `encoded`, if given, is kept at [chunks encoded so far, chunks] for another thread to read.
    """
    from tokenizers import pre_tokenizers

    encoder = training_pipeline("none")
    encoder.model = model
    ours = {token: merge.new_id for merge in merges for token in (merge.token,)}
    ours.update((bytes([b]), b) for b in range(BYTE_VOCAB))
    size = max(ours.values()) + 1
    to_ours = np.full(encoder.get_vocab_size() + 1, -1, dtype=np.int64)
    for chars, hf_id in encoder.get_vocab().items():
        try:
            to_ours[hf_id] = ours.get(from_chars(chars), -1)
        except KeyError:  # a special token with a character outside the byte alphabet: no merge makes it
            pass
    chunks = list(chunk_counts)
    weights = np.fromiter(chunk_counts.values(), dtype=np.int64, count=len(chunks))
    # Chunks that occur equally often go to HF's encoder many to a text, SEPARATOR between them (each
    # its own word): one Encoding per JOIN_CHUNKS chunks, not per chunk, was half the measuring's time,
    # and every token of a text has the text's one weight. No chunk holds SEPARATOR where files are
    # read (NUL bytes are refused); when one does, each chunk is a text of its own.
    join = 1 if SEPARATOR in "".join(chunks) else JOIN_CHUNKS
    if join > 1:
        encoder.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(SEPARATOR, "removed"),
                                                         encoder.pre_tokenizer])
    order = np.argsort(weights, kind="stable")
    weights = weights[order]
    chunks = [chunks[i] for i in order.tolist()]
    runs = np.flatnonzero(np.diff(weights)).tolist()
    groups = [(at, min(at + join, end)) for begin, end in zip([0, *(r + 1 for r in runs)], [*(r + 1 for r in runs), len(chunks)])
              for at in range(begin, end, join)]
    final = np.zeros(size, dtype=np.int64)
    if encoded is not None:
        encoded[:] = [0, len(chunks)]
    per_batch = max(1, MEASURE_BATCH // join)
    for first in range(0, len(groups), per_batch):
        batch = groups[first : first + per_batch]
        encodings = encoder.encode_batch_fast([SEPARATOR.join(chunks[a:b]) for a, b in batch], add_special_tokens=False)
        lengths = np.fromiter(map(len, encodings), dtype=np.int64, count=len(encodings))
        ids = np.fromiter(chain.from_iterable(e.ids for e in encodings), dtype=np.int64, count=int(lengths.sum()))
        mapped = to_ours[ids]
        times = np.repeat(weights[[a for a, _ in batch]], lengths)
        kept = mapped >= 0
        final += np.bincount(mapped[kept], weights=times[kept], minlength=size).astype(np.int64)  # exact below 2**53
        if encoded is not None:
            encoded[0] = batch[-1][1]
    remaining = int(final.sum())
    counts = [0] * len(merges)
    for merge in reversed(merges):
        count = int(final[merge.new_id])
        final[merge.new_id] = 0  # a token two merges make is counted once, for the later merge
        counts[merge.rank] = count
        final[merge.left] += count
        final[merge.right] += count
    return counts, remaining + sum(counts)


class _CountedTexts:
    """Iterates lists of texts, handing each list to `distinct` (which counts them); tells it
    when all are given."""

    def __init__(self, batches: Iterable[list[str]], distinct: DistinctTexts) -> None:
        self.batches, self.distinct = batches, distinct

    def __iter__(self) -> Iterator[list[str]]:
        for batch in self.batches:
            self.distinct.add(batch)
            for start in range(0, len(batch), FEED_TEXTS):
                yield batch[start : start + FEED_TEXTS]
        self.distinct.finish()


class DistinctTexts:
    """The chunk counts of texts seen once each: texts are counted as they pass (a hash per text),
    and each distinct text is cut into chunks once, weighted by how often it occurred.

    A corpus repeats lines (blank lines, boilerplate, whole documents): cutting is the costly
    part, and it is done on another thread, a window of `window` distinct texts at a time, so
    memory stays bounded whatever the corpus. `result()` waits for the counting and returns
    the chunk counts, the same as counting every text.

    >>> distinct = DistinctTexts("cl100k")
    >>> distinct.add(["a b\\n", "a b\\n", "c\\n"]); distinct.finish()
    >>> sorted(distinct.result().items())
    [('\\n', 3), (' b', 2), ('a', 2), ('c', 1)]
    """

    def __init__(self, pattern: str, window: int = DISTINCT_WINDOW) -> None:
        self.pretokenizer = Pretokenizer(pattern, "tokenizers")  # as the trainer (HF BpeTrainer) splits
        self.window = window
        self.chunk_counts: Counter[str] = Counter()
        self.texts: Counter[str] = Counter()
        self.lines: Counter[bytes] = Counter()  # `add_lines`'s, decoded as they are handed over
        self.handed = self.counted = 0  # distinct texts handed to the thread, and cut so far
        self.texts_added = 0  # texts given to `add`, repeats included
        # Two windows wait at most: a corpus that repeats nothing makes the reader wait for the cutting.
        self._queue: queue.Queue[Counter[str] | None] = queue.Queue(maxsize=2)
        self._thread: _Thread[None] | None = None
        self._finished = False

    @property
    def seen(self) -> int:
        """Distinct texts so far (per window: a text in two windows counts twice)."""
        return self.handed + len(self.texts) + len(self.lines)

    def add(self, texts: list[str]) -> None:
        self.texts_added += len(texts)
        self.texts.update(texts)
        if len(self.texts) + len(self.lines) >= self.window:
            self._hand_over()

    def add_lines(self, lines: list[bytes]) -> None:
        """Lines of UTF-8 bytes, each without the line break that ended it (the texts are the lines
        with "\n"): counted as bytes, each distinct one decoded once. Invalid UTF-8 raises, here or
        in `finish`; so does a line over MAX_LINE_BYTES (CorpusError), as our reading of a file would."""
        self.texts_added += len(lines)
        self.lines.update(lines)
        if len(self.texts) + len(self.lines) >= self.window:
            self._hand_over()

    def finish(self) -> None:
        if not self._finished:
            self._finished = True
            self._hand_over()
            self._queue.put(None)

    def result(self) -> Counter[str]:
        self.finish()
        if self._thread is not None:
            self._thread.result()
        return self.chunk_counts

    def _hand_over(self) -> None:
        if self.lines:
            texts, lines, self.lines = self.texts, self.lines, Counter()
            while lines:  # each line let go once decoded: the distinct lines are not held twice
                line, times = lines.popitem()
                if len(line) > MAX_LINE_BYTES:
                    raise CorpusError(f"a line of {len(line):,} bytes, over {MAX_LINE_BYTES:,}")
                texts[line.decode("utf-8") + "\n"] += times
        if self.texts:
            self.handed += len(self.texts)
            self._queue.put(self.texts)
            self.texts = Counter()
        if self._thread is None:
            self._thread = _Thread(self._count)

    def _count(self) -> None:
        pieces, windows, counts = self.pretokenizer.pieces, self.pretokenizer.iter_pieces, self.chunk_counts
        while (texts := self._queue.get()) is not None:
            while texts:  # each text let go once cut: the corpus's distinct texts are not held twice
                text, times = texts.popitem()
                found = pieces(text) if len(text) <= LONG_TEXT else [p for part in windows(text) for p in part]
                if times == 1:
                    counts.update(found)
                else:
                    for chunk in found:
                        counts[chunk] += times
                self.counted += 1
            del texts


class _Thread(Generic[T]):
    """`work` running on a daemon thread (a run cancelled meanwhile ends with its process)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self.outcome: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._run, args=(work,), name="explorer-training", daemon=True)
        self.thread.start()

    def _run(self, work: Callable[[], T]) -> None:
        try:
            self.outcome["value"] = work()
        except BaseException as exc:  # handed to whoever waits for the result
            self.outcome["error"] = exc

    def done(self, timeout: float) -> bool:
        self.thread.join(timeout)
        return not self.thread.is_alive()

    def result(self) -> T:
        """Waits for `work`; returns its result or raises its error."""
        self.thread.join()
        if "error" in self.outcome:
            raise self.outcome["error"]
        return self.outcome["value"]  # type: ignore[no-any-return]


def _in_background(work: Callable[[], T], report: Callable[[], object]) -> Generator[object, None, T]:
    """Run `work` on a thread (a long C call that lets go of the interpreter lock), yielding
    `report()` every REPORT_SECONDS until it is done; returns its result or raises its error."""
    job = _Thread(work)
    while not job.done(REPORT_SECONDS):
        yield report()
    return job.result()
