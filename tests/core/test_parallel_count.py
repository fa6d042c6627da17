"""Counting plain UTF-8 files on several cores (issue 16): the same chunk counts, in the same order,
as one pass; one pass wherever that cannot be shown; no helper process left behind."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.core.algorithms import parallel_count
from explorer.core.algorithms.train import BpeTrainer, CountProgress
from explorer.core.algorithms.training_run import Counting, Learned, TrainingSettings, run_training
from explorer.core.corpora.corpus import CorpusFiles
from explorer.core.corpora.corpus_sources import Corpus, CorpusReader, Source
from explorer.core.errors import CorpusError, TrainingError
from explorer.core.generators import run_to_end
from tests.corpora import corpus_lines

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="counting in helpers needs fork (POSIX)")


@pytest.fixture
def parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut even a small corpus into three parts, whatever the CPUs of this machine."""
    monkeypatch.setattr(parallel_count, "PART_BYTES", 1)
    monkeypatch.setattr(parallel_count, "processes_available", lambda: 3)


def write_corpus(folder: Path) -> list[Path]:
    """Three files of many scripts with repeated lines, `\\r\\n` endings, a file without a final
    line break and an empty one: a chunk first seen in a later part must keep its place."""
    lines = corpus_lines("multi", 60_000, seed=11)
    first = folder / "a.txt"
    first.write_text("".join(lines[:300] * 2 + lines[300:]) + "tail without a break", encoding="utf-8")
    second = folder / "b.txt"
    second.write_bytes("".join(line.replace("\n", "\r\n") for line in lines[::3]).encode())
    empty = folder / "c.txt"
    empty.write_bytes(b"")
    return [first, empty, second]


def one_pass(texts: object) -> BpeTrainer:
    trainer = BpeTrainer(4096, "cl100k")
    run_to_end(trainer.count_texts(texts))  # type: ignore[arg-type]
    return trainer


def counted(texts: object) -> tuple[BpeTrainer, list[CountProgress]]:
    trainer = BpeTrainer(4096, "cl100k")
    records: list[CountProgress] = []
    run_to_end(trainer.add_texts(texts, every=1 << 12), records.append)  # type: ignore[arg-type]
    return trainer, records


def test_parts_begin_lines_and_cover_the_files(tmp_path: Path) -> None:
    files = write_corpus(tmp_path)
    sizes = [path.stat().st_size for path in files]
    for count in (2, 3, 7):
        cut = parallel_count.cut(files, sizes, count)
        assert 1 < len(cut) <= count
        read = b"".join(path.read_bytes()[s.start : s.end] for part in cut for s in part for path in [s.path])
        assert read == b"".join(path.read_bytes() for path in files)
        for part in cut:
            start = part[0]
            assert start.start == 0 or start.path.read_bytes()[start.start - 1] == ord("\n")


def test_counts_and_their_order_equal_one_pass(tmp_path: Path, parts: None) -> None:
    files = write_corpus(tmp_path)
    reader = CorpusFiles(files)
    assert len(parallel_count.plan(reader, BpeTrainer(4096)) or []) == 3
    trainer, records = counted(reader)
    reference = one_pass(CorpusFiles(files))
    assert list(trainer.chunk_counts.items()) == list(reference.chunk_counts.items())
    assert (trainer.texts, trainer.chars) == (reference.texts, reference.chars)
    assert reader.bytes_read == reader.total_bytes
    assert records[-1] == CountProgress(reference.texts, reference.chars, len(reference.chunk_counts))
    assert [r.texts for r in records] == sorted(r.texts for r in records)


def test_merges_equal_one_pass(tmp_path: Path, parts: None) -> None:
    files = write_corpus(tmp_path)
    trainer, _ = counted(CorpusFiles(files))
    assert list(trainer.merges()) == list(one_pass(CorpusFiles(files)).merges())


