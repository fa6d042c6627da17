"""The Corpus pane's efficiency chart and sources table as a demanding reader looks at them
(issue 12 walk): figures over bars never run into each other, headers and cells never cut mid-word."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QRect, QRectF, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QStyleOptionViewItem, QTableView
from pytestqt.qtbot import QtBot

from explorer.core.analysis.efficiency import Pivot
from explorer.core.analysis.script_stats import describe_shares
from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.ui.corpus import create_pane as create_corpus_pane
from explorer.ui.training import create_pane as create_training_pane
from explorer.ui.corpus.efficiency_chart import EfficiencyChart
from explorer.ui.corpus.models import SCRIPTS, ScriptsRole
from explorer.ui.corpus.pane import CorpusPane
from explorer.ui.session import Session
from explorer.ui.theme import BASE_POINT_SIZE, PRESENTATION_POINT_SIZE, apply_theme
from explorer.ui.zoom import apply_zoom
from tests.ui.test_corpus_presentation import story_files

SOURCES = ("english.txt", "hindi.txt", "arabic.txt", "japanese.txt", "thai.txt", "emoji.txt", "code.py")
NAMES = ("GPT-4o (o200k_base)", "GPT-3.5, GPT-4 (cl100k_base)", "GPT-2, GPT-3 (r50k_base)")
VALUES = ((1.69, 1.75, 1.62), (1.79, 5.5, 8.14), (2.45, 4.55, 6.18), (28.0, 42.0, 56.0), (10.0, 21.67, 44.33),
          (2.83, 4.17, 4.0), (1.86, 1.86, 2.43))


@pytest.fixture(params=[BASE_POINT_SIZE, PRESENTATION_POINT_SIZE], ids=["normal", "presentation"])
def point_size(request: pytest.FixtureRequest, session: Session) -> Iterator[int]:
    session.set_point_size(request.param, remember=False)
    apply_zoom(request.param)
    yield request.param
    apply_zoom(BASE_POINT_SIZE)


def shown_chart(qtbot: QtBot, size: tuple[int, int]) -> EfficiencyChart:
    chart = EfficiencyChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    chart.set_pivot(Pivot("tokens_per_word", SOURCES, NAMES, VALUES), dark=False)
    qtbot.wait(50)
    return chart


def ink(label: object) -> QRectF:
    """A figure's text in scene coordinates, without the empty margin a TextItem keeps around it."""
    margin = label.textItem.document().documentMargin()  # type: ignore[attr-defined]
    return label.sceneBoundingRect().adjusted(margin, margin, -margin, -margin)  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", [(600, 400), (900, 420), (1400, 600)])
def test_figures_over_the_bars_never_run_into_each_other(qtbot: QtBot, qapp: QApplication, point_size: int,
                                                        size: tuple[int, int]) -> None:
    chart = shown_chart(qtbot, size)
    labels = [item for item in chart._bars if not hasattr(item, "opts") and item.isVisible()]
    rects = [ink(item) for item in labels]
    assert not [(a, b) for a, b in itertools.combinations(rects, 2) if a.intersects(b)]
    if size[0] >= 1400 and point_size == BASE_POINT_SIZE:  # room: every figure shown, as the table has it
        assert [item.textItem.toPlainText() for item in labels][:3] == ["1.69", "1.79", "2.45"]


def test_a_narrow_chart_rounds_its_figures_before_dropping_them(qtbot: QtBot, point_size: int) -> None:
    chart = shown_chart(qtbot, (900, 420))
    labels = [item for item in chart._bars if not hasattr(item, "opts")]
    if point_size == PRESENTATION_POINT_SIZE:  # 21 bars in 900 px at 20 pt: '28.00' does not fit, '28' does
        shown = [item.textItem.toPlainText() for item in labels if item.isVisible()]
        assert shown and all("." not in text or len(text) <= 4 for text in shown), shown


def stories_at_1280(qtbot: QtBot, session: Session, tmp_path: Path) -> CorpusPane:
    """The Corpus pane at 1280x800 with the four stories counted."""
    pane = create_corpus_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1280, 800)
    pane.show()
    pane.add_sources([Source.for_path(path) for path in story_files(tmp_path)])
    qtbot.waitUntil(lambda: not pane.model.scanning, timeout=30_000)
    return pane


def scripts_option(table: QTableView) -> QStyleOptionViewItem:
    """A Scripts cell's option in the table's font (its rect set by the caller)."""
    option = QStyleOptionViewItem()
    option.initFrom(table)
    option.font = table.font()
    return option


def test_a_narrow_scripts_cell_names_fewer_scripts_whole_and_counts_the_rest(
        qtbot: QtBot, session: Session, tmp_path: Path) -> None:
    pane = stories_at_1280(qtbot, session, tmp_path)
    table, model = pane.table, pane.model
    total = model.index(model.rowCount() - 1, SCRIPTS)
    delegate = table.itemDelegateForColumn(SCRIPTS)
    option = scripts_option(table)
    styled = QStyleOptionViewItem(option)
    delegate.initStyleOption(styled, total)
    metrics = QFontMetrics(styled.font)
    full = str(total.data())  # 'Latin 25% · Devanagari 25% · Hangul 25% · +1 more'
    shorter = describe_shares(total.data(ScriptsRole), limit=1)  # 'Arabic 25% · +3 more'
    for text in (full, shorter):
        option.rect = QRect(0, 0, metrics.horizontalAdvance(text) + 110, table.rowHeight(total.row()))
        assert delegate.shown_text(option, total) == text  # whole names and a count, no '…'
    option.rect = QRect(0, 0, metrics.horizontalAdvance(full) + 100, table.rowHeight(total.row()))
    assert "…" not in delegate.shown_text(option, total) and delegate.shown_text(option, total).endswith("more")


