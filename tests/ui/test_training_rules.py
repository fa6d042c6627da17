"""The Training pane's rules: toy samples open with minbpe rules, ties are marked and explained."""

from __future__ import annotations

from PySide6.QtCore import Qt

from explorer.core.algorithms.train import train
from explorer.ui.training.model import NEW, RIGHT, TIE, TIE_MARK
from explorer.ui.training.pane import TOY_RULES_NOTE
from tests.core.test_train import BAKERY
from tests.ui.test_training_pane import pane, shown, use, wait_ended  # noqa: F401 (the fixture)

__all__ = ["pane"]


def test_toy_sample_opens_with_minbpe_rules_and_says_why(qtbot, session, pane) -> None:  # type: ignore[no-untyped-def]
    assert pane.form.rules() == "hf"
    use(session, "bakery_replies.txt")
    assert pane.form.rules() == "minbpe" and pane.form.rules_note.text() == TOY_RULES_NOTE
    assert not pane.form.rules_note.isHidden()
    use(session, "english.txt")  # a real corpus: back to the default, the note goes
    assert pane.form.rules() == "hf" and pane.form.rules_note.isHidden()
    pane.form.set_rules("minbpe")  # the user's choice stays
    use(session, "english.txt")
    assert pane.form.rules() == "minbpe"


def test_bakery_trains_the_tutorials_merges_and_marks_ties(qtbot, session, pane) -> None:  # type: ignore[no-untyped-def]
    use(session, "bakery_replies.txt")
    pane.form.set_vocab_size(256 + 30)
    pane.form.set_pattern("none")
    qtbot.mouseClick(pane.start_button, Qt.MouseButton.LeftButton)
    wait_ended(qtbot, pane)
    expected = list(train([BAKERY], 256 + 30, "none", rules="minbpe"))
    assert [m.token for m in pane.model.merges] == [m.token for m in expected]
    assert pane.tokenizer is not None and pane.tokenizer.metadata["rules"] == "minbpe"
    # Merge 8 ('Your ') won a 13-way tie at 4; merge 3 ('s ') won alone.
    assert shown(pane.model, 7, TIE) == f"{TIE_MARK} 13" and shown(pane.model, 2, TIE) == ""
    assert (shown(pane.model, 18, RIGHT), shown(pane.model, 18, NEW)) == ("↵", ".↵")  # one line: a cell cut at "\n"
    tooltip = pane.model.data(pane.model.index(7, TIE), Qt.ItemDataRole.ToolTipRole)
    assert tooltip == "13 pairs had 4 occurrences: hf rules pick . + ↵, minbpe rules pick Y + our·"
    pane.table.selectRow(7)
    text = pane.details.text()
    assert "Merge 8" in text and "A tie</b>: 13 pairs had 4" in text
    assert "The hf rules would have taken . + ↵ here" in text
    assert text.count("<li>") == 13 and "Y + our· ← minbpe rules" in text
    pane.table.selectRow(2)
    assert "No tie" in pane.details.text()


def test_minbpe_rules_with_the_hf_engine_are_refused(qtbot, session, pane) -> None:  # type: ignore[no-untyped-def]
    use(session, "english.txt")
    pane.form.set_rules("minbpe")
    pane.form.engine_combo.setCurrentIndex(pane.form.engine_combo.findData("hf"))
    assert "choose the built-in engine for minbpe rules" in pane.form.problem()
    assert not pane.start()


def test_compare_rules_shows_where_the_lists_part(qtbot, qtmodeltester, session, pane) -> None:  # type: ignore[no-untyped-def]
    use(session, "bakery_replies.txt")
    pane.form.set_vocab_size(256 + 30)
    pane.form.set_pattern("none")
    qtbot.mouseClick(pane.compare_button, Qt.MouseButton.LeftButton)
    view = pane.compare_view
    assert view is not None and view.isVisible()
    qtbot.waitUntil(lambda: view.model.comparison is not None, timeout=30_000)
    assert "agree up to merge 4 and part at merge 5 (a tie, broken differently)" in view.summary.text()
    model = view.model
    assert model.rowCount() == 30
    assert [model.data(model.index(4, column)) for column in range(3)] == ["5", "ak  (5)  ⚖", "our·  (5)  ⚖"]
    assert model.data(model.index(7, 1)) == ".↵  (4)  ⚖"  # one line: a cell would be cut at a real "\n"
    assert model.data(model.index(3, 1), Qt.ItemDataRole.BackgroundRole) is None  # 'e ' under both
    assert model.data(model.index(4, 1), Qt.ItemDataRole.BackgroundRole) is not None
    assert view.table.currentIndex().row() == 4
    qtmodeltester.check(model)
    view.close()
