"""Live plots of a training run: compression against merges, merge counts, and a vocabulary sweep.

Each curve is created once and fed with `setData` from growing numpy buffers (no copies per
update), with downsampling and clip-to-view so 100,000 points redraw quickly. The sweep needs no
extra training: the merges of a 32K run, cut after 1K, 2K, ... are exactly the smaller
vocabularies, so their held-out bytes per token are points on the same run's curve.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QGraphicsItem, QScrollArea, QSizePolicy, QStackedWidget, QWidget

from explorer.core.algorithms.train import BYTE_VOCAB
from explorer.ui.pane import EmptyState, paint_band
from explorer.ui.zoom import fit_bottom_axis, fit_title_row

SWEEP_SIZES = (1024, 2048, 4096, 8192, 16384, 32768)
TRAIN_COLOR, HELD_OUT_COLOR, COUNT_COLOR, SWEEP_COLOR = "#0072B2", "#D55E00", "#009E73", "#CC79A7"
EMPTY_TITLE = "Train to see the curves"
EMPTY_HINT = ("Bytes per token as merges are learned, how often each new merge was seen, and compression at "
              "1K, 2K, 4K ... vocabulary sizes: they start with the first merge.")
SWEEP_HINT = ("A point appears as the run passes 1K, 2K, 4K ... (Sweep 1K-32K trains once to 32K: "
              "smaller vocabularies are its prefixes)")
# What a sweep plot too short for the whole hint says instead, longest first (a hint cut by the
# plot's edges reads as a broken plot).
SHORTER_SWEEP_HINTS = ("A point appears as the run passes 1K, 2K, 4K ...", "Points at 1K, 2K, 4K ...")
PLOT_PARTS = 4  # the plots are built in this many event-loop turns: a plot each, then their styles and curves
COUNT_FLOOR = -0.35  # the count axis starts below 1 and ends above its top decade, so both labels fit
COUNT_HEADROOM = 0.15
LABEL_GAP = 1.3  # decade labels at least this many label heights apart
CURVE_LINES = 2  # a plot's curve is at least this many tick labels high
PLOT_GAPS = 24  # px a plot loses to the layouts: the spacing between plots (6) and their margins (2 x 9)


def decade_text(power: int) -> str:
    """'1', '10', '100', '1k', '10k', '100k', '1M' ...: the labels of a count axis.

    >>> [decade_text(p) for p in range(8)]
    ['1', '10', '100', '1k', '10k', '100k', '1M', '10M']
    """
    for suffix, scale in (("G", 9), ("M", 6), ("k", 3)):
        if power >= scale:
            return f"{10 ** (power - scale)}{suffix}"
    return str(10 ** power) if power >= 0 else f"{10.0 ** power:g}"


def count_text(value: float) -> str:
    """A count between decades as the axis labels it: '2k', '1.5k', '300', '0.5'.

    >>> [count_text(v) for v in (2000, 1500, 300, 0.5, 2.5e6)]
    ['2k', '1.5k', '300', '0.5', '2.5M']
    """
    value = float(f"{value:.3g}")  # (three significant digits: the ends of a short range differ in them)
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


# Where the long titles do not fit (the axes say "rank" and "vocabulary size"). The longest of them
# sets the plots' least width, which the merges table beside them must leave: with 'Count of each
# merge' it was 347 px at 1280x800 in presentation mode, 12 px too many for ' neighbours' beside
# its parts.
SHORT_TITLES = ("Bytes per token:", "Merge counts", "Compression")


class DecadeAxis(pg.AxisItem):
    """A log axis labelled at whole decades only (1, 10, 100, 1k), skipping decades when they sit
    closer than a label allows; pyqtgraph's own labels 2 ... 9 between them pile into a stack."""

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, list[float]]]:  # noqa: N802,N803
        low, high = sorted((minVal, maxVal))
        first, last = math.ceil(low - 1e-9), math.floor(high + 1e-9)
        if size <= 0 or high <= low:
            return []
        if last < first:  # no whole decade in sight
            return [(1.0, self.short_range_ticks(low, high, first, last))]
        step = self.decade_step(high - low, size)
        start = math.ceil(first / step) * step
        majors = [float(v) for v in range(start, last + 1, step)]
        if len(majors) < 2:  # a short range (a zoom, a small plot): never one lone "1k"
            return [(1.0, self.short_range_ticks(low, high, first, last))]
        minors: list[float] = []
        if step == 1 and size / max(high - low, 1e-9) >= 4 * self.label_size():  # room for unlabelled 2 ... 9
            minors = [d + math.log10(m) for d in range(first - 1, last + 1) for m in range(2, 10)
                      if low <= d + math.log10(m) <= high]
        return [(float(step), majors), (0.1, minors)]

    @staticmethod
    def short_range_ticks(low: float, high: float, first: int, last: int) -> list[float]:
        """At least two labelled values in [low, high]: the outer whole decades when there are two,
        else the coarsest of 1-2-5, 1-2-3-5-7 or every digit times a decade that gives two, else
        the range's two ends."""
        if last > first:
            return [float(first), float(last)]
        for digits in ((1, 2, 5), (1, 2, 3, 5, 7), range(1, 10)):
            values = [d + math.log10(m) for d in range(first - 1, last + 2) for m in digits
                      if low - 1e-9 <= d + math.log10(m) <= high + 1e-9]
            if len(values) >= 2:
                return [values[0], values[-1]] if len(values) > 3 else values
        return [low, high]

    def decade_step(self, span: float, size: float) -> int:
        """Decades per label so that labels stand at least LABEL_GAP label sizes apart."""
        per_decade = size / max(span, 1e-9)
        step = 1
        while per_decade * step < LABEL_GAP * self.label_size():
            step += 1
        return step

    def label_size(self) -> float:
        """A label's extent along the axis: its height on a vertical axis, its width on a horizontal one."""
        metrics = QFontMetricsF(self.style.get("tickFont") or self.font())
        return metrics.height() if self.orientation in ("left", "right") else metrics.horizontalAdvance("100k") + 4

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        if spacing < 1:  # the unlabelled ticks between decades
            return ["" for _ in values]
        return [decade_text(round(v)) if abs(v - round(v)) < 1e-6 else count_text(10 ** v) for v in values]


