"""Presentation mode at a laptop's 1280x800 (issue 12): the large font must not make parts of a
pane overlap or shrink to nothing. Offscreen, with the application font at presentation size."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, QRectF, QSize
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import (QApplication, QComboBox, QLineEdit, QScrollArea, QSpinBox, QTableView,
                               QVBoxLayout, QWidget)
from pytestqt.qtbot import QtBot

from explorer.core.analysis.efficiency import Pivot
from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.core.sources.load import load_tokenizer
from explorer.ui.corpus.efficiency_chart import EfficiencyChart
from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from explorer.ui.training.model import LEFT, NEW, RANK, RIGHT
from explorer.ui.theme import BASE, BASE_POINT_SIZE, PRESENTATION_POINT_SIZE, TEXT, apply_theme
from explorer.ui.zoom import apply_zoom, ui_point_size
from tests.ui.windows import close_window, open_window, settle


@pytest.fixture
def presenting(qapp: QApplication, session: Session) -> Iterator[Session]:
    """The application font at presentation mode's size (as F5 sets it)."""
    session.set_point_size(PRESENTATION_POINT_SIZE, remember=False)
    apply_zoom(PRESENTATION_POINT_SIZE)
    yield session
    apply_zoom(BASE_POINT_SIZE)


def bar_rects(chart: EfficiencyChart) -> list[QRectF]:
    """Each bar's rectangle in scene coordinates."""
    view = chart.plot.getViewBox()
    rects = []
    for item in chart._bars:
        options = getattr(item, "opts", {})
        if "height" not in options or options.get("x") is None:
            continue
        for x, height in zip(options["x"], options["height"]):
            half = options["width"] / 2
            rects.append(view.mapViewToScene(QRectF(x - half, 0, 2 * half, height)).boundingRect())
    return rects


@pytest.mark.parametrize("names", [("GPT-4o (o200k_base)", "GPT-3.5, GPT-4 (cl100k_base)", "GPT-2, GPT-3 (r50k_base)"),
                                   tuple(f"tokenizer number {n}" for n in range(6))])
@pytest.mark.parametrize("size", [(900, 300), (900, 420), (1600, 600)])
def test_the_efficiency_legend_never_covers_a_bar(qtbot: QtBot, presenting: Session, names: tuple[str, ...],
                                                  size: tuple[int, int]) -> None:
    sources = ("English", "Hindi", "Korean", "Arabic", "Python code")
    values = tuple(tuple(1.0 + (row + column) % 3 for column in range(len(names))) for row in range(len(sources)))
    values = ((9.0,) * len(names),) + values[1:]  # a tall first group, under where a legend would float
    chart = EfficiencyChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    chart.set_pivot(Pivot("tokens_per_word", sources, names, values), dark=False)
    qtbot.wait(50)
    legend = chart._legend.sceneBoundingRect()
    assert legend.height() > 0
    bars = bar_rects(chart)
    assert len(bars) == len(sources) * len(names)
    assert not [bar for bar in bars if bar.intersects(legend)]
    plot = chart.plot.getPlotItem().sceneBoundingRect()
    assert plot.contains(legend)  # all of it on the chart, none cut at the right
    labels = [item.sceneBoundingRect() for item in chart._bars if not hasattr(item, "opts")]
    assert labels and not [label for label in labels if label.intersects(legend)]


