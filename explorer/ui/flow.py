"""A row of controls that flows onto another line when the pane is too narrow for it.

A QHBoxLayout asks for the sum of its widgets' widths as its minimum: a row of buttons at
presentation mode's large font then asks for more than a 1280 px window has, and the window grows
or the pane is cut. A FlowLayout asks only for its widest widget and lays the rest out line by
line, taller where it wraps (its height follows its width, which box layouts honour).

Within a line, the room left over goes to the widgets and spacers that may expand (a QLineEdit,
`add_stretch`), so a row that fits on one line looks as the QHBoxLayout it replaces did.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLayout, QLayoutItem, QSizePolicy, QSpacerItem, QWidget


class FlowLayout(QLayout):
    """Left to right, then onto the next line; items that can expand share what a line has left."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._height = 0  # the height its lines took at the width it was given last

    def add_stretch(self) -> None:
        """Room that pushes what follows on its line to the right (as QBoxLayout.addStretch)."""
        self.addItem(QSpacerItem(0, 0, QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum))

    def add_together(self, *widgets: QWidget, expanding: bool = False) -> QWidget:
        """Widgets that stay on one line (a label and its field), as one item; `expanding`: it takes
        what its line has left (its widgets share it as a QHBoxLayout's stretch factors say)."""
        group = QWidget()
        if expanding:
            group.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        row = QHBoxLayout(group)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in widgets:
            row.addWidget(widget)
        self.addWidget(group)
        return group

    # QLayout's interface

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 (Qt override)
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._lay_out(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        height = self._lay_out(rect, apply=True)
        if height != self._height:  # more or fewer lines: the minimum height changed (see minimumSize)
            self._height = height
            layout: object = self
            while isinstance(layout, QLayout):  # (a box layout keeps its items' minimums until invalidated)
                layout.invalidate()
                layout = layout.parent()

    def sizeHint(self) -> QSize:  # noqa: N802
        """Everything on one line."""
        shown = self._shown()
        width = sum(item.sizeHint().width() for item in shown) + self._gap() * max(0, len(shown) - 1)
        height = max((item.sizeHint().height() for item in shown), default=0)
        return self._with_margins(QSize(width, height))

    def minimumSize(self) -> QSize:  # noqa: N802
        """As wide as the widest item: the others go to other lines, whose height it asks for at the
        width it has (a splitter, which knows no height-for-width, would else cut the lines off)."""
        shown = self._shown()
        width = max((item.minimumSize().width() for item in shown), default=0)
        height = max((item.minimumSize().height() for item in shown), default=0)
        size = self._with_margins(QSize(width, height))
        return size.expandedTo(QSize(0, self._height))

    # Laying out

    def _shown(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty() or item.spacerItem() is not None]

    def _gap(self) -> int:
        return max(0, self.spacing())

    def _with_margins(self, size: QSize) -> QSize:
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _lines(self, width: int) -> list[list[tuple[QLayoutItem, int]]]:
        """The items of each line with their widths: preferred ones, leftover shared by expanding ones."""
        gap, lines, line, used = self._gap(), [], [], 0
        for item in self._shown():
            wanted = max(item.minimumSize().width(), min(item.sizeHint().width(), width))
            if line and used + gap + wanted > width:
                lines.append(line)
                line, used = [], 0
            used += (gap if line else 0) + wanted
            line.append((item, wanted))
        if line:
            lines.append(line)
        for number, line in enumerate(lines):
            left = width - sum(w for _, w in line) - gap * (len(line) - 1)
            growing = [i for i, (item, _) in enumerate(line) if item.expandingDirections() & Qt.Orientation.Horizontal]
            for share, i in enumerate(growing):
                item, w = line[i]
                extra = left // len(growing) + (1 if share < left % len(growing) else 0)
                line[i] = (item, min(item.maximumSize().width(), w + max(0, extra)))
            lines[number] = [(item, w) for item, w in line if not (isinstance(item, QSpacerItem) and w == 0)]
        return lines

    def _lay_out(self, rect: QRect, apply: bool) -> int:
        """Place the items in `rect` (if `apply`); the height they take."""
        margins = self.contentsMargins()
        inner = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        y = inner.y()
        for number, line in enumerate(self._lines(max(1, inner.width()))):
            if number:
                y += self._gap()
            height = max((item.sizeHint().height() for item, _ in line), default=0)
            x = inner.x()
            for item, width in line:
                item_height = min(height, item.maximumSize().height())
                if apply:
                    item.setGeometry(QRect(QPoint(x, y + (height - item_height) // 2), QSize(width, item_height)))
                x += width + self._gap()
            y += height
        return y - inner.y() + margins.top() + margins.bottom()
