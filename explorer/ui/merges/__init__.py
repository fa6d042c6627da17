"""The Merges pane: the vocabulary table, merge trees, "used by", the encode trace and the audit.

The pane is imported when it is created, so importing this package needs no Qt (packaging
checks walk the package without a display or PySide6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.ui.merges.pane import MergesPane
    from explorer.ui.session import Session


def create_pane(session: Session) -> MergesPane:
    from explorer.ui.merges.pane import MergesPane

    return MergesPane(session)