def test_training_run_on_several_files_counts_in_parts_with_progress(tmp_path: Path, parts: None,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    files = write_corpus(tmp_path)
    used: list[int] = []
    real_count = parallel_count.count

    def spy(trainer: BpeTrainer, texts: object, cut: list[parallel_count.Part], every: int) -> Iterator[CountProgress]:
        used.append(len(cut))
        return real_count(trainer, texts, cut, every)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel_count, "count", spy)
    corpus = Corpus((Source.for_path(files[0]), Source.for_path(tmp_path)))  # a file, then the folder
    settings = TrainingSettings(600, "cl100k")
    records = list(run_training(corpus, settings))
    assert used == [3]
    counting = [r for r in records if isinstance(r, Counting)]
    assert counting[-1].bytes_read == counting[-1].total_bytes == sum(p.stat().st_size for p in files + files[:1])
    reference = BpeTrainer(600, "cl100k", explain_ties=True)
    run_to_end(reference.count_texts(CorpusReader(corpus.sources)))
    assert counting[-1].texts == reference.texts
    assert [r.merge for r in records if isinstance(r, Learned)] == list(reference.merges())


def test_pasted_texts_with_files_are_counted_in_one_pass(tmp_path: Path, parts: None) -> None:
    files = write_corpus(tmp_path)
    sources = (Source.for_path(files[0]), Source.pasted("pasted text\nof two lines"), Source.for_path(files[2]))
    assert parallel_count.plan(CorpusReader(sources), BpeTrainer(4096)) is None
    trainer, _ = counted(CorpusReader(sources))
    assert list(trainer.chunk_counts.items()) == list(one_pass(CorpusReader(sources)).chunk_counts.items())


def test_one_pass_where_parts_cannot_be_shown_equal(tmp_path: Path, parts: None) -> None:
    files = write_corpus(tmp_path)
    trainer = BpeTrainer(4096)
    assert parallel_count.plan(CorpusFiles(files), trainer) is not None
    assert parallel_count.plan(CorpusFiles(files, whole=True), trainer) is None  # "minbpe": whole files
    assert parallel_count.plan(Corpus((Source.for_path(files[0]),)).reader(whole=True), trainer) is None
    latin = Source.for_path(files[0]).with_encoding("latin-1")
    assert parallel_count.plan(CorpusReader([latin]), trainer) is None
    assert parallel_count.plan(list(CorpusFiles(files)), trainer) is None  # texts, not files
    cut_short = tmp_path / "cut.txt"
    cut_short.write_bytes("line\n".encode() * 100 + "é".encode()[:1])  # ends within a character
    assert parallel_count.plan(CorpusFiles([*files, cut_short]), trainer) is None
    trainer.add_text("counted before")
    assert parallel_count.plan(CorpusFiles(files), trainer) is None


def test_one_pass_while_another_thread_runs(tmp_path: Path, parts: None) -> None:
    files = write_corpus(tmp_path)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert parallel_count.plan(CorpusFiles(files), BpeTrainer(4096)) is None
    finally:
        release.set()
        other.join()


def test_one_pass_on_one_cpu_or_a_small_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = write_corpus(tmp_path)
    monkeypatch.setattr(parallel_count, "processes_available", lambda: 1)
    assert parallel_count.plan(CorpusFiles(files), BpeTrainer(4096)) is None
    monkeypatch.setattr(parallel_count, "processes_available", lambda: 2)
    assert sum(p.stat().st_size for p in files) < 2 * parallel_count.PART_BYTES
    assert parallel_count.plan(CorpusFiles(files), BpeTrainer(4096)) is None


