"""The Chunks pane: pre-tokenizer patterns side by side, as coloured chunk boxes."""

from __future__ import annotations

from explorer.ui.chunks.pane import ChunksPane
from explorer.ui.session import Session


def create_pane(session: Session) -> ChunksPane:
    return ChunksPane(session)
