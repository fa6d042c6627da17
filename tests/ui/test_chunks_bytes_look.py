"""What the acceptance walk of issue 12 found in the Chunks and Bytes panes: a legend entry broken
over two lines ("spaces before a" / "word"), the Bytes strip scrolled to half a band (the band
above cut mid-glyph at the top), the Bytes table's token ids cut at 1920x1080 in presentation
mode, and "1 chunks", "1 characters", "1 tokens"."""

from __future__ import annotations

import re

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QFontMetrics, QTextDocument
from PySide6.QtWidgets import QApplication, QLabel, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from explorer.ui.bytes import create_pane as create_bytes_pane
from explorer.ui.bytes.model import COL_NAME, COL_SCRIPT, COL_TOKENS
from explorer.ui.bytes.strip import BAND_GAP, MARGIN
from explorer.ui.chunks import create_pane as create_chunks_pane
from explorer.ui.chunks.categories import CATEGORIES, legend_html
from explorer.ui.session import Session
from explorer.ui.settings import Settings
from tests.ui.windows import Configuration, close_window, configuration_id, open_window, settle


def lines_of(html: str, width: float) -> list[str]:
    """The lines a rich-text label of `width` px breaks `html` into (spaces and hyphens as typed)."""
    document = QTextDocument()
    document.setHtml(html)
    document.setTextWidth(width)
    document.documentLayout().documentSize()  # (laid out now, not at the first paint)
    block, lines = document.begin(), []
    while block.isValid():
        layout = block.layout()
        for number in range(layout.lineCount()):
            line = layout.lineAt(number)
            text = block.text()[line.textStart():line.textStart() + line.textLength()]
            lines.append(text.replace("\xa0", " ").replace("\u2011", "-"))
        block = block.next()
    return lines


def test_the_chunks_legend_wraps_between_entries_never_inside_one(qtbot: QtBot) -> None:
    labels = {label for label, _, _ in CATEGORIES}
    html = legend_html(labels, False, QColor("#c2185b"), True)
    for width in range(300, 1700, 20):
        lines = lines_of(html, width)
        assert len(lines) > 1 or width > 1000
        for label in (*labels, "boundary other patterns lack", "not matched"):
            assert any(label in line for line in lines), f"at {width} px {label!r} is broken over lines: {lines}"


def test_the_bytes_strip_scrolls_by_whole_bands(qtbot: QtBot, session: Session, o200k) -> None:  # type: ignore[no-untyped-def]
    session.set_tokenizer(o200k, "o200k_base")
    pane = create_bytes_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1280, 800)
    pane.show()
    pane.set_text("Party 🎉🎂 wave 👋🏽 family 👨‍👩‍👧‍👦 flag 🇺🇦 heart ❤️‍🔥 done ✅ " * 8)
    qtbot.waitUntil(lambda: len(pane.strip.bands) > 4, timeout=5000)
    strip, bar = pane.strip, pane.strip_scroll.verticalScrollBar()
    height = pane.strip_scroll.viewport().height()
    assert height >= strip.band_height
    tops = {0, *(int(band.top - MARGIN) for band in strip.bands)}
    last = len(pane.tokens) - 1
    for index in [*range(0, last, 7), last, 3]:  # (the end of the stream too, and back)
        pane.set_shown(index + 1)
        qtbot.wait(5)
        band = strip.band_rect(index)
        value = bar.value()
        assert value <= band.top() and band.bottom() <= value + height, f"token {index}'s band is cut"
        assert value in tops, f"token {index}: the view starts {value} px down, mid-band"


