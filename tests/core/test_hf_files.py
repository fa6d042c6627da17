"""The Hugging Face engine on plain UTF-8 files (issue 16): HF reads the files itself, in Rust,
while this process counts the same lines; the result is the one of handing HF our texts."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import explorer.core.algorithms.training_run as training_run
from explorer.core.algorithms.training_run import Counting, Learned, MergeStage, TrainingSettings, run_training
from explorer.core.corpora.corpus_sources import Corpus, CorpusReader, Source
from explorer.core.errors import TrainingError
from tests.corpora import corpus_lines

SPECIALS = ("<|endoftext|>",)
EDGES = {  # what HF's own line reading has to agree with ours on
    "crlf.txt": "".join(line.rstrip("\n") + "\r\n" for line in corpus_lines("prose", 3000, seed=1)),
    "no-final-break.txt": "".join(corpus_lines("code", 3000, seed=2)).rstrip("\n"),
    "empty-lines.txt": "\n\n" + "\n\n\n".join(corpus_lines("multi", 3000, seed=3)) + "\n\n",
    "specials.txt": "".join(line.rstrip("\n") + "<|endoftext|>\n" for line in corpus_lines("prose", 2000, seed=4)),
    "odd.txt": "\ufeffa BOM, a lone \r carriage return,\r\r\n\t tabs \n \n" * 50 + "<|endoftext|>",
    "empty.txt": "",
}


def run(corpus: Corpus, settings: TrainingSettings) -> tuple[list[object], list[bool]]:
    """The records of a run, and for each HF training in it whether HF read the files itself."""
    fits: list[bool] = []
    real = training_run._hf_fit

    def watched(texts, settings, show_progress=False, files=None):  # type: ignore[no-untyped-def]
        fits.append(files is not None)
        return real(texts, settings, show_progress) if files is None else real(texts, settings, show_progress, files)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(training_run, "_hf_fit", watched)
        return list(run_training(corpus, settings)), fits


def through_our_texts(corpus: Corpus, settings: TrainingSettings) -> list[object]:
    """The records of the same run with HF handed our texts (the path for any corpus)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CorpusReader, "plain_files", lambda self: None, raising=False)
        records, fits = run(corpus, settings)
    assert fits == [False]
    return records


def outcome(records: list[object]) -> tuple[list[object], object]:
    return [r.merge for r in records if isinstance(r, Learned)], next(r for r in records if isinstance(r, MergeStage))


def write(folder: Path, files: dict[str, str | bytes]) -> list[Path]:
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return [folder / name for name in files]


@pytest.mark.parametrize("name", sorted(EDGES))
def test_hf_reading_files_gives_the_merges_and_counts_of_our_texts(tmp_path: Path, name: str) -> None:
    paths = write(tmp_path, {name: EDGES[name], "more.txt": "".join(corpus_lines("multi", 2000, seed=5))})
    corpus = Corpus(tuple(Source.for_path(path) for path in paths), held_out=Source.pasted("held out text\n"))
    settings = TrainingSettings(900, "cl100k", SPECIALS, engine="hf")
    records, fits = run(corpus, settings)
    assert fits == [True]  # HF read the files itself
    assert outcome(records) == outcome(through_our_texts(corpus, settings))
    assert [r.held_out_tokens for r in records if isinstance(r, Learned)] == \
        [r.held_out_tokens for r in through_our_texts(corpus, settings) if isinstance(r, Learned)]


def test_a_folder_with_skipped_files_is_read_by_hf_too(tmp_path: Path) -> None:
    write(tmp_path / "docs", {name: text for name, text in EDGES.items()} | {"image.txt": b"\x89PNG\x00\x01"})
    corpus = Corpus((Source.for_path(tmp_path / "docs"),))
    settings = TrainingSettings(700, "gpt2", engine="hf")
    records, fits = run(corpus, settings)
    assert fits == [True]
    merges, stage = outcome(records)
    assert (merges, stage) == outcome(through_our_texts(corpus, settings))
    assert any("image.txt: binary" in reason for reason in stage.skipped)


@pytest.mark.parametrize("bad", [b"\xff\xfe bad UTF-8\n", b"a NUL \x00 byte\n"])
def test_a_file_our_reader_stops_in_is_trained_as_our_reader_reads_it(tmp_path: Path, bad: bytes) -> None:
    """Past the first 8 KB (the sniff) HF would read what we skip (a NUL) or fail (invalid UTF-8):
    the run then trains on our texts, with the reason the file was cut short."""
    good = "".join(corpus_lines("prose", 10_000, seed=6)).encode()  # past the sniff
    paths = write(tmp_path, {"cut.txt": good + bad + good, "fine.txt": good})
    corpus = Corpus(tuple(Source.for_path(path) for path in paths))
    settings = TrainingSettings(600, "cl100k", engine="hf")
    records, fits = run(corpus, settings)
    assert fits == [True, False]
    merges, stage = outcome(records)
    assert (merges, stage) == outcome(through_our_texts(corpus, settings))
    assert len(stage.skipped) == 1 and "cut.txt" in stage.skipped[0]


def test_a_file_gone_before_reading_gives_our_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    [path] = write(tmp_path, {"gone.txt": "some text\n"})
    listed = CorpusReader.plain_files

    def then_removed(self: CorpusReader) -> list[Path] | None:
        files = listed(self)
        path.unlink(missing_ok=True)
        return files

    monkeypatch.setattr(CorpusReader, "plain_files", then_removed)
    with pytest.raises(TrainingError, match=r"holds no text \(skipped: .*gone.txt: no such file"):
        list(run_training(Corpus((Source.for_path(path),)), TrainingSettings(300, engine="hf")))


def test_closing_the_run_while_hf_reads_files_returns_at_once(tmp_path: Path) -> None:
    """Cancel (the child closes the run's generator) does not wait for HF's long call to end."""
    [path] = write(tmp_path, {"multi.txt": "".join(corpus_lines("multi", 100_000, seed=7)) * 60})  # 6 MB
    run = run_training(Corpus((Source.for_path(path),)), TrainingSettings(20_000, engine="hf"))
    first = next(run)
    assert isinstance(first, Counting) and first.phase == "reading" and first.total_bytes == path.stat().st_size
    started = time.monotonic()
    run.close()
    assert time.monotonic() - started < 1.0
