"""Corpus sources: files, folders, JSON Lines, CSV, pasted text, bad files and encodings."""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from explorer.core.corpora.corpus import CorpusFiles, read_text_file
from explorer.core.corpora.corpus_sources import (
    Corpus, CorpusReader, NotUtf8Error, Source, list_files, record_fields, sample_sources, skip_reason, stdlib_source)
from explorer.core.errors import CorpusError


def test_plain_file_reads_lines_like_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes("one\r\ntwo\nthree é".encode())
    texts = list(CorpusReader([Source.for_path(path)]))
    assert texts == list(CorpusFiles([path])) == ["one\r\n", "two\n", "three é"]


def test_folder_is_recursive_filtered_and_lists_skipped_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "sub" / "b.md").write_text("b\n")
    (tmp_path / "sub" / "c.py").write_bytes(b"x = 1\x00\x01")
    (tmp_path / "d.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "e.csv").write_text("x\n")
    (tmp_path / ".hidden.txt").write_text("secret\n")
    source = Source.for_path(tmp_path, include="*.txt;*.md;*.py;*.pdf")
    assert source.kind == "folder"
    files, skipped = list_files(source)
    assert [p.name for p in files] == ["a.txt", "b.md"]
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert "binary" in reasons["c.py"] and "PDF" in reasons["d.pdf"]
    reader = CorpusReader([source])
    assert list(reader) == ["a\n", "b\n"]
    assert len(reader.skipped) == 2
    not_recursive = Source("folder", "top", str(tmp_path), include="*.txt", recursive=False)
    assert [p.name for p in list_files(not_recursive)[0]] == ["a.txt"]


def test_jsonl_field_and_bad_records(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    lines = [json.dumps({"text": "hello", "id": 1}), "not json", json.dumps({"id": 2}),
             json.dumps({"meta": {"body": "deep"}, "text": "नमस्ते"})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert record_fields(path) == ["text"]
    source = Source.for_path(path, field="text")
    reader = CorpusReader([source])
    assert list(reader) == ["hello", "नमस्ते"]
    assert "1 lines that are not JSON" in reader.skipped[0].reason and "1 records without" in reader.skipped[0].reason
    assert list(CorpusReader([Source("jsonl", "d", str(path), field="meta.body")])) == ["deep"]


def test_a_jsonl_record_longer_than_a_text_line_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record is one line, and a book in one record (17 MB) stopped the file at the 16 MB limit
    of a text line, with the advice to break the text into lines. Records may be as long as CSV
    cells; past that the file stops there, saying so."""
    from explorer.core.corpora import corpus_sources

    path = tmp_path / "books.jsonl"
    book = "A long book. " * 1_400_000  # 18.2 MB
    path.write_text("\n".join(json.dumps({"text": text}) for text in ("first", book, "last")) + "\n", encoding="utf-8")
    reader = CorpusReader([Source.for_path(path, field="text")])
    assert list(reader) == ["first", book, "last"] and reader.skipped == []
    assert reader.bytes_read == path.stat().st_size

    monkeypatch.setattr(corpus_sources, "RECORD_LIMIT", 1 << 20)
    reader = CorpusReader([Source.for_path(path, field="text")])
    assert list(reader) == ["first"]
    assert reader.skipped[0].reason == "line 2 is longer than 1 MB; a JSON Lines record is one line: split it into several records"


def test_csv_column_with_quoted_newlines(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text('id,text\n1,"first line\nsecond line"\n2,plain\n', encoding="utf-8")
    assert record_fields(path) == ["id", "text"]
    reader = CorpusReader([Source.for_path(path, field="text")])
    assert list(reader) == ["first line\nsecond line", "plain"]
    assert reader.bytes_read == path.stat().st_size
    missing = CorpusReader([Source.for_path(path, field="body")])
    assert list(missing) == [] and "no column 'body'" in missing.skipped[0].reason


def test_non_utf8_is_reported_then_read_with_a_chosen_encoding(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("first\ncafé crème\n".encode("latin-1"))
    good = tmp_path / "good.txt"
    good.write_text("still read\n")
    source = Source.for_path(path)
    reader = CorpusReader([source, Source.for_path(good)])
    assert list(reader) == ["first\n", "still read\n"]  # nothing stops the rest
    [error] = reader.undecodable
    assert isinstance(error, NotUtf8Error) and error.line == 2 and error.offset == 9
    assert "not valid UTF-8 (line 2" in str(error)
    assert list(CorpusReader([source.with_encoding("latin-1")])) == ["first\n", "café crème\n"]
    replaced = list(CorpusReader([source.with_encoding("utf-8", "replace")]))
    assert replaced == ["first\n", "caf\ufffd cr\ufffdme\n"]
    with pytest.raises(LookupError):
        source.with_encoding("no-such-codec")


def test_utf16_is_not_mistaken_for_binary(tmp_path: Path) -> None:
    path = tmp_path / "u16.txt"
    path.write_text("hello\nworld\n", encoding="utf-16")
    assert skip_reason(path) is None
    reader = CorpusReader([Source.for_path(path)])
    assert list(reader) == [] and reader.undecodable
    assert list(CorpusReader([Source.for_path(path).with_encoding("utf-16")])) == ["hello\n", "world\n"]


def test_pasted_text_and_whole_files_are_one_text(tmp_path: Path) -> None:
    path = tmp_path / "toy.txt"
    path.write_text("a\nb")
    assert list(CorpusReader([Source("file", "toy", str(path), whole=True), Source.pasted("x\ny")])) == ["a\nb", "x\ny"]


def test_missing_path_is_skipped_not_fatal(tmp_path: Path) -> None:
    reader = CorpusReader([Source("file", "gone", str(tmp_path / "gone.txt")), Source.pasted("ok")])
    assert list(reader) == ["ok"]
    assert "no such file" in reader.skipped[0].reason
    with pytest.raises(CorpusError):
        list_files(Source("file", "gone", str(tmp_path / "gone.txt")))


def test_samples_exist_and_corpus_reader_counts_bytes() -> None:
    samples = sample_sources()
    assert len(samples) == 8 and all(Path(s.path).is_file() for s in samples)
    corpus = Corpus(tuple(samples[:2]))
    reader = corpus.reader()
    texts = list(reader)
    assert reader.bytes_read == reader.total_bytes == sum(Path(s.path).stat().st_size for s in samples[:2])
    assert sum(len(t.encode()) for t in texts) == reader.bytes_read
    assert [t for s in samples if s.name.startswith("Toy: aaab") for t in CorpusReader([s])] == ["aaabdaaabac"]


def test_stdlib_source_when_present() -> None:
    source = stdlib_source()
    if source is None:
        pytest.skip("no standard library sources on this machine")
    files, _ = list_files(source)
    assert any(p.name == "os.py" for p in files) and all(p.parent == Path(source.path) for p in files)


@contextmanager
def fails_if_blocked(seconds: int = 20) -> Iterator[None]:
    """A read that blocks (on a FIFO) fails the test instead of hanging the run."""
    def hung(*_: object) -> None:
        raise TimeoutError("the reader blocked on the FIFO")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_corpus_pane_skips_fifos_and_files_binary_after_the_first_8_kb(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)  # opening it to sniff would block the pane for ever
    late = tmp_path / "late.txt"
    late.write_bytes(b"text\n" * 4000 + b"\x00 and then binary\n")
    good = tmp_path / "good.txt"
    good.write_text("fine\n", encoding="utf-8")
    with fails_if_blocked():
        reader = CorpusReader([Source.for_path(fifo), Source.for_path(late), Source.for_path(good)])
        texts = list(reader)
    assert texts[-1] == "fine\n" and len(texts) == 4001  # the lines before the NUL, then the next source
    reasons = {Path(s.path).name: s.reason for s in reader.skipped}
    assert reasons["fifo.txt"].startswith("not a regular file")
    assert "NUL byte at byte 20,000" in reasons["late.txt"]


def test_record_fields_refuses_a_fifo_unread(tmp_path: Path) -> None:
    fifo = tmp_path / "records.jsonl"
    os.mkfifo(fifo)  # opening it would block until a writer comes
    with fails_if_blocked(), pytest.raises(CorpusError, match="not a regular file"):
        record_fields(fifo)


@pytest.mark.parametrize("bad", ["[" * 100_000, '{"text": "x", "n": ' + "9" * 5000 + "}"])  # (Python cannot read either)
def test_a_jsonl_line_nested_too_deeply_or_with_a_huge_number_counts_as_not_json(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(bad + "\n" + json.dumps({"text": "hello"}) + "\n" + bad + "\n" + json.dumps({"text": "world"}) + "\n",
                    encoding="utf-8")
    assert record_fields(path) == ["text"]
    reader = CorpusReader([Source.for_path(path, field="text")])
    assert list(reader) == ["hello", "world"]
    assert "2 lines that are not JSON" in reader.skipped[0].reason


def test_a_dangling_or_looping_link_says_so(tmp_path: Path) -> None:
    """A link to nothing, or round in a loop, was 'no such file or folder', though the user sees
    it listed in the folder."""
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone.txt")
    for name, reason in (("loop", "a symbolic link that leads round in a loop"),
                         ("dangling", f"a symbolic link to {tmp_path / 'gone.txt'}, which does not exist"),
                         ("absent", "no such file or folder")):
        with pytest.raises(CorpusError, match=re.escape(f"{tmp_path / name}: {reason}")):
            list_files(Source.for_path(tmp_path / name))
        assert CorpusReader([Source.for_path(tmp_path / name)]).skipped[0].reason.startswith(reason)
    with pytest.raises(CorpusError, match="leads round in a loop"):  # (--file of encode, chunks...)
        read_text_file(tmp_path / "loop")


def test_the_fields_of_huge_records_are_sampled_from_the_first_megabyte(tmp_path: Path) -> None:
    """The window asks for them when the file is added: 50 records of 10 MB were all read and parsed."""
    from explorer.core.corpora.corpus_sources import SAMPLED_CHARS, record_fields

    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"text": "x" * SAMPLED_CHARS}) + "\n" + json.dumps({"other": "y"}) + "\n",
                    encoding="utf-8")
    assert record_fields(path) == ["text"]
    path.write_text(json.dumps({"text": "x"}) + "\n" + json.dumps({"other": "y"}) + "\n", encoding="utf-8")
    assert record_fields(path) == ["text", "other"]


def test_a_single_record_of_hundreds_of_megabytes_is_read_no_further_than_the_sample(tmp_path: Path) -> None:
    """One line of 200 MB was read whole (1.1 s and 200 MB on the GUI thread) before its fields were known.
    The fields whose value starts before the cut count; a file that reads past it fails here."""
    from explorer.core.corpora import corpus_sources

    path = tmp_path / "one.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        handle.write('{"id": 7, "meta": {"a": [1, "b"]}, "title": "T\\"x", "text": "')
        handle.write("lorem ipsum " * 200_000)  # 2.4 MB: past the sample
        handle.write('", "lang": "en"}\n')
    opened = []
    real_open = Path.open

    def spying_open(self: Path, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        handle = real_open(self, *args, **kwargs)  # type: ignore[arg-type]
        opened.append(handle)
        return handle

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "open", spying_open)
        assert corpus_sources.record_fields(path) == ["title", "text"]
    assert len(opened) == 1 and opened[0].closed
    assert corpus_sources.record_fields(path, sample=1) == ["title", "text"]


@pytest.mark.parametrize("cut", ['{"text": "abc', '{"te', '{"text"', '{"text": 12', '  {"a": "x", "text": "y", "b'])
def test_the_fields_of_a_record_cut_by_the_sample(tmp_path: Path, cut: str) -> None:
    from explorer.core.corpora.corpus_sources import SAMPLED_CHARS, record_fields

    path = tmp_path / "cut.jsonl"
    path.write_text(cut + "z" * SAMPLED_CHARS, encoding="utf-8")
    expected = {'{"text": "abc': ["text"], '  {"a": "x", "text": "y", "b': ["a", "text"]}.get(cut, [])
    assert record_fields(path) == expected


def test_a_json_string_may_hold_a_line_separator(tmp_path: Path) -> None:
    path = tmp_path / "sep.jsonl"
    path.write_text('{"text": "a\u2028b", "n": "c\u0085d"}\n', encoding="utf-8")
    assert record_fields(path) == ["text", "n"]


def test_a_csv_file_without_a_header_row_says_so(tmp_path: Path) -> None:
    """A first line of megabytes raised csv.Error (field larger than field limit) out of the window's
    add dialog, after reading all of it."""
    from explorer.core.corpora.corpus_sources import SAMPLED_CHARS

    long_line = tmp_path / "long.csv"
    long_line.write_text("x" * (SAMPLED_CHARS + 10) + "\nmore\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="the first line is over 1,048,576 characters long"):
        record_fields(long_line)
    long_cell = tmp_path / "cell.csv"
    long_cell.write_text("a,b\n" + "y" * 300_000, encoding="utf-8")
    assert record_fields(long_cell) == ["a", "b"]
