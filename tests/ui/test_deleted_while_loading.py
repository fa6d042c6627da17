"""A pane deleted while a tokenizer it asked for is still loading: the load's end must not call
into the pane's deleted widgets (as CI once saw from a Chunks column's job, 9c52a2c)."""

from __future__ import annotations

import shiboken6
from pytestqt.qtbot import QtBot

from explorer.ui.chat.pane import ChatPane
from explorer.ui.session import Session
from explorer.ui.tokens import create_pane


def loads_running(session: Session) -> list[object]:
    running = [job for job in session.workers.running if job.name.startswith("loading")]
    assert running, "no load was running: the test would prove nothing"
    return running


def end_quietly(qtbot: QtBot, running: list[object]) -> None:
    qtbot.waitUntil(lambda: all(job.done for job in running), timeout=30_000)  # type: ignore[attr-defined]
    qtbot.wait(50)  # (their signals delivered: an exception in a slot fails the test)


def test_a_tokens_pane_deleted_while_a_compared_tokenizer_loads(qtbot: QtBot, session: Session) -> None:
    pane = create_pane(session)
    pane.set_text("hello world")
    pane.add_compare("o200k_base")
    running = loads_running(session)
    shiboken6.delete(pane)
    end_quietly(qtbot, running)
    assert "o200k_base" in session.loaded  # (the load itself is kept for the next pane)


def test_a_chat_pane_deleted_while_its_compared_tokenizer_loads(qtbot: QtBot, session: Session) -> None:
    pane = ChatPane(session)
    box = pane.compare_tokenizer
    box.setCurrentIndex(box.findData("o200k_base"))
    running = loads_running(session)
    shiboken6.delete(pane)
    end_quietly(qtbot, running)
