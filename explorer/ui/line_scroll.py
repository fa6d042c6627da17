"""The one rule for scrolling a view of lines (or bands) so that no line is cut at its top.

The Bytes strip scrolls to the band of the token being played, the decoder lanes to their newest
line: both start the view where a line starts (a scroll of half a line cut the line above in half,
mid-glyph), which near the end needs blank room below the content. Pure arithmetic, no Qt.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


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
