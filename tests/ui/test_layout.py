"""Layout that never breaks: the real main window at a laptop's and a projector's size, light and
dark, normal and presentation mode, with text in eight scripts pasted into every pane that takes
text. The window keeps its size, no pane asks for more width than the window has, an id is never
cut, and no token is laid out across two lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (QAbstractButton, QAbstractScrollArea, QApplication, QGraphicsView, QLabel, QRubberBand,
                               QScrollBar, QSplitterHandle, QStyle, QTableView, QWidget)

from explorer.core.sources.load import load_tokenizer
from explorer.ui.main_window import MainWindow
from explorer.ui.merges.pane import TABLE_LEAST_ROWS
from explorer.ui.merges.model import COLUMNS
from explorer.ui.session import Session
from explorer.ui.theme import BASE_POINT_SIZE, PRESENTATION_POINT_SIZE
from explorer.ui.zoom import minimum_point_size, ui_point_size
from tests.ui.windows import configuration_id, session_window, settle

SCRIPTS = {
    "English": "The quick brown fox jumps over the lazy dog, twice: it's 1969 and 600,000,000 people watch. ",
    "Hindi": "नमस्ते दुनिया, यह एक परीक्षण है। क्षत्रिय श्रृंगार द्विज कुँवर ठीक हूँ। ",
    "Arabic": "مرحبا بالعالم، هذه جملة للاختبار باللغة العربية. ",
    "Japanese": "こんにちは世界。東京は日本の首都です。カタカナとひらがな。",
    "Thai": "สวัสดีครับ ยินดีต้อนรับสู่ประเทศไทย น้ำใจ ผู้ใหญ่ ที่นี่ ",
    "Korean": "안녕하세요, 세계! 한국어 문장을 토큰으로 나눕니다. ",
    "Chinese": "你好，世界。我们今天学习分词器如何切分中文句子。",
    "emoji": "👋🏽 🇺🇦🇯🇵 👩‍👩‍👧‍👦 🧑🏿‍💻 ❤️‍🔥 1️⃣ ",
}
MIXED = "".join(SCRIPTS.values())
LONG = {"400 characters": (MIXED * 2)[:400], "5,000 characters": (MIXED * 12)[:5000]}
TEXT_PANES = ("bytes", "chunks", "tokens")
SIZES = [(1280, 800), (1920, 1080)]


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    return load_tokenizer("o200k_base")


@pytest.fixture
def window(qapp: QApplication, tmp_path: Path, tokenizer, request: pytest.FixtureRequest) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    with session_window(qapp, tmp_path / "layout.ini", request.param, "tokens", tokenizer, "o200k_base") as window:
        yield window


def configurations() -> list[object]:
    """Every size in light, normal and dark presentation mode; both themes and modes at 1280x800."""
    chosen = [(w, h, "light", False) for w, h in SIZES] + [(w, h, "dark", True) for w, h in SIZES]
    chosen += [(1280, 800, "dark", False), (1280, 800, "light", True)]
    return [pytest.param(c, id=configuration_id(c)) for c in chosen]


def paste(app: QApplication, window: MainWindow, pane_name: str, text: str) -> QWidget:
    window.show_pane(pane_name)
    pane = window.panes[pane_name]
    pane.set_text(text)  # type: ignore[attr-defined]
    settle(app, window)
    return pane


@pytest.mark.parametrize("window", configurations(), indirect=True)
def test_no_text_changes_the_window_size(qapp: QApplication, window: MainWindow) -> None:
    size = QSize(window.size())
    texts = {**SCRIPTS, **LONG}
    for pane_name in TEXT_PANES:
        for name, text in texts.items():
            pane = paste(qapp, window, pane_name, text)
            assert window.size() == size, f"{pane_name} with {name}: the window became {window.size()}"
            assert pane.minimumSizeHint().width() <= size.width(), f"{pane_name} with {name} is cut at the right"
            if pane_name == "tokens":
                assert_tokens_on_one_line(pane, name)
            if pane_name == "bytes":  # the lanes grow no taller with the text: a whole band stays in sight
                strip = pane.strip  # type: ignore[attr-defined]
                assert pane.strip_scroll.viewport().height() >= strip.band_height, f"bytes with {name}"  # type: ignore[attr-defined]


@pytest.mark.parametrize("window", configurations()[:1] + configurations()[-1:], indirect=True)
def test_a_long_merge_in_the_training_caption_keeps_the_window(qapp: QApplication, window: MainWindow) -> None:
    """The caption names the newest merge's tokens: a long one (no spaces: they show as `·`) wraps."""
    size = QSize(window.size())
    window.show_pane("training")
    training = window.panes["training"]
    settle(qapp, window)
    long_token = "·" + "ال·" * 150
    training.status.setText(f"<b>Merge 1:</b> <code>{long_token}</code> + <code>{long_token}</code>")  # type: ignore[attr-defined]
    settle(qapp, window)
    assert window.size() == size
    assert training.minimumSizeHint().width() <= size.width()


