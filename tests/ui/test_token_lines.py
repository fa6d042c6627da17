"""The token view's lines end between tokens, Thai included (explorer/ui/tokens/lines.py): Qt
hands a Thai run's line breaks to libthai, which breaks before a Thai word even inside a token
(`·ยินดี` after its `·`), whatever the view's wrapping marks say."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from explorer.core.sources.load import load_tokenizer
from explorer.ui.session import Session
from explorer.ui.tokens import create_pane
from explorer.ui.tokens.pane import TokensPane

THAI = "สวัสดีครับ ยินดีต้อนรับสู่ประเทศไทย น้ำใจ ผู้ใหญ่ ที่นี่ " * 30
# Widths at which Qt's own layout put a line break inside a token of THAI under o200k_base
# (`·ผู้`, `ประเทศไทย`, `·ที่`, `·น้ำ`, ...): found by laying it out at every 40 px.
WIDTHS = (1200, 1240, 1320, 1440, 1560)


@pytest.fixture(scope="module")
def o200k():  # type: ignore[no-untyped-def]
    return load_tokenizer("o200k_base")


@pytest.fixture
def pane(qtbot: QtBot, session: Session, o200k) -> TokensPane:  # type: ignore[no-untyped-def]
    session.set_tokenizer(o200k, "o200k_base")
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def lines_of_tokens(pane: TokensPane) -> dict[int, set[float]]:
    """{token index: the tops of the lines its boxes are on} for the tokens on screen."""
    tops: dict[int, set[float]] = {}
    for index, rect in pane.main_lane.view.boxes_on_screen():
        tops.setdefault(index, set()).add(round(rect.top(), 1))
    return tops


@pytest.mark.parametrize("width", WIDTHS)
def test_a_thai_token_is_never_laid_out_across_two_lines(qtbot: QtBot, pane: TokensPane, width: int) -> None:
    pane.resize(width, 900)
    pane.set_text(THAI)
    view = pane.main_lane.view
    qtbot.waitUntil(lambda: pane.main_lane.complete and len(view.ids) == len(pane.main_lane.state), timeout=10_000)
    tops = lines_of_tokens(pane)
    assert len({top for lines in tops.values() for top in lines}) >= 3, "expected the text to take several lines"
    split = {index: sorted(lines) for index, lines in tops.items() if len(lines) > 1}
    assert not split, f"tokens laid out across lines at {width} px: {split}"
    assert view.toPlainText().replace("\n", "") == THAI.replace(" ", "·")
    # The lines are still full: each one but the last ends within a few tokens of the right edge.
    layout = view.document().firstBlock().layout()
    widest = max(layout.lineAt(n).naturalTextWidth() for n in range(layout.lineCount()))
    for number in range(layout.lineCount() - 1):
        assert layout.lineAt(number).naturalTextWidth() > widest - 160, f"line {number} ends early"


def test_a_token_wider_than_the_line_still_breaks_with_a_box_on_each_line(qtbot: QtBot, pane: TokensPane) -> None:
    """Only when no token start is left to end the line at: the long token takes two lines."""
    long_token = "ประเทศไทย"  # one o200k token
    pane.set_text(long_token)
    view = pane.main_lane.view
    qtbot.waitUntil(lambda: len(view.ids) == 1, timeout=5000)
    view.setFixedWidth(view.fontMetrics().horizontalAdvance(long_token) // 2 + 2 * view.frameWidth() + 12)
    qtbot.waitUntil(lambda: view.document().firstBlock().layout().lineCount() > 1, timeout=5000)
    tops = lines_of_tokens(pane)
    assert list(tops) == [0] and len(tops[0]) > 1, tops
