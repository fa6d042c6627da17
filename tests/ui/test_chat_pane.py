"""The Chat pane shows what encode_chat computes: the tokens, control tokens marked, findings."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.core.chat import Message, encode_chat
from explorer.core.load import load_tokenizer
from explorer.ui.chat.pane import ChatPane
from explorer.ui.session import Session
from tests.core import chat_references as ref


def test_pane_renders_the_conversation_with_the_tokenizers_template(qtbot: QtBot, session: Session) -> None:
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    llama3 = ref.llama_tokenizer("llama3")
    session.set_tokenizer(llama3, "llama3-test")
    assert pane.template.currentText() == "llama3's own (llama3)"
    expected = encode_chat(pane.editor.messages(), llama3, "llama3", True)
    assert pane.results[0].encoding.ids == expected.encoding.ids
    assert f"{len(expected.encoding.ids):,} tokens" in pane.summary.text()
    html = pane.views[0].toHtml()
    assert "#1 user" in html and "template" in html and "font-weight:700" in html  # control tokens in bold
    first_control = next(i for i, t in enumerate(expected.encoding.tokens) if t.control)
    pane.views[0].token_clicked.emit(first_control)
    assert pane.details.text().startswith("id 128000") and "control token" in pane.details.text()


def test_findings_compare_and_errors(qtbot: QtBot, session: Session) -> None:
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    assert pane.template.itemText(0) == "(no own template)" and pane.template.currentData() == "chatml"
    pane.editor.set_messages([Message("user", "Stop <|endoftext|> here ")])
    pane.recompute()
    shown = [pane.findings.item(i).text() for i in range(pane.findings.count())]
    assert "Special-token string: <|endoftext|> typed in message 0 (user)" in shown
    assert any(text.startswith("Trailing whitespace") for text in shown)
    pane.compare.setCurrentIndex(pane.compare.findData("llama3"))
    pane.recompute()
    assert len(pane.results) == 2 and pane.views[1].isVisibleTo(pane)
    assert pane.results[1].template == "llama3"
    pane.editor.set_messages([Message("tool", "42")])
    pane.template.setCurrentIndex(pane.template.findData("harmony"))
    pane.recompute()
    assert pane.results == [] and "without a \"name\"" in pane.summary.text()


def test_replaced_and_removed_rows_leave_the_editor_at_once(qtbot: QtBot, session: Session) -> None:
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    pane.show()
    old = list(pane.editor.rows)
    assert old and all(row.isVisible() for row in old)
    pane.editor.set_messages([Message("user", "only")])
    assert not any(row.isVisible() for row in old)  # before any event loop turn deletes them
    assert [m.content for m in pane.editor.messages()] == ["only"]
    row = pane.editor.rows[0]
    row.removed.emit(row)
    assert pane.editor.messages() == [] and not row.isVisible()


def test_compare_with_another_tokenizer(qtbot: QtBot, session: Session) -> None:
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    pane.compare_tokenizer.setCurrentIndex(pane.compare_tokenizer.findData("o200k_base"))
    qtbot.waitUntil(lambda: len(pane.results) == 2, timeout=20000)
    assert pane.labels == ["cl100k_base / chatml", "o200k_base / chatml"]
    messages = pane.editor.messages()
    expected = encode_chat(messages, load_tokenizer("o200k_base"), "chatml", True)
    assert pane.results[1].encoding.ids == expected.encoding.ids
    assert "o200k_base / chatml</b>" in pane.summary.text()
    pane.compare_tokenizer.setCurrentIndex(0)
    assert len(pane.results) == 1 and not pane.views[1].isVisibleTo(pane)
