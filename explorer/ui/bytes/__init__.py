"""The Bytes pane: UTF-8 bytes and bits per character, tokens over them, and a streamed decode."""

from __future__ import annotations

from explorer.ui.bytes.pane import BytesPane
from explorer.ui.session import Session


def create_pane(session: Session) -> BytesPane:
    return BytesPane(session)