class Series:
    """A growing pair of float arrays; views of the filled part are handed to pyqtgraph."""

    def __init__(self, capacity: int = 4096) -> None:
        self._x = np.empty(capacity)
        self._y = np.empty(capacity)
        self.size = 0

    def extend(self, xs: list[float], ys: list[float]) -> None:
        needed = self.size + len(xs)
        if needed > len(self._x):
            capacity = max(needed, 2 * len(self._x))
            self._x = np.resize(self._x, capacity)
            self._y = np.resize(self._y, capacity)
        self._x[self.size:needed] = xs
        self._y[self.size:needed] = ys
        self.size = needed

    def clear(self) -> None:
        self.size = 0

    @property
    def x(self) -> np.ndarray:
        return self._x[: self.size]

    @property
    def y(self) -> np.ndarray:
        return self._y[: self.size]


class PlotsPanel(QStackedWidget):
    """The plots, or before any merge a message saying what they will show (not empty axes).

    The plots are built after the panel, a part per event-loop turn (`build_part`, which the pane
    defers), or at once when first used: three pyqtgraph plots are half the cost of building the
    Training pane, and in one turn they froze the window for 100-240 ms while it was built in the
    background at start-up."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty = EmptyState(EMPTY_TITLE, EMPTY_HINT)
        self.empty.setObjectName("plotsEmpty")
        policy = self.empty.sizePolicy()  # the message wraps to the room it gets, never asks for more
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        self.empty.setSizePolicy(policy)
        # It scrolls when it is taller than the room (presentation mode at 1280x800 cut its last lines)
        self._empty_scroll = _vertical_scroll(self.empty)
        self.addWidget(self._empty_scroll)
        self._plots: TrainingPlots | None = None  # once all its plots are built
        self._building: TrainingPlots | None = None  # until then
        self._dark = False
        self._point_size: int | None = None

    def build_part(self) -> None:
        """Build the next of the PLOT_PARTS parts of the plots (nothing once they are built)."""
        if self._plots is not None:
            return
        if self._building is None:
            self._building = TrainingPlots(in_parts=True)
        else:
            self._building.build_next_part()
        if self._building.complete:
            self._add_plots(self._building)

    @property
    def built_plots(self) -> TrainingPlots | None:
        """The plots once built; None before (asking `plots` builds them)."""
        return self._plots

    @property
    def plots(self) -> TrainingPlots:
        while self._plots is None:
            self.build_part()
        return self._plots

    def _add_plots(self, plots: TrainingPlots) -> None:
        self._plots = plots
        self._plots.set_dark(self._dark)
        if self._point_size is not None:
            self._plots.set_font_size(self._point_size)
        # Each plot keeps the height its texts need (TrainingPlots.set_font_size); when the three
        # do not fit (presentation mode at 1280x800) they scroll instead of being squeezed.
        self._scroll = _vertical_scroll(self._plots)
        self._scroll.setObjectName("trainingPlotsScroll")
        self.addWidget(self._scroll)

    def set_dark(self, dark: bool) -> None:
        self._dark = dark
        if self._plots is not None:
            self._plots.set_dark(dark)

    def set_font_size(self, point_size: int) -> None:
        self._point_size = point_size
        if self._plots is not None:
            self._plots.set_font_size(point_size)

    def paint_hidden(self, band: int) -> None:
        """Paint band `band` of the plots while the message is still shown (see paint_band): shown
        after, they do not lay their axes out and draw them all in the turn they appear (two
        turns of 40-45 ms of GUI thread at the end of a Hugging Face run, issue 16)."""
        if self.showing_plots:
            return
        self.plots  # noqa: B018 (built, with its scroll area)
        self._scroll.resize(self.size())
        paint_band(self._scroll, band)

    def show_plots(self, shown: bool) -> None:
        self.plots  # noqa: B018 (built, with its scroll area)
        self.setCurrentWidget(self._scroll if shown else self._empty_scroll)

    @property
    def showing_plots(self) -> bool:
        return self._plots is not None and self.currentWidget() is self._scroll


class TrainingPlots(pg.GraphicsLayoutWidget):
    """Three plots stacked: bytes per token vs merges, count vs rank, held-out compression vs vocab size."""

    def __init__(self, parent: QWidget | None = None, in_parts: bool = False) -> None:
        super().__init__(parent)
        self.complete = False  # all built (`in_parts`: the first plot now, the rest a part per build_next_part)
        self._parts = self._build()
        next(self._parts)
        while not in_parts and not self.complete:
            self.build_next_part()

    def build_next_part(self) -> None:
        next(self._parts, None)

    def _build(self) -> Iterator[None]:
        self.setMinimumWidth(260)
        self.compression = self.addPlot(row=0, col=0, title="Bytes per token")
        self.compression.setLabel("bottom", "merges")
        self._title_points = 9
        self._label_font = QFont()  # axis labels, the sweep's hint and figures (set_font_size)
        self._label_font.setPointSize(9)
        self._tick_height = 16
        self._title_rows: dict[pg.PlotItem, int] = {}
        self._curve_names = ["training text"]
        yield
        self.counts = self.addPlot(row=1, col=0, title="Count of each new merge",
                                   axisItems={"left": DecadeAxis("left")})
        self.counts.setLabel("bottom", "rank")
        self.counts.setLogMode(x=False, y=True)
        yield
        self.sweep = self.addPlot(row=2, col=0, title="Compression vs vocabulary size")
        self.sweep.setLabel("bottom", "vocabulary size")
        # x is log2(size): evenly spaced doublings, labelled 1K ... 32K.
        self.sweep.getAxis("bottom").setTicks([[(math.log2(size), f"{size // 1024}K") for size in SWEEP_SIZES]])
        self.sweep.setXRange(math.log2(SWEEP_SIZES[0]) - 0.5, math.log2(SWEEP_SIZES[-1]) + 0.5, padding=0)
        self.sweep.setYRange(1.0, 5.0, padding=0)
        self.sweep.disableAutoRange()
        self.sweep_hint = pg.TextItem("", anchor=(0.5, 0.5))
        self.sweep.addItem(self.sweep_hint, ignoreBounds=True)
        yield
        for plot in (self.compression, self.counts, self.sweep):
            _never_wider_than_its_plot(plot.titleLabel)
            plot.setClipToView(True)
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.setMenuEnabled(False)
            for axis in ("left", "bottom"):
                # Axes redraw their ticks and labels only when the range changes; between, a cached
                # pixmap is enough (replaying their text is most of a plot's repaint otherwise).
                plot.getAxis(axis).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.train_curve = self.compression.plot(name="training text", pen=pg.mkPen(TRAIN_COLOR, width=2))
        self.held_out_curve = self.compression.plot(name="held-out text", pen=pg.mkPen(HELD_OUT_COLOR, width=2))
        self.count_curve = self.counts.plot(pen=pg.mkPen(COUNT_COLOR, width=1.5))
        self.sweep_curve = self.sweep.plot(pen=pg.mkPen(SWEEP_COLOR, width=2), symbol="o", symbolSize=8,
                                           symbolBrush=SWEEP_COLOR, symbolPen=None)
        for curve in (self.train_curve, self.held_out_curve, self.count_curve):
            curve.setDownsampling(auto=True, method="peak")
            curve.setClipToView(True)
        self.sweep_labels: list[pg.TextItem] = []
        self.train = Series()
        self.held_out = Series()
        self.count = Series()
        self.sweep_points: list[tuple[int, float]] = []
        self.sweep_source = "held-out text"
        self._labelled = []
        self._fixed = False
        self._max_bpt = self._top_bpt = 1.0
        self._max_count = self._top_count = 1
        self._dirty = False
        self.set_dark(False)
        self.sweep.vb.sigResized.connect(self._fit_sweep)  # (once the hint has its texts' colour and points)
        self.complete = True

    # Feeding

    def reset(self, corpus_bpt: float | None = None, held_out: bool = False, target: int = 0) -> None:
        """Start over; `target` merges fixes the x axes, so they are not re-laid out on every update."""
        for series in (self.train, self.held_out, self.count):
            series.clear()
        self._fixed = target > 0
        self._max_bpt = self._top_bpt = 1.0
        self._max_count = self._top_count = 1
        for plot in (self.compression, self.counts):
            if self._fixed:
                plot.disableAutoRange()
                plot.setXRange(0, target, padding=0.02)
            else:
                plot.enableAutoRange(x=True, y=True)
        if self._fixed:
            self.compression.setYRange(1.0, 2.0, padding=0.02)
            self.counts.setYRange(COUNT_FLOOR, 1, padding=0.02)
        if corpus_bpt:
            self.train.extend([0], [corpus_bpt])
        if held_out:
            self.held_out.extend([0], [1.0])  # before any merge, every byte is a token
        # The curves are named in the title, in their colours: a legend inside the plot sits on a curve sooner or later.
        self._curve_names = ["training text"] + (["held-out text"] if held_out else [])
        self.sweep_points = []
        self._labelled: list[tuple[int, float]] | None = None  # the last run's points and labels go at the next refresh
        self.sweep_source = "held-out text" if held_out else "training text"
        self._retitle()
        self._dirty = True

    def add(self, ranks: list[int], counts: list[int], train_bpt: list[float], held_out_bpt: list[float],
            vocab_sizes: list[int]) -> None:
        """Append one batch: x is the number of merges so far (rank + 1)."""
        xs = [r + 1 for r in ranks]
        self._max_bpt = max([self._max_bpt, *train_bpt, *held_out_bpt])
        self._max_count = max([self._max_count, *counts])
        if train_bpt:
            self.train.extend(xs, train_bpt)
        if held_out_bpt:
            self.held_out.extend(xs, held_out_bpt)
        if counts:
            self.count.extend(xs, counts)
        sweep_values = held_out_bpt or train_bpt
        if sweep_values:
            for size, value in zip(vocab_sizes, sweep_values):
                if size in SWEEP_SIZES:
                    self.sweep_points.append((size, value))
        self._dirty = True

    def refresh(self) -> None:
        """Push the buffers to the curves (called on a timer, not per batch)."""
        if not self._dirty:
            return
        self._dirty = False
        if self._fixed:
            self._grow_y_ranges()
        self.train_curve.setData(self.train.x, self.train.y)
        self.held_out_curve.setData(self.held_out.x, self.held_out.y)
        self.count_curve.setData(self.count.x, self.count.y)
        if self._labelled != self.sweep_points:  # the sweep changes a few times a run, not on every refresh
            if self.sweep_points:
                sizes, values = zip(*self.sweep_points)
                self.sweep_curve.setData(np.log2(np.array(sizes, dtype=float)), np.array(values))
            else:
                self.sweep_curve.setData([], [])
            self._update_sweep_labels()

    def _fit_sweep_range(self) -> None:
        """The sweep's y axis from 1 to over its highest point by the room that point's label takes,
        in pixels as the plot is now: 1.6 times the highest value left the label of a short plot
        cut by its top edge ('1K: 2.12' at 1920x1080 in presentation mode)."""
        if not self.sweep_points or not self.sweep_labels:
            return
        top = max(value for _, value in self.sweep_points)
        label = max(label.boundingRect().height() for label in self.sweep_labels)
        share = min(0.75, (1.3 * label + 4) / max(1.0, self.sweep.vb.height()))  # (anchored 1.3 heights up)
        needed = (top - share) / (1 - share)  # the point `share` of the plot's height below its top
        self.sweep.setYRange(1.0, max(2.0, math.ceil(max(top * 1.6, needed) * 2) / 2), padding=0)

    def _grow_y_ranges(self) -> None:
        """Widen the y axes in coarse steps, only when the data outgrow them: an axis whose range
        changes is laid out and drawn again, which is most of a plot's repaint."""
        if self._max_bpt > self._top_bpt:
            self._top_bpt = math.ceil(self._max_bpt * 1.1 * 2) / 2
            self.compression.setYRange(1.0, self._top_bpt, padding=0.02)
        if self._max_count > self._top_count:
            self._top_count = 10 ** math.ceil(math.log10(self._max_count) + 0.1)
            self.counts.setYRange(COUNT_FLOOR, math.log10(self._top_count) + COUNT_HEADROOM, padding=0.02)

    def _update_sweep_labels(self, force: bool = False) -> None:
        if not force and self._labelled == self.sweep_points:
            return
        self._labelled = list(self.sweep_points)
        self.sweep_hint.setFont(self._label_font)
        self._fit_sweep_hint()
        # No point yet: no figures on the y axis either (a dummy 2-3-4 scale reads as data)
        self.sweep.getAxis("left").setStyle(showValues=bool(self.sweep_points))
        for label in self.sweep_labels:
            self.sweep.removeItem(label)
        self.sweep_labels = []
        for size, value in self.sweep_points:
            label = pg.TextItem(f"{size // 1024}K: {value:.2f}", color=self._text_color, anchor=(0.5, 1.3))
            label.setFont(self._label_font)
            label.setPos(math.log2(size), value)
            self.sweep.addItem(label)
            self.sweep_labels.append(label)
        self._fit_sweep_range()  # (new points, or their figures in a new font)

    def _fit_sweep(self) -> None:
        self._fit_sweep_hint()
        self._fit_sweep_range()

    def _fit_sweep_hint(self) -> None:
        """Until the first point: the longest hint that fits the plot, wrapped to its width and
        centred in it (a TextItem is sized in pixels); none in a plot too small for the shortest."""
        view = self.sweep.vb
        self.sweep_hint.setTextWidth(max(80.0, view.width() - 16))
        for hint in ("",) if self.sweep_points else (SWEEP_HINT, *SHORTER_SWEEP_HINTS, ""):
            self.sweep_hint.setHtml(hint and f"<div style='text-align:center; color:{self._text_color.name()}'>"
                                             f"{hint}</div>")
            if self.sweep_hint.textItem.boundingRect().height() <= view.height():
                break
        (x0, x1), (y0, y1) = view.viewRange()
        self.sweep_hint.setPos((x0 + x1) / 2, (y0 + y1) / 2)

    def fit_x(self, merges: int) -> None:
        """Fit the x axes to the merges learned (a run that stopped early or was cancelled)."""
        if self._fixed and merges > 0:
            for plot in (self.compression, self.counts):
                plot.setXRange(0, merges, padding=0.02)

    # Looks

    def set_dark(self, dark: bool) -> None:
        background = QColor("#17181a" if dark else "#ffffff")
        self._text_color = QColor("#e8eaed" if dark else "#1f1f1f")
        self.setBackground(background)
        for plot in (self.compression, self.counts, self.sweep):
            for axis in ("left", "bottom"):
                item = plot.getAxis(axis)
                item.setPen(pg.mkPen(self._text_color))
                item.setTextPen(pg.mkPen(self._text_color))
        self._retitle()
        self._update_sweep_labels(force=True)

    def _retitle(self) -> None:
        """Each plot's title in the theme's text colour (pyqtgraph's default grey is too faint to
        read), on one line if the plot is wide enough, else on two; its row as tall as its lines.
        A title never widens the plots (pyqtgraph makes its width their minimum)."""
        colors = {"training text": TRAIN_COLOR, "held-out text": HELD_OUT_COLOR}
        font = self._title_font()
        metrics = QFontMetrics(font)
        widest = self.width() - 24
        short_bytes, short_counts, short_sweep = SHORT_TITLES
        titles = {self.compression: ("Bytes per token:", self._curve_names, short_bytes),
                  self.counts: ("Count of each new merge", [], short_counts),
                  self.sweep: ("Compression vs vocabulary size", [f"({self.sweep_source})"], short_sweep)}
        for plot, (head, tail, short_head) in titles.items():
            # The title is centred over the plot's area, right of its left axis: that is its room
            # (the plots' width less a margin was 30 px more, and "━ training text" ran off the edge).
            label = plot.titleLabel.boundingRect().width()
            room = int(min(widest, label - 8)) if label > 8 else widest
            one_line = " ".join([head, *(f"━ {n}" if n in colors else n for n in tail)])
            lines = 1 if not tail or metrics.horizontalAdvance(one_line) <= room else 2
            if metrics.horizontalAdvance(head) > room or (lines == 1 and metrics.horizontalAdvance(one_line) > room):
                head = short_head
            shown = [n.removesuffix(" text") if lines == 2 and n in colors else n for n in tail]
            parts = [f"<span style='color:{colors[n]}'>━ {short}</span>" if n in colors else short
                     for n, short in zip(tail, shown)]
            plot.setTitle(head + (" " if lines == 1 else "<br>") + " ".join(parts) if tail else head,
                          size=f"{self._title_points}pt", color=self._text_color.name())
            self._title_rows[plot] = fit_title_row(plot, font, lines)
        self._fit_minimum_height()

    def _title_font(self) -> QFont:
        font = QFont()
        font.setPointSize(self._title_points)
        return font

    def least_width(self) -> int:
        """Pixels the plots need for each title's shortest form on a line of its own, right of the
        left axis (narrower, 'Compression vs vocab size' ran past the plot's edge)."""
        metrics = QFontMetrics(self._title_font())
        axis = max(int(plot.getAxis("left").width()) for plot in (self.compression, self.counts, self.sweep))
        return max(map(metrics.horizontalAdvance, SHORT_TITLES)) + axis + 40

    def resizeEvent(self, event: QResizeEvent | None) -> None:  # noqa: N802 (Qt override; pyqtgraph passes None)
        super().resizeEvent(event)
        if getattr(self, "complete", False) and getattr(self, "_titled_width", None) != self.width():  # (not while built)
            self._titled_width = self.width()
            self._retitle()

    def set_font_size(self, point_size: int) -> None:
        font = QFont()
        font.setPointSize(max(8, point_size - 2))
        self._title_points = max(9, point_size - 1)
        self._label_font = font
        for plot in (self.compression, self.counts, self.sweep):
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setStyle(tickFont=font)
                plot.getAxis(axis).label.setFont(font)  # "merges", "rank": pyqtgraph's fixed 9 pt otherwise
                plot.getAxis(axis)._updateLabel()  # (pyqtgraph's own call to re-measure the axis for it)
            plot.getAxis("bottom").setHeight(None)
            fit_bottom_axis(plot.getAxis("bottom"), font)
        self._update_sweep_labels(force=True)  # the hint and the points' figures in the new font
        self._retitle()
        self._tick_height = QFontMetrics(font).height()
        self._fit_minimum_height()

    def _fit_minimum_height(self) -> None:
        """A plot is readable with its title, its axis and CURVE_LINES tick labels' height of curve:
        the three together are the least height of the widget (PlotsPanel scrolls below it)."""
        needed = sum(self._title_rows.get(plot, 0) + plot.getAxis("bottom").maximumHeight()
                     + (CURVE_LINES + 0.5) * self._tick_height + PLOT_GAPS for plot in (self.compression, self.counts, self.sweep))
        self.setMinimumHeight(int(needed))


def _vertical_scroll(widget: QWidget) -> QScrollArea:
    """`widget` in a frameless area that scrolls up and down only, at the area's width."""
    scroll = QScrollArea()
    scroll.setWidget(widget)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return scroll


def _never_wider_than_its_plot(label: pg.LabelItem) -> None:
    """pyqtgraph makes a title's width its plot's minimum, again at every resize: a long title at
    presentation mode's font then widened the plots past their view, cut at the right. The title
    goes onto two lines instead when its plot is narrow (TrainingPlots._retitle)."""
    update_min = label.updateMin

    def update_min_but_width() -> None:
        update_min()
        label.setMinimumWidth(0)

    label.updateMin = update_min_but_width  # type: ignore[method-assign]
    label.setMinimumWidth(0)


def sweep_sizes_reached(first_vocab: int, last_vocab: int) -> list[int]:
    """The sweep sizes a batch passes (vocabulary sizes are 256 + merges + specials)."""
    return [size for size in SWEEP_SIZES if first_vocab <= size <= last_vocab]


def vocab_size_after(rank: int, specials: int) -> int:
    return BYTE_VOCAB + rank + 1 + specials
