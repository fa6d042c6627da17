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
        assert len(bands) == 1, f"{emoji!r} is broken over two bands"
        rect = strip.cluster_rect(span, 0, 10)
        assert rect.left() == strip.char_x[span[0]][0] and rect.right() == strip.char_x[span[1] - 1][1]


def test_the_strip_never_breaks_a_band_inside_an_emoji(qtbot: QtBot, pane: BytesPane) -> None:
    strip = pane.strip
    for width in range(300, 1000, 37):
        strip._layout(width)  # noqa: SLF001 (every band width a window may give it)
        for start, end in strip.clusters:
            first = strip.chars[start].byte_start
            last = strip.chars[end - 1].byte_end - 1
            assert strip.byte_band[first] == strip.byte_band[last], f"at {width} px"
