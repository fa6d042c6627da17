"""How the Tokens pane shares its room: by what each part holds, not by fixed proportions.

Top to bottom: the prompt editor, the token lanes with their legend, then the token details
beside the findings. The editor is as tall as its text (a few lines, at most a quarter; a sixth when the tokens scroll); the
findings are as wide as their columns, none at all when there are no findings, so the details
stand in two columns, half as tall; the lanes get what the details and findings leave, or, when
the lanes hold more than the room, the larger share (they scroll as one, each keeping a few lines).
Compared lanes that do not all fit share theirs in whole lines, each of its own line height.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from explorer.ui.pane import editor_height, editor_least_height
from explorer.ui.tokens.lane import MIN_LINES

if TYPE_CHECKING:
    from explorer.ui.tokens.lane import Lane
    from explorer.ui.tokens.pane import TokensPane

FINDING_ROWS = 14  # the findings table grows with its rows up to this many, then scrolls
MIN_BOTTOM = 130  # pixels the details and findings keep however long the text
EDITOR_LINES = 2  # lines the editor keeps however short its text (its line and one to type into)
EDITOR_SHARE = 0.25  # of the pane's height the editor grows to with its text, then scrolls
EDITOR_CROWDED = 0.15  # the same when the tokens do not all fit either: they are what the reader came for
LANES_SHARE = 0.6  # of the room below the editor the lanes keep when they scroll anyway
DETAILS_SHARE = 0.45  # of the width the details keep beside findings that want more


def details_least(pane: TokensPane) -> int:
    """The details at their smallest: EDITOR_LINES lines, scrolling (while compared lanes need the room)."""
    details = pane.details
    return EDITOR_LINES * details.fontMetrics().lineSpacing() + 2 * details.frameWidth() + 8


def share_lines(heights: Sequence[Sequence[int]], totals: Sequence[int], room: int,
                most: int | None = None) -> list[int] | None:
    """How many lines of tokens each compared lane shows in `room` pixels: `heights[i][k - 1]` is
    lane i's height with k lines, `totals[i]` the lines it has. One line each, then line by line
    to the lane that shows the smallest share of its lines and still has room for its next one
    (lanes differ in line height: a lane cut short by a tall line leaves the room to another), up
    to `most` lines each; None when not even one line each fits.

    >>> share_lines([[100, 150, 200], [90, 140]], [3, 2], 300)  # a third shown, then a half: one more each
    [2, 2]
    >>> share_lines([[100, 150, 200], [90, 140]], [3, 2], 250)
    [2, 1]
    """
    counts = [1] * len(heights)
    spare = room - sum(lane[0] for lane in heights)
    if spare < 0:
        return None
    while True:
        growing = [i for i, lane in enumerate(heights) if counts[i] < min(len(lane), most or len(lane))
                   and lane[counts[i]] - lane[counts[i] - 1] <= spare]
        if not growing:
            return counts
        pick = min(growing, key=lambda i: (counts[i] / max(1, totals[i]), i))  # (a tie: the upper lane)
        spare -= heights[pick][counts[pick]] - heights[pick][counts[pick] - 1]
        counts[pick] += 1


def lane_heights(lane: Lane, most: int) -> list[int]:
    """The lane's height showing 1, 2, ... of its lines of tokens, up to `most` (fewer if it has fewer)."""
    chrome = lane.chrome_height()
    return [chrome + lane.view.lines_height(lines) for lines in range(1, max(1, len(lane.view.line_bottoms(most))) + 1)]


def fit_lane_lines(pane: TokensPane, room: int, extra: int) -> int:
    """The lanes' least height once each keeps as many lines as let all fit in `room` with
    `extra` (legend, handles): MIN_LINES, else fewer, shared line by line (share_lines), down to
    one line each. Compared lanes then all show their summary and first lines without the lanes
    scrolling."""
    heights = [lane_heights(lane, MIN_LINES) for lane in pane.lanes]
    totals = [lane.view.line_count() for lane in pane.lanes]
    counts = share_lines(heights, totals, room - extra, MIN_LINES) or [1] * len(pane.lanes)
    for lane, lines in zip(pane.lanes, counts):
        lane.min_lines = lines
    return sum(lane.minimumSizeHint().height() for lane in pane.lanes) + extra


