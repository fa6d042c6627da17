"""The Merges pane: vocabulary table, filters, merge tree, "used by", history, trace, audit, exports."""

from __future__ import annotations

import threading
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.train import train
from explorer.core.analysis.audit import audit_vocabulary
from explorer.core.analysis.occurrences import count_occurrences
from explorer.core.corpora.corpus_sources import Corpus, Source
from explorer.core.errors import ExplorerError
from explorer.core.generators import run_to_end
from explorer.core.formats.own import from_merges
from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.sentencepiece import SentencePieceTokenizer
from explorer.core.sources.tokenizer import VIEW_MERGES, SpecialMode, Tokenizer
from explorer.ui.merges import create_pane
from explorer.ui.merges import loader as loader_module
from explorer.ui.merges.model import COLUMN_INDEX, COLUMNS, TOKEN_ID_ROLE, ChildrenModel, VocabModel
from explorer.ui.merges.pane import MergesPane
from explorer.ui.merges.tree_view import NodeItem
from explorer.ui.session import Session
from explorer.ui.workers import ProcessJob

TEXTS = ["the cat sat on the mat. the cat ate the rat. ingredients of the ingredient list\n",
         "नमस्ते दुनिया, 日本語\n", "tabs\tand\nnewlines  here\n"] * 30


@pytest.fixture(scope="module")
def trained() -> BPE:
    return from_merges(list(train(TEXTS, 420, "cl100k", ["<|endoftext|>"])), "cl100k", ["<|endoftext|>"],
                       name="test")


def open_pane(qtbot: QtBot, session: Session, tokenizer: Tokenizer) -> MergesPane:
    pane = create_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1300, 800)
    pane.show()
    session.set_tokenizer(tokenizer, "trained:" + tokenizer.name)
    qtbot.waitUntil(lambda: pane.table is not None and not pane.busy, timeout=20_000)
    return pane


def visible_ids(pane: MergesPane) -> list[int]:
    return [pane.model.index(row, 0).data(TOKEN_ID_ROLE) for row in range(pane.model.rowCount())]


