"""Big corpora with the Hugging Face engine (issue 16): one read of the corpus, distinct texts cut
once, HF's own progress bars, and a time-left estimate that follows the run's phases."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

import explorer.core.corpora.corpus as corpus_module
from explorer.core.algorithms.hf_progress import HfProgress
from explorer.core.algorithms.training_run import (Counting, DistinctTexts, Learned, MergeStage, TrainingSettings,
                                                   run_training)
from explorer.core.corpora.corpus_sources import Corpus, CorpusReader, Source
from explorer.core.pretokenization.pretokenize import Pretokenizer
from tests.corpora import corpus_lines

FILES = {
    "plain": b"one\n\ntwo\r\nthree",
    "bad-utf8": b"ok\n" * 5 + b"bad \xff here\nmore\n",
    "nul": b"x\n" + b"y\x00z\n",
    "empty": b"",
    "final-break": "é\n".encode() * 5 + b"end\n",
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_batches_are_the_texts_of_iterating(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(corpus_module, "BLOCK_BYTES", 4)  # lines across blocks, and blocks inside lines
    path = tmp_path / f"{name}.txt"
    path.write_bytes(FILES[name])
    sources = (Source.for_path(path), Source.pasted("pasted\ntext"))
    one, many = CorpusReader(sources), CorpusReader(sources)
    assert [text for batch in many.batches(size=2) for text in batch] == list(one)
    assert (many.bytes_read, many.skipped) == (one.bytes_read, one.skipped)


def test_batches_of_a_generated_file_in_real_blocks(tmp_path: Path) -> None:
    path = tmp_path / "multi.txt"
    path.write_text("".join(corpus_lines("multi", 300_000, seed=3)) * 5, encoding="utf-8")
    reader = CorpusReader((Source.for_path(path),))
    batches = list(reader.batches())
    assert len(batches) > 1 and [t for b in batches for t in b] == list(CorpusReader((Source.for_path(path),)))


@pytest.mark.parametrize("window", [3, 1 << 19])
def test_distinct_texts_count_the_chunks_of_every_text(window: int) -> None:
    lines = corpus_lines("multi", 20_000, seed=5) * 3 + ["x" * 70_000 + "\n"] * 2  # repeats and a long text
    distinct = DistinctTexts("cl100k", window=window)
    for start in range(0, len(lines), 7):
        distinct.add(lines[start : start + 7])
    distinct.finish()
    pieces = Pretokenizer("cl100k", "tokenizers").pieces
    assert distinct.result() == Counter(piece for line in lines for piece in pieces(line))
    assert distinct.counted == distinct.seen


@pytest.mark.parametrize("name", sorted(FILES))
def test_lines_read_as_hf_reads_a_file_count_as_its_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          name: str) -> None:
    """Beside HF's own reading, each file is read as bytes and each distinct line decoded once: the
    same chunk counts as our reading's texts, or an error where our reading stops (then the corpus
    is read as texts, which says why)."""
    import explorer.core.algorithms.training_run as training_run
    from explorer.core.errors import CorpusError

    monkeypatch.setattr(training_run, "BLOCK_BYTES", 4)  # lines across blocks, and blocks inside lines
    path = tmp_path / f"{name}.txt"
    path.write_bytes(FILES[name] + FILES[name])  # repeated lines
    reader = CorpusReader((Source.for_path(path),))
    texts = list(reader)
    distinct = DistinctTexts("cl100k", window=2)
    try:
        for _, lines, last in training_run.line_blocks(str(path)):
            distinct.add_lines(lines)
            if last:
                distinct.add([last.decode("utf-8")])
        counts = distinct.result()
    except (CorpusError, UnicodeDecodeError):
        assert reader.skipped
        return
    pieces = Pretokenizer("cl100k", "tokenizers").pieces
    assert not reader.skipped and counts == Counter(piece for text in texts for piece in pieces(text))
    assert distinct.texts_added == len(texts)


def test_a_file_our_reading_stops_in_is_trained_on_its_texts(tmp_path: Path) -> None:
    from tests.hf_reference import hf_train_merges

    path = tmp_path / "bad.txt"
    lines = corpus_lines("prose", 3_000, seed=4)
    path.write_bytes("".join(lines).encode("utf-8") + FILES["bad-utf8"])
    records = list(run_training(Corpus((Source.for_path(path),)), TrainingSettings(400, "cl100k", engine="hf")))
    stage = next(r for r in records if isinstance(r, MergeStage))
    texts = list(CorpusReader((Source.for_path(path),)))
    assert stage.skipped and [r.merge.token for r in records if isinstance(r, Learned)] == hf_train_merges(texts, 400,
                                                                                                             "cl100k")


def test_hf_engine_reads_each_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts come from the texts HF read, as it read them: no second pass over the corpus."""
    import explorer.core.corpora.corpus_sources as sources

    path = tmp_path / "prose.txt"
    path.write_text("".join(corpus_lines("prose", 30_000, seed=1)) * 2, encoding="utf-8")
    read: list[int] = []

    def counted(reader):  # type: ignore[no-untyped-def]
        def wrapper(*args):  # type: ignore[no-untyped-def]
            for size, texts in reader(*args):
                read.append(size)
                yield size, texts
        return wrapper

    import explorer.core.algorithms.training_run as training_run

    monkeypatch.setattr(sources, "utf8_lines", counted(sources.utf8_lines))
    monkeypatch.setattr(sources, "utf8_line_batches", counted(sources.utf8_line_batches))
    blocks = training_run.line_blocks

    def line_blocks(path):  # type: ignore[no-untyped-def]
        for size, lines, last in blocks(path):
            read.append(size)
            yield size, lines, last

    monkeypatch.setattr(training_run, "line_blocks", line_blocks)
    records = list(run_training(Corpus((Source.for_path(path),)), TrainingSettings(600, "cl100k", engine="hf")))
    assert sum(read) == path.stat().st_size
    assert sum(isinstance(r, Learned) for r in records) == 600 - 256


