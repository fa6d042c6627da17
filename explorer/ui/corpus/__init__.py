"""The Corpus pane: sources and their statistics, a held-out text, and the efficiency table."""

from __future__ import annotations

from explorer.ui.corpus.pane import CorpusPane
from explorer.ui.session import Session


def create_pane(session: Session) -> CorpusPane:
    return CorpusPane(session)
