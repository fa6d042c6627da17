"""The Merges pane: the vocabulary table, merge trees, "used by", the encode trace and the audit."""

from __future__ import annotations

from explorer.ui.merges.pane import MergesPane
from explorer.ui.session import Session


def create_pane(session: Session) -> MergesPane:
    return MergesPane(session)
