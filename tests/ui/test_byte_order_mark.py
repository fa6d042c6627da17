"""A text that starts with U+FEFF (a byte order mark, as in a file saved by Notepad) or U+FFFE
reaches every editor whole. PySide6 reads a str starting with either as UTF-16 with a byte order
mark: the prompt's BOM vanished from the editor while its token still counted, and a prompt
starting with U+FFFE came out byte-swapped ('\\ufffeab' as '愀戀'). explorer/ui/qt_text.py."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QPlainTextEdit
from pytestqt.qtbot import QtBot

from explorer.core.chat.messages import Message
from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.tokenizer import Tokenizer
from explorer.ui.bytes import create_pane as create_bytes_pane
from explorer.ui.chat.messages_editor import MessageRow
from explorer.ui.chunks import create_pane as create_chunks_pane
from explorer.ui.qt_text import qt_text
from explorer.ui.session import Session
from explorer.ui.tokens import create_pane as create_tokens_pane

TEXTS = ["\ufeffHello, world", "\ufffeab", "\ufeff", "\ufeff\ufeff<|endoftext|>"]


@pytest.fixture(scope="module")
def o200k() -> Tokenizer:
    return load_tokenizer("o200k_base")


def test_the_conversion_itself(qapp: QApplication) -> None:
    editor = QPlainTextEdit()
    editor.setPlainText("\ufffeab")
    assert editor.toPlainText() == "愀戀"  # PySide6's own reading: if it changes, qt_text may go
    for text in TEXTS:
        editor.setPlainText(qt_text(text))
        assert editor.toPlainText() == text


@pytest.mark.parametrize("text", TEXTS)
def test_the_tokens_editor_holds_the_prompt_its_tokens_count(qtbot: QtBot, session: Session, o200k: Tokenizer,
                                                             text: str, qtlog: object) -> None:
    session.set_tokenizer(o200k, "o200k_base")
    pane = create_tokens_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1000, 700)
    pane.show()
    pane.set_text(text)
    qtbot.waitUntil(lambda: pane.main_lane.state is not None and pane.main_lane.text == text, timeout=10_000)
    assert pane.editor.toPlainText() == text
    assert [int(i) for i in pane.main_lane.state.ids] == o200k.encode(text, "plain")  # type: ignore[union-attr]
    assert not [r.message for r in qtlog.records if "out of range" in r.message]  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", TEXTS)
def test_the_other_editors_hold_it_too(qtbot: QtBot, session: Session, text: str) -> None:
    for create in (create_chunks_pane, create_bytes_pane):
        pane = create(session)
        qtbot.addWidget(pane)
        pane.set_text(text)  # type: ignore[attr-defined]
        assert pane.text() == text  # type: ignore[attr-defined]
    row = MessageRow(Message("user", text))
    qtbot.addWidget(row)
    assert row.message().content == text


def test_a_long_paste_is_not_marked_before_the_editor_has_it(qtbot: QtBot, session: Session, o200k: Tokenizer,
                                                              qtlog: object) -> None:
    """The split-character marks were placed as soon as the lanes had the new tokens, while the
    editor still held the first part of the text: Qt warned 'Position out of range' for each."""
    session.set_tokenizer(o200k, "o200k_base")
    pane = create_tokens_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1000, 700)
    pane.show()
    text = "👩\u200d👩\u200d👧\u200d👦" * 100
    pane.set_text(text)
    qtbot.waitUntil(lambda: pane.editor.toPlainText() == text and not pane._bulk, timeout=10_000)
    assert not [r.message for r in qtlog.records if "out of range" in r.message]  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["sentencepiece", "trained"])
def test_a_lone_surrogate_is_shown(qtbot: QtBot, session: Session, kind: str) -> None:
    """A lone surrogate (from a clipboard or a file decoded with surrogateescape) is one UTF-16
    unit. With a SentencePiece model, whose byte fallback gives it tokens of its own, measuring it
    raised UnicodeEncodeError in the Tokens view. Our own BPE (a trained tokenizer, a minbpe file)
    raised it when encoding: it now gets U+FFFD's tokens, as tiktoken gives it."""
    from tests.core.test_bpe import trained

    tokenizer = load_tokenizer("mistral_v3") if kind == "sentencepiece" else trained()
    expected = tokenizer.encode("x\udfffy" if kind == "sentencepiece" else "x\ufffdy", "plain")
    session.set_tokenizer(tokenizer, kind)
    pane = create_tokens_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1000, 700)
    pane.show()
    pane.set_text("x\udfffy")
    qtbot.waitUntil(lambda: pane.main_lane.state is not None and pane.main_lane.text == "x\udfffy", timeout=10_000)
    qtbot.waitUntil(lambda: list(pane.main_lane.view.ids) == expected, timeout=10_000)
