"""A character split into byte pieces keeps its pieces on one line of the token view, and a
combining mark's pieces stay on the line of the letter they sit on (issue 12: the r50k lane of
Hindi or emoji showed `<E0 A4>` at a line's end and `<BF>ि` at the next line's start, so the
glyph no longer spanned its pieces, and a vowel sign could start a line cut from its base)."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.incremental import CUTS_END, CUTS_START
from explorer.core.sources.load import load_tokenizer
from explorer.ui.session import Session
from explorer.ui.tokens import create_pane
from explorer.ui.tokens.pane import TokensPane

TEXT = ("नमस्ते दुनिया! आज मौसम बहुत अच्छा है। मावा केक शनिवार के लिए चाहिए, कृपया। "
        "Party 🎉🎂 wave 👋🏽 family 👨‍👩‍👧‍👦 flag 🇺🇦 heart ❤️‍🔥 done ✅ مرحبا بالعالم ") * 2
WIDTHS = tuple(range(520, 1400, 45))


@pytest.fixture
def pane(qtbot: QtBot, session: Session) -> TokensPane:
    session.set_tokenizer(load_tokenizer("r50k_base"), "r50k_base")
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def must_join(pane: TokensPane) -> list[int]:
    """Tokens that must stand on the line of the token before them: later byte pieces of a
    character, and the first piece of a combining mark."""
    state = pane.main_lane.state
    flags, starts, text = state.flags, state.starts, state.text
    inside = np.flatnonzero((flags & CUTS_START) != 0).tolist()
    marks = [i for i in np.flatnonzero(((flags & CUTS_END) != 0) & ((flags & CUTS_START) == 0)).tolist()
             if unicodedata.category(text[int(starts[i])])[0] == "M"]
    return sorted(i for i in inside + marks if i > 0)


def test_byte_pieces_of_a_character_never_stand_on_two_lines(qtbot: QtBot, pane: TokensPane) -> None:
    pane.set_text(TEXT)
    lane, view = pane.main_lane, pane.main_lane.view
    qtbot.waitUntil(lambda: lane.complete and len(view.ids) == len(lane.state), timeout=10_000)
    joined = must_join(pane)
    assert len(joined) > 100
    apart: dict[int, list[int]] = {}
    for width in WIDTHS:
        pane.resize(width, 1000)
        qtbot.wait(1)
        tops: dict[int, float] = {}
        for index, rect in view.boxes_on_screen():
            tops.setdefault(index, round(rect.top(), 1))
        assert len(set(tops.values())) >= 3, "expected the text to take several lines"
        apart[width] = [i for i in joined if i in tops and i - 1 in tops and tops[i] != tops[i - 1]]
    assert not any(apart.values()), f"pieces of one character (or a mark and its base) on two lines: {apart}"


def test_rows_of_tokens_never_touch_and_stacked_marks_stay_in_their_boxes(qtbot: QtBot, pane: TokensPane) -> None:
    """Hindi and Thai stack marks above and below their letters: each row of boxes leaves a gap
    above the next row, and a box reaches from above the line's ascent to its descent."""
    pane.session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    pane.set_text("नमस्ते दुनिया! कृपया शनिवार के लिए। สวัสดีชาวโลก ที่นี่ น้ำใจ ผู้ใหญ่ " * 12)
    lane, view = pane.main_lane, pane.main_lane.view
    qtbot.waitUntil(lambda: lane.complete and len(view.ids) == len(lane.state), timeout=10_000)
    pane.resize(900, 1000)
    qtbot.wait(1)
    rows: dict[float, tuple[float, float]] = {}
    for _, rect in view.boxes_on_screen():
        top, bottom = rows.get(rect.top(), (rect.top(), rect.bottom()))
        rows[rect.top()] = (min(top, rect.top()), max(bottom, rect.bottom()))
    spans = sorted(rows.values())
    assert len(spans) >= 3, "expected several rows"
    for (_, bottom), (top, _) in zip(spans, spans[1:]):
        assert top - bottom >= 1, f"rows touch: one ends at {bottom}, the next starts at {top}"
    layout = view.document().firstBlock().layout()
    line = layout.lineAt(0)
    first = spans[0]
    assert first[1] - first[0] >= line.ascent() + line.descent() - 2, "a box is shorter than its line's glyphs"
