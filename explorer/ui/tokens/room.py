"""How the Tokens pane shares its room: by what each part holds, not by fixed proportions.

Top to bottom: the prompt editor, the token lanes with their legend, then the token details
beside the findings. The editor is as tall as its text (a few lines, at most a quarter; a sixth when the tokens scroll); the
findings are as wide as their columns, none at all when there are no findings, so the details
stand in two columns, half as tall; the lanes get what the details and findings leave, or, when
the lanes hold more than the room, the larger share (they scroll as one, each keeping a few lines).
"""

from __future__ import annotations

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


def fit_lane_lines(pane: TokensPane, room: int, extra: int) -> int:
    """The lanes' least height once each keeps as many lines as let all fit in `room` with
    `extra` (legend, handles): MIN_LINES, else fewer, down to one line each. Compared lanes then
    all show their summary and first lines without the lanes scrolling."""
    least = 0
    for lines in range(MIN_LINES, 0, -1):
        for lane in pane.lanes:
            lane.min_lines = lines
        least = sum(lane.minimumSizeHint().height() for lane in pane.lanes) + extra
        if least <= room:
            break
    return least


def to_whole_lines(lane: Lane, height: int) -> int:
    """Pixels to add to a lane `height` tall (negative: to take) for its view to end on a whole line
    of tokens, the nearest: its view does not draw the row its edge cuts (TokenView.whole_lines_bottom),
    so those pixels are better given to what is below, or a few taken from it for one more line."""
    view = lane.view
    line = view.lines_height(2) - view.lines_height(1)
    room = height - lane.chrome_height()
    if line <= 0 or room < view.lines_height(1):
        return 0
    spare = (room - view.lines_height(1)) % line
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
    splitter.setSizes([top_editor, top, room - top])
    if len(pane.lanes) > 1:  # each lane as much as it holds, the spare shared out evenly
        wanted = [min(lane.wanted_height(), top) for lane in pane.lanes]
        spare = max(0, top - legend - handles - sum(wanted)) // len(wanted)
        pane.lanes_widget.setSizes([max(w + spare, lane.minimumSizeHint().height())
                                    for w, lane in zip(wanted, pane.lanes)])
