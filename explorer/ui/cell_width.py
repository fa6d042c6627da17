"""How wide a table column must be for its texts, measured with the view's fonts.

Qt's own measure (QHeaderView's ResizeToContents, `sizeHintForColumn`) asks the model for every
cell's data, a dozen roles each and each a call into Python, and ResizeToContents does it again at
every resize of the table: 60 findings cost 30-50 ms a layout. A column whose texts are known is
measured here in one pass of `horizontalAdvance`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QStyle, QTableView


def cell_margin(view: QTableView) -> int:
    """Pixels a cell adds around its text (the style's focus-frame margin on each side)."""
    return 2 * (view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1)


def column_width(view: QTableView, column: int, texts: Iterable[str], font: QFont | None = None) -> int:
    """Pixels column `column` of `view` needs to show each of `texts` and its title whole: as
    much as Qt's `sizeHintForColumn` gives (the text's width rounded up, the margins, the grid line).
    `font`: the cells' own (a model's FontRole), if not the view's."""
    widest = max(map(QFontMetricsF(font or view.font()).horizontalAdvance, texts), default=0.0)
    # (+1: text shaped with fallback fonts, Devanagari or Arabic, can come out a pixel wider)
    cells = math.ceil(widest) + 1 + cell_margin(view) + (1 if view.showGrid() else 0)
    return max(cells, view.horizontalHeader().sectionSizeHint(column))
