"""Presentation mode at a laptop's 1280x800 (issue 12): the large font must not make parts of a
pane overlap or shrink to nothing. Offscreen, with the application font at presentation size."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.core.analysis.efficiency import Pivot
from explorer.ui.corpus.efficiency_chart import EfficiencyChart
from explorer.ui.session import Session
from explorer.ui.theme import BASE_POINT_SIZE, PRESENTATION_POINT_SIZE
from explorer.ui.zoom import apply_zoom


@pytest.fixture
def presenting(qapp: QApplication, session: Session) -> Iterator[Session]:
    """The application font at presentation mode's size (as F5 sets it)."""
    session.set_point_size(PRESENTATION_POINT_SIZE, remember=False)
    apply_zoom(PRESENTATION_POINT_SIZE)
    yield session
    apply_zoom(BASE_POINT_SIZE)


def bar_rects(chart: EfficiencyChart) -> list[QRectF]:
    """Each bar's rectangle in scene coordinates."""
    view = chart.plot.getViewBox()
    rects = []
    for item in chart._bars:
        options = getattr(item, "opts", {})
        if "height" not in options or options.get("x") is None:
            continue
        for x, height in zip(options["x"], options["height"]):
            half = options["width"] / 2
            rects.append(view.mapViewToScene(QRectF(x - half, 0, 2 * half, height)).boundingRect())
    return rects


@pytest.mark.parametrize("names", [("GPT-4o (o200k_base)", "GPT-3.5, GPT-4 (cl100k_base)", "GPT-2, GPT-3 (r50k_base)"),
                                   tuple(f"tokenizer number {n}" for n in range(6))])
@pytest.mark.parametrize("size", [(900, 300), (900, 420), (1600, 600)])
def test_the_efficiency_legend_never_covers_a_bar(qtbot: QtBot, presenting: Session, names: tuple[str, ...],
                                                  size: tuple[int, int]) -> None:
    sources = ("English", "Hindi", "Korean", "Arabic", "Python code")
    values = tuple(tuple(1.0 + (row + column) % 3 for column in range(len(names))) for row in range(len(sources)))
    values = ((9.0,) * len(names),) + values[1:]  # a tall first group, under where a legend would float
    chart = EfficiencyChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    chart.set_pivot(Pivot("tokens_per_word", sources, names, values), dark=False)
    qtbot.wait(50)
    legend = chart._legend.sceneBoundingRect()
    assert legend.height() > 0
    bars = bar_rects(chart)
    assert len(bars) == len(sources) * len(names)
    assert not [bar for bar in bars if bar.intersects(legend)]
    plot = chart.plot.getPlotItem().sceneBoundingRect()
    assert plot.contains(legend)  # all of it on the chart, none cut at the right
    labels = [item.sceneBoundingRect() for item in chart._bars if not hasattr(item, "opts")]
    assert labels and not [label for label in labels if label.intersects(legend)]
    view = chart.plot.getViewBox().sceneBoundingRect()
