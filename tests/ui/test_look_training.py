"""The Training pane's plots and caption as a demanding reader looks at them (issue 12 walk):
axis labels grow with presentation mode, an empty sweep shows no made-up scale, a quoted token
stays whole and in its place in the caption."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import QPointF, QSize
from PySide6.QtGui import QFont, QFontInfo, QFontMetricsF, QTextDocument, QTextLayout
from PySide6.QtWidgets import QApplication, QComboBox
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.train import Merge
from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.ui.eliding_style import combo_shown_text
from explorer.ui.session import Session

from explorer.ui.training.demo import VIEW_LINES
from explorer.ui.training.plots import TrainingPlots
from explorer.ui.training.run import MERGING
from explorer.ui.training.status import status_html
from explorer.ui.theme import PRESENTATION_POINT_SIZE
from tests.ui.windows import close_window, open_window, settle


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


@pytest.mark.parametrize("width", range(360, 480, 8))
def test_a_plot_title_stays_within_its_plot_at_presentation_size(qtbot: QtBot, qapp: QApplication,
                                                                  width: int) -> None:
    """Centred over the plot right of its left axis, a title that does not fit there goes to two
    lines: at 1280x800 in presentation mode '━ training text' ran off the plots' right edge."""
    plots = TrainingPlots()
    qtbot.addWidget(plots)
    plots.resize(width, 700)
    plots.show()
    plots.set_font_size(PRESENTATION_POINT_SIZE)
    qapp.processEvents()
    for plot in (plots.compression, plots.counts, plots.sweep):
        text = plot.titleLabel.item
        inside = plot.titleLabel.mapRectToScene(plot.titleLabel.boundingRect())
        drawn = text.mapRectToScene(text.boundingRect())
        assert drawn.right() <= inside.right() + 1 and drawn.left() >= inside.left() - 1, \
            (text.toPlainText(), drawn.width(), inside.width())


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


def test_the_live_sentence_is_drawn_in_the_token_font_in_the_window(qapp: QApplication, session: Session) -> None:
    """The pane gives its views their fonts while it is built; putting its content in place must
    not drop them (the sentence showed in the 9 pt UI font, its space marks unreadable)."""
    window = open_window(qapp, session, (1280, 800, "light", False), "training")
    try:
        view = window.panes["training"].demo.view
        for font in (view.font(), view.document().defaultFont()):
            assert (font.family(), font.pointSize()) == (session.font.family(), session.font.pointSize())
    finally:
        close_window(qapp, window)


def test_the_settings_show_whole_at_presentation_size_on_a_projector(qapp: QApplication, session: Session) -> None:
    window = open_window(qapp, session, (1920, 1080, "light", True), "training")
    try:
        settle(qapp, window)
        form = window.panes["training"].form
        combos = [combo for combo in form.findChildren(QComboBox) if combo.isVisible()]
        assert len(combos) >= 3
        for combo in combos:  # "cl100k: GPT-4 / cl100k_base", "built-in (streams every merge)", ...
            assert combo_shown_text(combo) == combo.currentText(), combo.currentText()
        name = form.name_edit
        assert name.fontMetrics().horizontalAdvance(name.placeholderText()) <= name.contentsRect().width() - 4
        pane = window.panes["training"]  # and beside them the merges table whole, the plots with room
        assert pane.table.horizontalScrollBar().maximum() == 0
        assert pane.plots_panel.width() >= 400
    finally:
        close_window(qapp, window)
    window = open_window(qapp, session, (1280, 800, "light", False), "training")
    try:  # normal size: the column as it was, the merges and plots keep their room
        assert window.panes["training"].content.sizes()[0] <= 400
    finally:
        close_window(qapp, window)


def _caption(left: bytes, right: bytes) -> str:
    """The status line for the merge `left` + `right` while a run merges, as plain text."""
    vocab = [bytes([b]) for b in range(256)] + [left, right]
    merge = Merge(0, 256, 257, 258, left + right, 3, 100)
    run = SimpleNamespace(state=MERGING, stage="merging", merges=[merge], target=9, counting=None)
    document = QTextDocument()
    document.setHtml(status_html(run, vocab, None))  # type: ignore[arg-type]
    return document.toRawText()  # (toPlainText would make no-break spaces plain ones)


def _left_edges(text: str, width: float = 4000.0) -> tuple[dict[int, float], list[int]]:
    """Each character's left edge in a line laid out as the status label lays it out, and where
    lines start when it wraps at `width`."""
    layout = QTextLayout(text, QFont())
    layout.beginLayout()
    starts = []
    while (line := layout.createLine()).isValid():
        line.setLineWidth(width)
        starts.append(line.textStart())
    layout.endLayout()
    edges = {}
    for index in range(len(text)):
        xs = [point.x() for run in layout.glyphRuns(index, 1) for point in run.positions()]
        if xs:
            edges[index] = min(xs)
    return edges, starts


