"""What the Training pane shows around a run: readable axes, an empty state, how the run ended,
and the live sentence that re-tokenizes as merges land (issue 12)."""

from __future__ import annotations

from PySide6.QtGui import QFontMetricsF

from explorer.core.algorithms.demo_sentence import DEFAULT_SENTENCE
from explorer.core.algorithms.training_run import build_tokenizer
from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.ui.training.pane import TrainingPane
from tests.ui.test_training_pane import TIMEOUT, pane, use, wait_ended  # noqa: F401 (pane is a fixture)

DECADES = {"1", "10", "100", "1k", "10k", "100k", "1M", "10M"}


def labelled_ticks(axis, low: float, high: float, size: float) -> list[tuple[float, str]]:  # type: ignore[no-untyped-def]
    """(value, label) of every tick the axis would label, as pyqtgraph asks for them when drawing."""
    shown = []
    for spacing, values in axis.tickValues(low, high, size):
        for value, text in zip(values, axis.tickStrings(values, 1.0, spacing)):
            if text:
                shown.append((value, text))
    return sorted(shown)


def shown_pane(qtbot, pane: TrainingPane, size: tuple[int, int] = (1280, 800)) -> None:  # type: ignore[no-untyped-def]
    pane.resize(*size)
    pane.show()
    qtbot.waitExposed(pane)


