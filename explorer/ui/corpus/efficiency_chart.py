"""The efficiency pivot: sources down, tokenizers across, and the same figures as grouped bars.

The bar chart is for a slide: one group per source, one colour per tokenizer, and Export PNG
writes it at 1600 px wide. pyqtgraph is imported when the chart is first built, not when the
Corpus pane is, so the pane opens without its import time.
"""

from __future__ import annotations

from PySide6.QtCore import (QAbstractTableModel, QBuffer, QByteArray, QEvent, QIODevice, QModelIndex, QPersistentModelIndex,
                            Qt, QTimer)
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QVBoxLayout, QWidget

from explorer.core.analysis.efficiency import METRICS, Pivot
from explorer.core.files import write_atomic
from explorer.ui.theme import OKABE_ITO
from explorer.ui.zoom import style_plot

ModelIndex = QModelIndex | QPersistentModelIndex
EXPORT_WIDTH = 1600  # pixels: sharp on a projector, small enough to mail
MAX_VALUE_LABELS = 36  # bars; more and the figures above them would overlap
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def tokenizer_color(index: int) -> QColor:
    return QColor(OKABE_ITO[index % len(OKABE_ITO)])


class PivotModel(QAbstractTableModel):
    """The pivot as a table: a row per source, a column per tokenizer."""

    def __init__(self, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.pivot = Pivot("tokens_per_word", (), (), ())

    def set_pivot(self, pivot: Pivot) -> None:
        self.beginResetModel()
        self.pivot = pivot
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self.pivot.sources)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.pivot.tokenizers)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        names = self.pivot.tokenizers if orientation == Qt.Orientation.Horizontal else self.pivot.sources
        if not 0 <= section < len(names):
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return names[section]
        if role == Qt.ItemDataRole.DecorationRole and orientation == Qt.Orientation.Horizontal:
            return tokenizer_color(section)  # the bar colour of this tokenizer
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not (0 <= index.row() < len(self.pivot.sources)
                                       and 0 <= index.column() < len(self.pivot.tokenizers)):
            return None
        value = self.pivot.values[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return "—" if value is None else f"{value:.2f}"
        if role == Qt.ItemDataRole.UserRole:
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            shown = "unknown" if value is None else f"{value:.4f}"
            return (f"{self.pivot.tokenizers[index.column()]} on {self.pivot.sources[index.row()]}: "
                    f"{shown} {METRICS[self.pivot.metric]}")
        return None


class EfficiencyChart(QWidget):
    """Grouped bars of a Pivot; built on first use (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumHeight(220)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.plot: object = None  # pyqtgraph.PlotWidget, once built
        self.pivot = Pivot("tokens_per_word", (), (), ())
        self.dark = False
        self._bars: list[object] = []

    def _build(self) -> None:
        import pyqtgraph as pg  # here, not at import: see the module docstring

        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.showGrid(x=False, y=True, alpha=0.25)
        self._legend = self.plot.addLegend(offset=(10, 5))
        self._layout.addWidget(self.plot)

    def set_pivot(self, pivot: Pivot, dark: bool) -> None:
        self.pivot, self.dark = pivot, dark
        if self.plot is None:
            self._build()
        import pyqtgraph as pg

        plot = self.plot
        for bar in self._bars:
            plot.removeItem(bar)
        self._bars = []
        self._legend.clear()
        background, foreground = ("#17181a", "#e8eaed") if dark else ("#ffffff", "#1f1f1f")
        plot.setBackground(background)
        count = max(1, len(pivot.tokenizers))
        width = 0.8 / count
        for column, tokenizer in enumerate(pivot.tokenizers):
            xs = [row + (column - (count - 1) / 2) * width for row in range(len(pivot.sources))]
            heights = [pivot.values[row][column] or 0.0 for row in range(len(pivot.sources))]
            bar = pg.BarGraphItem(x=xs, height=heights, width=width * 0.92, brush=tokenizer_color(column),
                                  pen=pg.mkPen(background), name=tokenizer)
            plot.addItem(bar)  # named: the legend lists it
            self._bars.append(bar)
            if len(pivot.sources) * count <= MAX_VALUE_LABELS:
                for x, value in zip(xs, (pivot.values[row][column] for row in range(len(pivot.sources)))):
                    text = pg.TextItem("—" if value is None else f"{value:.2f}", color=foreground, anchor=(0.5, 1))
                    text.setPos(x, value or 0.0)
                    plot.addItem(text)
                    self._bars.append(text)
        self._legend.setColumnCount(min(count, 4))  # across the top, above the bars
        for label in self._legend.items:
            label[1].setAttr("color", foreground)
            label[1].setText(label[1].text)
        axis = plot.getAxis("bottom")
        axis.setTicks([[(row, _short(source)) for row, source in enumerate(pivot.sources)]])
        for name in ("bottom", "left"):
            plot.getAxis(name).setPen(foreground)
            plot.getAxis(name).setTextPen(foreground)
        plot.setLabel("left", METRICS[pivot.metric], color=foreground)
        plot.setTitle(f"{METRICS[pivot.metric].capitalize()} by source", color=foreground)
        top = max((v for row in pivot.values for v in row if v is not None), default=1.0)
        plot.setXRange(-0.6, max(0, len(pivot.sources) - 1) + 0.6, padding=0)
        plot.setYRange(0, top * (1.25 + 0.1 * ((count - 1) // 4)), padding=0)  # room for labels and legend
        style_plot(plot.getPlotItem(), self.font())  # the zoom's font (presentation mode: large)

    def image(self, width: int = EXPORT_WIDTH) -> QImage:
        """The chart drawn at `width` pixels wide, in the on-screen proportions (pyqtgraph's exporter
        lays the plot out again at that size, so text stays sharp)."""
        if self.plot is None:
            self.set_pivot(self.pivot, self.dark)
        from pyqtgraph.exporters import ImageExporter

        exporter = ImageExporter(self.plot.getPlotItem())
        exporter.parameters()["width"] = width
        exporter.parameters()["background"] = QColor("#17181a") if self.dark else QColor("#ffffff")
        # The exporter scales the plot's text but not the legend, which sits over the view box as
        # a fixed-size item: scale it by hand for the export, then put it back.
        self._legend.setScale(width / max(1, self.plot.width()))
        try:
            image = exporter.export(toBytes=True)
        finally:
            self._legend.setScale(1.0)
        return image if isinstance(image, QImage) else QImage()

    def export_png(self, path: str, width: int = EXPORT_WIDTH) -> None:
        """Write the chart as a PNG; raises OSError if it cannot be written or read back."""
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not self.image(width).save(buffer, "PNG"):
            raise OSError(f"{path}: Qt could not encode the chart as PNG")
        buffer.close()
        write_atomic(path, bytes(data.data()))
        check = QImage()
        if not check.load(path, "PNG"):
            raise OSError(f"{path}: the PNG written cannot be read back")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        """A new zoom: the chart's texts follow the font (after Qt has handed it to every widget)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and self.plot is not None:
            QTimer.singleShot(0, self, lambda: self.set_pivot(self.pivot, self.dark))


def _short(name: str, limit: int = 22) -> str:
    """'Sample: English (garden story)' -> 'English'; long names cut, so the ticks do not overlap."""
    shown = name.removeprefix("Sample: ").removeprefix("Toy: ").split(" (")[0]
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
