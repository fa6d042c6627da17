"""The Bytes pane: character rows, tokens over bytes, and the streamed lanes checked against the core."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.train import train
from explorer.core.formats.own import from_merges
from explorer.core.sources.sentencepiece import SentencePieceTokenizer
from explorer.core.text.chars import visible
from explorer.core.text.utf8 import REPLACEMENT, stream_decode
from explorer.ui.bytes import create_pane
from explorer.ui.bytes.examples import ENGLISH_ORDER, EXAMPLES, HINDI_ORDER
from explorer.ui.bytes.model import BITS_ROLE, COL_CHAR, COL_CODE, COL_HEX, COL_NAME, COL_SCRIPT, COL_TOKENS, CUT_ROLE
from explorer.ui.bytes.pane import BytesPane
from explorer.ui.session import Session


@pytest.fixture
def pane(qtbot: QtBot, session: Session) -> BytesPane:
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    return widget


@pytest.fixture(scope="module")
def toy() -> BPE:
    texts = ["मावा केक नमस्ते मावा केक", "One eggless mawa cake for Saturday, please.", "안녕 안녕 세계"]
    return from_merges(list(train(texts, 320, "cl100k")), "cl100k", name="toy")


def na_splitter() -> BPE:
    """Seed 000's case: a tokenizer whose only merge makes न two tokens, E0 A4 + A8."""
    return BPE([(0xE0, 0xA4, 256)], "cl100k", name="na-splitter")


def counts_line(pane: BytesPane) -> str:
    """The counts line as it reads: tags dropped, a count's no-break space before its unit read as a space."""
    return re.sub(r"<[^>]+>", "", pane.counts.text()).replace("\u00a0", " ")


def cell(pane: BytesPane, row: int, column: int, role: int = Qt.ItemDataRole.DisplayRole) -> object:
    return pane.model.data(pane.model.index(row, column), role)


def test_seed_004_text_by_default(pane: BytesPane, qtmodeltester: object) -> None:
    assert pane.editor.toPlainText() == "मावा केक 🎂"
    assert "10 characters" in counts_line(pane) and "27 UTF-8 bytes" in counts_line(pane)
    assert pane.model.rowCount() == 10
    assert (cell(pane, 0, COL_CODE), cell(pane, 0, COL_NAME), cell(pane, 0, COL_SCRIPT), cell(pane, 0, COL_HEX)) == (
        "U+092E", "DEVANAGARI LETTER MA", "Devanagari", "E0 A4 AE")
    cake = 9
    assert (cell(pane, cake, COL_CODE), cell(pane, cake, COL_HEX)) == ("U+1F382", "F0 9F 8E 82")
    bits = cell(pane, cake, 6, BITS_ROLE)
    assert [(g.bits, g.role) for g in bits[0]] == [("11110", "lead4"), ("000", "payload")]
    assert [g.bits for g in bits[1]][0] == "10"
    qtmodeltester.check(pane.model)  # type: ignore[attr-defined]


def test_without_a_tokenizer_bytes_are_streamed(pane: BytesPane) -> None:
    assert pane.using_bytes and "one byte at a time" in pane.counts.text()
    assert len(pane.replay) == 27 and pane.shown == 27
    assert pane.lanes.buffered_text == "मावा केक 🎂"


def on_screen(label: QLabel) -> str:
    """The plain text a rich-text label shows."""
    document = QTextDocument()
    document.setHtml(label.text())
    return document.toPlainText().replace("\u200b", "")  # (the line-break points between tokens)


def step_and_check(qtbot: QtBot, pane: BytesPane, use_keys: bool = False) -> None:
    """Step through the whole stream; after each token both lanes equal the core's stream_decode."""
    steps = list(stream_decode([t.bytes for t in pane.tokens]))
    pane.reset()
    assert pane.lanes.naive_text == "" and pane.lanes.buffered_text == "" and pane.shown == 0
    pane.strip.setFocus()
    for k in range(1, len(steps) + 1):
        if use_keys:
            QTest.keyClick(pane.strip, Qt.Key.Key_Right)
        else:
            pane.step_button.click()
        assert pane.shown == k and pane.strip.shown == k
        naive, buffered = "".join(s.naive for s in steps[:k]), "".join(s.emitted for s in steps[:k])
        assert (pane.lanes.naive_text, pane.lanes.buffered_text) == (naive, buffered)
        assert pane.lanes.pending == steps[k - 1].pending
        assert on_screen(pane.lanes.naive) == (visible(naive) or "…")
        pending = steps[k - 1].pending
        shown_pending = f" ⏳ {pending.hex(' ').upper()}" if pending else ""
        assert on_screen(pane.lanes.buffered).strip() == ((visible(buffered) + shown_pending).strip() or "…")
    assert pane.lanes.buffered_text == pane.text()
    assert "✓" in pane.lanes.status.text()
    assert not pane.step_button.isEnabled()