def test_models_pass_the_model_tester(qtbot: QtBot, session: Session, trained: BPE, qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    pane = open_pane(qtbot, session, trained)
    qtmodeltester.check(pane.model)
    model = VocabModel()
    model.set_table(pane.table)
    model.sort(COLUMN_INDEX["Bytes"], Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(model)
    children = ChildrenModel()
    children.set_token(pane.table, trained.forest, trained.encode("t")[0])
    assert children.rowCount() > 0
    qtmodeltester.check(children)


def test_table_lists_the_vocabulary_with_merges_and_counts(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    assert pane.model.rowCount() == trained.vocab_size
    cat = trained.encode(" cat")[0]
    row = pane.model.row_of_token(cat)
    left, right = trained.forest.parents(cat)  # type: ignore[misc]

    def cell(title: str) -> str:
        return pane.model.index(row, COLUMN_INDEX[title]).data()

    assert cell("Token") == "·cat"
    assert cell("Bytes") == "4"
    assert cell("Rank") == f"{trained.forest.rank(cat):,}"
    assert cell("Left parent").endswith(f"({left})") and cell("Right parent").endswith(f"({right})")
    assert cell("Merge count") == f"{trained.forest.count(cat):,}"
    assert not pane.table_view.isColumnHidden(COLUMN_INDEX["Merge count"])  # trained here: counts shown
    assert pane.table_view.isColumnHidden(COLUMN_INDEX["Seen"])  # no corpus loaded
    partial = next(i for i in range(256, trained.vocab_size) if trained.token_bytes(i)[-1] == 0xA4)
    assert "<" in pane.model.index(pane.model.row_of_token(partial), 1).data()


def test_sorting_by_length_descending(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    pane.table_view.sortByColumn(COLUMN_INDEX["Bytes"], Qt.SortOrder.DescendingOrder)
    lengths = [len(trained.token_bytes(i)) for i in visible_ids(pane)]
    assert lengths == sorted(lengths, reverse=True)
    pane.table_view.sortByColumn(COLUMN_INDEX["Rank"], Qt.SortOrder.AscendingOrder)
    ranks = [trained.forest.rank(i) for i in visible_ids(pane)]
    known = [r for r in ranks if r is not None]
    assert known == sorted(known) and ranks[: len(known)] == known  # rows without a rank come last


def test_text_regex_and_id_filters(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    pane.filter_bar.text.setText("·the")
    qtbot.waitUntil(lambda: pane.model.rowCount() < trained.vocab_size)
    expected = [i for i in range(trained.vocab_size) if b" the" in trained.token_bytes(i).lower()]
    assert visible_ids(pane) == expected
    assert f"{len(expected)} of {trained.vocab_size}" in pane.result_label.text()

    pane.filter_bar.mode.setCurrentIndex(pane.filter_bar.mode.findData("regex"))
    pane.filter_bar.text.setText(r"^\p{Devanagari}")
    qtbot.waitUntil(lambda: pane.model.query.text == r"^\p{Devanagari}")  # after the typing pause
    shown = visible_ids(pane)
    assert shown and all(trained.token_bytes(i).decode("utf-8", "replace")[0] in "नमस्तेदुनिया" for i in shown)

    pane.filter_bar.text.setText("(broken")
    qtbot.waitUntil(lambda: pane.error_label.isVisible())
    assert "not a valid regex" in pane.error_label.text()
    assert visible_ids(pane) == shown  # the last good filter stays

    pane.filter_bar.mode.setCurrentIndex(pane.filter_bar.mode.findData("id"))
    pane.filter_bar.text.setText("97, 256-258")
    qtbot.waitUntil(lambda: pane.model.query.text == "97, 256-258")
    assert visible_ids(pane) == [97, 256, 257, 258]
    assert not pane.error_label.isVisible()


def test_a_regex_over_every_row_runs_off_the_gui_thread_and_the_last_query_wins(qtbot: QtBot, session: Session,
                                                                                trained: BPE) -> None:
    from explorer.core.analysis.vocab_filter import VocabQuery

    pane = open_pane(qtbot, session, trained)
    first, last = VocabQuery(text="^\\s", mode="regex"), VocabQuery(text="t$", mode="regex")
    assert pane.table.needs_search(first)
    pane._apply_query(first)
    pane._apply_query(last)  # typed on before the first answer came
    assert pane.result_label.text() == "filtering..."  # nothing searched on this thread yet
    qtbot.waitUntil(lambda: pane.model.query == last)
    qtbot.wait(100)  # a late answer to the first query must not replace it
    assert pane.model.query == last
    assert visible_ids(pane) == [i for i in range(trained.vocab_size)
                                 if pane.table.search[pane.table.row_of[i]].endswith("t")]
    assert not pane.table.needs_search(last)  # remembered: the same text again is answered at once


def test_length_and_script_filters(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    pane.filter_bar.min_length.setValue(5)
    pane.filter_bar.max_length.setValue(6)
    assert visible_ids(pane) and all(5 <= len(trained.token_bytes(i)) <= 6 for i in visible_ids(pane))
    pane.filter_bar.min_length.setValue(0)
    pane.filter_bar.max_length.setValue(0)
    han = next(i for i in range(pane.filter_bar.script.count()) if pane.filter_bar.script.itemText(i).startswith("Han"))
    pane.filter_bar.script.setCurrentIndex(han)
    ids = visible_ids(pane)
    assert ids and all(set(trained.decode([i]).strip()) <= set("日本語") for i in ids)
    assert f"({len(ids)})" in pane.filter_bar.script.itemText(han)


def test_selecting_a_token_draws_its_tree_down_to_the_bytes(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    token = trained.encode(" ingredients")[0]
    pane.table_view.selectRow(pane.model.row_of_token(token))
    assert pane.current == token
    tree = pane.token_panel.tree_view.tree
    assert tree is not None and tree.root.token_id == token
    for node in tree.nodes:
        pair = trained.forest.parents(node.token_id)
        assert tuple(tree.nodes[i].token_id for i in node.children) == (pair or ())
    assert b"".join(trained.token_bytes(n.token_id) for n in tree.leaves()) == b" ingredients"
    assert len(pane.token_panel.tree_view.nodes) == len(tree.nodes)
    assert pane.token_panel.children_model.children == trained.forest.children(token)


def click_node(qtbot: QtBot, pane: MergesPane, node: NodeItem) -> None:
    view = pane.token_panel.tree_view
    view.centerOn(node)
    point = view.mapFromScene(node.sceneBoundingRect().center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_click_a_node_then_go_back_and_forward(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    token = trained.encode(" ingredients")[0]
    pane.navigate(token)
    left, right = trained.forest.parents(token)  # type: ignore[misc]
    node = next(n for n in pane.token_panel.tree_view.nodes if n.token_id == left)
    click_node(qtbot, pane, node)
    assert pane.current == left
    assert pane.token_panel.tree_view.tree is not None and pane.token_panel.tree_view.tree.root.token_id == left
    assert pane.model.index(pane.table_view.currentIndex().row(), 0).data(TOKEN_ID_ROLE) == left
    # "Used by" of the left parent lists the token we came from; clicking it goes there.
    row = pane.token_panel.children_model.children.index(token)
    pane.token_panel.children_view.clicked.emit(pane.token_panel.children_model.index(row))
    assert pane.current == token
    pane.token_panel.tree_view.setFocus()
    qtbot.keyClick(pane.token_panel.tree_view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert pane.current == left
    qtbot.keyClick(pane.token_panel.tree_view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert pane.current == token
    assert not pane.token_panel.back_button.isEnabled() or pane.history.can_go_back
    qtbot.keyClick(pane.token_panel.tree_view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    assert pane.current == left
    pane.token_panel.forward_button.click()
    assert pane.current == token


def test_tree_zooms_with_keys_and_wheel_and_fits(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    pane.navigate(trained.encode(" ingredients")[0])
    view = pane.token_panel.tree_view
    view.setFocus()
    before = view.scale_factor
    qtbot.keyClick(view, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert view.scale_factor == pytest.approx(before * 1.2)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert view.scale_factor == pytest.approx(before)
    view.zoom(3)
    qtbot.keyClick(view, Qt.Key.Key_F)
    assert view.scale_factor == pytest.approx(before)


def test_token_requested_from_another_pane(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    token = trained.encode(" cat")[0]
    session.show_token(token)
    assert pane.current == token
    assert pane.token_panel.tree_view.tree is not None and pane.token_panel.tree_view.tree.root.token_id == token


def test_token_requested_before_the_table_is_ready(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = create_pane(session)
    qtbot.addWidget(pane)
    token = trained.encode(" mat")[0]
    session.set_tokenizer(trained, "trained:test")
    session.show_token(token)
    qtbot.waitUntil(lambda: pane.table is not None and not pane.busy, timeout=20_000)
    assert pane.current == token


def test_encode_trace_steps_to_the_final_tokens(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    trace = pane.trace_panel
    trace.set_text("the ingredients")
    assert trace.total > 3
    first = trace.trace.steps[0][1]  # type: ignore[union-attr]
    assert first.rank == min(step.rank for _, step in trace.trace.steps if _ == trace.trace.steps[0][0])  # type: ignore[union-attr]
    assert "Bytes" in trace.status.text()
    trace.step_button.click()
    assert "Step 1 of" in trace.status.text() and trace.done == 1
    trace.input.setFocus()
    qtbot.keyClick(trace.input, Qt.Key.Key_F9)
    assert trace.done == 2
    trace.timer.setInterval(20)  # Play, quickly
    trace.play_button.click()
    qtbot.waitUntil(lambda: trace.done == trace.total, timeout=trace.total * 1000 + 2000)
    assert not trace.play_button.isChecked()
    assert "Same as encoding the text" in trace.status.text()
    final = [t for chunk in trace.trace.state(trace.done)[0] for t in chunk]  # type: ignore[union-attr]
    assert final == trained.encode("the ingredients")
    assert f"<b>Done:</b> {len(final)} tokens:" in trace.status.text()  # not "token(s)"
    assert trace.strip.tokens_shown() == [pane._label(i) for i in final]
    trace.reset_button.click()
    assert trace.done == 0 and len(trace.strip.tokens_shown()) == len("the ingredients".encode())
    trace.input.setText("tabs\u2192and\u21b5")  # the visible symbols stand for a tab and a newline
    assert trace.text() == "tabs\tand\n" and trace.trace is not None
    assert trace.trace.final == trained.encode("tabs\tand\n")


def test_sentencepiece_tree_and_trace(qtbot: QtBot, session: Session) -> None:
    """Mistral's merges come from its scores: the tree of `▁international` and a trace that
    starts from characters (a Hindi one with byte fallback) and ends in the encoding."""
    mistral = SentencePieceTokenizer.bundled("mistral_v3")
    pane = open_pane(qtbot, session, mistral)
    token = mistral.encode("international")[0]
    pane.navigate(token)
    assert pane.forest is not None and pane.forest.parents(token) is not None
    leaves = [node for node in pane.token_panel.tree_view.nodes if pane.forest.parents(node.token_id) is None]
    assert len(leaves) == len("▁international") and all(node.lines[1:] == ["char"] for node in leaves)
    assert "merges down to a char" in pane.token_panel.legend.text()
    trace = pane.trace_panel
    trace.set_text("internationalization झ")
    assert trace.trace is not None and trace.total > 5
    pieces = [mistral.pieces[i] for i in trace.trace.start[0]]
    assert pieces[:4] == ["▁", "i", "n", "t"] and pieces[-3:] == ["<0xE0>", "<0xA4>", "<0x9D>"]
    assert trace.trace.final == mistral.encode("internationalization झ", "plain")


def test_audit_flags_are_columns_and_filters_with_counts(qtbot: QtBot, session: Session) -> None:
    toy = BPE([(97, 98, 256), (98, 99, 257), (97, 257, 258)], "none", {"<|end|>": 259}, name="toy")
    pane = open_pane(qtbot, session, toy)
    labels = [pane.filter_bar.flag.itemText(i) for i in range(pane.filter_bar.flag.count())]
    assert "Unreachable (1)" in labels and "Special (1)" in labels and "Impossible in utf-8 (13)" in labels
    assert not pane.table_view.isColumnHidden(COLUMN_INDEX["Unreachable"])
    pane.filter_bar.flag.setCurrentIndex(labels.index("Unreachable (1)"))
    assert visible_ids(pane) == [258]
    assert pane.model.index(0, COLUMN_INDEX["Unreachable"]).data() == "\u2713"
    pane.navigate(258)
    assert "Unreachable" in pane.token_panel.info_label.text() and "ab" in pane.token_panel.info_label.text()


def test_corpus_counts_give_seen_never_seen_and_rare(qtbot: QtBot, session: Session, trained: BPE) -> None:
    pane = open_pane(qtbot, session, trained)
    session.set_corpus(["the cat sat on the mat.\n"] * 12 + ["the rat\n"])
    qtbot.waitUntil(lambda: pane.table is not None and pane.table.seen is not None and not pane.busy)
    assert not pane.table_view.isColumnHidden(COLUMN_INDEX["Seen"])
    cat = trained.encode(" cat")[0]
    assert pane.model.index(pane.model.row_of_token(cat), COLUMN_INDEX["Seen"]).data() == "12"
    labels = [pane.filter_bar.flag.itemText(i) for i in range(pane.filter_bar.flag.count())]
    rare = next(label for label in labels if label.startswith("Rare"))
    pane.filter_bar.flag.setCurrentIndex(labels.index(rare))
    assert trained.encode(" rat")[0] in visible_ids(pane) and cat not in visible_ids(pane)
    pane.filter_bar.rare_below.setValue(20)
    assert cat in visible_ids(pane)


def _counting_corpus(tmp_path: Path, lines: int) -> Corpus:
    path = tmp_path / "corpus.txt"
    path.write_text("".join(TEXTS) * (lines // len(TEXTS) + 1), encoding="utf-8")
    return Corpus((Source.for_path(path),))


@pytest.mark.parametrize("spec", ["trained:test", "r50k_base"])
def test_a_big_corpus_is_counted_in_a_child_process_to_the_same_numbers(
        qtbot: QtBot, session: Session, trained: BPE, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str) -> None:
    """Counting 400 MB takes minutes: in a thread it shared the window's interpreter lock all along.
    The child loads the tokenizer by its spec, or from its document when it was trained here."""
    monkeypatch.setattr(loader_module, "CHILD_BYTES", 1)
    tokenizer = trained if spec.startswith("trained:") else load_tokenizer(spec)
    pane = create_pane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(tokenizer, spec)
    qtbot.waitUntil(lambda: pane.table is not None and not pane.busy, timeout=20_000)
    corpus = _counting_corpus(tmp_path, 600)
    session.set_corpus(corpus)
    job = pane.loader.jobs.get("corpus")
    assert isinstance(job, ProcessJob)
    qtbot.waitUntil(lambda: pane.table.seen is not None and not pane.busy, timeout=30_000)
    expected = run_to_end(count_occurrences(tokenizer, iter(corpus)))
    assert pane.table.seen.tolist() == expected.tolist() and expected.sum() > 5_000


@pytest.mark.parametrize("spec", ["trained:test", "r50k_base"])
def test_a_big_vocabulary_is_audited_in_a_child_process_to_the_same_flags(
        qtbot: QtBot, session: Session, trained: BPE, monkeypatch: pytest.MonkeyPatch, spec: str) -> None:
    """Encoding every token of 32,768 took 0.6 s of pure Python on a thread: as a training run's
    result was shown, the window stalled 100-230 ms at a time (bench_big_training's tail)."""
    monkeypatch.setattr(loader_module, "CHILD_TOKENS", 300)
    tokenizer = trained if spec.startswith("trained:") else load_tokenizer(spec)
    pane = create_pane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(tokenizer, spec)
    qtbot.waitUntil(lambda: "audit" in pane.loader.jobs or pane.loader.audit is not None, timeout=20_000)
    assert isinstance(pane.loader.jobs.get("audit"), ProcessJob)
    qtbot.waitUntil(lambda: pane.loader.audit is not None and not pane.busy, timeout=30_000)
    expected = run_to_end(audit_vocabulary(tokenizer))
    found = pane.loader.audit
    assert (found.unreachable, found.undecodable, found.impossible, found.special) == \
        (expected.unreachable, expected.undecodable, expected.impossible, expected.special)
    assert found.unreachable_checked and len(expected.undecodable) > 100 and pane.table.audited


def test_a_small_vocabulary_is_audited_on_a_thread(qtbot: QtBot, session: Session, trained: BPE) -> None:
    assert trained.vocab_size < loader_module.CHILD_TOKENS  # a child would take longer to start than the audit
    pane = create_pane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(trained, "trained:test")
    qtbot.waitUntil(lambda: "audit" in pane.loader.jobs or pane.loader.audit is not None, timeout=20_000)
    job = pane.loader.jobs.get("audit")
    assert pane.loader.audit is not None or not isinstance(job, ProcessJob)


def test_a_pasted_text_is_counted_on_a_thread(qtbot: QtBot, session: Session, trained: BPE) -> None:
    """A child takes a second to start and load the tokenizer: small texts are counted here, at once."""
    pane = open_pane(qtbot, session, trained)
    session.set_corpus(["the cat sat on the mat.\n"] * 12)
    job = pane.loader.jobs.get("corpus")
    assert job is not None and not isinstance(job, ProcessJob)
    qtbot.waitUntil(lambda: pane.table.seen is not None and not pane.busy)


@pytest.mark.parametrize("how", ["cancel", "close"])
def test_counting_in_a_child_ends_with_cancel_and_at_close_without_waiting(
        qtbot: QtBot, session: Session, trained: BPE, tmp_path: Path, how: str) -> None:
    pane = open_pane(qtbot, session, trained)
    session.set_corpus(_counting_corpus(tmp_path, 200_000))  # 10 MB (over CHILD_BYTES): seconds of counting
    job = pane.loader.jobs["corpus"]
    assert isinstance(job, ProcessJob)
    qtbot.waitUntil(lambda: job._process is not None and job._process.is_alive(), timeout=10_000)
    process = job._process
    started = time.monotonic()
    if how == "cancel":
        pane.loader.cancel()
        qtbot.waitUntil(lambda: job.done, timeout=5_000)
    else:
        assert session.shutdown(100)  # as the window closes: a short wait, and no thread left waiting
    assert time.monotonic() - started < 2.5 and not process.is_alive()
    assert pane.table.seen is None


def test_a_count_that_ends_after_its_pane_is_gone_is_dropped_quietly(
        qtbot: QtBot, session: Session, trained: BPE, monkeypatch: pytest.MonkeyPatch) -> None:
    """A window closed mid-count: the count's result reaches a loader that Qt has deleted."""
    release = threading.Event()

    def slow_count(tokenizer: Tokenizer, texts: Iterable[str]):  # type: ignore[no-untyped-def]
        release.wait(10)
        return (yield from count_occurrences(tokenizer, texts))

    monkeypatch.setattr(loader_module, "count_occurrences", slow_count)
    pane = create_pane(session)  # not handed to qtbot: the test deletes it
    session.set_tokenizer(trained, "trained:" + trained.name)
    qtbot.waitUntil(lambda: pane.table is not None and not pane.busy, timeout=20_000)
    session.set_corpus(["the cat sat on the mat.\n"] * 12)
    job = pane.loader.jobs["corpus"]
    shiboken6.delete(pane)  # the pane and its loader, as at the window's close
    release.set()
    qtbot.waitUntil(lambda: job.done, timeout=5_000)
    qtbot.wait(50)  # the finished signal's queued call: it raised "Signal source has been deleted"


def test_exports_png_svg_and_csv(qtbot: QtBot, session: Session, trained: BPE, tmp_path: Path) -> None:
    pane = open_pane(qtbot, session, trained)
    pane.navigate(trained.encode(" ingredients")[0])
    png, svg, csv_path = tmp_path / "tree.png", tmp_path / "tree.svg", tmp_path / "table.csv"
    assert pane.export_tree_png(str(png)) and pane.export_tree_svg(str(svg))
    image = QImage(str(png))
    assert not image.isNull() and image.width() > 200
    root = ElementTree.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "gredient" in svg.read_text(encoding="utf-8")  # node labels are text in the drawing
    pane.filter_bar.text.setText("at")
    pane.filter_bar._emit()
    job = pane.export_csv(str(csv_path))
    with qtbot.waitSignal(job.finished) as done:  # written on a worker
        pass
    lines = csv_path.read_text(encoding="utf-8").splitlines()
    assert done.args[0] == pane.model.rowCount() == len(lines) - 1 and lines[0].startswith("id,token,bytes_hex")
    with qtbot.waitSignal(session.error_posted) as failed:
        pane.export_csv(str(tmp_path / "missing-folder" / "table.csv"))
    assert "missing-folder" in failed.args[1]


class NoMerges(Tokenizer):
    """A WordPiece-like vocabulary: ids and strings, but no merges."""

    name, kind = "wordpiece", "WordPiece"
    words = [b"[PAD]", b"the", b"##ing", b"cat"]

    @property
    def vocab_size(self) -> int:
        return len(self.words)

    @property
    def special_tokens(self) -> dict[str, int]:
        return {"[PAD]": 0}

    def token_bytes(self, token_id: int) -> bytes:
        if not 0 <= token_id < len(self.words):
            raise ExplorerError(f"unknown token id {token_id}")
        return self.words[token_id]

    def encode(self, text: str, special: SpecialMode = "disallowed") -> list[int]:
        return [self.words.index(word.encode()) for word in text.split()]

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return b" ".join(self.words[i] for i in ids)

    @property
    def unsupported(self) -> dict[str, str]:
        return {VIEW_MERGES: "WordPiece builds words from pieces, not from merges of byte pairs"}


def test_a_tokenizer_without_merges_lists_its_vocabulary_and_says_why(qtbot: QtBot, session: Session) -> None:
    pane = open_pane(qtbot, session, NoMerges())
    assert visible_ids(pane) == [0, 1, 2, 3]
    assert pane.model.index(2, 1).data() == "##ing"
    assert "not from merges" in pane.token_panel.tree_message.text()
    assert pane.token_panel.tree_stack.currentWidget() is pane.token_panel.tree_message
    assert pane.table_view.isColumnHidden(COLUMN_INDEX["Rank"])
    pane.navigate(3)
    assert pane.current == 3 and pane.token_panel.tree_view.tree is None


def test_bundled_gpt2_with_recovered_merges(qtbot: QtBot, session: Session, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer

    gpt2 = TiktokenTokenizer.bundled("r50k_base")
    pane = open_pane(qtbot, session, gpt2)
    assert pane.forest_seconds is not None and pane.table is not None and pane.table.rows == gpt2.vocab_size
    token = gpt2.encode(" SolidGoldMagikarp")
    assert len(token) == 1
    pane.navigate(token[0])
    tree = pane.token_panel.tree_view.tree
    assert tree is not None
    assert b"".join(gpt2.token_bytes(n.token_id) for n in tree.leaves()) == b" SolidGoldMagikarp"
    assert all(len(gpt2.token_bytes(n.token_id)) == 1 for n in tree.leaves())
    assert pane.table_view.isColumnHidden(COLUMN_INDEX["Merge count"])  # tiktoken files have no counts
    assert len(COLUMNS) == pane.model.columnCount()


def test_a_hugging_face_tokenizer_json(qtbot: QtBot, session: Session, trained: BPE, tmp_path: Path) -> None:
    from explorer.core.formats import hf
    from explorer.core.sources.load import load_tokenizer

    path = tmp_path / "tokenizer.json"
    hf.export(trained, path)
    loaded = load_tokenizer(str(path))
    pane = open_pane(qtbot, session, loaded)
    assert pane.forest is not None and pane.model.rowCount() == loaded.vocab_size
    token = loaded.encode(" ingredients")
    assert len(token) == 1
    pane.navigate(token[0])
    tree = pane.token_panel.tree_view.tree
    assert tree is not None
    assert b"".join(loaded.token_bytes(n.token_id) for n in tree.leaves()) == b" ingredients"
    assert pane.model.index(pane.model.row_of_token(token[0]), COLUMN_INDEX["Token"]).data() == "·ingredients"


def test_the_encode_trace_keeps_its_font_through_a_theme_toggle(qtbot: QtBot, session: Session, trained: BPE) -> None:
    """Issue 12: after the theme was toggled at run time the trace list was reported in the wrong
    font (the pane's zoom or the monospace family lost). The real window, zoomed, both ways."""
    from PySide6.QtGui import QFontInfo
    from PySide6.QtWidgets import QApplication

    from explorer.ui.main_window import MainWindow
    from explorer.ui.theme import apply_theme

    session.set_tokenizer(trained, "trained:test")
    window = MainWindow(session, first_pane="merges")
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    pane = window.panes["merges"]
    pane.prepare_screenshot("the")  # type: ignore[attr-defined]
    trace = pane.trace_panel  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: trace.steps.count() > 0, timeout=10_000)
    window.zoom(+2)

    def fonts() -> list[tuple[str, float, int]]:
        shown = [trace.steps, trace.strip, trace.naive.strip]
        return [(QFontInfo(w.font()).family(), QFontInfo(w.font()).pointSizeF(), trace.steps.sizeHintForRow(0)) for w in shown]

    expected = QFontInfo(session.font)
    before = fonts()
    assert all(family == expected.family() and size == expected.pointSizeF() for family, size, _ in before), before
    try:
        for dark in (True, False, True):
            window.toggle_theme(dark)
            QApplication.processEvents()
            assert fonts() == before, f"dark={dark}"
    finally:
        apply_theme(QApplication.instance(), "light")  # type: ignore[arg-type]
