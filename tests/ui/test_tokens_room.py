"""The Tokens pane's room at a laptop's 1280x800 (issue 12): the legend wrapped to two lines is
measured as such, and compared lanes keep their summary whole and three lines of tokens each."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QWidget

from explorer.core.sources.load import load_tokenizer
from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from tests.ui.windows import close_window, eventually, open_window, settle

MIN_LINES = 3  # lines of tokens a lane keeps (explorer/ui/tokens/lane.py)
TEXT = "Hello नमस्ते 👋🏽\ndef f(x):\n    return x ** 2  # 1234567 <|endoftext|> "
LONG_LEGEND = ("<small>" + " &nbsp;·&nbsp; ".join(
    ["<b>╻</b> a notch and a thin gap: a token starts here, after the one before it",
     "<u>&nbsp;&nbsp;&nbsp;</u> byte pieces of one character, its glyph after them",
     "┈┈ dotted underline in the prompt: a character split across tokens",
     "▁▁ where the compared tokenizers cut the text differently"]) + "</small>")


@pytest.fixture(params=[True, False], ids=["presentation", "normal"])
def window(qapp: QApplication, session: Session, request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    window = open_window(qapp, session, (1280, 800, "light", request.param), "tokens")
    yield window
    close_window(qapp, window)


def shown(qapp: QApplication, window: MainWindow, text: str) -> QWidget:
    window.session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    pane = window.panes["tokens"]
    pane.set_text(text)
    settle(qapp, window)
    pane._set_details(pane.main_lane, 0)  # (the details of a token, as a hover shows them)
    settle(qapp, window)
    return pane


def bottom_needed(pane: QWidget) -> int:
    details = pane.details
    return int(details.document().size().height()) + 2 * details.frameWidth()


def line_height(view: QWidget) -> float:
    """A line of token boxes: the font's line, or the first line's if taller (marks, emoji)."""
    layout = view.document().firstBlock().layout()
    first = layout.lineAt(0).height() if layout is not None and layout.lineCount() else 0.0
    return max(first, QFontMetrics(view.font()).lineSpacing())


def line_bottoms(view: QWidget) -> list[float]:
    """Where each line of tokens ends in the viewport, read from the layout: lines differ in height
    (a line of hex pieces or emoji is taller than one of words)."""
    bottoms, block, offset = [], view.document().firstBlock(), view.contentOffset()
    while block.isValid():
        top = view.blockBoundingGeometry(block).translated(offset).top() + block.layout().position().y()
        layout = block.layout()
        bottoms += [top + layout.lineAt(n).y() + layout.lineAt(n).height() for n in range(layout.lineCount())]
        block = block.next()
    return bottoms


def lines_shown(lane: QWidget) -> float:
    """Lines of tokens whole in the lane's view; when they are all in it, the room below them too,
    in lines of the first line's height."""
    view = lane.view
    height, bottoms = view.viewport().height(), line_bottoms(view)
    whole = [bottom for bottom in bottoms if bottom <= height]
    if len(whole) < len(bottoms):
        return len(whole)
    return len(whole) + (height - bottoms[-1] - view.document().documentMargin()) / line_height(view)


