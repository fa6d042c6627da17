"""The Corpus pane: adding sources of every kind, counting in the background, bad files, held-out
text, the corpus handed to training, and the efficiency table."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from explorer.core.algorithms.train import train
from explorer.core.corpora.corpus_sources import Corpus, Source, sample_sources
from explorer.core.formats.own import from_merges
from explorer.ui.corpus import create_pane
from explorer.ui.corpus.models import (
    BYTES, CHUNKS, FILES, LINES, NAME, PREMIUM, SCRIPTS, STATUS, TOKENIZER, TOKENS, WORDS, EfficiencyModel,
    SourcesModel)
from explorer.ui.corpus.pane import CorpusPane

TIMEOUT = 30_000
SAMPLES = {Path(s.path).name: s for s in sample_sources()}


@pytest.fixture
def pane(qtbot, session) -> CorpusPane:  # type: ignore[no-untyped-def]
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    return widget


def cell(model, row: int, column: int) -> str:  # type: ignore[no-untyped-def]
    return model.data(model.index(row, column))


def wait_counted(qtbot, pane: CorpusPane) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: pane.sources and not pane.model.scanning, timeout=TIMEOUT)


def test_samples_are_counted_in_the_background(qtbot, session, pane: CorpusPane) -> None:  # type: ignore[no-untyped-def]
    pane.add_sources([SAMPLES["english.txt"], SAMPLES["hindi.txt"]])
    assert cell(pane.model, 0, STATUS) in ("waiting", "ok") or "counting" in cell(pane.model, 0, STATUS)
    wait_counted(qtbot, pane)
    model = pane.model
    assert [cell(model, r, NAME) for r in range(3)] == ["Sample: English (garden story)", "Sample: Hindi (the same story)",
                                                        "Total"]
    assert cell(model, 0, STATUS) == "ok" and cell(model, 0, BYTES) == "3.3 KB" and cell(model, 0, LINES) == "29"
    assert cell(model, 1, SCRIPTS).startswith("Devanagari 100%")
    assert cell(model, 2, SCRIPTS) == "Latin 51% · Devanagari 49%"
    english, hindi = int(cell(model, 0, CHUNKS).replace(",", "")), int(cell(model, 1, CHUNKS).replace(",", ""))
    total = int(cell(model, 2, CHUNKS).replace(",", ""))
    assert max(english, hindi) < total < english + hindi  # digits and punctuation are shared: a union, not a sum
    assert cell(model, 2, WORDS) == f"{int(cell(model, 0, WORDS).replace(',', '')) + int(cell(model, 1, WORDS).replace(',', '')):,}"
    assert isinstance(session.corpus, Corpus) and session.corpus.sources == (SAMPLES["english.txt"], SAMPLES["hindi.txt"])


def test_folder_jsonl_csv_and_bad_files(qtbot, session, pane: CorpusPane, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("# Title\nSome text.\n")
    (folder / "sub" / "b.py").write_text("print('hi')\n")
    (folder / "sub" / "c.py").write_bytes(b"\x00\x01binary")
    (folder / "image.png").write_bytes(b"\x89PNG")  # not matched by the filter: not listed at all
    jsonl = tmp_path / "chat.jsonl"
    jsonl.write_text("\n".join(json.dumps({"id": i, "body": f"message {i}"}) for i in range(3)) + "\n")
    table = tmp_path / "table.csv"
    with table.open("w", newline="") as handle:
        csv.writer(handle).writerows([["id", "text"], ["1", "first row"], ["2", "second\nrow"]])
    asked = []
    pane.choose_field = lambda path, fields: (asked.append((path.name, fields)), fields[-1])[1]  # type: ignore[method-assign]
    pane.add_paths([str(folder), str(jsonl), str(table)])
    wait_counted(qtbot, pane)
    assert asked == [("chat.jsonl", ["body"]), ("table.csv", ["id", "text"])]
    model = pane.model
    assert cell(model, 0, FILES) == "2" and cell(model, 0, STATUS) == "ok, 1 skipped"
    assert [pane.skipped_list.item(i).text() for i in range(pane.skipped_list.count())] == [
        f"{folder / 'sub' / 'c.py'}: binary file (it contains NUL bytes), skipped"]
    assert cell(model, 1, WORDS) == "6" and cell(model, 2, LINES) == "3"
    texts = list(session.corpus.reader())
    assert texts == ["# Title\n", "Some text.\n", "print('hi')\n", "message 0", "message 1", "message 2",
                     "first row", "second\nrow"]


def test_non_utf8_is_offered_an_encoding(qtbot, session, pane: CorpusPane, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e\n".encode("latin-1"))
    fine = tmp_path / "fine.txt"
    fine.write_text("fine\n")
    pane.add_paths([str(latin), str(fine)])
    wait_counted(qtbot, pane)
    assert cell(pane.model, 0, STATUS) == "not UTF-8: choose an encoding" and cell(pane.model, 1, STATUS) == "ok"
    assert pane.banner.isVisible() or not pane.isVisible()
    assert "not valid UTF-8 (line 1" in pane.banner.text()
    pane.choose_encoding = lambda source: ("latin-1", "strict")  # type: ignore[method-assign]
    assert pane.fix_encoding(pane.sources[0])
    wait_counted(qtbot, pane)
    assert cell(pane.model, 0, STATUS) == "ok" and pane.sources[0].encoding == "latin-1"
    assert list(session.corpus.reader())[0] == "café crème brûlée\n"
    assert not pane.banner.isVisibleTo(pane)


def test_held_out_and_pattern(qtbot, session, pane: CorpusPane) -> None:  # type: ignore[no-untyped-def]
    pane.add_sources([SAMPLES["english.txt"], SAMPLES["korean.txt"]])
    wait_counted(qtbot, pane)
    cl100k = cell(pane.model, 0, CHUNKS)
    pane.table.selectRow(1)
    pane.held_from_selection.click()
    assert session.corpus.held_out == SAMPLES["korean.txt"] and session.corpus.sources == (SAMPLES["english.txt"],)
    assert "Korean" in pane.held_out_label.text()
    pane.pattern_combo.setCurrentIndex(pane.pattern_combo.findData("none"))
    wait_counted(qtbot, pane)
    assert cell(pane.model, 0, CHUNKS) != cl100k
    pane.set_held_out(None)
    assert session.corpus.held_out is None


def test_a_held_out_folder_is_sized_off_the_window_thread(qtbot, pane: CorpusPane, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                         walked_on_window_thread: list[str]) -> None:
    """The label's size of a held-out folder walked it on the window's thread, opening every file,
    each time the view was updated (after each source counted)."""
    folder = tmp_path / "held"
    folder.mkdir()
    for index in range(5):
        (folder / f"{index}.txt").write_text("held-out text\n" * 100, encoding="utf-8")
    source = Source.for_path(folder)
    pane.add_sources([SAMPLES["english.txt"], source])
    pane.set_held_out(source)
    assert "(sizing...)" in pane.held_out_label.text()
    qtbot.waitUntil(lambda: "(7.0 KB)" in pane.held_out_label.text(), timeout=20_000)
    assert walked_on_window_thread == []


def test_drop_files_and_text(qtbot, session, pane: CorpusPane, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "dropped.txt"
    path.write_text("dropped text\n")
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    pane.dropEvent(event)
    text = QMimeData()
    text.setText("some pasted words")
    pane.dropEvent(QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, text, Qt.MouseButton.LeftButton,
                              Qt.KeyboardModifier.NoModifier))
    assert [s.name for s in pane.sources] == ["dropped.txt", "pasted text (17 characters)"]


def test_a_corpus_set_elsewhere_is_shown(qtbot, session, pane: CorpusPane) -> None:  # type: ignore[no-untyped-def]
    session.set_corpus(Corpus((SAMPLES["cat_mat.txt"],), held_out=SAMPLES["bakery_replies.txt"]))
    assert pane.sources == [SAMPLES["cat_mat.txt"]] and pane.held_out == SAMPLES["bakery_replies.txt"]
    wait_counted(qtbot, pane)
    assert cell(pane.model, 0, WORDS) == "11"


def test_efficiency_table_and_csv(qtbot, session, pane: CorpusPane, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    english_text = open(SAMPLES["english.txt"].path, encoding="utf-8").readlines()
    tokenizer = from_merges(list(train(english_text, 700, "cl100k")), "cl100k", name="garden")
    session.add_trained(tokenizer)
    pane.add_sources([SAMPLES["english.txt"], SAMPLES["hindi.txt"]])
    panel = pane.efficiency
    panel.set_checked(["trained:garden", "cl100k_base"])
    assert panel.reference.currentText() == "Sample: English (garden story)"
    assert panel.compute()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 4, timeout=TIMEOUT)
    rows = {(r.tokenizer, r.source): r for r in panel.model.rows}
    garden_en = rows["garden", "Sample: English (garden story)"]
    garden_hi = rows["garden", "Sample: Hindi (the same story)"]
    assert garden_en.tokens == len(tokenizer.encode("".join(english_text)))
    model = panel.model
    hindi_row = panel.model.rows.index(garden_hi)
    assert cell(model, hindi_row, PREMIUM) == f"×{garden_hi.tokens / garden_en.tokens:.2f}"
    assert garden_hi.tokens / garden_en.tokens > 3  # never saw Devanagari: the Hindi bill of seed 004
    cl100k = rows.get(("GPT-3.5, GPT-4 (cl100k_base)", "Sample: Hindi (the same story)"))
    assert cl100k is not None and (cl100k.tokens > 0 or cl100k.error)
    assert panel.export_csv(str(tmp_path / "e.csv"))
    exported = list(csv.DictReader((tmp_path / "e.csv").open()))
    assert len(exported) == 4 and exported[0]["reference"] == "Sample: English (garden story)"


def test_models_pass_the_model_tester(qtbot, qtmodeltester, pane: CorpusPane) -> None:  # type: ignore[no-untyped-def]
    pane.add_sources([SAMPLES["english.txt"], Source.pasted("hello there")])
    wait_counted(qtbot, pane)
    qtmodeltester.check(pane.model)
    qtmodeltester.check(SourcesModel())
    efficiency = EfficiencyModel()
    from explorer.core.analysis.efficiency import Measurement

    efficiency.add([Measurement("t", "en", 10, 40, 8), Measurement("t", "hi", 30, 90, 8), Measurement("u", "x", error="no")])
    efficiency.set_reference("en")
    assert cell(efficiency, 1, PREMIUM) == "×3.00" and cell(efficiency, 0, PREMIUM) == "reference"
    assert cell(efficiency, 2, TOKENS).startswith("error") and cell(efficiency, 2, TOKENIZER) == "u"
    qtmodeltester.check(efficiency)
