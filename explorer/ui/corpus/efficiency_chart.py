"""The efficiency pivot: sources down, tokenizers across, and the same figures as grouped bars.

The bar chart is for a slide: one group per source, one colour per tokenizer, and Export PNG
writes it at 1600 px wide. pyqtgraph is imported when the chart is first built, not when the
Corpus pane is, so the pane opens without its import time.
"""

from __future__ import annotations

from PySide6.QtCore import (QAbstractTableModel, QBuffer, QByteArray, QEvent, QIODevice, QModelIndex, QPersistentModelIndex,
                            Qt)
from PySide6.QtGui import QColor, QFontMetrics, QImage
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from explorer.core.analysis.efficiency import METRICS, Pivot
from explorer.core.files import write_atomic
from explorer.ui.theme import OKABE_ITO
from explorer.ui.timers import call_later
from explorer.ui.zoom import style_plot

ModelIndex = QModelIndex | QPersistentModelIndex
EXPORT_WIDTH = 1600  # pixels: sharp on a projector, small enough to mail
LEGEND_ROW = 4  # of the PlotItem's layout: under the bottom axis (rows 0-3: title, top axis, plot, bottom axis)
VALUE_FORMATS = ("{:.2f}", "{:.1f}", "{:.0f}")  # a bar's figure, shorter until it fits above its bar
LABEL_GAP = 4  # pixels between two bars' figures
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
        self._values: list[tuple[object, float | None]] = []  # (TextItem over a bar, its figure)

    def _build(self) -> None:
        import pyqtgraph as pg  # here, not at import: see the module docstring

        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.showGrid(x=False, y=True, alpha=0.25)
        # The legend is a row of the plot's own layout, under the axis, not an item over the bars:
        # the layout gives it the height it needs at every zoom and the bars get the rest.
        item = self.plot.getPlotItem()
        self._legend = _legend_row()
        item.layout.addItem(self._legend, LEGEND_ROW, 1)
        item.legend = self._legend  # named bars are listed in it (PlotItem.addItem)
        self.plot.getViewBox().sigResized.connect(self._fit)
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
        self._values = []
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
            for x, value in zip(xs, (pivot.values[row][column] for row in range(len(pivot.sources)))):
                text = pg.TextItem("", color=foreground, anchor=(0.5, 1))  # its figure: see _fit_values
                text.setPos(x, value or 0.0)
                plot.addItem(text)
                self._bars.append(text)
                self._values.append((text, value))
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
        plot.setXRange(-0.6, max(0, len(pivot.sources) - 1) + 0.6, padding=0)
        style_plot(plot.getPlotItem(), self.font())  # the zoom's font (presentation mode: large)
        self._fit()

    def _fit(self) -> None:
        """The legend in as many columns as the plot's width holds, and room above the tallest bar
        for its figure: the label's height in pixels of the view box as laid out now (a fixed share
        of the range is too little at presentation mode's font)."""
        if self.plot is None:
            return
        room = self.plot.width() - self.plot.getAxis("left").width() - 24
        columns = max(1, min(len(self._legend.items), 4))
        while columns > 1 and _legend_width(self._legend.items, columns) > room:
            columns -= 1
        self._legend.setColumnCount(columns)
        self._legend.updateGeometry()
        top = max((v for row in self.pivot.values for v in row if v is not None), default=1.0) or 1.0
        label = QFontMetrics(self.font()).height() * 1.5  # (a TextItem pads its text)
        share = min(0.6, label / max(1.0, self.plot.getViewBox().height()))
        self.plot.setYRange(0, top / (1 - share), padding=0)
        self._fit_values()

    def _fit_values(self) -> None:
        """Each bar's figure as precise as the bar's width holds ('42.00', then '42.0', then '42'), or
        none if even that is wider: neighbouring figures must never run into each other."""
        if not self._values:
            return
        count = max(1, len(self.pivot.tokenizers))
        view = self.plot.getViewBox()
        (x0, x1), _ = view.viewRange()
        pitch = view.width() * (0.8 / count) / max(1e-9, x1 - x0)  # pixels from one bar's centre to the next
        chosen = ""
        for pattern in VALUE_FORMATS:
            for item, value in self._values:
                item.setText("—" if value is None else pattern.format(value))
            if max(_ink_width(item) for item, _ in self._values) + LABEL_GAP <= pitch:
                chosen = pattern
                break
        for item, _ in self._values:
            item.setVisible(bool(chosen))

    def image(self, width: int = EXPORT_WIDTH) -> QImage:
        """The chart drawn at `width` pixels wide, in the on-screen proportions (pyqtgraph's exporter
        lays the plot out again at that size, so text stays sharp)."""
        if self.plot is None:
            self.set_pivot(self.pivot, self.dark)
        from pyqtgraph.exporters import ImageExporter

        exporter = ImageExporter(self.plot.getPlotItem())
        exporter.parameters()["width"] = width
        exporter.parameters()["background"] = QColor("#17181a") if self.dark else QColor("#ffffff")
        image = exporter.export(toBytes=True)  # (the legend is in the plot's layout: scaled with it)
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
            call_later(self, lambda: self.set_pivot(self.pivot, self.dark))


def _ink_width(label: object) -> float:
    """The width of a TextItem's text in pixels: its font, without the margins it keeps around it."""
    text = label.textItem  # type: ignore[attr-defined]
    return float(text.boundingRect().width() - 2 * text.document().documentMargin())


def _legend_width(items: list[tuple[object, object]], columns: int) -> float:
    """The width of a legend of (sample, label) `items` laid out in `columns` columns."""
    widths = [0.0] * columns
    for number, (sample, label) in enumerate(items):
        entry = sample.boundingRect().width() + label.item.boundingRect().width() + 16  # type: ignore[attr-defined]
        widths[number % columns] = max(widths[number % columns], entry)
    return sum(widths)


def _legend_row() -> object:
    """A pyqtgraph legend that lives in a layout: when its entries change it asks the layout for
    its new size (pyqtgraph's own moves itself to the corner of its parent instead)."""
    import pyqtgraph as pg

    class LegendRow(pg.LegendItem):
        def updateSize(self) -> None:  # noqa: N802 (pyqtgraph override)
            self.updateGeometry()

    legend = LegendRow(offset=None)
    # pyqtgraph's legend ignores the view's scale (it floats over the plot at a fixed size); in the
    # layout it must scale with the rest, or the PNG export shrinks it against the larger plot.
    legend.setFlag(legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
    # Never wider than the plot: too many names take more rows (see EfficiencyChart._fit), not more width.
    legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return legend


def _short(name: str, limit: int = 22) -> str:
    """'Sample: English (garden story)' -> 'English'; long names cut, so the ticks do not overlap."""
    shown = name.removeprefix("Sample: ").removeprefix("Toy: ").split(" (")[0]
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
