"""The exception hook keeps unsaved trained tokenizers and brings them back at the next start."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.train import train
from explorer.core.formats.own import from_merges
from explorer.ui import crash
from explorer.ui.session import Session


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(crash, "state_dir", lambda: tmp_path)
    return tmp_path


def test_crash_saves_work_logs_and_restores(qtbot: QtBot, session: Session, state: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    tokenizer = from_merges(list(train(["the cat sat on the mat"] * 3, 270, "gpt2")), "gpt2", name="cats")
    session.add_trained(tokenizer)
    shown: list[str] = []
    monkeypatch.setattr(crash, "show_crash_dialog", lambda error, report, saved, parent=None: shown.append(report))
    old_hook = sys.excepthook
    try:
        crash.install_excepthook(session)
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
    finally:
        sys.excepthook = old_hook
    assert shown and "RuntimeError: boom" in shown[0]
    assert "RuntimeError: boom" in (state / "crash.log").read_text(encoding="utf-8")
    assert [p.name for p in crash.pending_recovery()] == ["cats.json"]

    fresh = Session(session.settings)
    restored = crash.restore_recovery(fresh)
    assert restored == ["tokenizer cats"]
    assert fresh.trained["cats"].encode("the cat") == tokenizer.encode("the cat")
    assert not crash.pending_recovery()
    fresh.shutdown()
    fresh.deleteLater()
