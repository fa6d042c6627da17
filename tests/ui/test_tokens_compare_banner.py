"""Three compared lanes and the special-token notice at a laptop's 1280x800 (issue 12): every lane
shows its summary on one line and its first line of tokens whole, unscrolled, with the notice
above them or not, light or dark, in normal and presentation mode. (The notice took two lines and
each compared lane's summary wrapped beside its choice: the last lane's tokens were out of sight.)"""

from __future__ import annotations

import html

import pytest
from PySide6.QtWidgets import QApplication

from explorer.core.sources.load import load_tokenizer
from explorer.ui.session import Session
from tests.ui.test_tokens_readable import plain
from tests.ui.test_tokens_room import PROMPT, lanes_laid_out, line_height, within
from tests.ui.windows import close_window, eventually, open_window, settle

SPECIAL = PROMPT + " <|endoftext|> and on"  # in 'disallowed' mode: the notice says how it is read


@pytest.mark.parametrize(("theme", "presenting", "banner"), [
    ("light", False, True), ("dark", False, True), ("light", False, False),
    ("light", True, True), ("dark", True, False)],
    ids=["light-banner", "dark-banner", "light", "presentation-banner", "presentation-dark"])
def test_three_lanes_and_the_notice_fit_1280x800(qapp: QApplication, session: Session, theme: str,
                                                 presenting: bool, banner: bool) -> None:
    session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    window = open_window(qapp, session, (1280, 800, theme, presenting), "tokens")
    try:
        pane = window.panes["tokens"]
        pane.set_text(SPECIAL if banner else PROMPT)
        settle(qapp, window)
        pane._set_details(pane.main_lane, 0)  # (the details of a token, as a hover shows them)
        for spec in ("cl100k_base", "r50k_base"):
            pane.add_compare(spec)
            settle(qapp, window)
        assert eventually(qapp, lambda: lanes_laid_out(pane), 20.0), "the lanes were not laid out"
        qapp.processEvents()
        assert pane.banner.isVisible() == banner
        viewport = pane.lanes_scroll.viewport()
        assert pane.lanes_scroll.verticalScrollBar().maximum() == 0, "the lanes scroll"
        for lane in pane.lanes:
            name, counts, view = lane.tokenizer.name, lane.counts, lane.view
            one_line = counts.heightForWidth(100_000)
            assert counts.heightForWidth(counts.width()) <= one_line, f"{name}: the summary wraps"
            assert counts.height() >= one_line, f"{name}: the summary is cut"
            assert "tokens" in counts.text() and within(counts, lane).bottom() < within(view, lane).top()
            margin = view.frameWidth() + view.document().documentMargin()
            first_line = within(view, viewport).top() + margin + line_height(view)
            assert within(lane, viewport).top() >= 0 and first_line <= viewport.height() + 1, \
                f"{name}: its first line of tokens ends at {first_line:.0f}, the lanes at {viewport.height()}"
            assert view.viewport().height() >= view.document().documentMargin() + line_height(view) - 1, \
                f"{name}: its view is shorter than a line"
        for lane in pane.lanes[1:]:
            assert "%</b> tokens vs o200k_base" in lane.counts.text()
        assert window.width() == 1280
        if banner:  # one line, whole in its tooltip
            metrics = pane.banner.fontMetrics()
            assert pane.banner.height() < 2 * metrics.lineSpacing(), f"the notice takes {pane.banner.height()} px"
            assert "Showing the plain-text reading" in pane.banner.toolTip()
    finally:
        close_window(qapp, window)


def test_the_notice_opens_whole_and_the_room_is_shared_again(qapp: QApplication, session: Session) -> None:
    session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    window = open_window(qapp, session, (1280, 800, "light", False), "tokens")
    try:
        pane = window.panes["tokens"]
        pane.set_text(SPECIAL)
        settle(qapp, window)
        window.menus.presentation.trigger()  # F5 after the text: the notice's line is elided anew, larger
        window.showNormal()
        window.resize(1280, 800)
        settle(qapp, window)
        banner = pane.banner
        closed = banner.height()
        assert "more" in banner.text() and "Showing the plain-text reading" not in banner.text()
        shown = banner.fontMetrics().horizontalAdvance(html.unescape(plain(banner.text())))
        assert shown <= banner.contentsRect().width(), f"the notice's line is cut: {shown} px in {banner.width()}"
        banner.linkActivated.emit("more")
        assert eventually(qapp, lambda: banner.height() > closed), "the notice did not open"
        assert "Showing the plain-text reading" in banner.text() and "less" in banner.text()
        assert eventually(qapp, lambda: banner.height() >= banner.heightForWidth(banner.width()))
        banner.linkActivated.emit("less")
        assert eventually(qapp, lambda: banner.height() == closed), "the notice did not close"
    finally:
        close_window(qapp, window)
