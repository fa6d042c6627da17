"""One rule scrolls the Bytes strip's bands and the decoder lanes' lines (explorer/ui/line_scroll.py):
the view starts where a line starts, and shows its target whole. There were two copies of it."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from explorer.ui import line_scroll
from explorer.ui.bytes import create_pane
from explorer.ui.line_scroll import whole_line_scroll
from explorer.ui.session import Session

TOPS = [0.0, 30.0, 70.0, 100.0, 140.0]  # lines of unequal height (mixed scripts), content 170 px


@pytest.mark.parametrize(("target", "current", "expected"), [
    ((140, 170), None, (70, 0)),  # the end in a 100 px view: the earliest line top that shows it
    ((140, 170), 75, (75, 5)),  # already showing it whole: stays
    ((30, 70), 0, (0, 0)),
    ((100, 140), 0, (70, 0)),
    ((0, 30), 100, (0, 0)),  # back to the top
])
def test_the_view_starts_at_a_line_and_shows_its_target_whole(target: tuple[float, float], current: float | None,
                                                              expected: tuple[int, int]) -> None:
    value, tail = whole_line_scroll(TOPS, 170, 100, target, current)
    assert (value, tail) == expected
    assert value <= target[0] and target[1] <= value + 100
    assert value + 100 <= 170 + tail  # the blank room makes that scroll possible


def test_a_target_taller_than_the_view_starts_at_its_own_line() -> None:
    value, tail = whole_line_scroll(TOPS, 170, 20, (100, 140))
    assert value == 100 and tail == 0


def test_the_strip_and_the_lanes_scroll_by_this_one_rule(qtbot: QtBot, session: Session,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def spy(*args: object, **kwargs: object) -> tuple[int, int]:
        import inspect
        calls.append(inspect.stack()[1].frame.f_globals["__name__"])
        return line_scroll.whole_line_scroll(*args, **kwargs)  # type: ignore[arg-type]

    from explorer.ui.bytes import lanes, strip
    monkeypatch.setattr(lanes, "whole_line_scroll", spy)
    monkeypatch.setattr(strip, "whole_line_scroll", spy)
    pane = create_pane(session)
    qtbot.addWidget(pane)
    pane.resize(700, 500)
    pane.show()
    pane.set_text("नमस्ते दुनिया! आज मौसम बहुत अच्छा है। " * 12)
    pane.to_end()
    qtbot.waitUntil(lambda: {"explorer.ui.bytes.lanes", "explorer.ui.bytes.strip"} <= set(calls), timeout=5000)


@pytest.mark.parametrize(("view", "expected"), [
    (100, 100.0),  # the line 70-100 ends at the edge: drawn whole; 100-140 would be cut
    (120, 100.0),  # cut mid-line: drawn down to the last whole line
    (170, 170),  # every line whole
    (20, 20),  # shorter than the first line: what it can
])
def test_the_row_the_bottom_edge_would_cut_is_not_drawn(view: float, expected: float) -> None:
    bottoms = TOPS[1:] + [170.0]
    assert line_scroll.whole_lines_bottom(bottoms, view) == expected
