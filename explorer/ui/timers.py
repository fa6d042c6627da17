"""Calls put off to a later event-loop turn, tied to the widget they are for.

`QTimer.singleShot(0, context, callable)` keeps `callable` for good when `context` is deleted
before the call is due (PySide6 6.11: a pane's pending `self.fit_to_content` then held the pane,
its window and the session, ~100 MB each, tests/ui/test_main_window.py). A timer that is a child
of the context goes with it, and its connection lets go of the callable.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

# The next step of a long change in a later frame: a zero timer started from a timer's slot runs
# in the same pass of the event loop, before the window's other timers and paint (measured: two
# 20 ms steps chained by a zero timer were one 40-47 ms gap of a 5 ms timer; by a 1 ms timer, 25 ms).
NEXT_FRAME_MS = 1


def call_later(context: QObject, slot: Callable[[], object], ms: int = 0) -> None:
    """Call `slot` in `ms` milliseconds (0: on the next event-loop turn), unless `context` is
    deleted first."""
    timer = QTimer(context)
    timer.setSingleShot(True)
    timer.timeout.connect(slot)
    timer.timeout.connect(timer.deleteLater)
    timer.start(ms)


def once_next_turn(context: QObject, slot: Callable[[], object]) -> QTimer:
    """A timer that calls `slot` on the next event-loop turn, once however often it is started in
    this one (a splitter drag resizes many times a turn; the fit after it need run once)."""
    timer = QTimer(context)
    timer.setSingleShot(True)
    timer.setInterval(0)
    timer.timeout.connect(slot)
    return timer