def assert_tokens_on_one_line(pane: QWidget, name: str) -> None:
    """Each token's boxes (one per line it occupies) lie on a single line of the view."""
    view = pane.main_lane.view  # type: ignore[attr-defined]
    tops: dict[int, set[float]] = {}
    for index, rect in view.boxes_on_screen():
        tops.setdefault(index, set()).add(round(rect.top(), 1))
    assert tops, f"{name}: no token on screen"
    split = {index: sorted(lines) for index, lines in tops.items() if len(lines) > 1}
    # (Thai too: Qt gives a Thai run's line breaks to libthai, which breaks before a Thai word even
    # inside a token, `·ยินดี` after its `·`; the view's line layout ends such a line at the token.)
    assert not split, f"{name}: tokens laid out across lines: {split}"


@pytest.mark.parametrize("window", configurations()[:4], indirect=True)
def test_every_id_is_shown_whole(qapp: QApplication, window: MainWindow) -> None:
    window.show_pane("merges")
    merges = window.panes["merges"]
    merges.navigate(199_997)  # type: ignore[attr-defined]  (asked before the table is read: shown when it is)
    settle(qapp, window, 60)
    table = merges.table_view  # type: ignore[attr-defined]
    bar = table.horizontalScrollBar()
    assert bar.maximum() > 0, "the vocabulary table is expected to scroll sideways here"
    for value in (0, bar.maximum() // 2, bar.maximum()):
        bar.setValue(value)
        qapp.processEvents()
        assert_ids_fit(table, value)
        assert_no_sliver_beside_the_ids(table)
    assert_headers_fit(table)
    header = table.pinned.horizontalHeader()
    for order in (Qt.SortOrder.DescendingOrder, Qt.SortOrder.AscendingOrder):  # the pinned title sorts by id
        QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(5, header.height() // 2))
        assert (merges.model.sort_column, merges.model.sort_order) == (0, order)  # type: ignore[attr-defined]
        assert header.sortIndicatorOrder() == order
    paste(qapp, window, "tokens", SCRIPTS["Hindi"] + SCRIPTS["emoji"])
    tokens = window.panes["tokens"]
    lane = tokens.main_lane  # type: ignore[attr-defined]
    for index in (0, len(lane.state) - 1):
        tokens._set_details(lane, index)  # type: ignore[attr-defined]
        qapp.processEvents()
        details = tokens.details  # type: ignore[attr-defined]
        assert details.horizontalScrollBar().maximum() == 0, "the token details are cut at the right"


def assert_ids_fit(table: QWidget, scrolled: int) -> None:
    """Every visible id in the pinned column is as wide as its text, and the column stays at the left."""
    pinned = table.pinned  # type: ignore[attr-defined]
    assert pinned.isVisible() and pinned.x() <= table.frameWidth(), "the id column left the left edge"  # type: ignore[attr-defined]
    margin = 2 * (pinned.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, pinned) + 1)
    metrics = QFontMetrics(pinned.font())
    model = table.model()  # type: ignore[attr-defined]
    first = pinned.rowAt(0)
    last = pinned.rowAt(pinned.viewport().height() - 1)
    last = model.rowCount() - 1 if last < 0 else last
    assert first >= 0
    shown = 0
    for row in range(first, last + 1):
        index = model.index(row, 0)
        text = str(index.data())
        cell = pinned.visualRect(index)
        assert cell.left() >= 0 and cell.right() < pinned.viewport().width() + 1
        assert metrics.horizontalAdvance(text) <= cell.width() - margin, \
            f"id {text} is cut ({cell.width()} px) with the table scrolled by {scrolled}"
        assert pinned.rowViewportPosition(row) == table.rowViewportPosition(row), \
            f"id {text} is shown beside another row's token"  # type: ignore[attr-defined]
        shown += 1
    assert shown >= TABLE_LEAST_ROWS  # (at 1280x800 in presentation mode the encode trace under it takes the rest)


def assert_no_sliver_beside_the_ids(table: QWidget) -> None:
    """Scrolled sideways, the first column beside the ids starts whole at their edge (a sliver of a
    parent cell, "4)", right after an id would read as part of it); only the very end may differ."""
    bar, header = table.horizontalScrollBar(), table.horizontalHeader()  # type: ignore[attr-defined]
    if bar.value() == bar.maximum():
        return
    edge = table.columnWidth(0)  # type: ignore[attr-defined]
    for column in range(1, header.count()):
        x = header.sectionViewportPosition(column)
        if not header.isSectionHidden(column) and x + header.sectionSize(column) > edge:
            assert x == edge, f"column {column} starts at {x}, under the ids that end at {edge}"
            return


def assert_headers_fit(table: QWidget) -> None:
    header = table.horizontalHeader()  # type: ignore[attr-defined]
    metrics = QFontMetrics(header.font())
    for column, spec in enumerate(COLUMNS):
        if not header.isSectionHidden(column):
            assert metrics.horizontalAdvance(spec.title) + 16 <= header.sectionSize(column), f"{spec.title!r} is cut"


def test_the_window_never_takes_its_minimum_from_its_content(qtbot: object, session: Session) -> None:
    """The mechanism: an explicit minimum, so Qt does not raise the window to a pane's minimum."""
    window = MainWindow(session)
    qtbot.addWidget(window)  # type: ignore[attr-defined]
    window.resize(1000, 700)
    window.show()
    wide = QWidget()
    wide.setMinimumWidth(5000)
    window.panes["tokens"].layout().addWidget(wide)
    wide.show()
    QApplication.processEvents()
    assert window.width() == 1000
    assert window.minimumWidth() < 1000


# Presentation mode: every visible text grows, and at a projector's size every pane fits.

PRESENTATION_PANES = ("tokens", "chunks", "bytes", "merges", "corpus", "training", "chat")


def point_size_of(font: QFont, widget: QWidget | None = None) -> float:
    """A font's size in points (a pixel-sized font converted at the widget's dpi)."""
    if font.pointSizeF() > 0:
        return font.pointSizeF()
    dpi = widget.logicalDpiY() if widget is not None else 96
    return font.pixelSize() * 72.0 / dpi


def fonts_shown(root: QWidget) -> Iterator[tuple[str, float]]:
    """(what, point size) of every text a visible widget under `root` shows: its own font, the fonts
    a custom-painted widget draws with (`painted_fonts()`), pyqtgraph's axis ticks and labels, and
    text items in a graphics view at the view's scale."""
    import pyqtgraph as pg

    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible() or widget.width() <= 1 or widget.height() <= 1:
            continue
        what = f"{type(widget).__name__} {widget.objectName() or ''}".strip()
        if not (isinstance(widget, (QScrollBar, QSplitterHandle, QRubberBand))
                or widget.objectName() == "qt_scrollarea_viewport"  # its area draws the text, in the area's font
                or isinstance(widget, (QLabel, QAbstractButton)) and not widget.text()):
            yield what, point_size_of(widget.font(), widget)
        for font in getattr(widget, "painted_fonts", lambda: [])():
            yield f"{what} (painted)", point_size_of(font, widget)
        if isinstance(widget, pg.GraphicsView):
            for item in widget.items():
                if isinstance(item, pg.AxisItem) and item.isVisible() and item.style.get("showValues", True):
                    yield f"{what} axis ticks", point_size_of(item.style["tickFont"] or item.font(), widget)
                    if item.label.isVisible() and item.label.toPlainText():
                        yield f"{what} axis label", point_size_of(item.label.font(), widget)
                elif isinstance(item, pg.LabelItem) and item.text and item.isVisible():
                    size = str(item.opts.get("size") or "")
                    points = float(size[:-2]) if size.endswith("pt") else point_size_of(item.item.font(), widget)
                    yield f"{what} title {item.text[:20]!r}", points
        elif isinstance(widget, QGraphicsView) and widget.scene() is not None:
            scale = widget.transform().m11()
            for item in widget.scene().items():
                for font in getattr(item, "fonts", ()):
                    yield f"{what} item", point_size_of(font, widget) * scale




def show_with_content(app: QApplication, window: MainWindow, name: str, text: str) -> QWidget:
    """The pane with something in it: the text pasted, a token's tree, a counted corpus and its
    efficiency chart, a finished training run, a rendered chat."""
    window.show_pane(name)
    pane = window.panes[name]
    if hasattr(pane, "set_text"):
        pane.set_text(text)  # type: ignore[attr-defined]
    elif name == "corpus":
        pane.prepare_screenshot(None)  # type: ignore[attr-defined]
        settle(app, window, 60)
        pane.tabs.setCurrentWidget(pane.efficiency)  # type: ignore[attr-defined]
        pane.efficiency.compute()  # type: ignore[attr-defined]
    else:
        pane.prepare_screenshot(text.split()[0] if name == "merges" else None)  # type: ignore[attr-defined]
    settle(app, window, 60)
    return pane


PRESENTING = [pytest.param((1920, 1080, "dark", True), id="1920x1080-dark-presentation"),
              pytest.param((1280, 800, "light", True), id="1280x800-light-presentation")]


@pytest.mark.parametrize("window", PRESENTING, indirect=True)
def test_presentation_mode_enlarges_every_text(qapp: QApplication, window: MainWindow) -> None:
    """F5: no visible text of any pane, custom-painted, plotted or in a table, is smaller than the
    mode's minimum; table rows are tall enough for their font; the token count is a headline."""
    low = minimum_point_size(PRESENTATION_POINT_SIZE)
    assert low >= 12, "presentation mode's smallest text is itself large"
    assert window.menuBar().font().pointSizeF() >= low and window.toolbar.font().pointSizeF() >= low
    for name in PRESENTATION_PANES:
        pane = show_with_content(qapp, window, name, SCRIPTS["English"] + SCRIPTS["Hindi"])
        small = sorted({(round(size, 1), what) for what, size in fonts_shown(pane) if size < low})
        assert not small, f"{name}: texts below {low} pt in presentation mode: {small[:12]}"
        for table in pane.findChildren(QTableView):
            if table.isVisible() and table.model() is not None and table.model().rowCount() > 0:
                needed = QFontMetrics(table.font()).height()
                height = table.rowHeight(0)
                assert height >= needed + 2, f"{name}: {type(table).__name__} rows {height} px for a {needed} px font"
    counts = window.panes["tokens"].main_lane.counts  # type: ignore[attr-defined]
    assert "x-large" in counts.text()


@pytest.mark.parametrize("window", PRESENTING[:1], indirect=True)
def test_presentation_mode_fits_a_projector(qapp: QApplication, window: MainWindow) -> None:
    """At 1920x1080 nothing is cut: a pane's minimum fits the window, the Training settings column
    shows its fields whole, the Merges "Used by" list has room for an id, and the merge tree's
    labels stay readable however wide the tree."""
    size = QSize(window.size())
    for name in PRESENTATION_PANES:
        pane = show_with_content(qapp, window, name, SCRIPTS["English"])
        assert window.size() == size, f"{name} changed the window's size"
        hint = pane.minimumSizeHint()
        assert hint.width() <= pane.width() and hint.height() <= pane.height(), f"{name} needs {hint}, has {pane.size()}"
    training = window.panes["training"]
    side = training.form.parentWidget()
    while not isinstance(side, QAbstractScrollArea):
        side = side.parentWidget()
    inner = side.widget()
    assert inner.width() >= inner.minimumSizeHint().width(), "the Training settings column is cut at the right"
    merges = window.panes["merges"]
    panel = merges.token_panel  # type: ignore[attr-defined]
    width = QFontMetrics(panel.children_model.font).horizontalAdvance("·Theatre  #123456")
    assert panel.children_view.viewport().width() >= width, "the Used by list cuts its ids"
    tree = panel.tree_view
    show_with_content(qapp, window, "merges", "ingredients")  # (the run made its tokenizer current)
    assert tree.nodes, "no tree drawn"
    scaled = min(point_size_of(font) for font in tree.painted_fonts())
    assert scaled >= minimum_point_size(PRESENTATION_POINT_SIZE), f"tree labels at {scaled:.1f} pt"


@pytest.mark.parametrize("window", configurations()[:1], indirect=True)
def test_zoom_grows_every_text_and_the_merge_tree(qapp: QApplication, window: MainWindow) -> None:
    """Ctrl + grows the interface's own texts too (not only the token views), and the tree labels."""
    pane = show_with_content(qapp, window, "merges", "hello")
    before = {what: size for what, size in fonts_shown(window)}
    tree_before = max(point_size_of(f) for f in pane.token_panel.tree_view.painted_fonts())  # type: ignore[attr-defined]
    for _ in range(4):
        window.zoom(+1)
    settle(qapp, window)
    after = {what: size for what, size in fonts_shown(window)}
    grown = [what for what in before if what in after and after[what] > before[what]]
    assert len(grown) >= 0.9 * len(before), f"texts that did not grow: {sorted(set(before) - set(grown))[:10]}"
    pane.token_panel.draw_tree()  # type: ignore[attr-defined]
    tree_after = max(point_size_of(f) for f in pane.token_panel.tree_view.painted_fonts())  # type: ignore[attr-defined]
    assert tree_after > tree_before
    window.reset_zoom()
    settle(qapp, window)
    assert QApplication.font().pointSizeF() == ui_point_size(BASE_POINT_SIZE)