@pytest.mark.parametrize("where", ["first part", "last part"])
@pytest.mark.parametrize("bad", [b"\xff", b"\x00"])
def test_a_bad_line_is_reported_and_skipped_as_by_one_pass(tmp_path: Path, parts: None, where: str, bad: bytes) -> None:
    lines = "".join(corpus_lines("prose", 30_000, seed=2)).encode()
    at = len(lines) // 10 if where == "first part" else len(lines) * 9 // 10
    at = lines.index(b"\n", at) + 1
    path = tmp_path / "bad.txt"
    path.write_bytes(lines[:at] + b"bad " + bad + b" line\n" + lines[at:])
    good = tmp_path / "good.txt"
    good.write_bytes(lines)
    with pytest.raises(CorpusError) as one:
        run_to_end(BpeTrainer(4096).count_texts(CorpusFiles([path])))
    with pytest.raises(CorpusError) as parted:
        counted(CorpusFiles([path]))
    assert str(parted.value) == str(one.value)
    sources = (Source.for_path(path), Source.for_path(good))
    reader = CorpusReader(sources)
    trainer, _ = counted(reader)
    reference_reader = CorpusReader(sources)
    reference = one_pass(reference_reader)
    assert list(trainer.chunk_counts.items()) == list(reference.chunk_counts.items())
    assert reader.skipped == reference_reader.skipped and reader.skipped
    assert reader.bytes_read == reference_reader.bytes_read


def children() -> set[int]:
    """This process's child processes (Linux)."""
    tasks = Path("/proc/self/task")
    return {int(pid) for task in tasks.iterdir() for pid in (task / "children").read_text().split()}


linux = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="lists child processes in /proc")


@linux
def test_closing_the_run_ends_the_helpers_at_once(tmp_path: Path, parts: None) -> None:
    files = write_corpus(tmp_path)
    before = children()
    run = run_training(Corpus((Source.for_path(tmp_path),)), TrainingSettings(600, "cl100k"))
    first = next(run)
    assert isinstance(first, Counting)
    helpers = children() - before
    assert len(helpers) == 2 and files
    run.close()
    assert children() - before == set()
    for pid in helpers:
        with pytest.raises(ChildProcessError):  # reaped: no zombie
            os.waitpid(pid, os.WNOHANG)


def test_a_helper_that_dies_is_a_training_error(tmp_path: Path, parts: None, monkeypatch: pytest.MonkeyPatch) -> None:
    files = write_corpus(tmp_path)

    def killed(*args: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(parallel_count, "_helper_main", killed)  # what the forked helper runs
    with pytest.raises(TrainingError, match="helper process was ended by signal 9"):
        counted(CorpusFiles(files))
    if Path("/proc/self/task").exists():
        assert children() == set()


KILLED_RUN = """
import sys
from pathlib import Path
from explorer.core.algorithms import parallel_count
from explorer.core.algorithms.train import BpeTrainer
from explorer.core.corpora.corpus import CorpusFiles
parallel_count.PART_BYTES, parallel_count.processes_available = 1, lambda: 2
counting = BpeTrainer(4096).add_texts(CorpusFiles([Path(sys.argv[1])]), every=1)
next(counting)
children = [pid for task in Path("/proc/self/task").iterdir() for pid in (task / "children").read_text().split()]
print(*children, flush=True)
sys.stdin.read()  # until the test kills this process
"""


@linux
def test_a_helper_ends_with_its_parent_even_when_that_is_killed(tmp_path: Path) -> None:
    """The Training pane ends a run's process by a signal: its helpers must not count on as orphans."""
    import subprocess
    import sys
    import time

    path = tmp_path / "big.txt"
    path.write_text("".join(corpus_lines("multi", 400_000, seed=4)) * 10, encoding="utf-8")
    run = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(path)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    assert run.stdout is not None
    helpers = [int(pid) for pid in run.stdout.readline().split()]
    assert len(helpers) == 1 and _running(helpers[0])
    run.kill()
    run.wait()
    deadline = time.monotonic() + 10  # a wait-for: the helper ends as soon as the system tells it
    while _running(helpers[0]) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _running(helpers[0])


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (its new parent may be slow to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_one_pass_when_no_helper_can_be_started(tmp_path: Path, parts: None, monkeypatch: pytest.MonkeyPatch) -> None:
    files = write_corpus(tmp_path)

    def no_fork() -> int:
        raise BlockingIOError("no more processes")

    monkeypatch.setattr(os, "fork", no_fork)
    trainer, _ = counted(CorpusFiles(files))
    assert list(trainer.chunk_counts.items()) == list(one_pass(CorpusFiles(files)).chunk_counts.items())