@pytest.mark.parametrize("window", [True], ids=["presentation"], indirect=True)
def test_a_legend_of_two_lines_is_the_tokens_cost_not_the_details(qapp: QApplication, window: MainWindow) -> None:
    pane = shown(qapp, window, TEXT)
    pane.fit_to_content()
    qapp.processEvents()
    one_line = pane.splitter.sizes()[2]
    legend = pane.legend
    line = legend.heightForWidth(legend.width())
    pane.legend.setText(LONG_LEGEND)
    qapp.processEvents()
    pane.fit_to_content()
    qapp.processEvents()
    assert legend.heightForWidth(legend.width()) >= 2 * line * 0.9, "the legend is expected to wrap here"
    assert legend.height() >= legend.heightForWidth(legend.width()), "the legend is cut"
    # The tokens keep a summary and MIN_LINES lines above the legend at its wrapped height; the
    # details and findings get the rest, up to what they need.
    lane, view = pane.main_lane, pane.main_lane.view
    least = lane.counts.height() + view.lines_height(MIN_LINES) + legend.height() + 12  # (its lines' own heights)
    room = sum(pane.splitter.sizes()[1:])
    bottom = pane.splitter.sizes()[2]
    assert bottom >= min(bottom_needed(pane), room - least), f"the details lost room: {pane.splitter.sizes()}"
    assert one_line - bottom <= legend.height() - line + 4, "the details lost more than the legend's new line"
    assert lines_shown(pane.main_lane) >= MIN_LINES - 0.1


def within(widget: QWidget, root: QWidget) -> QRect:
    return QRect(widget.mapTo(root, QPoint(0, 0)), widget.size())


PROMPT = "Hello नमस्ते 👋🏽 The quick brown fox.\ndef f(x):\n    return x ** 2  # 1234567 مرحبا بالعالم"  # 3 lines


def lanes_laid_out(pane: QWidget) -> bool:
    """Whether the pane is done with its text and the last fit_to_content is on screen: every lane
    encoded, its summary final (words counted, a compared lane's change), no fit still to come
    (the idle timer) and every lane at the height the splitter gave it. Waited for, never timed:
    under load each of these comes later."""
    summaries = [lane.counts.text() for lane in pane.lanes]
    return all(lane.complete for lane in pane.lanes) and not pane._idle.isActive() \
        and not any("counting words" in text for text in summaries) \
        and all("tokens vs" in text for text in summaries[1:]) \
        and not (getattr(pane, "_fit_soon", None) and pane._fit_soon.isActive()) \
        and all(lane.height() == size for lane, size in zip(pane.lanes, pane.lanes_widget.sizes()))


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
@pytest.mark.parametrize("compared", [1, 2], ids=["2-lanes", "3-lanes"])
def test_every_compared_lane_shows_its_summary_and_first_lines(qapp: QApplication, session: Session,
                                                                 size: tuple[int, int], compared: int) -> None:
    """In presentation mode, without dragging a splitter: each lane's summary whole and its first
    lines of tokens in sight, the lanes never scrolled (the editor and details give way first)."""
    window = open_window(qapp, session, (*size, "light", True), "tokens")
    try:
        pane = shown(qapp, window, PROMPT)
        for spec in ("cl100k_base", "r50k_base")[:compared]:
            pane.add_compare(spec)
            settle(qapp, window)
        assert eventually(qapp, lambda: lanes_laid_out(pane), 20.0), "the lanes were not laid out"
        qapp.processEvents()
        viewport = pane.lanes_scroll.viewport()
        least = (2 if compared == 1 else 1) if size == (1280, 800) else MIN_LINES
        for lane in pane.lanes:
            counts = lane.counts
            assert counts.height() >= counts.heightForWidth(counts.width()), f"{lane.tokenizer.name}: summary cut"
            assert within(counts, lane).bottom() < within(lane.view, lane).top()
            assert lines_shown(lane) >= least - 0.1, f"{lane.tokenizer.name}: {lines_shown(lane):.1f} lines"
            view = within(lane.view, viewport)  # its summary and its first `least` lines in sight, unscrolled
            bottoms = line_bottoms(lane.view)
            first_lines = view.top() + lane.view.frameWidth() + bottoms[min(least, len(bottoms)) - 1]
            assert within(lane, viewport).top() >= 0 and first_lines <= viewport.height() + 1, \
                f"{lane.tokenizer.name} is out of sight"
        for lane in pane.lanes[1:]:
            text = lane.counts.text()
            assert "bytes/token" in text and "%</b> tokens vs o200k_base" in text
        assert window.width() == size[0]
    finally:
        close_window(qapp, window)
