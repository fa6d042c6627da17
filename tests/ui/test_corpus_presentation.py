"""What the Corpus and Training panes say about a corpus: its size with folders, the Scripts cell,
the default tokenizer name, and the efficiency pivot and chart (issue 12)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics, QImage
from PySide6.QtWidgets import QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.train import train
from explorer.core.analysis import efficiency
from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.core.formats.own import from_merges
from explorer.ui.corpus import create_pane
from explorer.ui.corpus.models import SCRIPTS
from explorer.ui.corpus.pane import CorpusPane
from explorer.ui.session import Session
from explorer.ui.training import create_pane as create_training_pane

TIMEOUT = 30_000
STORIES = {"english": "The garden grows slowly in spring. " * 40,
           "hindi": "बगीचा वसंत में धीरे धीरे बढ़ता है। " * 40,
           "korean": "정원은 봄에 천천히 자란다. " * 40,
           "arabic": "تنمو الحديقة ببطء في الربيع. " * 40}


def story_files(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in STORIES.items():
        path = folder / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


@pytest.fixture
def corpus_pane(qtbot: QtBot, session: Session) -> CorpusPane:
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    return widget


def test_a_folder_counts_the_bytes_of_the_files_it_reads(qtbot: QtBot, session: Session, tmp_path: Path) -> None:
    files = story_files(tmp_path / "stories")
    (tmp_path / "stories" / "skip.bin").write_bytes(b"\x00" * 5000)  # not matched by the filter: not read
    pasted = Source.pasted("hello there")
    session.set_corpus(Corpus((Source.for_path(tmp_path / "stories"), pasted)))
    training = create_training_pane(session)
    qtbot.addWidget(training)
    expected = sum(path.stat().st_size for path in files) + len("hello there")
    assert expected > 5_000
    qtbot.waitUntil(lambda: f"2 sources ({expected / 1e3:,.1f} KB)" in training.corpus_label.text(), timeout=20_000)


def test_a_folder_is_sized_off_the_window_thread(qtbot: QtBot, session: Session, tmp_path: Path,
                                                 walked_on_window_thread: list[str]) -> None:
    """A folder of 30,000 files took 1.7-2.9 s to walk on the window's thread when it reached the
    Training pane (each file is opened to see whether it is text): the window froze that long."""
    files = story_files(tmp_path / "stories")
    training = create_training_pane(session)
    qtbot.addWidget(training)
    session.set_corpus(Corpus((Source.for_path(tmp_path / "stories"),)))
    assert "(sizing...)" in training.corpus_label.text()
    expected = sum(path.stat().st_size for path in files)
    qtbot.waitUntil(lambda: f"1 source ({expected / 1e3:,.1f} KB)" in training.corpus_label.text(), timeout=20_000)
    assert walked_on_window_thread == []


def test_the_default_name_follows_the_whole_corpus(qtbot: QtBot, session: Session, tmp_path: Path) -> None:
    training = create_training_pane(session)
    qtbot.addWidget(training)
    files = story_files(tmp_path)
    session.set_corpus(Corpus(tuple(Source.for_path(path) for path in files)))
    name = training.default_name()
    assert name.startswith("4-sources-") and "english" not in name
    session.set_corpus(Corpus(tuple(Source.for_path(path) for path in files[:2])))
    assert training.default_name().startswith("english-hindi-")
    session.set_corpus(Corpus((Source.for_path(files[0]),)))
    assert training.default_name().startswith("english-")
    assert training.form.name_edit.placeholderText() == training.default_name()


def test_the_total_scripts_cell_fits_or_elides_with_the_full_list_in_its_tooltip(
        qtbot: QtBot, corpus_pane: CorpusPane, tmp_path: Path) -> None:
    corpus_pane.add_sources([Source.for_path(path) for path in story_files(tmp_path)])
    qtbot.waitUntil(lambda: not corpus_pane.model.scanning, timeout=TIMEOUT)
    table, model = corpus_pane.table, corpus_pane.model
    total = model.index(model.rowCount() - 1, SCRIPTS)
    full = str(total.data())
    assert full.count("%") >= 3
    delegate = table.itemDelegateForColumn(SCRIPTS)
    for width in (table.columnWidth(SCRIPTS), 160):  # as laid out at 1280 px, and squeezed
        option = QStyleOptionViewItem()
        option.initFrom(table)
        option.rect = QRect(0, 0, width, table.rowHeight(total.row()))
        option.font = table.font()
        shown = delegate.shown_text(option, total)  # type: ignore[attr-defined]
        styled = QStyleOptionViewItem(option)
        delegate.initStyleOption(styled, total)
        assert styled.font.bold()  # the Total row is measured in its own bold font
        room = width - 100
        assert QFontMetrics(styled.font).horizontalAdvance(shown) <= room
        assert shown == full or shown.endswith("more") or "%" not in shown  # (names alone: the bar shows shares)
        assert not any("…" in word and any(c.isdigit() for c in word) for word in shown.split()), shown
    # squeezed past one script and a count: the first script's name, whole or elided, never a share cut
    assert "%" not in shown and full.startswith(shown.removesuffix("…")), shown
    tooltip = str(model.data(total, Qt.ItemDataRole.ToolTipRole))
    assert all(name in tooltip for name in ("Latin", "Devanagari", "Hangul", "Arabic"))


def test_the_pivot_shows_the_cores_figures_and_exports_a_chart(
        qtbot: QtBot, session: Session, corpus_pane: CorpusPane, tmp_path: Path) -> None:
    files = story_files(tmp_path / "stories")
    sources = [Source.for_path(path) for path in files]
    tokenizer = from_merges(list(train([STORIES["english"]], 300, "cl100k")), "cl100k", name="garden")
    session.add_trained(tokenizer)
    corpus_pane.add_sources(sources)
    panel = corpus_pane.efficiency
    panel.set_checked(["trained:garden", "r50k_base"])
    assert not panel.export_png_button.isEnabled()
    assert panel.compute()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 8, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: panel.pivot_model.rowCount() == 4 and panel.pivot_model.columnCount() == 2)
    pivot = panel.pivot_model
    columns = [str(pivot.headerData(c, Qt.Orientation.Horizontal)) for c in range(pivot.columnCount())]
    garden = columns.index("garden")
    for metric in efficiency.METRICS:
        panel.metric_box.setCurrentIndex(panel.metric_box.findData(metric))
        for row, source in enumerate(sources):
            expected = next(m for m in efficiency.measure(tokenizer, source)
                            if isinstance(m, efficiency.Measurement))
            assert pivot.data(pivot.index(row, garden), Qt.ItemDataRole.UserRole) == pytest.approx(efficiency.metric_value(expected, metric))
            assert pivot.data(pivot.index(row, garden)) == f"{efficiency.metric_value(expected, metric):.2f}"
    assert panel.export_png_button.isEnabled()
    out = tmp_path / "chart.png"
    assert panel.export_png(str(out))
    image = QImage(str(out))
    assert not image.isNull() and image.width() >= 1200 and image.height() >= 600
    colors = {image.pixelColor(x, y).name() for x in range(0, image.width(), 23) for y in range(0, image.height(), 23)}
    assert len(colors) > 4  # bars, text and axes, not a blank picture
    assert not panel.export_png(str(tmp_path / "missing" / "chart.png"))  # an error said, not raised


@pytest.mark.parametrize("name", ["one.jsonl", "one.txt"])
def test_the_sentence_of_a_huge_first_record_is_found_off_the_window_thread(
        qtbot: QtBot, session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The live demo's sentence read the corpus's first line or record whole on the window's thread:
    one record of 216 MB froze the window 300 ms when the file was added."""
    import threading

    from explorer.core.corpora.corpus_sources import CorpusReader

    read_here: list[str] = []
    reading = CorpusReader.source_texts

    def spying(self: CorpusReader, source: Source) -> object:
        if threading.current_thread() is threading.main_thread():
            read_here.append(source.path)
        return reading(self, source)

    monkeypatch.setattr(CorpusReader, "source_texts", spying)
    sentence = "The huge record begins with a sentence worth showing."
    text = sentence + " " + "lorem ipsum " * 200_000  # 2.4 MB on one line
    path = tmp_path / name
    path.write_text(('{"text": "%s"}\n' % text) if name.endswith(".jsonl") else text + "\n", encoding="utf-8")
    training = create_training_pane(session)
    qtbot.addWidget(training)
    session.set_corpus(Corpus((Source.for_path(path, field="text"),)))
    qtbot.waitUntil(lambda: training.demo.edit.text() == sentence, timeout=TIMEOUT)
    assert read_here == []
    small = tmp_path / "small.txt"  # a small file is read at once, as before
    small.write_text("Short. A small corpus gives its sentence at once, here.\n", encoding="utf-8")
    session.set_corpus(Corpus((Source.for_path(small),)))
    assert training.demo.edit.text() == "A small corpus gives its sentence at once, here."