def test_counts_read_in_the_singular(qtbot: QtBot, session: Session, o200k) -> None:  # type: ignore[no-untyped-def]
    session.set_tokenizer(o200k, "o200k_base")
    chunks = create_chunks_pane(session)
    qtbot.addWidget(chunks)
    chunks.set_text("x")
    qtbot.waitUntil(lambda: all(column.run is not None and column.run.text == "x" for column in chunks.columns))
    assert [column.count.text() for column in chunks.columns] == ["1 chunk"] * len(chunks.columns)
    pane = create_bytes_pane(session)
    qtbot.addWidget(pane)
    pane.set_text("x")
    def reads() -> str:  # the counts line as it reads, a count's no-break space read as a space
        return re.sub(r"<[^>]+>", "", pane.counts.text()).replace("\u00a0", " ")

    qtbot.waitUntil(lambda: "1 character" in reads(), timeout=5000)
    text = reads()
    for unit in ("character", "UTF-8 byte", "token"):
        assert re.search(rf"(^|\s)1 {unit}($|[^s])", text), f"{unit!r}: {text}"


@pytest.mark.parametrize("configuration", [(1920, 1080, "dark", True), (1280, 800, "light", False)],
                         ids=configuration_id)
def test_every_token_id_in_the_bytes_table_is_shown_whole(qapp: QApplication, tmp_path: Path, o200k,  # type: ignore[no-untyped-def]
                                                          configuration: Configuration) -> None:
    """A danda's script ("Common (with Bengali, Devanagari, Dogra +15)") took the tokens column's
    room, and ids far down the table ("#841 (id 173468)") are wider than the rows Qt measures."""
    session = Session(Settings(QSettings(str(tmp_path / "bytes.ini"), QSettings.Format.IniFormat)))
    session.set_tokenizer(o200k, "o200k_base")
    window = open_window(qapp, session, configuration, "bytes")
    try:
        pane = window.panes["bytes"]
        pane.set_text(("नमस्ते दुनिया! आज मौसम बहुत अच्छा है। 👋🏽 family 1969 " * 40)[:2000])  # type: ignore[attr-defined]
        settle(qapp, window)
        table, model = pane.table, pane.model  # type: ignore[attr-defined]
        metrics = QFontMetrics(table.font())
        width = table.columnWidth(COL_TOKENS)
        for row in range(model.rowCount()):
            text = model.data(model.index(row, COL_TOKENS)) or ""
            assert metrics.horizontalAdvance(text) + 8 <= width, f"row {row}: {text!r} is cut ({width} px)"
        table.horizontalScrollBar().setValue(0)
        header = table.horizontalHeader()
        assert header.sectionViewportPosition(COL_TOKENS) + width <= table.viewport().width(), "the ids are off the view"
    finally:
        close_window(qapp, window)
        session.shutdown()


def line_tops(label: QLabel, bottom: bool = False) -> list[int]:
    """Where each line of a rich-text label starts (or ends), laid out as QLabel does."""
    document = QTextDocument()
    document.setDocumentMargin(0)
    document.setDefaultFont(label.font())
    document.setHtml(label.text())
    document.setTextWidth(label.contentsRect().width())
    document.documentLayout().documentSize()
    block, tops = document.begin(), []
    while block.isValid():
        layout = block.layout()
        for number in range(layout.lineCount()):
            line = layout.lineAt(number)
            tops.append(round(layout.position().y() + line.y() + (line.height() if bottom else 0)))
        block = block.next()
    return tops


def test_the_decoder_lanes_show_whole_lines(qtbot: QtBot, session: Session, o200k) -> None:  # type: ignore[no-untyped-def]
    """Scrolled to the newest tokens, a lane starts at a line's top: lines of mixed scripts differ in
    height, and scrolled to its end a lane showed a sliver of the line above, cut mid-glyph."""
    session.set_tokenizer(o200k, "o200k_base")
    pane = create_bytes_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1280, 800)
    pane.show()
    pane.set_text("The cat sat on the mat. नमस्ते दुनिया! こんにちは世界。 สวัสดีชาวโลก 👋🏽 family " * 12)
    qtbot.waitUntil(lambda: len(pane.tokens) > 200, timeout=5000)
    scrolled = 0
    for shown in (60, 150, 233, len(pane.tokens)):
        pane.set_shown(shown)
        qtbot.wait(10)
        for view in (pane.lanes.naive_view, pane.lanes.buffered_view):
            tops = line_tops(view.label)
            value, height = view.verticalScrollBar().value(), view.viewport().height()
            scrolled += value > 0
            assert value in tops, f"after {shown} tokens the lane starts {value} px down, inside a line ({tops[-4:]})"
            text_bottom = line_tops(view.label, bottom=True)[-1]
            assert value + height >= text_bottom, f"after {shown} tokens the lane's last line is cut"
    assert scrolled >= 4, "the text should make lanes of more lines than they show"