def share_lanes(pane: TokensPane, top: int, extra: int) -> int:
    """Size the compared lanes in a middle part `top` tall with `extra` (legend, handles); returns
    the height they take. Lanes that all fit get what they hold and the spare shared out evenly.
    Else each gets its summary and whole lines of its own line height (share_lines): a view does
    not draw the row its edge cuts (TokenView.whole_lines_bottom), so pixels short of a line would
    be a blank row-sized gap in the lane; they go to the details below instead."""
    lanes = pane.lanes
    room = top - extra
    wanted = [min(lane.wanted_height(), top) for lane in lanes]
    most = max(1, room // min(lane.view.fontMetrics().lineSpacing() for lane in lanes) + 1)
    heights = [lane_heights(lane, most) for lane in lanes] if sum(wanted) > room else []
    counts = share_lines(heights, [lane.view.line_count() for lane in lanes], room) if heights else None
    if counts is None:  # (not even a line each: the lanes scroll together)
        spare = max(0, room - sum(wanted)) // len(wanted)
        pane.lanes_widget.setSizes([max(w + spare, lane.minimumSizeHint().height()) for w, lane in zip(wanted, lanes)])
        return top
    for lane, lines in zip(lanes, counts):
        lane.min_lines = min(lines, MIN_LINES)  # (its least no more than it gets: else the lanes scroll)
    sizes = [lane[lines - 1] for lane, lines in zip(heights, counts)]
    pane.lanes_widget.setSizes(sizes)
    return sum(sizes) + extra


def to_whole_lines(lane: Lane, height: int) -> int:
    """Pixels to add to a lane `height` tall (negative: to take) for its view to end on a whole line
    of tokens, the nearest: its view does not draw the row its edge cuts (TokenView.whole_lines_bottom),
    so those pixels are better given to what is below, or a few taken from it for one more line.
    Lines are measured one by one (hex pieces and emoji make taller rows: a long mixed-script text
    left 39 px blank at 1280x800 in presentation mode when each line was taken as tall as the first)."""
    most = height // max(1, lane.view.fontMetrics().lineSpacing()) + 2
    heights = lane_heights(lane, most)
    shown = sum(1 for whole in heights if whole <= height)
    if shown == 0:
        return 0
    if shown == len(heights):  # every line in sight (fewer than `most`): the rest is blank, for below
        return heights[-1] - height if len(heights) < most else 0
    spare, line = height - heights[shown - 1], heights[shown] - heights[shown - 1]
    return -spare if 2 * spare < line else line - spare


def share_bottom(pane: TokensPane) -> None:
    """The findings as wide as their columns (none: their title), the details the rest; the details
    never narrower than one column of theirs needs, up to DETAILS_SHARE of the width."""
    bottom, findings, details = pane.bottom, pane.findings_panel, pane.details
    total = sum(bottom.sizes())
    if pane.bottom.dragged or total <= 0:
        return
    wanted = findings.wanted_width()
    keep = min(max(details.needed_width(1), total // 3), int(total * DETAILS_SHARE))
    right = max(findings.minimumSizeHint().width(), min(wanted, total - keep))
    bottom.setSizes([total - right, right])


def fit_to_content(pane: TokensPane) -> None:
    """Share the height between the editor, the token lanes and the details/findings by what each
    holds (see the module docstring). The legend is measured wrapped at its width, so a second
    line of it is the tokens' cost."""
    splitter = pane.splitter
    sizes = splitter.sizes()
    if pane.splitter.dragged or len(sizes) != 3 or sum(sizes) <= 0:
        return
    share_bottom(pane)
    for lane in pane.lanes:  # (a summary or a first line of tokens may have grown since)
        lane.min_lines = MIN_LINES
        lane.updateGeometry()
    handles = pane.lanes_widget.handleWidth() * (len(pane.lanes) - 1)
    legend = pane.legend.heightForWidth(max(pane.legend.width(), 200)) + 2
    lanes = sum(lane.wanted_height() for lane in pane.lanes) + handles + legend
    least = sum(lane.minimumSizeHint().height() for lane in pane.lanes) + handles + legend
    rows = min(pane.findings_panel.model.rowCount(), FINDING_ROWS)
    details = pane.details
    needed = int(details.document().size().height()) + 2 * details.frameWidth() + 4
    findings = pane.findings_panel
    bottom = max(MIN_BOTTOM, findings.wanted_height(max(rows, 3) if not findings.table.isHidden() else 0), needed)
    top_editor = editor_height(pane.editor, sum(sizes), EDITOR_SHARE, EDITOR_LINES)
    if top_editor + lanes + bottom > sum(sizes):  # the tokens scroll: the editor gives up some of its share
        top_editor = editor_height(pane.editor, sum(sizes), EDITOR_CROWDED, EDITOR_LINES)
    comparing = len(pane.lanes) > 1
    least_bottom = MIN_BOTTOM
    if comparing and top_editor + least + MIN_BOTTOM > sum(sizes):
        # Compared lanes that do not all fit: the details keep their least (two lines, they
        # scroll), each lane fewer lines of tokens, and when not even one line each fits beside
        # the prompt, the editor gives way too (down to one line: it scrolls)
        least_bottom = min(MIN_BOTTOM, max(details_least(pane), pane.bottom.minimumSizeHint().height()))
        least = fit_lane_lines(pane, sum(sizes) - top_editor - least_bottom, handles + legend)
        # The editor gives what they lack, in whole lines, down to one (at 1280x800 in presentation
        # mode three lanes and the special-token notice were 6 px short beside a two-line box)
        if top_editor + least + least_bottom > sum(sizes):
            least_editor, line = editor_least_height(pane.editor), pane.editor.fontMetrics().lineSpacing()
            least = fit_lane_lines(pane, sum(sizes) - least_editor - least_bottom, handles + legend)
            spare = max(0, min(top_editor, sum(sizes) - least - least_bottom) - least_editor)
            top_editor = least_editor + spare // line * line  # (whole lines: a line cut in half reads wrong)
    room = sum(sizes) - top_editor
    if lanes + bottom <= room:  # every token shows: the bottom what it needs, the tokens the rest
        top = room - bottom
    else:  # the lanes scroll anyway: they keep LANES_SHARE of the room, the bottom the rest ...
        top = max(room - bottom, min(lanes, int(room * LANES_SHARE)))
        # ... and the details within the rest stay whole if they can (findings rows scroll first);
        # else they scroll too: at 1280x800 in presentation mode they kept 8 rows whole and the
        # lanes of a long text 3 lines
        top = min(top, room - min(needed, room - int(room * LANES_SHARE)))
        if comparing:  # every compared lane in sight (its summary, its first lines) before the details
            top = max(top, least)
        else:  # a whole number of lines (the view does not draw the row its edge cuts)
            top += to_whole_lines(pane.main_lane, top - legend - handles)
    top = max(0, min(top, room - least_bottom))
    if comparing:
        top = share_lanes(pane, top, legend + handles)
    splitter.setSizes([top_editor, top, room - top])