def test_a_narrow_scripts_cell_never_cuts_a_share(qtbot: QtBot, session: Session, tmp_path: Path) -> None:
    """At 1280x800 in presentation mode the Hindi row read 'Devanagari 10…' (100%, or 10%?): a
    share shows whole or not at all; the names go without their shares first (the bar shows them)."""
    pane = stories_at_1280(qtbot, session, tmp_path)
    table, model = pane.table, pane.model
    delegate = table.itemDelegateForColumn(SCRIPTS)
    option = scripts_option(table)
    metrics = QFontMetrics(table.font())
    for row in range(model.rowCount()):
        index = model.index(row, SCRIPTS)
        full = str(index.data())
        for width in range(110, metrics.horizontalAdvance(full) + 120, 3):
            option.rect = QRect(0, 0, width, table.rowHeight(row))
            shown = delegate.shown_text(option, index)
            for part in shown.split(" · "):
                words = part.split()
                assert not (words and "…" in words[-1] and any(c.isdigit() for c in words[-1])), (width, shown)
            if "%" in full and width >= metrics.horizontalAdvance(full.split(" ")[0]) + 120:
                assert shown and "…" not in shown, (width, shown)  # the first name at least, whole
    hindi = next(model.index(row, SCRIPTS) for row in range(model.rowCount())
                 if str(model.index(row, SCRIPTS).data()).startswith("Devanagari"))
    option.rect = QRect(0, 0, 104 + metrics.horizontalAdvance("Devanagari 1"), table.rowHeight(hindi.row()))
    assert delegate.shown_text(option, hindi) == "Devanagari"


def test_table_headers_elide_a_long_title_instead_of_clipping_both_ends(qtbot: QtBot, qapp: QApplication,
                                                                       session: Session) -> None:
    apply_theme(qapp, "light")  # the application's style, as the app sets it
    pane = create_corpus_pane(session)
    qtbot.addWidget(pane)
    pane.tabs.setCurrentWidget(pane.efficiency)
    pane.resize(800, 600)
    pane.show()
    qtbot.waitExposed(pane)
    for table in (pane.efficiency.pivot_table, pane.table):
        assert table.horizontalHeader().textElideMode() == Qt.TextElideMode.ElideRight


def test_counts_of_one_are_singular(qtbot: QtBot, session: Session) -> None:
    training = create_training_pane(session)
    qtbot.addWidget(training)
    session.set_corpus(Corpus((Source.pasted("a"),)))
    assert "1 source (1 byte): pasted text (1 character)" in training.corpus_label.text()
    training.form.set_vocab_size(257)
    assert training.form.merges_label.text() == "1 merge"
    pane = create_corpus_pane(session)
    qtbot.addWidget(pane)
    pane.set_held_out(Source.pasted("a", name="held"))
    assert "(1 character)" in pane.held_out_label.text()


def test_a_long_tokenizer_name_elides_inside_the_list(qtbot: QtBot, session: Session, point_size: int) -> None:
    pane = create_corpus_pane(session)
    qtbot.addWidget(pane)
    pane.tabs.setCurrentWidget(pane.efficiency)
    pane.resize(1280, 800)
    pane.show()
    qtbot.waitExposed(pane)
    qtbot.wait(50)
    names = pane.efficiency.tokenizer_list
    assert names.horizontalScrollBar().maximum() == 0  # nothing to scroll to: every name ends in view
    room = names.viewport().width()
    long = [names.item(row) for row in range(names.count())
            if names.fontMetrics().horizontalAdvance(names.item(row).text()) + 40 > room]
    assert long or point_size == BASE_POINT_SIZE  # (presentation mode: some names are longer than the list)
    for row in range(names.count()):
        item = names.item(row)
        assert names.visualItemRect(item).right() <= room, item.text()
        assert item.toolTip() == item.text()


def test_an_efficiency_job_ending_after_its_panel_is_gone_is_dropped(qtbot: QtBot, qapp: QApplication,
                                                                     session: Session) -> None:
    """Closing the window cancels the job; its end must not reach the deleted panel (it did, in a
    test's teardown: 'Internal C++ object (ProgressBar) already deleted')."""
    pane = create_corpus_pane(session)
    pane.add_sources([Source.pasted("The garden grows slowly in spring. " * 2000)])
    panel = pane.efficiency
    panel.set_checked(["cl100k_base", "r50k_base", "o200k_base"])
    assert panel.compute()
    job = panel.job
    pane.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    with qtbot.waitSignals([job.cancelled], timeout=10_000, raising=False):
        job.cancel()
    qtbot.wait(100)  # (an exception in a slot would fail the test here: pytest-qt catches it)


def test_a_wide_scripts_cell_names_every_script(qtbot: QtBot, session: Session, tmp_path: Path) -> None:
    """At 1920 px the Total row named three scripts and '+3 more' in a 1,100 px cell."""
    pane = create_corpus_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1920, 1000)
    pane.show()
    pane.add_sources([Source.for_path(path) for path in story_files(tmp_path)])
    qtbot.waitUntil(lambda: not pane.model.scanning, timeout=30_000)
    table, model = pane.table, pane.model
    total = model.index(model.rowCount() - 1, SCRIPTS)
    counts = total.data(ScriptsRole)
    every = describe_shares(counts, limit=len(counts))
    assert every.count("%") >= 4 and "more" not in every
    delegate = table.itemDelegateForColumn(SCRIPTS)
    option = scripts_option(table)
    option.rect = QRect(0, 0, 1100, table.rowHeight(total.row()))
    assert delegate.shown_text(option, total) == every