@pytest.mark.parametrize("configuration", [(1920, 1080, "light", True), (1280, 800, "dark", False)],
                         ids=configuration_id)
def test_the_bytes_table_names_and_buttons_read_evenly(qapp: QApplication, tmp_path: Path, o200k,  # type: ignore[no-untyped-def]
                                                       configuration: Configuration) -> None:
    """At 1920x1080 in presentation mode 'DEVANAGARI VOWEL SIGN AA' took two lines (some names two,
    some cut), the Script column half empty beside it; the strip kept a band's height of blank
    while the table showed three rows; '⏮ Reset' and 'End ⏭' stood taller than the other buttons."""
    session = Session(Settings(QSettings(str(tmp_path / "bytes.ini"), QSettings.Format.IniFormat)))
    session.set_tokenizer(o200k, "o200k_base")
    window = open_window(qapp, session, configuration, "bytes")
    try:
        pane = window.panes["bytes"]
        pane.set_text("मावा केक 🎂")  # type: ignore[attr-defined]
        settle(qapp, window)
        table, model = pane.table, pane.model  # type: ignore[attr-defined]
        metrics = QFontMetrics(table.font())
        heights = {table.rowHeight(row) for row in range(model.rowCount())}  # (an emoji's a pixel taller)
        assert max(heights) - min(heights) < metrics.lineSpacing() // 2, f"rows {sorted(heights)} px: names wrapped"
        scripts = [model.data(model.index(row, COL_SCRIPT)) for row in range(model.rowCount())]
        assert table.columnWidth(COL_SCRIPT) <= max(metrics.horizontalAdvance(s) for s in scripts) + 24
        names = [model.data(model.index(row, COL_NAME)) for row in range(model.rowCount())]
        if table.columnWidth(COL_NAME) < max(metrics.horizontalAdvance(n) for n in names) + 8:
            delegate = table.itemDelegateForColumn(COL_NAME)
            option = QStyleOptionViewItem()
            delegate.initStyleOption(option, model.index(1, COL_NAME))
            assert option.textElideMode == Qt.TextElideMode.ElideLeft  # '…VOWEL SIGN AA', not 'DEVANAGARI VOW…'
        buttons = (pane.reset_button, pane.back_button, pane.step_button, pane.play_button, pane.end_button)  # type: ignore[attr-defined]
        assert len({button.height() for button in buttons}) == 1, [button.height() for button in buttons]
        # The strip in whole bands, no blank band under them; the table the rest, a few rows at least.
        strip, view = pane.strip, pane.strip_scroll.viewport()  # type: ignore[attr-defined]
        band = strip.band_height + BAND_GAP
        shown = min(len(strip.bands), int((view.height() - MARGIN) // band) or 1)
        assert view.height() < (shown + 1) * band, f"{view.height()} px for {shown} band(s) of {band:.0f} px"
        rows_in_sight = table.rowAt(table.viewport().height() - 1)
        rows_in_sight = model.rowCount() if rows_in_sight < 0 else rows_in_sight
        assert rows_in_sight >= 4, f"{rows_in_sight} rows of the table in sight"
    finally:
        close_window(qapp, window)
        session.shutdown()