def test_hf_engine_reports_its_own_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    import explorer.core.algorithms.training_run as training_run

    monkeypatch.setattr(training_run, "REPORT_SECONDS", 0.002)  # a short stage is still seen on a quick machine
    monkeypatch.delenv("TERM", raising=False)  # as when the app is started from a desktop
    corpus = Corpus((Source.pasted("".join(corpus_lines("multi", 200_000, seed=2))),))
    records = list(run_training(corpus, TrainingSettings(4000, "cl100k", engine="hf")))
    stages = {r.stage for r in records if isinstance(r, Counting) and r.phase == "learning"}
    if HfProgress().available:
        assert stages and stages <= {"Tokenize words", "Count pairs", "Compute merges"}


def test_progress_bars_are_read_and_other_output_passed_on() -> None:
    progress = HfProgress()
    rest = progress.feed("\r\x1b[2K[00:00:01] Compute merges      ████░░░░ 2087     /     4096\rwarning: x\n")
    assert (progress.stage, progress.step, progress.steps) == ("Compute merges", 2087, 4096)
    assert rest == "warning: x\n"
    progress.feed("[00:00:00] Pre-processing files (12 Mo)    ░░░░░░░░░░                  37%")
    assert (progress.stage, progress.step, progress.steps) == ("Pre-processing files", 37, 100)


def test_progress_sets_a_terminal_type_only_while_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """A desktop launch has no TERM, and HF then draws no bars; the process's environment is put back after."""
    monkeypatch.delenv("TERM", raising=False)
    progress = HfProgress()
    with progress:
        if progress.available:
            assert os.environ["TERM"] == "xterm"
    assert "TERM" not in os.environ


@pytest.mark.parametrize("cut", [0, 1, 2])
def test_a_file_cut_inside_its_last_character_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           cut: int) -> None:
    """A corpus cut at a byte count may end inside a character: HF's own reading fails on that last
    line only after reading the whole file. The corpus is read once all the same, the line left out
    (and said so), and the merges are HF's on the texts that remain."""
    import explorer.core.algorithms.training_run as training_run
    from tests.hf_reference import hf_train_merges

    lines = corpus_lines("multi", 4_000, seed=2) * 2
    data = "".join(lines).encode("utf-8") + "last 日本".encode("utf-8")
    path = tmp_path / "cut.txt"
    path.write_bytes(data[: len(data) - cut])
    fits: list[bool] = []
    fit = training_run._hf_fit
    monkeypatch.setattr(training_run, "_hf_fit", lambda *args: (fits.append(len(args) > 3), fit(*args))[1])
    passes: list[int] = []  # one per reading of the corpus: as texts, or as HF reads the file (line_blocks)
    batches, blocks = CorpusReader.batches, training_run.line_blocks
    monkeypatch.setattr(CorpusReader, "batches", lambda self, *args: (passes.append(1), batches(self, *args))[1])
    monkeypatch.setattr(training_run, "line_blocks", lambda path: (passes.append(1), blocks(path))[1])
    records = list(run_training(Corpus((Source.for_path(path),)), TrainingSettings(500, "cl100k", engine="hf")))
    merges = [r.merge.token for r in records if isinstance(r, Learned)]
    stage = next(r for r in records if isinstance(r, MergeStage))
    texts = lines + (["last 日本"] if not cut else [])
    assert merges == hf_train_merges(texts, 500, "cl100k")
    assert len(passes) == 1 and len(fits) == 1 and fits[0] == (cut == 0)  # HF reads the file itself when whole
    assert bool(stage.skipped) == bool(cut)  # the cut line is said to be left out


@pytest.mark.skipif(not HfProgress().available, reason="no pseudo-terminals here: HF draws no bars to hide")
def test_a_cancelled_runs_bars_never_reach_stderr() -> None:
    """Cancel closes the run's generator while HF's trainer goes on, drawing its bars until the
    process ends: with stderr put back at once, they showed on the terminal that started the app."""
    script = textwrap.dedent("""
        import os, time
        from explorer.core.algorithms.hf_progress import HfProgress
        progress = HfProgress()
        progress.__enter__()
        progress.__exit__(GeneratorExit, GeneratorExit(), None)  # as a cancelled run's generator is closed
        os.write(2, "\\r[00:00:01] Compute merges      ████░░░░ 2087     /     4096\\rstill said\\n".encode())
        time.sleep(0.3)  # (the reader passes it on)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert "still said" in done.stderr and "Compute merges" not in done.stderr
