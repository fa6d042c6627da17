"""The bottom edge of a token view never shows a row of tokens cut in half (issue 12: an id that is
cut off is a wrong id): the row the viewport's edge would cut is not painted, in the lone view
and in compared lanes, at 1280x800 and 1920x1080 (explorer/ui/line_scroll.py, whole_lines_bottom)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from explorer.core.sources.load import load_tokenizer
from explorer.ui.session import Session
from tests.ui.test_tokens_room import lanes_laid_out
from tests.ui.windows import close_window, eventually, open_window, settle

LONG = ("The cat sat on the mat. In 1969, 600,000,000 people watched. नमस्ते दुनिया! मावा केक "
        "مرحبا بالعالم. こんにちは世界。 สวัสดีชาวโลก 👋🏽 🇺🇦 family 👨‍👩‍👧 ") * 40


def cut_line(view) -> tuple[float, float] | None:  # type: ignore[no-untyped-def]
    """(top, bottom) in the viewport of the first line of tokens that its bottom edge cuts, from
    the view's own line geometry; None when the edge falls between two lines."""
    height = view.viewport().height()
    block, offset = view.firstVisibleBlock(), view.contentOffset()
    while block.isValid():
        geometry = view.blockBoundingGeometry(block).translated(offset)
        if geometry.top() > height:
            return None
        layout = block.layout()
        for number in range(layout.lineCount()):
            line = layout.lineAt(number)
            top = geometry.top() + layout.position().y() + line.y()
            if top < height < top + line.height():
                return top, top + line.height()
        block = block.next()
    return None


def painted_rows(view, first: int) -> list[int]:  # type: ignore[no-untyped-def]
    """The viewport's pixel rows from `first` down that hold anything but the page's colour."""
    image = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    width, height = image.width(), image.height()
    pixels = np.frombuffer(image.constBits(), np.uint32, count=image.bytesPerLine() // 4 * height)
    pixels = pixels.reshape(height, image.bytesPerLine() // 4)[:, :width]
    page = view.palette().base().color().rgb() & 0xFFFFFFFF
    rows = np.flatnonzero(((pixels[first:] & 0xFFFFFF) != (page & 0xFFFFFF)).any(axis=1))
    return (rows + first).tolist()


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
@pytest.mark.parametrize("compared", [0, 2], ids=["one-lane", "3-lanes"])
def test_the_row_the_viewport_edge_cuts_is_not_painted(qapp: QApplication, session: Session,
                                                        size: tuple[int, int], compared: int) -> None:
    session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    window = open_window(qapp, session, (*size, "dark" if compared else "light", False), "tokens")
    try:
        pane = window.panes["tokens"]
        pane.set_text(LONG)
        settle(qapp, window)
        for spec in ("cl100k_base", "r50k_base")[:compared]:
            pane.add_compare(spec)
            settle(qapp, window)
        assert eventually(qapp, lambda: lanes_laid_out(pane), 20.0), "the lanes were not laid out"
        cuts = 0
        for lane in pane.lanes:
            view = lane.view
            assert view.verticalScrollBar().maximum() > 0, "the long text is expected to scroll"
            for value in (0, 1):  # (unscrolled, and a line down: the new bottom row is fitted too)
                view.verticalScrollBar().setValue(value)
                qapp.processEvents()
                cut = cut_line(view)
                if cut is None:
                    continue  # the edge falls between two lines: nothing to hide
                cuts += 1
                top, _ = cut
                assert top > 0, f"{lane.tokenizer.name}: the view is shorter than one line"
                rows = painted_rows(view, int(top) + 1)  # (its boxes reach a pixel above it)
                assert not rows, (f"{lane.tokenizer.name} at {size}: the row cut by the edge at "
                                  f"{view.viewport().height()} px (line {top:.0f}-{cut[1]:.0f}) is painted "
                                  f"in rows {rows[0]}-{rows[-1]}")
        assert cuts, "no lane's edge cut a line: the case is not tested"
    finally:
        close_window(qapp, window)
