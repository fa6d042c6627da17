"""The Training pane's merge-count plot has a log axis labelled at decades: a short range (a
zoom, a small plot, a run that counts a few hundred) used to show one lone "1k" tick, which
says nothing about the scale. Every range at every size gets at least two labelled ticks."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from explorer.ui.training.plots import DecadeAxis


def labelled(axis: DecadeAxis, low: float, high: float, size: float) -> list[str]:
    labels: list[str] = []
    for spacing, values in axis.tickValues(low, high, size):
        labels += [text for text in axis.tickStrings(values, 1.0, spacing) if text]
    return labels


@pytest.mark.parametrize("point_size", [9, 20], ids=["normal", "presentation"])
@pytest.mark.parametrize("size", [40.0, 90.0, 200.0, 600.0])
@pytest.mark.parametrize("low, high", [(-0.35, 3.15), (0.65, 4.15), (2.5, 3.5), (2.9, 3.1), (3.01, 3.02),
                                       (-0.35, 1.15), (1.2, 1.9), (4.3, 7.4)])
def test_a_count_axis_always_has_two_labelled_ticks(qapp: QApplication, point_size: int, size: float,
                                                    low: float, high: float) -> None:
    axis = DecadeAxis("left")
    font = QFont()
    font.setPointSize(point_size)
    axis.setStyle(tickFont=font)
    labels = labelled(axis, low, high, size)
    assert len(labels) >= 2, f"range {low}..{high} at {size} px: {labels}"
    assert len(set(labels)) == len(labels), f"the same label twice: {labels}"
