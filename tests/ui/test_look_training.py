"""The Training pane's plots and caption as a demanding reader looks at them (issue 12 walk):
axis labels grow with presentation mode, an empty sweep shows no made-up scale, a quoted token
stays whole and in its place in the caption."""

from __future__ import annotations

from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QApplication, QComboBox
from pytestqt.qtbot import QtBot

from explorer.ui.eliding_style import combo_shown_text
from explorer.ui.session import Session

from explorer.ui.training.plots import TrainingPlots
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
    finally:
        close_window(qapp, window)
    window = open_window(qapp, session, (1280, 800, "light", False), "training")
    try:  # normal size: the column as it was, the merges and plots keep their room
        assert window.panes["training"].content.sizes()[0] <= 400
    finally:
        close_window(qapp, window)