def test_lanes_match_the_core_token_by_token(qtbot: QtBot, pane: BytesPane, session: Session, toy: BPE) -> None:
    session.set_tokenizer(toy, "trained:toy")
    for text in ("मावा केक 🎂", "안녕 👋", "One eggless mawa cake 👍🏽 for नमस्ते"):
        pane.set_text(text)
        assert not pane.using_bytes
        assert [t.id for t in pane.tokens] == toy.encode(text)
        step_and_check(qtbot, pane)


def test_byte_lanes_with_the_keyboard(qtbot: QtBot, pane: BytesPane) -> None:
    pane.set_text("न🎂")
    step_and_check(qtbot, pane, use_keys=True)
    QTest.keyClick(pane.strip, Qt.Key.Key_Home)
    assert pane.shown == 0
    QTest.keyClick(pane.strip, Qt.Key.Key_End)
    assert pane.shown == 7
    QTest.keyClick(pane.strip, Qt.Key.Key_Left)
    assert pane.shown == 6 and pane.lanes.pending == b"\xf0\x9f\x8e"


def test_seed_000_na_is_two_tokens_and_each_alone_is_fffd(pane: BytesPane, session: Session) -> None:
    session.set_tokenizer(na_splitter(), "trained:na-splitter")
    pane.set_text("न")
    assert [t.bytes for t in pane.tokens] == [b"\xe0\xa4", b"\xa8"]
    assert pane.tokens[0].cuts_end and pane.tokens[1].cuts_start
    assert cell(pane, 0, COL_TOKENS, CUT_ROLE) is True and "✂" in str(cell(pane, 0, COL_TOKENS))
    pane.reset()
    pane.step()
    assert pane.lanes.naive_text == REPLACEMENT and pane.lanes.buffered_text == "" and pane.lanes.pending == b"\xe0\xa4"
    assert "E0 A4" in pane.lanes.buffered.text()
    pane.step()
    assert pane.lanes.naive_text == REPLACEMENT * 2 and pane.lanes.buffered_text == "न" and pane.lanes.pending == b""
    assert "2 × U+FFFD" in pane.lanes.status.text()
    # The strip's tooltip for the first byte says the token alone cuts a character.
    assert "cuts a character" in pane.strip.describe_byte(0)


def test_play_runs_to_the_end_and_stops(qtbot: QtBot, pane: BytesPane) -> None:
    pane.set_text("안녕")
    pane.speed.setValue(pane.speed.maximum())
    pane.reset()
    pane.play_button.click()
    assert pane.playing and "Pause" in pane.play_button.text()
    qtbot.waitUntil(lambda: pane.shown == 6, timeout=3000)
    qtbot.waitUntil(lambda: not pane.playing, timeout=1000)
    assert pane.lanes.buffered_text == "안녕" and "Play" in pane.play_button.text()
    QTest.keyClick(pane.strip, Qt.Key.Key_Space)  # at the end, Space plays again from the start
    assert pane.playing and pane.shown == 0
    QTest.keyClick(pane.strip, Qt.Key.Key_Space)
    assert not pane.playing


