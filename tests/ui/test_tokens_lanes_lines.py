"""Compared lanes share their room in whole lines (issue 12): at a laptop's 1280x800 in presentation
mode three lanes each end on a whole line of tokens of their own height, with the special-token
notice above them or not, light or dark. (Each showed one line over a 15-18 px row its view does
not draw: the lanes got heights of no whole number of lines, explorer/ui/tokens/room.py.)"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from explorer.core.sources.load import load_tokenizer
from explorer.ui.session import Session
from explorer.ui.tokens.room import share_lines
from tests.ui.test_tokens_room import lanes_laid_out, line_bottoms
from tests.ui.windows import close_window, eventually, open_window, settle

# Two lines in cl100k_base, five in r50k_base (its byte pieces make taller rows), two in o200k_base.
TEXT = "Hello नमस्ते مرحبا こんにちは สวัสดี 👋🏽 and a second sentence that wraps onto another line."
SPECIAL = TEXT + " <|endoftext|> and on"  # in 'disallowed' mode: the one-line notice above the prompt


def test_the_next_line_goes_to_the_lane_that_shows_the_least_of_its_lines() -> None:
    heights = [[100, 150, 200], [90, 140]]  # each lane's height with 1, 2, ... lines
    assert share_lines(heights, [3, 2], 189) is None  # not a line each
    assert share_lines(heights, [3, 2], 250) == [2, 1]  # a third shown before a half
    assert share_lines(heights, [3, 2], 300) == [2, 2]
    assert share_lines(heights, [3, 2], 1000) == [3, 2]  # all their lines, and no more
    assert share_lines(heights, [3, 2], 1000, most=1) == [1, 1]
    # a lane whose next line is too tall for the rest leaves it to one whose line fits
    assert share_lines([[100, 160], [100, 140]], [10, 2], 245) == [1, 2]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("notice", [False, True], ids=["plain", "notice"])
def test_three_compared_lanes_end_on_whole_lines(qapp: QApplication, session: Session, theme: str,
                                                 notice: bool) -> None:
    """Below its last whole line a lane's view keeps its document margin (4 px), as a view that
    shows all its text does, and the pixel lines_height rounds up: an undrawn part of a row may be
    that and a pixel more (lines are 43-49 px here; main left 15-18 px). The lanes together never
    take more than their part of the splitter, and never scroll."""
    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    window = open_window(qapp, session, (1280, 800, theme, True), "tokens")
    try:
        pane = window.panes["tokens"]
        pane.set_text(SPECIAL if notice else TEXT)
        settle(qapp, window)
        pane._set_details(pane.main_lane, 0)  # (the details of a token, as a hover shows them)
        for spec in ("r50k_base", "o200k_base"):
            pane.add_compare(spec)
            settle(qapp, window)
        assert eventually(qapp, lambda: lanes_laid_out(pane), 20.0), "the lanes were not laid out"
        qapp.processEvents()
        assert pane.banner.isVisible() == notice
        assert pane.lanes_scroll.verticalScrollBar().maximum() == 0, "the lanes scroll"
        shown = {}
        for lane in pane.lanes:
            name, view = lane.tokenizer.name, lane.view
            height, bottoms = view.viewport().height(), line_bottoms(view)
            whole = [bottom for bottom in bottoms if bottom <= height]
            assert whole, f"{name}: not one line of tokens whole in {height} px"
            assert view.verticalScrollBar().value() == 0
            if len(whole) < len(bottoms):  # a line is cut by the view's edge: it is not drawn
                undrawn = height - view.whole_lines_bottom()
                assert undrawn <= view.document().documentMargin() + 2, \
                    f"{name}: {undrawn:.0f} px blank under {len(whole)} whole lines (next line {bottoms[len(whole)] - whole[-1]:.0f} px)"
            shown[name] = len(whole)
        handles = pane.lanes_widget.handleWidth() * (len(pane.lanes) - 1)
        taken = sum(lane.height() for lane in pane.lanes) + handles + pane.legend.height()
        assert taken <= pane.splitter.sizes()[1], f"the lanes take {taken} px of {pane.splitter.sizes()[1]}"
        if not notice:  # (with the notice the details are at their least: no room for a line more)
            assert max(shown.values()) > 1, f"one line each where the room holds more: {shown}"
    finally:
        close_window(qapp, window)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_lone_lane_of_a_long_text_ends_on_a_whole_line(qapp: QApplication, session: Session, theme: str) -> None:
    """The lanes scroll (the text is longer than the room): the one lane's view ends on a whole line
    of its own. Its lines differ in height (hex pieces, emoji), and taken each as tall as the first
    the lane left 39 px blank at 1280x800 in presentation mode."""
    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    window = open_window(qapp, session, (1280, 800, theme, True), "tokens")
    try:
        pane = window.panes["tokens"]
        pane.set_text(" ".join([TEXT] * 12))
        settle(qapp, window)
        assert eventually(qapp, lambda: lanes_laid_out(pane), 20.0), "the lane was not laid out"
        qapp.processEvents()
        view = pane.main_lane.view
        height, bottoms = view.viewport().height(), line_bottoms(view)
        whole = [bottom for bottom in bottoms if bottom <= height]
        assert whole and len(whole) < len(bottoms), "the text should not fit: the lane scrolls"
        undrawn = height - view.whole_lines_bottom()
        assert undrawn <= view.document().documentMargin() + 2, \
            f"{undrawn:.0f} px blank under {len(whole)} whole lines (next line {bottoms[len(whole)] - whole[-1]:.0f} px)"
    finally:
        close_window(qapp, window)
