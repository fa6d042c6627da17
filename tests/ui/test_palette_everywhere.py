"""The View menu's colour-blind palette colours tokens in every pane, not only the Tokens pane:
the Merges encode trace, the Chunks token marks and the Bytes lanes take their colours from the
one palette in explorer.ui.theme."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from explorer.ui.bytes.roles import token_color_name
from explorer.ui.merges.trace import TokenStrip
from explorer.ui.session import Session
from explorer.ui.theme import token_color

TOKEN = 15496


def fill_of_first_box(strip: TokenStrip) -> str:
    """The colour inside the first token box, left of its text."""
    image = strip.grab().toImage()
    return image.pixelColor(7, 4 + strip.fontMetrics().height() // 2 + 4).name()


@pytest.mark.parametrize("dark", [False, True])
def test_the_merges_trace_follows_the_colour_blind_palette(qtbot: QtBot, session: Session, dark: bool) -> None:
    strip = TokenStrip()
    qtbot.addWidget(strip)
    strip.dark = dark
    strip.label = lambda token: "hello"
    strip.resize(300, 60)
    strip.set_tokens([(TOKEN,)], None)
    assert fill_of_first_box(strip) == token_color(TOKEN, dark, "default").name()
    session.set_palette("colour-blind")
    assert token_color(TOKEN, dark, "colour-blind").name() != token_color(TOKEN, dark, "default").name()
    assert fill_of_first_box(strip) == token_color(TOKEN, dark, "colour-blind").name()


def test_the_bytes_lanes_follow_the_palette_both_ways(session: Session) -> None:
    before = token_color_name(TOKEN, False)
    session.set_palette("colour-blind")
    assert token_color_name(TOKEN, False) == token_color(TOKEN, False, "colour-blind").name() != before
    session.set_palette("default")
    assert token_color_name(TOKEN, False) == before  # not a stale cached colour


def test_the_chunks_token_marks_follow_the_colour_blind_palette(qtbot: QtBot, session: Session) -> None:
    from explorer.core.algorithms.train import train
    from explorer.core.formats.own import from_merges
    from explorer.ui.chunks import create_pane

    pane = create_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1200, 700)
    pane.show()
    tokenizer = from_merges(list(train(["the cat sat on the mat. the cat ate the rat."], 280, "cl100k")), "cl100k",
                            name="test")
    session.set_tokenizer(tokenizer, "trained:test")
    pane.set_text("the cat ate the rat")
    pane.show_tokens.setChecked(True)
    view = pane.columns[0].view
    qtbot.waitUntil(lambda: view.tokens is not None, timeout=5000)
    ids = set(tokenizer.encode("the cat ate the rat"))

    def marks(palette: str) -> set[str]:
        return {token_color(token, False, palette).darker(130).name() for token in ids}

    def painted() -> set[str]:
        image = view.grab().toImage()
        return {image.pixelColor(x, y).name() for x in range(0, image.width(), 2) for y in range(image.height())}

    assert marks("default") & painted()
    session.set_palette("colour-blind")
    colours = painted()
    assert marks("colour-blind") & colours and not (marks("default") - marks("colour-blind")) & colours


def test_chunk_categories_and_script_bars_follow_the_palette(session: Session) -> None:
    """Digits and trailing whitespace are green and red by default: told apart in the colour-blind
    palette (bluish green, vermillion), like Devanagari and Arabic in the Corpus script bars."""
    from explorer.ui.chunks.categories import category_color, legend_html
    from explorer.ui.corpus.delegates import script_color

    default = [category_color(label, False).name() for label in ("digits", "trailing whitespace")]
    scripts = [script_color(name).name() for name in ("Arabic", "Devanagari", "Tamil")]
    session.set_palette("colour-blind")
    blind = [category_color(label, False).name() for label in ("digits", "trailing whitespace")]
    assert blind[0] != default[0] and blind[1] != default[1]
    assert [script_color(name).name() for name in ("Arabic", "Devanagari")] == ["#009e73", "#d55e00"]
    assert script_color("Tamil").name() != scripts[2]  # a rarer script too
    assert blind[0] in legend_html({"digits"}, False, QColor("#c2185b"), False)  # the legend says the same
