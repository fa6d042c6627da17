"""The Bytes pane draws an emoji of several code points whole where tokens cut it (issue 12,
"characters beside their bytes"): the strip drew 🇺🇦 as "U A", one code point per cell, and the
lanes gave each token its own span, so a flag or a family read as its pieces."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from explorer.core.sources.load import load_tokenizer
from explorer.ui.bytes import create_pane
from explorer.ui.bytes.pane import BytesPane
from explorer.ui.bytes.strip import MARGIN, ByteStrip
from explorer.core.text.chars import describe
from explorer.ui.session import Session

FLAG, FAMILY = "🇺🇦", "👨\u200d👩\u200d👧\u200d👦"
TEXT = f"family {FAMILY} flag {FLAG} wave 👋🏽 done"


@pytest.fixture
def pane(qtbot: QtBot, session: Session) -> BytesPane:
    session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.resize(1000, 800)
    widget.show()
    widget.set_text(TEXT)
    widget.to_end()
    return widget


def test_the_tokens_do_cut_these_emoji(pane: BytesPane) -> None:
    """(The premise: o200k_base splits each of them over several tokens.)"""
    text = TEXT.encode()
    for emoji in (FLAG, FAMILY, "👋🏽"):
        start = text.index(emoji.encode())
        end = start + len(emoji.encode())
        assert len([t for t in pane.tokens if t.byte_start < end and t.byte_end > start]) > 1


def lane_spans(html: str) -> list[str]:
    """The text of each token's span in a lane (the lanes separate spans with a zero-width space)."""
    document = QTextDocument()
    document.setHtml(html)
    return document.toPlainText().split("\u200b")


def test_the_lanes_keep_each_emoji_in_one_span(pane: BytesPane) -> None:
    spans = lane_spans(pane.lanes.buffered.text())
    for emoji in (FLAG, FAMILY, "👋🏽"):
        assert any(emoji in span for span in spans), f"{emoji!r} split over the spans {spans}"
    assert "".join(spans).replace("·", " ") == TEXT


def test_the_strip_draws_each_emoji_whole_across_its_cells(pane: BytesPane) -> None:
    strip = pane.strip
    chars = "".join(info.char for info in strip.chars)
    for emoji in (FLAG, FAMILY, "👋🏽"):
        start = chars.index(emoji)
        span = (start, start + len(emoji))
        assert span in strip.clusters, f"{emoji!r} is drawn one code point per cell"
        bands = {strip.byte_band[b] for info in strip.chars[span[0]:span[1]]
                 for b in range(info.byte_start, info.byte_end)}
        wide = sum(right - left for left, right in strip.char_x[span[0]:span[1]])
        if wide <= strip.width() - MARGIN - strip.gutter:  # (with its bits a family is 25 cells wide)
            assert len(bands) == 1, f"{emoji!r} is broken over two bands"
            rect = strip.cluster_rect(span, 0, 10)
            assert rect.left() == strip.char_x[span[0]][0] and rect.right() == strip.char_x[span[1] - 1][1]


def test_the_strip_never_breaks_a_band_inside_an_emoji_that_fits_one(qtbot: QtBot, pane: BytesPane) -> None:
    """An emoji goes whole onto one band; one wider than a band (a family at 20 pt on a laptop)
    breaks over bands rather than running off the strip's right edge."""
    strip = ByteStrip()  # (not in the pane: there its width follows the view, and a layout follows its width)
    strip.setFont(pane.strip.font())
    strip.set_data(pane.strip.chars, pane.strip.tokens, pane.strip.steps)
    for width in range(500, 1600, 37):
        strip._layout(width)  # noqa: SLF001 (every band width a window may give it)
        assert all(right <= width for _, right in strip.char_x), \
            f"at {width} px a cell runs off the strip: {[(i, x) for i, x in enumerate(strip.char_x) if x[1] > width][:3]} {strip.gutter} {strip._cell_width()}"
        for start, end in strip.clusters:
            first = strip.chars[start].byte_start
            last = strip.chars[end - 1].byte_end - 1
            wide = sum(right - left for left, right in strip.char_x[start:end])
            if wide <= width - MARGIN - strip.gutter:
                assert strip.byte_band[first] == strip.byte_band[last], f"at {width} px"


def test_a_family_wider_than_a_band_is_drawn_on_each_of_its_bands(qtbot: QtBot, session: Session) -> None:
    from PySide6.QtGui import QFont

    text = f"family {FAMILY}"
    strip = ByteStrip()
    font = QFont(session.font)
    font.setPointSizeF(20)
    strip.setFont(font)
    tokens = load_tokenizer("o200k_base").encode_tokens(text, "plain")
    strip.set_data(describe(text), tokens, [])
    strip._layout(700)  # noqa: SLF001
    start = "".join(info.char for info in strip.chars).index(FAMILY)
    bands = {strip.byte_band[strip.chars[char].byte_start] for char in range(start, start + len(FAMILY))}
    assert len(bands) > 1  # (the premise: wider than a band)
    assert all(right <= 700 for _, right in strip.char_x)


def test_a_band_never_breaks_inside_a_thai_or_devanagari_grapheme(qtbot: QtBot, session: Session) -> None:
    """(Seen at 1280x800: "ดี" with ด at the end of one band and its vowel on the next.)"""
    from explorer.core.text.graphemes import grapheme_bounds

    text = "สวัสดีชาวโลก วันนี้อากาศดีมาก नमस्ते दुनिया! आज मौसम बहुत अच्छा है।"
    strip = ByteStrip()
    strip.set_data(describe(text), load_tokenizer("o200k_base").encode_tokens(text, "plain"), [])
    bounds = grapheme_bounds(text)
    for width in range(700, 1400, 23):  # (स्ते, 12 bytes with their bits, needs ~650 px)
        strip._layout(width)  # noqa: SLF001
        for band in strip.bands[1:]:
            assert band.first_char in bounds, f"at {width} px a band starts inside a grapheme: {text[band.first_char]!r}"