def test_count_axis_labels_decades_only_and_never_overlap(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    shown_pane(qtbot, pane)
    use(session, "english.txt")
    pane.form.set_vocab_size(1024)
    pane.start()
    wait_ended(qtbot, pane)
    qtbot.wait(100)
    axis = pane.plots.counts.getAxis("left")
    height = QFontMetricsF(axis.style["tickFont"] or axis.font()).height()
    low, high = pane.plots.counts.vb.viewRange()[1]
    cases = [(low, high, axis.height()), (0.0, 1.0, 150.0), (0.0, 6.0, 80.0), (-0.2, 5.0, 300.0)]
    for low, high, size in cases:
        ticks = labelled_ticks(axis, low, high, size)
        assert ticks and {text for _, text in ticks} <= DECADES, (low, high, size, ticks)
        pixels = [size * (b - a) / (high - low) for (a, _), (b, _) in zip(ticks, ticks[1:])]
        assert all(gap >= height for gap in pixels), (low, high, size, ticks)
    assert "1" in {text for _, text in labelled_ticks(axis, low, high, axis.height())}  # the bottom decade is drawn


def test_plots_show_an_empty_state_before_the_first_merge(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    shown_pane(qtbot, pane)
    assert not pane.plots.isVisible() and pane.plots_panel.empty.isVisible()
    assert "Train to see" in pane.plots_panel.empty.text()
    use(session, "english.txt")
    pane.form.set_vocab_size(300)
    pane.start()
    wait_ended(qtbot, pane)
    assert pane.plots.isVisible() and not pane.plots_panel.empty.isVisible()


def test_sweep_hint_wraps_inside_its_plot_at_1280(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    shown_pane(qtbot, pane)
    use(session, "english.txt")
    pane.form.set_vocab_size(800)  # below 1K: the hint stays, no point replaces it
    pane.start()
    wait_ended(qtbot, pane)
    qtbot.wait(100)
    hint, view = pane.plots.sweep_hint, pane.plots.sweep.vb
    assert "A point appears" in hint.textItem.toPlainText()
    box, room = hint.sceneBoundingRect(), view.sceneBoundingRect()
    assert room.left() <= box.left() and box.right() <= room.right(), (box, room)
    assert room.top() <= box.top() and box.bottom() <= room.bottom(), (box, room)


def test_an_early_stop_fits_x_and_says_so(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    session.set_corpus(Corpus((Source.pasted("low lower lowest " * 20),)))
    pane.form.set_vocab_size(400)
    pane.start()
    wait_ended(qtbot, pane)
    learned = len(pane.model.merges)
    assert 0 < learned < pane.run.target == 144
    for plot in (pane.plots.compression, pane.plots.counts):
        x0, x1 = plot.vb.viewRange()[0]
        assert x0 <= 0 and learned <= x1 <= learned * 1.05, (x0, x1)
    assert pane.progress.text() .startswith(f"stopped early at {learned} merges: no pair left")
    assert pane.progress.value() == pane.progress.maximum()
    assert f"Stopped early at {learned} merges: no pair left" in pane.status.text()


def test_a_finished_run_says_done(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    use(session, "english.txt")
    pane.form.set_vocab_size(300)
    pane.start()
    wait_ended(qtbot, pane)
    assert pane.progress.text().startswith("done: 44 merges")
    assert pane.progress.value() == pane.progress.maximum()
    assert pane.status.text().startswith("<b>Done: 44 merges</b>")
    assert pane.plots.compression.vb.viewRange()[0][1] <= 44 * 1.05


def test_a_cancelled_run_says_where_it_stopped(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    use(session, "english.txt")
    pane.form.set_vocab_size(1024)
    pane.start(step=True)
    qtbot.waitUntil(lambda: pane.model.rowCount() == 1, timeout=TIMEOUT)
    pane.run.step(4)
    qtbot.waitUntil(lambda: pane.model.rowCount() == 5, timeout=TIMEOUT)
    pane.run.cancel()
    wait_ended(qtbot, pane)
    assert pane.progress.text().startswith("cancelled at 5 merges")
    assert "Cancelled at 5 merges" in pane.status.text()
    assert pane.plots.counts.vb.viewRange()[0][1] <= 5 * 1.05


def demo_ids(pane: TrainingPane) -> list[int]:
    return pane.demo.view.ids.tolist()


def test_the_sentence_is_tokenized_with_the_merges_so_far(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    corpus = use(session, "english.txt", "hindi.txt")
    assert pane.demo.edit.text().startswith("At the end of Mill Street")  # drawn from the corpus
    sentence = "The garden बगीचा belongs to everyone."
    pane.demo.set_sentence(sentence, edited=True)
    assert demo_ids(pane) == list(sentence.encode("utf-8"))  # before any merge: one token per byte
    pane.form.set_vocab_size(1500)
    pane.start(step=True)  # stops after the first merge
    for learned in (1, 12, 60):
        if learned > 1:
            pane.run.step(learned - len(pane.run.merges))
        qtbot.waitUntil(lambda: pane.demo.tokens.applied == learned, timeout=TIMEOUT)
        expected = build_tokenizer(pane.model.merges[:learned], pane.run.settings, "first").encode(sentence)
        assert demo_ids(pane) == expected, learned
        assert f"{len(expected)} tokens" in pane.demo.count.text()
    pane.run.resume()
    wait_ended(qtbot, pane)
    qtbot.waitUntil(lambda: pane.demo.tokens.applied == len(pane.model.merges), timeout=TIMEOUT)
    assert demo_ids(pane) == pane.tokenizer.encode(sentence)
    pane.demo.edit.end(False)
    qtbot.keyClicks(pane.demo.edit, " Merge me")  # typed: encoded with every merge learned
    assert demo_ids(pane) == pane.tokenizer.encode(sentence + " Merge me")
    session.set_corpus(corpus)  # the user's own sentence stays
    assert pane.demo.edit.text() == sentence + " Merge me"


def test_the_sentence_is_drawn_at_most_once_per_view_tick(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    use(session, "english.txt")
    pane.form.set_vocab_size(2000)
    ticks = []
    pane.ui_timer.timeout.connect(lambda: ticks.append(1))
    pane.start()
    before = pane.demo.redraws
    wait_ended(qtbot, pane)
    redraws = pane.demo.redraws - before
    learned = len(pane.model.merges)
    assert learned == len(pane.run.merges) > 700
    assert 1 <= redraws <= len(ticks) + 1  # + the flush when the run ends
    assert redraws < learned / 10  # not once per merge


def test_an_empty_corpus_shows_the_fox(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    assert pane.demo.edit.text() == DEFAULT_SENTENCE
    assert len(demo_ids(pane)) == len(DEFAULT_SENTENCE)


def test_a_long_sentence_never_widens_the_pane(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    shown_pane(qtbot, pane)
    before = pane.minimumSizeHint().width()
    pane.demo.set_sentence("Supercalifragilisticexpialidocious" * 30, edited=True)
    qtbot.wait(50)
    assert pane.minimumSizeHint().width() <= max(before, 1280)
    assert pane.width() == 1280


def test_the_new_token_column_shows_a_long_merge_whole(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    """At 1280x800 the three text columns shared the room equally, so '·neighbours' read '·neigh…'."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QFontMetrics

    from explorer.ui.training.model import NEW

    shown_pane(qtbot, pane)
    use(session, "english.txt")
    pane.form.set_vocab_size(1024)
    pane.start()
    wait_ended(qtbot, pane)
    model = pane.table.model()
    last = model.index(model.rowCount() - 1, NEW)
    assert last.data(Qt.ItemDataRole.DisplayRole) == "·neighbours"
    font = last.data(Qt.ItemDataRole.FontRole) or pane.table.font()
    assert pane.table.columnWidth(NEW) >= QFontMetrics(font).horizontalAdvance("·neighbours") + 8


def test_a_new_run_shows_the_sentence_with_its_own_tokens_texts(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    """The sentence keeps each token's display between redraws (issue 16): a new run's ids mean
    other bytes, and must be shown as the new run's tokens, not as the last run's."""
    from explorer.ui.tokens.display import DisplayBuilder
    from explorer.ui.tokens.wrapping import keep_whole, shown
    from explorer.ui.training.demo import _Vocab

    sentence = "The garden बगीचा belongs to everyone."
    pane.demo.set_sentence(sentence, edited=True)
    for corpus in ("english.txt", "hindi.txt"):
        use(session, corpus)
        pane.form.set_vocab_size(700)
        pane.start()
        wait_ended(qtbot, pane)
        qtbot.waitUntil(lambda: pane.demo.tokens.applied == len(pane.model.merges), timeout=TIMEOUT)
        ids = demo_ids(pane)
        assert ids == pane.tokenizer.encode(sentence)
        assert max(ids) >= 256  # merged tokens, whose bytes differ from one run to the other
        fresh = DisplayBuilder(_Vocab(pane.model.vocab), False, keep_whole).piece(ids)  # type: ignore[arg-type]
        assert shown(pane.demo.view.toPlainText()) == shown(fresh.text), corpus
        assert "<E0>" not in fresh.text or corpus == "english.txt"  # (Hindi's run merged its letters)


def test_the_end_of_a_run_lays_the_status_out_once(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    """Laying the status out (its HTML in a document, to keep its height) took 5-10 ms a time, and
    the turn that ended a run did it two or three times (issue 16's longest stall at 400 MB)."""
    use(session, "english.txt")
    pane.form.set_vocab_size(400)
    laid_out: list[bool] = []  # whether the tokenizer was built yet, for each lay-out once the run ended
    fit = pane._fit_status

    def counting() -> None:
        if pane.run is not None and not pane.run.is_running:
            laid_out.append(pane.tokenizer is not None)
        fit()

    pane._fit_status = counting  # type: ignore[method-assign]
    pane.start()
    wait_ended(qtbot, pane)
    assert laid_out.count(False) == 1  # the turn that ended it (and once more when the tokenizer is in)
