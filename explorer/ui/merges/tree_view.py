"""The merge tree of one token as a picture: bytes along the bottom, each merge joining two boxes
into the box above them. Zoom with the wheel or Ctrl +/-, pan by dragging, click a box to go to
that token. Exports to PNG and SVG.

A tree wider than its view is laid out compactly first; one still wider scrolls, and a box the
view's edge cuts is drawn without its text ("e #2" cut from "e #2,417" reads as rank 2), under
an arrow at that edge that says the tree goes on.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush, QColor, QFont, QFontMetricsF, QImage, QKeyEvent, QLinearGradient, QMouseEvent, QPainter, QPainterPath,
    QPalette, QPen, QWheelEvent)
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QGraphicsItem, QGraphicsPathItem, QGraphicsScene, QGraphicsSceneHoverEvent, QGraphicsView, QStyleOptionGraphicsItem,
    QWidget)

from explorer.core.algorithms.merges import MergeForest
from explorer.core.analysis.merge_tree import MergeTree
from explorer.ui.merges.tree_layout import TreeLayout, lay_out
from explorer.ui.zoom import minimum_point_size

# Viridis, sampled: a sequential palette that stays ordered for colour-blind readers and in grey.
# Depth 1 (a merge of two bytes) is the lightest; bytes themselves are neutral grey.
DEPTH_COLORS = ["#fde725", "#addc30", "#5ec962", "#28ae80", "#21918c", "#2c728e", "#3b528b", "#472d7b", "#440154"]
BYTE_LIGHT, BYTE_DARK = "#d9d9de", "#5f6368"
ROW_GAP = 18.0  # vertical space between rows, for the edges (34 made a depth-6 tree too tall for a laptop)
ZOOM_STEP = 1.2
MIN_SCALE, MAX_SCALE = 0.05, 8.0
SCENE_MARGIN = 10.0
EDGE_BAND = 22  # pixels at a side of the view where the tree goes on: an arrow, and no box's text under it


def depth_color(height: int, dark: bool) -> QColor:
    """Fill colour of a box at `height` merges above the bytes."""
    if height == 0:
        return QColor(BYTE_DARK if dark else BYTE_LIGHT)
    color = QColor(DEPTH_COLORS[min(height, len(DEPTH_COLORS)) - 1])
    return color.darker(125) if dark else color


def text_color_on(fill: QColor) -> QColor:
    """Black or white, whichever reads better on `fill` (relative luminance)."""
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * channel(fill.redF()) + 0.7152 * channel(fill.greenF()) + 0.0722 * channel(fill.blueF())
    return QColor("#000000") if luminance > 0.22 else QColor("#ffffff")


class NodeItem(QGraphicsItem):
    """One box: the token as text, and its merge rank (or byte value) and training count below."""

    def __init__(self, token_id: int, lines: list[str], height: int, size: QSize | tuple[float, float],
                 fonts: tuple[QFont, QFont], dark: bool, tooltip: str, is_root: bool) -> None:
        super().__init__()
        self.token_id = token_id
        self.lines = lines
        self.height_level = height
        self.fonts = fonts
        self.dark = dark
        self.is_root = is_root
        self._hover = False
        width, box_height = size if isinstance(size, tuple) else (size.width(), size.height())
        self._rect = QRectF(-width / 2, 0, width, box_height)
        self.setToolTip(tooltip)
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt override)
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        fill = depth_color(self.height_level, self.dark)
        if self._hover:
            fill = fill.lighter(115) if self.dark else fill.darker(108)
        border = QColor("#e8eaed" if self.dark else "#202124") if self.is_root or self._hover else fill.darker(160)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        view = widget.parentWidget() if widget is not None else None  # (None when exported)
        if isinstance(view, MergeTreeView) and not view.shows_whole(self):
            # Cut by the view's edge: the box's place and colour, faded and dashed, and no text.
            fill.setAlphaF(0.35)
            painter.setPen(QPen(fill.darker(160), 1.2, Qt.PenStyle.DashLine))
            painter.setBrush(QBrush(fill))
            painter.drawRoundedRect(self._rect, 5, 5)
            return
        painter.setPen(QPen(border, 2.4 if self.is_root else 1.2))
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(self._rect, 5, 5)
        painter.setPen(text_color_on(fill))
        heights = [QFontMetricsF(self.fonts[0 if number == 0 else 1]).height() for number in range(len(self.lines))]
        top = self._rect.top() + (self._rect.height() - sum(heights)) / 2  # (a byte's one line in the middle)
        for number, (line, line_height) in enumerate(zip(self.lines, heights)):
            font = self.fonts[0 if number == 0 else 1]
            painter.setFont(font)
            painter.drawText(QRectF(self._rect.left(), top, self._rect.width(), line_height),
                             int(Qt.AlignmentFlag.AlignCenter), line)
            top += line_height

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        self._hover = False
        self.update()


class MergeTreeView(QGraphicsView):
    node_clicked = Signal(int)  # token id of the box clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.tree: MergeTree | None = None
        self.nodes: list[NodeItem] = []
        self.dark = False
        self.font_ = QFont()
        self._press: QPointF | None = None
        self._user_zoomed = False
        self.fonts: tuple[QFont, ...] = ()
        self._layouts: list[TreeLayout] = []  # roomy, compact (fit picks the one to draw)
        self._layout: TreeLayout | None = None  # the one drawn
        self._describe: Callable[[int], str] = str
        self._extent = QRectF()  # the boxes' bounds, in scene coordinates
        # Every scroll repaints the whole view: a box scrolled to the edge loses its text and the
        # edge arrows move (scrolling the pixels kept text drawn while the box was whole).
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)

    # Drawing

    def clear_tree(self) -> None:
        self.scene().clear()
        self.tree, self.nodes = None, []
        self._layouts, self._layout = [], None

    def show_tree(self, forest: MergeForest, token_id: int, label: Callable[[int], str],
                  font: QFont, dark: bool, describe: Callable[[int], str]) -> MergeTree:
        """Draw `token_id`'s tree; `label(id)` is a token's text, `describe(id)` its tooltip."""
        self.scene().clear()
        self.nodes = []
        self.dark, self.font_ = dark, font
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        self.fonts = (font, small)
        self._layouts = [lay_out(forest, token_id, label, self.fonts, compact) for compact in (False, True)]
        self._describe = describe
        self._layout = None
        self._user_zoomed = False
        self.fit()  # (draws the layout that fits)
        return self.tree or self._layouts[0].tree

    def _draw(self, layout: TreeLayout) -> None:
        """Put `layout`'s boxes and edges in the scene, in place of what it held."""
        self.scene().clear()
        tree, box_height, row_height = layout.tree, layout.box_height, layout.box_height + ROW_GAP
        top_of = lambda height: (tree.height - height) * row_height  # noqa: E731 (bytes on the bottom row)
        edge_pen = QPen(QColor("#9aa0a6" if self.dark else "#5f6368"), 1.4)
        x_of = (lambda node: tree.width - node.x) if layout.mirrored else (lambda node: node.x)  # noqa: E731
        self.nodes = []
        for node in tree.nodes:
            for child_index in node.children:
                child = tree.nodes[child_index]
                path = QPainterPath(QPointF(x_of(node), top_of(node.height) + box_height))
                path.lineTo(QPointF(x_of(child), top_of(child.height)))
                edge = QGraphicsPathItem(path)
                edge.setPen(edge_pen)
                edge.setZValue(-1)
                self.scene().addItem(edge)
        for node in tree.nodes:
            item = NodeItem(node.token_id, layout.texts[node.index], node.height, (node.width, box_height),
                            self.fonts, self.dark, self._describe(node.token_id), node.index == 0)
            item.setPos(x_of(node), top_of(node.height))
            self.scene().addItem(item)
            self.nodes.append(item)
        self.scene().setSceneRect(_scene_rect(layout))
        self.tree, self._layout = tree, layout
        self._extent = QRectF()
        for item in self.nodes:
            self._extent |= item.sceneBoundingRect()

    # The view's edges: boxes they cut show no text, and an arrow says where the tree goes on

    def _continues(self) -> tuple[bool, bool, bool, bool]:
        """Whether the tree goes on past the view's left, right, top and bottom edges."""
        if not self.nodes:
            return False, False, False, False
        tree, view = self.mapFromScene(self._extent).boundingRect(), self.viewport().rect()
        return tree.left() < view.left(), tree.right() > view.right(), tree.top() < view.top(), \
            tree.bottom() > view.bottom()

    def text_area(self) -> QRect:
        """Where in the viewport a box may show its text: all of it but the bands of the arrows at
        the sides where the tree goes on (at the top and bottom the arrows sit in the row gap)."""
        left, right, _, _ = self._continues()
        return self.viewport().rect().adjusted(EDGE_BAND if left else 0, 0, -EDGE_BAND if right else 0, 0)

    def shows_whole(self, item: NodeItem) -> bool:
        """Whether `item`'s box lies wholly in the text area, so that it is drawn with its text."""
        return self.text_area().contains(self.mapFromScene(item.sceneBoundingRect()).boundingRect())

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:  # noqa: N802 (Qt override)
        """An arrow over a fading band at each side where the tree goes on, pointing that way."""
        left, right, top, bottom = self._continues()
        if not (left or right or top or bottom):
            return
        painter.save()
        painter.resetTransform()  # (viewport pixels)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        view = QRectF(self.viewport().rect())
        base, ink = self.palette().color(QPalette.ColorRole.Base), self.palette().color(QPalette.ColorRole.Text)
        pen = QPen(ink, 2.5, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
        band, arm = float(EDGE_BAND), EDGE_BAND * 0.3
        for shown, edge, inward in ((left, view.left(), 1), (right, view.right(), -1)):
            if not shown:
                continue
            fade = QLinearGradient(edge, 0, edge + inward * band, 0)
            solid, clear = QColor(base), QColor(base)
            solid.setAlphaF(0.9)
            clear.setAlphaF(0.0)
            fade.setColorAt(0, solid)
            fade.setColorAt(1, clear)
            painter.fillRect(QRectF(min(edge, edge + inward * band), view.top(), band, view.height()), fade)
            tip, back, middle = edge + inward * band * 0.3, edge + inward * (band * 0.3 + arm), view.center().y()
            painter.setPen(pen)
            painter.drawPolyline([QPointF(back, middle - 2 * arm), QPointF(tip, middle), QPointF(back, middle + 2 * arm)])
        for shown, edge, inward in ((top, view.top(), 1), (bottom, view.bottom(), -1)):
            if not shown:
                continue
            tip, back, middle = edge + inward * 1.5, edge + inward * (1.5 + arm * 0.8), view.center().x()
            painter.setPen(pen)
            painter.drawPolyline([QPointF(middle - 2 * arm, back), QPointF(middle, tip), QPointF(middle + 2 * arm, back)])
        painter.restore()

    # Zoom and pan

    def smallest_scale(self) -> float:
        """The least scale at which the boxes' smallest text (ranks, counts) is still the zoom's
        smallest text: the labels grow with Ctrl +/- and presentation mode."""
        size = self.font_.pointSizeF() if self.font_.pointSizeF() > 0 else 11.0
        least = min((f.pointSizeF() for f in self.fonts), default=size)  # counts, ranks
        return minimum_point_size(size) / max(1.0, least)

    def wanted_height(self) -> int:
        """The view's height that shows the whole tree, bytes included, at the smallest legible scale
        (the pane gives the tree this much when it can)."""
        if self.tree is None:
            return 0
        return int(self.scene().sceneRect().height() * self.smallest_scale()) + 2 * self.frameWidth() + 2

    def fit(self) -> None:
        """The whole tree in view, but never blown up past 1.5x (a byte alone stays a small box) and
        never shrunk so far that its labels fall below the zoom's smallest text: laid out compactly
        when the roomy layout is wider than the view even so. A tree too tall shows whole rows from
        its root down, the view's bottom in the gap between two rows (it cut the byte row in half),
        and scrolls; one too wide scrolls sideways, the boxes its edges cut drawn without text."""
        if not self._layouts:
            return
        roomy, compact = self._layouts
        # The roomy layout unless, at the scale it would be shown at, it is wider than the view.
        wide = _scene_rect(roomy).width() * self._fitted_scale(roomy) > self.viewport().width()
        layout = compact if wide else roomy
        if layout is not self._layout:
            self._draw(layout)
        scale = self._fitted_scale(layout)
        self.resetTransform()
        self.scale(scale, scale)
        rect = self.scene().sceneRect()
        if rect.width() * scale <= self.viewport().width() and rect.height() * scale <= self.viewport().height():
            self.centerOn(rect.center())
        else:
            # The token itself in sight: the root's box at the top, not the scene's middle (a
            # lopsided tree's root sat beyond the left edge, "elecommunications").
            root = next((node for node in self.nodes if node.is_root), None)
            self.centerOn(root.pos().x() if root is not None else rect.center().x(), rect.top())

    def _fitted_scale(self, layout: TreeLayout) -> float:
        """The scale `fit` shows `layout` at (see there)."""
        rect = _scene_rect(layout)
        view = self.viewport().rect().adjusted(2, 2, -2, -2)  # (as fitInView)
        scale = min(view.width() / rect.width(), view.height() / rect.height())
        smallest = self.smallest_scale()
        if smallest <= scale <= 1.5:
            return scale
        scale = min(1.5, max(smallest, scale))
        height, box_height = self.viewport().height(), layout.box_height
        if rect.height() * scale > height:
            # As many whole rows as fit at the smallest scale, then the scale that shows just them.
            row_height = box_height + ROW_GAP
            rows = max(1, int((height / scale - SCENE_MARGIN - box_height) // row_height) + 1)
            shown = SCENE_MARGIN + (rows - 1) * row_height + box_height + ROW_GAP / 2
            scale = max(smallest, min(1.5, height / shown))
        return scale

    def painted_fonts(self) -> list[QFont]:
        """The fonts the boxes are drawn in, at the view's scale (tests check none is too small)."""
        scale = self.transform().m11()
        fonts = []
        for font in {id(f): f for node in self.nodes for f in node.fonts}.values():
            shown = QFont(font)
            shown.setPointSizeF(max(1.0, font.pointSizeF() * scale))
            fonts.append(shown)
        return fonts

    def zoom(self, factor: float) -> None:
        scale = self.transform().m11()
        factor = max(MIN_SCALE / scale, min(MAX_SCALE / scale, factor))
        self.scale(factor, factor)
        self._user_zoomed = True

    @property
    def scale_factor(self) -> float:
        return self.transform().m11()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(ZOOM_STEP ** steps)
            event.accept()

    def event(self, event: QEvent) -> bool:
        # Ctrl +/-/0 zoom the tree while it has focus, instead of the window's text size.
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if self._zoom_key(event) is not None:
                event.accept()
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        action = self._zoom_key(event)
        if action == "in":
            self.zoom(ZOOM_STEP)
        elif action == "out":
            self.zoom(1 / ZOOM_STEP)
        elif action == "fit":
            self.fit()
        else:
            super().keyPressEvent(event)

    @staticmethod
    def _zoom_key(event: QKeyEvent) -> str | None:
        key, ctrl = event.key(), bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal) and (ctrl or event.text() == "+"):
            return "in"
        if key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            return "out"
        if (key == Qt.Key.Key_0 and ctrl) or (key == Qt.Key.Key_F and not ctrl):
            return "fit"
        return None

    def resizeEvent(self, event: object) -> None:  # noqa: N802
        super().resizeEvent(event)  # type: ignore[arg-type]
        if not self._user_zoomed:
            self.fit()

    # Clicking a box (a press and release without dragging)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        if press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        if (event.position() - press).manhattanLength() > 4:
            return  # that was a pan
        node = self.node_at(event.position().toPoint())
        if node is not None:
            self.node_clicked.emit(node.token_id)

    def node_at(self, point: object) -> NodeItem | None:
        for item in self.items(point):  # type: ignore[call-overload]
            if isinstance(item, NodeItem):
                return item
        return None

    # Export

    def export_png(self, path: str, scale: float = 2.0) -> bool:
        rect = self.scene().sceneRect()
        image = QImage(int(rect.width() * scale), int(rect.height() * scale), QImage.Format.Format_ARGB32)
        image.fill(QColor("#202124" if self.dark else "#ffffff"))
        painter = QPainter(image)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.scene().render(painter, QRectF(image.rect()), rect)
        painter.end()
        return image.save(path, "PNG")

    def export_svg(self, path: str, title: str = "Merge tree") -> bool:
        rect = self.scene().sceneRect()
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(QSize(int(rect.width()), int(rect.height())))
        generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
        generator.setTitle(title)
        generator.setDescription("Exported from Tokenizer Explorer")
        painter = QPainter()
        if not painter.begin(generator):
            return False
        painter.fillRect(QRectF(0, 0, rect.width(), rect.height()), QColor("#202124" if self.dark else "#ffffff"))
        self.scene().render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
        return painter.end()


def _scene_rect(layout: TreeLayout) -> QRectF:
    """The scene `layout` is drawn in: its boxes and a margin around them."""
    tree, margin = layout.tree, SCENE_MARGIN
    return QRectF(-margin, -margin, tree.width + 2 * margin,
                  tree.height * (layout.box_height + ROW_GAP) + layout.box_height + 2 * margin)