def test_an_arabic_merge_in_the_caption_keeps_its_place_and_its_order(qapp: QApplication) -> None:
    text = _caption(" ".encode(), "ال ".encode())  # "merge 1 of 9: ' ' + 'ال ' → ' ال ' (seen 3 times)"
    edges, _ = _left_edges(text)
    plus, arrow, seen = text.index("+"), text.index("→"), text.index("(seen")
    alef, lam = text.index("ا"), text.index("ل")  # the right part's letters, in logical order
    assert edges[plus] < edges[alef] and edges[plus] < edges[lam] < edges[arrow] < edges[seen]
    assert edges[lam] < edges[alef]  # right to left inside its quotes: alef on the right
    last_alef, last_lam = text.rindex("ا"), text.rindex("ل")  # the new token, after the arrow
    assert edges[arrow] < edges[last_lam] < edges[last_alef] < edges[seen]


def test_a_wrapped_caption_never_breaks_inside_a_quoted_token(qapp: QApplication) -> None:
    text = _caption(b" ret", b"urn urn")
    quotes = [index for index, char in enumerate(text) if char == "'"]
    inside = {i for a, b in zip(quotes[::2], quotes[1::2]) for i in range(a + 1, b + 1)}
    widest = max(QFontMetricsF(QFont()).horizontalAdvance(text[a:b + 1]) for a, b in zip(quotes[::2], quotes[1::2]))
    for width in range(int(widest) + 2, 500, 7):  # (a line narrower than a token must cut it)
        _, starts = _left_edges(text, width)
        assert not inside & set(starts[1:]), (width, [text[s:s + 6] for s in starts])


def test_before_a_run_the_sentence_starts_in_view_and_the_plots_message_is_whole(
        qapp: QApplication, session: Session) -> None:
    window = open_window(qapp, session, (1280, 800, "light", True), "training")
    try:
        pane = window.panes["training"]
        assert pane.demo.edit.cursorPosition() == 0  # "The quick...", not "...ick brown fox"
        message = pane.plots_panel.empty
        assert message.isVisible()
        assert message.height() >= message.heightForWidth(message.width())  # no line cut at the bottom
    finally:
        close_window(qapp, window)


def test_the_live_sentence_shows_its_lines_of_boxes_whole(qapp: QApplication, session: Session) -> None:
    """Before any merge a sentence is one box per byte: its first VIEW_LINES lines of boxes fit,
    none cut in half (box lines are taller than the font's line spacing); a short one takes one line."""
    window = open_window(qapp, session, (1280, 800, "light", True), "training")
    try:
        demo = window.panes["training"].demo
        demo.set_sentence("%s: イメージ名 '%s' からパスの要素が取り除かれました。")
        qapp.processEvents()
        assert demo.view.content_height() > demo.view.lines_height(VIEW_LINES)  # (more than fits: it scrolls)
        margin = demo.view.document().documentMargin()  # (below the last line shown, the next begins)
        assert demo.view.height() >= demo.view.lines_height(VIEW_LINES) - margin - 2
        demo.set_sentence("The cat sat.")  # one line of boxes: the plots get the rest
        qapp.processEvents()
        assert demo.view.lines_height(1) <= demo.view.height() < demo.view.lines_height(2)
    finally:
        close_window(qapp, window)


def test_how_a_run_ended_is_shown_whole_at_presentation_size(qapp: QApplication, qtbot: QtBot,
                                                            session: Session) -> None:
    """While a run goes on the status keeps two lines (no re-layout of the plots per merge); once it
    has ended it is as tall as its text ('Stopped early ... The last, merge ...' took four lines)."""
    window = open_window(qapp, session, (1280, 800, "light", True), "training")
    try:
        pane = window.panes["training"]
        session.set_corpus(Corpus((Source.pasted("low lower lowest newer newest wider widest " * 30),)))
        pane.form.set_vocab_size(1024)
        assert pane.start(step=True)
        qtbot.waitUntil(lambda: pane.model.rowCount() == 1, timeout=30_000)
        two_lines = pane.status.height()
        assert two_lines == pane.status.maximumHeight()
        pane.run.resume()
        qtbot.waitUntil(lambda: not pane.run.is_running, timeout=30_000)
        settle(qapp, window)
        status = pane.status
        assert "Stopped early" in status.text()
        assert status.heightForWidth(status.width()) > two_lines  # (long: the case)
        assert status.height() >= status.heightForWidth(status.width())
        assert window.size() == QSize(1280, 800)
    finally:
        close_window(qapp, window)


