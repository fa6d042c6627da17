"""A splitter whose sizes a pane fits to what each part holds, until the user drags a handle."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QWidget


class FittedSplitter(QSplitter):
    """`dragged` once the user has moved a handle: from then on the sizes are theirs, and the
    pane's fitting leaves them alone (`setSizes` from code does not count as a drag)."""

    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self.dragged = False
        self.splitterMoved.connect(self._on_moved)

    def _on_moved(self, _position: int, _index: int) -> None:
        self.dragged = True
