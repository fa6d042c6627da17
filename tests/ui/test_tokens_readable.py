"""Issue 12 in the Tokens pane: palettes, split characters beside their bytes, quiet marks with a
legend, findings given room, plurals, ids under text, copy ids, compare summary, keyboard and
screen-reader access."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCharFormat
from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QWidget
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.train import train
from explorer.core.formats.own import from_merges
from explorer.ui.session import Session
from explorer.ui.theme import TEXT, token_color
from explorer.ui.tokens import create_pane
from explorer.ui.tokens.pane import TokensPane

TEXTS = ["One eggless mawa cake for Saturday, please. Egg or egg? In 1969, 600,000 people watched.\n"] * 5


def plain(rich: str) -> str:
    return re.sub(r"<[^>]+>", "", rich)


@pytest.fixture(scope="module")
def small():  # type: ignore[no-untyped-def]
    """Trained on English only: an emoji or a Devanagari letter is split into its bytes."""
    return from_merges(list(train(TEXTS, 320, "cl100k", [])), "cl100k", [], name="small")


@pytest.fixture(scope="module")
def other():  # type: ignore[no-untyped-def]
    return from_merges(list(train(TEXTS, 280, "gpt2", [])), "gpt2", [], name="other")


@pytest.fixture
def pane(qtbot: QtBot, session: Session, small) -> TokensPane:  # type: ignore[no-untyped-def]
    session.set_tokenizer(small, "trained:small")
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    return widget


def test_the_colour_blind_palette_recolours_the_view(pane: TokensPane, session: Session) -> None:
    pane.set_text("Egg or egg")
    view = pane.main_lane.view
    token = int(view.ids[0])
    session.set_dark(True)
    assert view.palette().text().color().name() == TEXT[True]
    assert view._color(token).name() == token_color(token, True).name()
    session.set_palette("colour-blind")
    assert view._color(token).name() == token_color(token, True, "colour-blind").name()
    assert session.settings.palette == "colour-blind"


def test_a_split_character_shows_its_glyph_after_its_byte_pieces(pane: TokensPane, small) -> None:  # type: ignore[no-untyped-def]
    pane.set_text("a 🎂 b")
    assert len(small.encode_tokens("🎂")) > 1
    shown = pane.main_lane.view.toPlainText()
    hex_run = "".join(f"<{b:02X}>" for b in "🎂".encode())
    assert shown.replace("·", "").replace(" ", "").count("🎂") == 1
    assert "🎂" in shown and shown.index("🎂") > shown.index("<F0")
    # the glyph comes right after its last piece and is not coloured as a token
    view = pane.main_lane.view
    last = max(i for i in range(len(view.ids)) if view.flags[i])
    assert int(view.painted[last]) < view.position_of(last + 1) - view.position_of(last)
    pieces = shown[shown.index("<F0"):shown.index("🎂")].replace("\u2060", "").replace("\u200b", "")
    assert pieces.replace("<", "").replace(">", " ").split() == hex_run.replace("<", "").replace(">", " ").split()


def test_the_editor_marks_split_characters_quietly_and_the_legend_says_so(pane: TokensPane) -> None:
    pane.set_text("मावा केक")
    pane.end_bulk()
    selections = pane.editor.extraSelections()
    assert selections
    style = selections[0].format.underlineStyle()
    assert style == QTextCharFormat.UnderlineStyle.DotLine
    assert selections[0].format.underlineColor().red() < 200 or selections[0].format.underlineColor().saturation() < 60
    assert "dotted underline" in pane.legend.text()
    assert "split across tokens" in pane.legend.text()


def test_findings_get_the_room_the_token_view_does_not_need(pane: TokensPane, qtbot: QtBot) -> None:
    pane.resize(1000, 900)
    text = " ".join(f"{n}{n}{n}" for n in range(10_000, 10_030))  # 30 numbers split into several tokens
    pane.set_text(text)
    qtbot.waitUntil(lambda: pane.findings_panel.model.rowCount() >= 20 and "looking" not in pane.findings_panel.label.text(),
                    timeout=10_000)
    qtbot.wait(50)
    table = pane.findings_panel.table
    rows_in_sight = table.viewport().height() // table.verticalHeader().defaultSectionSize()
    assert rows_in_sight >= 12
    view = pane.main_lane.view
    assert view.content_height() <= view.height() + view.fontMetrics().lineSpacing() * 2


def test_one_token_one_word(pane: TokensPane, qtbot: QtBot) -> None:
    pane.set_text("a")
    qtbot.waitUntil(lambda: "word" in pane.main_lane.counts.text() and "counting" not in pane.main_lane.counts.text(),
                    timeout=5000)
    counts = plain(pane.main_lane.counts.text()) + " "  # as it reads: the count is a headline in rich text
    assert "1 token " in counts and "1 word " in counts and "1 char " in counts and "tokens ·" not in counts


def test_ids_under_the_text_and_copy_ids(pane: TokensPane, small) -> None:  # type: ignore[no-untyped-def]
    pane.set_text("egg egg")
    ids = small.encode("egg egg")
    pane.under_button.click()
    shown = pane.main_lane.view.toPlainText()
    assert "egg" in shown
    for token_id in ids:
        assert str(token_id).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")) in shown
    pane.ids_button.click()  # ids only: leaves the text + ids view
    assert not pane.under_button.isChecked() and "egg" not in pane.main_lane.view.toPlainText()
    pane.copy_ids_button.click()
    assert QGuiApplication.clipboard().text() == " ".join(map(str, ids))


def test_compare_has_a_summary_and_a_legend(pane: TokensPane, qtbot: QtBot, session: Session, other) -> None:  # type: ignore[no-untyped-def]
    session.add_trained(other, select=False)
    pane.set_text("Egg or egg? In 1969, 600,000 people.")
    assert "cut the text differently" not in pane.legend.text()
    lane = pane.add_compare("trained:other")
    assert lane is not None
    qtbot.waitUntil(lambda: lane.complete and lane.tokenizer is other, timeout=5000)
    qtbot.waitUntil(lambda: "% tokens vs small" in plain(lane.counts.text()), timeout=5000)
    main, compared = len(pane.main_lane.state), len(lane.state)  # type: ignore[arg-type]
    assert f"{100 * (compared - main) / main:+.1f}% tokens vs small" in plain(lane.counts.text())
    assert "bytes/token" in lane.counts.text()
    assert "cut the text differently" in pane.legend.text()
    # each lane breaks its lines where the text does
    pane.set_text("one egg\ntwo eggs\nthree")
    qtbot.waitUntil(lambda: lane.complete and lane.text == pane.text(), timeout=5000)
    assert pane.main_lane.view.document().blockCount() == lane.view.document().blockCount() == 3


def test_arrow_keys_walk_the_tokens_and_the_details_follow(pane: TokensPane, qtbot: QtBot) -> None:
    pane.set_text("Egg or egg, please")
    view = pane.main_lane.view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert view.current == 0
    for _ in range(3):
        qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.current == 3
    assert f"token 4 of {len(view.ids)}" in pane.details.toPlainText()
    assert "Token 4 of" in view.accessibleDescription()
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert view.current == 2 and "token 3 of" in pane.details.toPlainText()
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.current == len(view.ids) - 1


def test_every_control_has_an_accessible_name(pane: TokensPane, qtbot: QtBot, session: Session, other) -> None:  # type: ignore[no-untyped-def]
    session.add_trained(other, select=False)
    lane = pane.add_compare("trained:other")
    qtbot.waitUntil(lambda: lane is not None and lane.complete, timeout=5000)
    unnamed = []
    for widget in pane.findChildren(QWidget):
        interactive = (isinstance(widget, (QAbstractButton, QComboBox, QAbstractSpinBox))
                       or widget.focusPolicy() != Qt.FocusPolicy.NoFocus and widget.isVisibleTo(pane))
        if not interactive or not widget.isVisibleTo(pane) or widget.objectName() == "qt_scrollarea_viewport":
            continue
        if widget.parent() is not None and type(widget).__name__ in ("QScrollBar",):
            continue
        text = widget.text() if isinstance(widget, QAbstractButton) else ""
        if not widget.accessibleName() and not text:
            unnamed.append(type(widget).__name__)
    assert unnamed == []
    # the details are text a screen reader reads, not a picture
    pane.set_text("Egg")
    view = pane.main_lane.view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert "Bytes" in pane.details.toPlainText() and pane.details.accessibleName() == "Token details"


def test_a_special_token_outline_leaves_its_underscores_visible(pane: TokensPane, session: Session, qtbot: QtBot) -> None:
    """The outline ran along the box's bottom, over the `_` of `<|fim_prefix|>`: it now runs in the row gap."""
    from explorer.core.sources.load import load_tokenizer

    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    pane.mode_box.setCurrentIndex(pane.mode_box.findData("allowed"))
    pane.set_text("<|fim_prefix|>")
    view = pane.main_lane.view
    qtbot.waitUntil(lambda: bool(view.boxes_on_screen()), timeout=5000)
    _, rect = view.boxes_on_screen()[0]
    image = view.viewport().grab().toImage()
    ink = view.palette().text().color().lightness()
    x = int(rect.center().x())
    rows = [y for y in range(int(rect.top()) + 2, int(rect.bottom()) + 6)
            if abs(image.pixelColor(x, y).lightness() - ink) < 60 and abs(image.pixelColor(x + 1, y).lightness() - ink) < 60]
    assert rows and max(rows) > rect.bottom(), (rows, rect)  # the outline's bottom edge is below the box
