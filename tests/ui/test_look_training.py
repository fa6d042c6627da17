"""The Training pane's plots and caption as a demanding reader looks at them (issue 12 walk):
axis labels grow with presentation mode, an empty sweep shows no made-up scale, a quoted token
stays whole and in its place in the caption."""

from __future__ import annotations

from PySide6.QtGui import QFontInfo
from pytestqt.qtbot import QtBot

from explorer.ui.training.plots import TrainingPlots
from explorer.ui.theme import PRESENTATION_POINT_SIZE


def test_axis_labels_and_the_sweep_hint_grow_with_the_font(qtbot: QtBot) -> None:
    plots = TrainingPlots()
    qtbot.addWidget(plots)
    plots.resize(500, 700)
    plots.show()
    plots.set_font_size(PRESENTATION_POINT_SIZE)
    tick = plots.compression.getAxis("bottom").style["tickFont"].pointSize()
    assert tick >= PRESENTATION_POINT_SIZE - 2
    for plot in (plots.compression, plots.counts, plots.sweep):
        label = plot.getAxis("bottom").label  # "merges", "rank", "vocabulary size"
        assert QFontInfo(label.font()).pointSize() >= tick, label.toPlainText()
    assert QFontInfo(plots.sweep_hint.textItem.font()).pointSize() >= tick


def test_an_empty_sweep_shows_no_scale_until_its_first_point(qtbot: QtBot) -> None:
    plots = TrainingPlots()
    qtbot.addWidget(plots)
    plots.show()
    left = plots.sweep.getAxis("left")
    assert not left.style["showValues"]  # no point: no 2-3-4 made up
    assert plots.compression.getAxis("left").style["showValues"]
    plots.add([767], [5], [3.1], [], [1024])
    plots.refresh()
    assert left.style["showValues"] and plots.sweep_labels
    plots.reset()  # a new run: the last run's point and its figure go too
    plots.refresh()
    assert not left.style["showValues"] and not plots.sweep_labels
    xs, _ = plots.sweep_curve.getData()
    assert xs is None or len(xs) == 0