@pytest.fixture
def window(qapp: QApplication, session: Session, request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    """The main window at 1280x800 in presentation mode (F5's fonts at a laptop's size)."""
    window = open_window(qapp, session, (1280, 800, getattr(request, "param", "light"), True), "tokens")
    yield window
    close_window(qapp, window)


def rect_in(widget: QWidget, root: QWidget) -> QRect:
    return QRect(widget.mapTo(root, QPoint(0, 0)), widget.size())


BYTES_TEXTS = {"cake": "मावा केक 🎂", "long": ("The quick brown fox. नमस्ते दुनिया, यह एक परीक्षण है। مرحبا بالعالم، "
                                            "こんにちは世界。สวัสดีครับ 👋🏽 🇺🇦 👩‍👩‍👧‍👦 " * 4)[:400]}


@pytest.mark.parametrize("window", ["light", "dark"], indirect=True)
@pytest.mark.parametrize("text", BYTES_TEXTS.values(), ids=BYTES_TEXTS.keys())
def test_the_bytes_lanes_keep_their_height_and_never_overlap(qapp: QApplication, window: MainWindow,
                                                             text: str) -> None:
    window.session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    window.show_pane("bytes")
    pane = window.panes["bytes"]
    pane.set_text(text)
    settle(qapp, window)
    pane.set_shown(len(pane.replay) // 2 or 1)
    settle(qapp, window)
    assert window.size() == QSize(1280, 800)
    lanes = pane.lanes
    parts = {"naive lane": lanes.naive_view, "buffered lane": lanes.buffered_view, "status": lanes.status,
             "byte strip": pane.strip_scroll, "legend": pane.legend}
    for name, widget in parts.items():
        wanted = max(widget.minimumSizeHint().height(), widget.minimumHeight())
        assert widget.height() >= wanted, f"{name} squeezed to {widget.height()} px of {wanted}"
    rects = {name: rect_in(widget, pane) for name, widget in parts.items()}
    for first, second in itertools.combinations(rects, 2):
        assert not rects[first].intersects(rects[second]), f"{first} {rects[first]} overlaps {second} {rects[second]}"
    naive_titles = rect_in(lanes.naive_title, pane).united(rect_in(lanes.strict, pane))
    assert not naive_titles.intersects(rect_in(lanes.buffered_title, pane))
    assert not naive_titles.intersects(rects["buffered lane"])


@pytest.mark.parametrize("window", ["light", "dark"], indirect=True)
def test_the_chat_message_editors_show_four_lines(qapp: QApplication, window: MainWindow) -> None:
    window.session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    window.show_pane("chat")
    settle(qapp, window)
    rows = window.panes["chat"].editor.rows
    assert rows
    for row in rows:
        editor = row.content
        line = QFontMetrics(editor.font()).lineSpacing()
        assert editor.font().pointSizeF() >= ui_point_size(PRESENTATION_POINT_SIZE)
        assert editor.viewport().height() >= 4 * line, f"{editor.viewport().height()} px: under 4 lines of {line} px"
    window.menus.presentation.trigger()  # back to normal: the editors follow the font down too
    settle(qapp, window)
    for row in rows:
        line = QFontMetrics(row.content.font()).lineSpacing()
        assert 4 * line <= row.content.viewport().height() <= 6 * line


def ink(text: str, family: str, foreground: str, background: str, pixel_size: int) -> float:
    """How much of a line of `text` is covered, from 0 to 1, seen as the share of the way from the
    background's value to the text's (the same glyphs in either theme give the same share)."""
    image = QImage(480, 48, QImage.Format.Format_RGB32)
    image.fill(QColor(background))
    font = QFont(family)
    font.setPixelSize(pixel_size)
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(QColor(foreground))
    painter.drawText(4, 36, text)
    painter.end()
    green = [image.pixelColor(x, y).green() for y in range(image.height()) for x in range(image.width())]
    back, fore = QColor(background).green(), QColor(foreground).green()
    return sum(abs(value - back) for value in green) / (len(green) * abs(fore - back))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FreeType's stem darkening: Linux only")
@pytest.mark.parametrize("family", ["Noto Sans CJK JP", "Noto Sans"])
def test_cjk_is_no_bolder_in_the_dark_theme_than_in_the_light(qapp: QApplication, family: str) -> None:
    if family not in QFontDatabase.families():
        pytest.skip(f"{family} is not installed")
    apply_theme(qapp, "dark")  # (as every start does, before its first text)
    try:
        size = 23  # a size no other test draws at: its glyphs are drawn now, not taken from a cache
        text = "東京の天気はどうですか今日は晴れ" if "CJK" in family else "The quick brown fox jumps over"
        dark = ink(text, family, TEXT[True], BASE[True], size)
        light = ink(text, family, TEXT[False], BASE[False], size)
        assert dark == pytest.approx(light, rel=0.05), f"{family}: {dark:.4f} of the line on dark, {light:.4f} on light"
    finally:
        apply_theme(qapp, "light")


TRAINING_TEXT = ("The garden grows slowly in spring, and the neighbours' children water it every evening. "
                 "नमस्ते दुनिया। مرحبا بالعالم. こんにちは世界。 สวัสดีครับ 🎂 ") * 30
LONG_SENTENCE = ("A long sentence pasted into the demo to see that the caption wraps and never widens anything: "
                 "नमस्ते दुनिया, यह एक परीक्षण है। مرحبا بالعالم، こんにちは世界。สวัสดีครับ 👋🏽 🇺🇦 ") * 4


@pytest.mark.parametrize("window", ["light", "dark"], indirect=True)
def test_the_training_pane_reads_at_presentation_size(qapp: QApplication, qtbot: QtBot, window: MainWindow) -> None:
    window.show_pane("training")
    pane = window.panes["training"]
    window.session.set_corpus(Corpus((Source.pasted(TRAINING_TEXT),)))
    pane.form.set_vocab_size(600)
    assert pane.start()
    qtbot.waitUntil(lambda: pane.run is not None and not pane.run.is_running, timeout=60_000)
    qtbot.waitUntil(lambda: pane.tokenizer is not None, timeout=60_000)
    settle(qapp, window)
    assert window.size() == QSize(1280, 800)

    # The merges table: every text column holds a few characters; if that is wider than the view,
    # it scrolls sideways and the merge number stays pinned at the left.
    table = pane.table
    letter = QFontMetrics(window.session.font).horizontalAdvance("0")
    for column, characters in ((LEFT, 4), (RIGHT, 4), (NEW, 8)):
        assert table.columnWidth(column) >= characters * letter, f"column {column}: {table.columnWidth(column)} px"
    # A run of a few hundred merges: the merge number takes 3 digits' room, not 7 ("100,000").
    assert table.columnWidth(RANK) <= 5 * letter + 16, f"merge number {table.columnWidth(RANK)} px for 3 digits"
    total = sum(table.columnWidth(c) for c in range(table.model().columnCount()))
    if total > table.viewport().width():
        bar = table.horizontalScrollBar()
        assert bar.maximum() > 0
        pinned = table.findChild(QTableView, "mergesTablePinned")
        bar.setValue(bar.maximum())
        qapp.processEvents()
        assert pinned is not None and pinned.isVisible()
        assert pinned.columnWidth(0) == table.columnWidth(0) and pinned.x() <= table.frameWidth()
        assert all(pinned.isColumnHidden(c) for c in range(1, table.model().columnCount()))
        last = table.model().columnCount() - 1
        assert table.columnViewportPosition(last) + table.columnWidth(last) <= table.viewport().width()

    # The settings: every field whole inside its column.
    side = pane.form
    scroll = side.parentWidget()
    while scroll is not None and not isinstance(scroll, QScrollArea):
        scroll = scroll.parentWidget()
    assert scroll is not None
    viewport = scroll.viewport()
    for field in side.findChildren(QWidget):
        if field.isVisible() and isinstance(field, (QLineEdit, QComboBox, QSpinBox)):
            right = field.mapTo(viewport, QPoint(field.width(), 0)).x()
            assert right <= viewport.width(), f"{field.__class__.__name__} cut at {right} of {viewport.width()} px"

    # The plots: each title whole in its plot and its row, each plot with room for a curve, none overlapping.
    plots = pane.plots
    rects = []
    for plot in (plots.compression, plots.counts, plots.sweep):
        title = plot.titleLabel
        assert title.item.boundingRect().width() <= plot.width() + 1, f"{title.text!r} wider than its plot"
        assert title.height() >= title.item.boundingRect().height() - 8, f"{title.text!r} cut in its row"
        assert plot.vb.height() >= 2 * QFontMetrics(plot.getAxis("left").style["tickFont"] or window.font()).height()
        rects.append(plot.sceneBoundingRect())
    assert not any(a.intersects(b) for a, b in itertools.combinations(rects, 2))
    assert all(rect.right() <= plots.viewport().width() + 1 for rect in rects)  # none cut at the right

    # A long sentence in the live demo wraps its caption; the window keeps its size.
    pane.demo.set_sentence(LONG_SENTENCE, edited=True)
    settle(qapp, window)
    assert window.size() == QSize(1280, 800)
    assert pane.demo.count.width() <= pane.demo.width()


def test_the_new_token_is_whole_beside_its_parts_after_the_sample_run(qapp: QApplication, qtbot: QtBot,
                                                                        window: MainWindow) -> None:
    """The quick start's English sample at 1,024: at 1280x800 in presentation mode the merges
    table shows the merge number, both parts and the new token whole (the new token sat under the
    cut-column cover, beside a merge number column with room for 7 digits)."""
    window.show_pane("training")
    pane = window.panes["training"]
    pane.prepare_screenshot()
    qtbot.waitUntil(lambda: pane.run is not None and not pane.run.is_running, timeout=60_000)
    settle(qapp, window)
    table = pane.table
    table.horizontalScrollBar().setValue(0)
    qapp.processEvents()
    assert table.columnViewportPosition(NEW) + table.columnWidth(NEW) <= table.viewport().width(), (
        f"new token at {table.columnViewportPosition(NEW)}+{table.columnWidth(NEW)} px in {table.viewport().width()}")


def seven_scripts_corpus() -> Corpus:
    """The screenshot matrix's corpus: its last merges (Python's) are short."""
    texts = ["The cat sat on the mat. In 1969, 600,000,000 people watched the Moon landing. Don't stop!",
             "नमस्ते दुनिया! आज मौसम बहुत अच्छा है। मावा केक शनिवार के लिए चाहिए, कृपया।",
             "مرحبا بالعالم. الطقس جميل اليوم، وسأشتري كعكة للسبت من المخبز القريب.",
             "こんにちは世界。今日はいい天気ですね。東京タワーに行きましょう、カタカナも漢字も。",
             "สวัสดีชาวโลก วันนี้อากาศดีมาก ฉันจะซื้อเค้กสำหรับวันเสาร์ที่ร้านขนม",
             "Party 🎉🎂 wave 👋🏽 family 👨‍👩‍👧‍👦 flag 🇺🇦 heart ❤️‍🔥 done ✅"]  # (the screenshot matrix's corpus)
    sources = [Source.pasted((text + "\n") * 40) for text in texts]
    sources.append(Source.pasted("def area(width, height):\n    return width * height\n\n" * 30))
    return Corpus(tuple(sources))


def assert_new_token_whole_beside_the_newest_merge(qapp: QApplication, table: QTableView, merges: int) -> None:
    last = merges - 1
    assert table.rowViewportPosition(last) + table.rowHeight(last) <= table.viewport().height()  # the newest in view
    table.horizontalScrollBar().setValue(0)
    qapp.processEvents()
    assert table.columnViewportPosition(NEW) + table.columnWidth(NEW) <= table.viewport().width(), (
        f"new token at {table.columnViewportPosition(NEW)}+{table.columnWidth(NEW)} px in {table.viewport().width()}")


def test_the_new_token_is_whole_beside_its_parts_after_a_run_in_seven_scripts(qapp: QApplication, qtbot: QtBot,
                                                                              window: MainWindow) -> None:
    """While merges stream in, the parts' columns widen to every row that comes into view (a piece
    of a Thai letter, '<E3 82>漢字'); once the run has ended they fit the rows in view again: the
    last merges of a corpus in seven scripts are short, and the new token beside them was under the
    cut-column cover at 1280x800 in presentation mode."""
    window.session.set_corpus(seven_scripts_corpus())
    window.show_pane("training")
    pane = window.panes["training"]
    pane.form.set_vocab_size(1024)
    pane.start()
    # As if '。東京タワーに行きましょ<E3 81>' + '<86>' had streamed past in view (which rows come into
    # view while merges pour in depends on the machine's speed): the widths the parts grew to.
    pane.columns.content.update({LEFT: 443, RIGHT: 346})
    qtbot.waitUntil(lambda: pane.run is not None and not pane.run.is_running, timeout=60_000)
    settle(qapp, window)
    assert_new_token_whole_beside_the_newest_merge(qapp, pane.table, len(pane.model.merges))


def test_presentation_mode_after_a_run_fits_the_parts_to_the_rows_then_in_view(qapp: QApplication, qtbot: QtBot,
                                                                               session: Session) -> None:
    """F5 after the run: the parts' columns are fitted again at the new font, from the rows in view
    once the table is laid out in it (measured at once, the rows in view at the old font's row
    height were more and longer: the new token went under the cut-column cover)."""
    window = open_window(qapp, session, (1280, 800, "dark", False), "training")
    try:
        session.set_corpus(seven_scripts_corpus())
        pane = window.panes["training"]
        pane.form.set_vocab_size(1024)
        pane.start()
        qtbot.waitUntil(lambda: pane.run is not None and not pane.run.is_running, timeout=60_000)
        settle(qapp, window)
        session.set_point_size(PRESENTATION_POINT_SIZE, remember=False)
        apply_zoom(PRESENTATION_POINT_SIZE)
        settle(qapp, window)
        assert_new_token_whole_beside_the_newest_merge(qapp, pane.table, len(pane.model.merges))
    finally:
        apply_zoom(BASE_POINT_SIZE)
        close_window(qapp, window)


def test_a_zoom_fits_table_rows_to_the_new_font_at_once(qtbot: QtBot) -> None:
    """Qt hands a new application font out in posted events, and apply_zoom fits the rows at
    once: the rows were fitted to the old font (with no application style sheet) until the widgets
    had it."""
    window = QWidget()
    qtbot.addWidget(window)
    table = QTableView(window)
    QVBoxLayout(window).addWidget(table)
    window.show()
    try:
        apply_zoom(PRESENTATION_POINT_SIZE)
        assert table.font().pointSizeF() == QApplication.font().pointSizeF() == ui_point_size(PRESENTATION_POINT_SIZE)
        assert table.verticalHeader().defaultSectionSize() >= QFontMetrics(QApplication.font()).height() + 8
    finally:
        apply_zoom(BASE_POINT_SIZE)


def test_the_details_panel_says_what_it_is_for_whole_before_a_token_is_shown(qapp: QApplication,
                                                                              window: MainWindow) -> None:
    """Qt's placeholder is drawn in one line: 'Hover over a token to see its id, bytes,' and no more."""
    from explorer.ui.tokens.details import HINT

    details = window.panes["tokens"].details
    settle(qapp, window)
    assert details.toPlainText() == HINT
    assert details.document().size().height() <= details.viewport().height()
    assert details.verticalScrollBar().maximum() == 0
