"""The rules for a view of lines (or bands) that never shows a line cut in half.

At its top, one rule for scrolling: the Bytes strip scrolls to the band of the token being played,
the decoder lanes to their newest line: both start the view where a line starts (a scroll of half a
line cut the line above in half, mid-glyph), which near the end needs blank room below the content.
At its bottom, one rule for painting: a line the view's edge would cut is not drawn (the token
views' last row of boxes was cut in half, and an id cut off is a wrong id). Pure arithmetic, no Qt.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def whole_line_scroll(tops: Sequence[float], content_height: float, view_height: float,
                      target: tuple[float, float], current: float | None = None) -> tuple[int, int]:
    """(scroll value, blank room needed under the content) for a view `view_height` tall to show
    `target` (top, bottom) whole, starting at one of the line `tops`: `current` if it already
    does, else the earliest line top that does (or the target's own line when it is taller than
    the view).

    >>> whole_line_scroll([0, 20, 40, 60], 80, 30, (60, 80))  # the last line: the view starts at it
    (60, 10)
    >>> whole_line_scroll([0, 20, 40, 60], 80, 50, (40, 60), current=20)  # already in view
    (20, 0)
    """
    top, bottom = target
    if current is not None and current <= top and bottom <= current + view_height:
        value = current
    else:
        stops = [stop for stop in tops if stop <= top] or [0.0]
        fitting = [stop for stop in stops if bottom <= stop + view_height]
        value = min(fitting) if fitting else stops[-1]
    value = max(0, math.floor(value))  # (at or above the line: its top pixel row in view)
    return value, (max(0, math.ceil(value + view_height - content_height)) if value else 0)


def whole_lines_bottom(bottoms: Iterable[float], view_height: float) -> float:
    """Where the view stops drawing: the bottom of the last of the lines whose `bottoms` (in
    order, in the view's coordinates) ends inside a view `view_height` tall, when a later one
    would be cut by its edge; else the view's height (nothing is cut, or the first line already
    is: a view shorter than a line shows what it can).

    >>> whole_lines_bottom([20, 40, 60], 50)  # the third line would be cut: drawn down to 40
    40
    >>> whole_lines_bottom([20, 40], 50)  # all whole
    50
    """
    shown: float | None = None
    for bottom in bottoms:
        if bottom > view_height:
            return view_height if shown is None else shown
        shown = bottom
    return view_height