def test_a_wide_merges_table_gives_the_parts_their_share(qapp: QApplication, session: Session) -> None:
    """At 1920x1080 the parts kept 5 characters ('<E8 …', 'ありが…') while the new token had 340 px."""
    from explorer.ui.training.model import LEFT, NEW, RIGHT

    window = open_window(qapp, session, (1920, 1080, "light", False), "training")
    try:
        settle(qapp, window)
        table = window.panes["training"].table
        part = QFontMetricsF(session.font).horizontalAdvance("<E8 9F>") + 12  # (the parts' token font)
        for column in (LEFT, RIGHT):
            assert table.columnWidth(column) >= part, (column, table.columnWidth(column), part)
        assert table.columnWidth(NEW) >= table.columnWidth(LEFT)
        assert table.horizontalScrollBar().maximum() == 0
    finally:
        close_window(qapp, window)
    window = open_window(qapp, session, (1280, 800, "light", True), "training")
    try:  # no room: the parts at their least again, the table whole or pinned as before
        settle(qapp, window)
        table = window.panes["training"].table
        assert table.columnWidth(LEFT) <= table.columnWidth(NEW)
    finally:
        close_window(qapp, window)


@pytest.mark.parametrize(("width", "height"), [(290, 520), (330, 560), (380, 640), (440, 760), (520, 900)])
def test_the_sweep_hint_is_never_cut_by_its_plot(qtbot: QtBot, qapp: QApplication, width: int, height: int) -> None:
    """Before its first point the sweep plot says what will appear there; in a plot too short for
    all of it a shorter hint, or none (at 1920x1080 in presentation mode its first and last lines
    were cut by the plot's edges)."""
    plots = TrainingPlots()
    qtbot.addWidget(plots)
    plots.resize(width, height)
    plots.show()
    plots.set_font_size(PRESENTATION_POINT_SIZE)
    qapp.processEvents()
    hint, view = plots.sweep_hint, plots.sweep.vb
    box, room = hint.sceneBoundingRect(), view.sceneBoundingRect()
    text = hint.textItem.toPlainText()
    assert not text or room.top() <= box.top() and box.bottom() <= room.bottom(), (text, box, room)
    assert not text or room.left() <= box.left() and box.right() <= room.right(), (text, box, room)
    if room.height() > 4 * QFontMetricsF(hint.textItem.font()).height():
        assert text.startswith("A point appears"), text  # room for it: the hint says it


def test_the_plots_shortest_titles_leave_the_table_its_room_at_presentation_size(qtbot: QtBot, qapp: QApplication) -> None:
    """The merges table widens to show the new token whole as long as the sentence and plots keep
    PLOTS_LEAST px; the plots' own least width (their shortest titles) must be within it. With
    'Count of each merge' it was 347 px: at 1280x800 in presentation mode ' neighbours', the English
    sample's last merge, went under the cut-column cover for 12 px."""
    from explorer.ui.training.pane import PLOTS_LEAST

    plots = TrainingPlots()
    qtbot.addWidget(plots)
    plots.resize(400, 700)
    plots.show()
    plots.set_font_size(PRESENTATION_POINT_SIZE)
    qapp.processEvents()
    margins = 24  # the plots panel's scroll bar and frame around them
    assert plots.least_width() + margins <= PLOTS_LEAST, plots.least_width()


@pytest.mark.parametrize("font_first", [True, False], ids=["font-then-point", "point-then-font"])
@pytest.mark.parametrize("height", [300, 640, 900])
def test_a_sweep_points_figure_is_never_cut_by_the_top_of_its_plot(qtbot: QtBot, qapp: QApplication,
                                                                   height: int, font_first: bool) -> None:
    """The y axis reaches over the highest point by the room its label takes in pixels (anchored
    1.3 label heights up): 1.6 times its value left '1K: 2.12' cut at the top of a short plot at
    1920x1080 in presentation mode."""
    plots = TrainingPlots()
    qtbot.addWidget(plots)
    plots.resize(420, height)
    plots.show()
    if font_first:
        plots.set_font_size(PRESENTATION_POINT_SIZE)
    plots.reset(4.0, held_out=False, target=1023)
    plots.add([1023], [5], [2.12], [], [1024])
    plots.refresh()
    if not font_first:  # (F5 after the run: the figure grows in the plot as it is)
        plots.set_font_size(PRESENTATION_POINT_SIZE)
    qapp.processEvents()
    [label] = plots.sweep_labels
    view = plots.sweep.vb
    assert label.textItem.toPlainText() == "1K: 2.12"
    point = view.mapViewToScene(QPointF(10.0, 2.12))
    assert point.y() - view.sceneBoundingRect().top() >= 1.3 * label.boundingRect().height(), (
        point.y() - view.sceneBoundingRect().top(), label.boundingRect().height())
