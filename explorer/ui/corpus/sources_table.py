"""The Corpus pane's table of sources: the Scripts column takes the room the names leave.

Two stretched columns share the spare width equally, so at a large font the short file names kept
half of it while the Scripts cell (the widest text, the Total row's list of scripts) was elided.
Here the Source column is as wide as its names, up to a third of the table, and Scripts stretches.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHeaderView, QTableView

from explorer.ui.corpus.models import NAME, SCRIPTS

NAME_SHARE = 3  # the Source column takes at most 1/NAME_SHARE of the table's width


class SourcesTable(QTableView):
    def setModel(self, model: object) -> None:  # noqa: N802 (Qt override)
        super().setModel(model)  # type: ignore[arg-type]
        header = self.horizontalHeader()  # (the modes of sections that exist: set with the model)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(SCRIPTS, QHeaderView.ResizeMode.Stretch)
        for signal in (model.modelReset, model.rowsInserted, model.rowsRemoved, model.dataChanged):  # type: ignore[attr-defined]
            signal.connect(self.fit_name_column)

    def fit_name_column(self, *_: object) -> None:
        """The Source column as wide as its longest name (and header), up to its share of the table."""
        wanted = max(self.sizeHintForColumn(NAME), self.horizontalHeader().sectionSizeHint(NAME))
        self.horizontalHeader().resizeSection(NAME, max(40, min(wanted, self.viewport().width() // NAME_SHARE)))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit_name_column()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (a zoom: the names' width changed)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.fit_name_column()