def test_clicking_a_token_streams_up_to_it(qtbot: QtBot, pane: BytesPane) -> None:
    pane.set_text("ab")
    rect = pane.strip.token_rect(0)
    QTest.mouseClick(pane.strip, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert pane.shown == 1 and pane.lanes.naive_text == "a"


def test_cost_ratio_against_the_english_reference(pane: BytesPane, session: Session, toy: BPE) -> None:
    session.set_tokenizer(toy, "trained:toy")
    pane.set_text(HINDI_ORDER)
    ratio = len(toy.encode(HINDI_ORDER)) / len(toy.encode(ENGLISH_ORDER))
    assert f"{ratio:.2f}× the tokens of the English reference ({len(toy.encode(ENGLISH_ORDER))} tokens)" \
        in counts_line(pane)
    assert f"{len(toy.encode(HINDI_ORDER))} tokens (toy)" in counts_line(pane)


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_examples(pane: BytesPane, index: int) -> None:
    pane.example_buttons[index].click()
    text = EXAMPLES[index][1]
    assert pane.text() == text and pane.model.rowCount() == len(text)
    assert pane.lanes.buffered_text == text


def test_text_sent_from_the_tokens_pane(pane: BytesPane, session: Session) -> None:
    session.send_text("bytes", "안녕 👋")
    assert pane.editor.toPlainText() == "안녕 👋" and pane.model.rowCount() == 4
    session.send_text("chunks", "elsewhere")
    assert pane.editor.toPlainText() == "안녕 👋"


def test_special_token_in_disallowed_mode_falls_back_to_bytes(pane: BytesPane, session: Session) -> None:
    tokenizer = from_merges([], "cl100k", ["<|endoftext|>"], name="special")
    session.set_tokenizer(tokenizer, "trained:special")
    pane.set_text("hi<|endoftext|>")
    assert pane.using_bytes and "special token" in pane.counts.text()
    shown = QTextDocument()
    shown.setHtml(pane.counts.text())  # the label is rich text: the note read "the special token '' at ..."
    assert "the special token '<|endoftext|>'" in shown.toPlainText()
    session.set_special_mode("allowed")
    assert not pane.using_bytes and pane.tokens[-1].id == tokenizer.special_tokens["<|endoftext|>"]


def test_sentencepiece_streams_the_models_bytes(pane: BytesPane, session: Session) -> None:
    """SentencePiece puts `▁` in front: the rows are the text as the model sees it, and the
    characters no piece covers (घ) arrive as byte tokens."""
    tokenizer = SentencePieceTokenizer.bundled("mistral_v3")
    session.set_tokenizer(tokenizer, "mistral_v3")
    session.set_special_mode("plain")
    pane.set_text("घर [INST]")
    assert not pane.using_bytes and "puts a space" in pane.counts.text()
    assert [t.id for t in pane.tokens] == tokenizer.encode("घर [INST]", "plain")
    assert pane.model.rowCount() == 1 + len("घर [INST]") and cell(pane, 0, COL_CODE) == "U+0020"
    assert [t.bytes for t in pane.tokens[1:4]] == [b"\xe0", b"\xa4", b"\x98"]
    session.set_special_mode("allowed")
    assert not pane.using_bytes and pane.tokens[-1].id == 3 and pane.model.rowCount() == 1 + len("घर [INST]")


def test_prepare_screenshot_stops_mid_character(pane: BytesPane) -> None:
    pane.prepare_screenshot("मावा")
    assert 0 < pane.shown < len(pane.replay) and pane.lanes.pending


def test_typing_updates_after_a_pause(qtbot: QtBot, pane: BytesPane) -> None:
    pane.editor.setPlainText("xyz")
    qtbot.waitUntil(lambda: pane.model.rowCount() == 3, timeout=2000)


def test_zoom_and_theme(pane: BytesPane, session: Session) -> None:
    height = pane.strip.minimumHeight()
    session.set_point_size(22)
    assert pane.strip.font().pointSize() == 22 and pane.strip.minimumHeight() > height
    session.set_dark(True)
    assert pane.strip.dark and pane.lanes.dark and pane.bits_delegate.dark
    pane.show_bits.setChecked(False)
    assert not pane.strip.show_bits


def test_main_window_carries_text_to_both_panes(qtbot: QtBot, session: Session) -> None:
    from explorer.ui.main_window import MainWindow

    window = MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.show()
    assert "bytes" not in window.panes  # built lazily: the text must still arrive
    session.send_text("bytes", "न 🎂")
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Bytes"
    assert isinstance(window.panes["bytes"], BytesPane)
    assert window.panes["bytes"].model.rowCount() == 3
    session.send_text("chunks", "HOW'S")
    chunks = window.panes["chunks"]
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Chunks"
    qtbot.waitUntil(lambda: [c.text for c in chunks.columns[0].view.chunks] == ["HOW", "'", "S"], timeout=5000)


def test_tokens_pane_buttons_carry_the_prompt(qtbot: QtBot, session: Session) -> None:
    from PySide6.QtCore import Qt

    from explorer.ui.main_window import MainWindow

    window = MainWindow(session, first_pane="tokens")
    qtbot.addWidget(window)
    window.show()
    tokens = window.panes["tokens"]
    tokens.set_text("मावा 🎂")  # type: ignore[attr-defined]
    qtbot.mouseClick(tokens.bytes_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Bytes"
    assert window.panes["bytes"].model.rowCount() == 6  # म ा व ा, space, 🎂
    window.show_pane("tokens")
    qtbot.mouseClick(tokens.chunks_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Chunks"
    chunks = window.panes["chunks"]
    qtbot.waitUntil(lambda: "".join(c.text for c in chunks.columns[0].view.chunks) == "मावा 🎂", timeout=5000)
    session.unsaved.clear()


def test_a_combining_mark_stands_on_a_dotted_circle(qtbot: QtBot, pane: BytesPane) -> None:
    """Alone in its cell a Thai tone mark was drawn above nothing, cut by the strip's top edge."""
    pane.editor.setPlainText("น้ำ")
    qtbot.waitUntil(lambda: pane.model.rowCount() == 3, timeout=2000)
    assert [cell(pane, row, COL_CHAR) for row in range(3)] == ["น", "◌้", "ำ"]  # (SARA AM is a letter)


def test_a_count_never_breaks_from_its_unit(pane: BytesPane, session: Session, toy: BPE) -> None:
    """At 1280 px in presentation mode the counts line broke inside "(11 / tokens)": at any width,
    no line of it ends in a figure (its unit on the next line)."""
    session.set_tokenizer(toy, "trained:toy")
    pane.set_text(HINDI_ORDER)
    for width in range(120, 1400, 7):
        document = QTextDocument()
        document.setDefaultFont(pane.counts.font())
        document.setDocumentMargin(0)
        document.setHtml(pane.counts.text())
        document.setTextWidth(width)
        document.documentLayout().documentSize()  # (lays the lines out)
        block = document.begin()
        assert block.layout().lineCount() > 0
        while block.isValid():
            layout, text = block.layout(), block.text()
            for number in range(layout.lineCount()):
                line = layout.lineAt(number)
                shown = text[line.textStart(): line.textStart() + line.textLength()].rstrip()
                assert not shown[-1:].isdigit(), f"at {width} px a line ends {shown[-12:]!r}"
            block = block.next()
