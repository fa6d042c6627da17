"""The Tokens pane: a prompt, its coloured tokens, counts, comparison, findings and export."""

from __future__ import annotations

from explorer.ui.session import Session
from explorer.ui.tokens.pane import TokensPane


def create_pane(session: Session) -> TokensPane:
    return TokensPane(session)
