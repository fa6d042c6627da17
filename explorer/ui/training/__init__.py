"""The Training pane: watch a tokenizer being born, merge by merge, without a frozen window."""

from __future__ import annotations

from explorer.ui.session import Session
from explorer.ui.training.pane import TrainingPane


def create_pane(session: Session) -> TrainingPane:
    return TrainingPane(session)
