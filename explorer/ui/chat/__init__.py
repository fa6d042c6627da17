"""The Chat pane: a conversation, a chat template, and the prompt's tokens with control tokens marked."""

from __future__ import annotations

from explorer.ui.chat.pane import ChatPane
from explorer.ui.session import Session


def create_pane(session: Session) -> ChatPane:
    return ChatPane(session)
