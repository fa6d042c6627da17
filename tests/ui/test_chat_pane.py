"""The Chat pane shows what encode_chat computes: the tokens, control tokens marked, findings.
It renders in a worker: results arrive later, only the newest job's, and errors as a message."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

import explorer.ui.chat.pane as chat_pane
from explorer.core.algorithms.incremental import CUTS_END, CUTS_START
from explorer.core.chat import Message, encode_chat
from explorer.core.sources.load import load_tokenizer
from explorer.ui.chat.pane import ChatPane
from explorer.ui.picker import BUNDLED
from explorer.ui.session import Session
from tests.core import chat_references as ref
from tests.core.test_chat_hf import fake_model, hub  # noqa: F401 (a fixture)


def rendered(qtbot: QtBot, pane: ChatPane) -> None:
    """Wait for the worker's result and the view's last chunk."""
    qtbot.waitUntil(lambda: not pane.busy, timeout=30000)


def test_pane_renders_the_conversation_with_the_tokenizers_template(qtbot: QtBot, session: Session) -> None:
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    llama3 = ref.llama_tokenizer("llama3")
    session.set_tokenizer(llama3, "llama3-test")
    assert pane.template.currentText() == "llama3's own (llama3)"
    rendered(qtbot, pane)
    expected = encode_chat(pane.editor.messages(), llama3, "llama3", True)
    assert pane.results[0].encoding.ids == expected.encoding.ids
    assert f"{len(expected.encoding.ids):,} tokens" in pane.summary.text()
    view = pane.views[0]
    assert view.ids.tolist() == expected.encoding.ids
    control = [token.control for token in expected.encoding.tokens]
    assert view.control.tolist() == control  # control tokens outlined, no other
    shown = view.toPlainText()
    assert "#1 user" in shown and "template" in shown and "What·is·the·capital·of·France?" in shown
    first_control = next(i for i, t in enumerate(expected.encoding.tokens) if t.control)
    pane.views[0].token_clicked.emit(first_control)
    assert pane.details.text().startswith("id 128000") and "control token" in pane.details.text()


def test_findings_compare_and_errors(qtbot: QtBot, session: Session) -> None:
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    assert pane.template.currentData() == "plain" and pane.note.isVisibleTo(pane)
    assert pane.note.text().startswith("cl100k_base has no chat tokens")
    pane.editor.set_messages([Message("user", "Stop <|endoftext|> here ")])
    pane.recompute()
    rendered(qtbot, pane)
    shown = [pane.findings.item(i).text() for i in range(pane.findings.count())]
    assert "Special-token string: <|endoftext|> typed in message 0 (user)" in shown
    assert any(text.startswith("Trailing whitespace") for text in shown)
    pane.compare.setCurrentIndex(pane.compare.findData("llama3"))
    pane.recompute()
    rendered(qtbot, pane)
    assert len(pane.results) == 2 and pane.views[1].isVisibleTo(pane)
    assert pane.results[1].template == "llama3"
    pane.editor.set_messages([Message("tool", "42")])
    pane.template.setCurrentIndex(pane.template.findData("harmony"))
    pane.recompute()
    rendered(qtbot, pane)
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
    assert pane.labels == ["cl100k_base / plain", "o200k_base / plain"]
    messages = pane.editor.messages()
    expected = encode_chat(messages, load_tokenizer("o200k_base"), "plain", True)
    assert pane.results[1].encoding.ids == expected.encoding.ids
    assert "o200k_base / plain</b>" in pane.summary.text()
    pane.compare_tokenizer.setCurrentIndex(0)
    rendered(qtbot, pane)
    assert len(pane.results) == 1 and not pane.views[1].isVisibleTo(pane)


def test_the_result_arrives_from_the_worker_and_is_the_cores(qtbot: QtBot, session: Session) -> None:
    """A big message is rendered off the GUI thread: recompute returns before the result exists."""
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    tokenizer = load_tokenizer("o200k_harmony")
    session.set_tokenizer(tokenizer, "o200k_harmony")
    rendered(qtbot, pane)
    messages = [Message("system", "Be brief."), Message("user", "Ünïcode 😀 and words, " * 4000),
                Message("assistant", "Fine.")]
    pane.editor.set_messages(messages)
    pane.recompute()
    assert pane.job is not None and pane.busy  # the work is queued, not done here
    with qtbot.waitSignal(pane.job.finished, timeout=30000):
        pass
    rendered(qtbot, pane)
    expected = encode_chat(messages, tokenizer, "harmony", True)
    assert pane.results[0].encoding.ids == expected.encoding.ids
    assert pane.views[0].ids.tolist() == expected.encoding.ids  # every chunk reached the view
    assert pane.views[0].control.tolist() == [t.control for t in expected.encoding.tokens]


def test_a_superseded_jobs_result_is_not_shown(qtbot: QtBot, session: Session,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The first job is held until the second has been shown; its late result must not replace it."""
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    rendered(qtbot, pane)
    release, calls = threading.Event(), []
    real = chat_pane.render_sides

    def held(messages, sides, generation_prompt):  # type: ignore[no-untyped-def]
        calls.append(messages[0].content)
        if messages[0].content == "first":
            release.wait(20)
        return real(messages, sides, generation_prompt)

    monkeypatch.setattr(chat_pane, "render_sides", held)
    displayed: list[str] = []
    real_display = chat_pane.chat_display

    def recorded(result, tokenizer):  # type: ignore[no-untyped-def]
        displayed.append(result.prompt.text)
        return real_display(result, tokenizer)

    monkeypatch.setattr(chat_pane, "chat_display", recorded)
    pane.editor.set_messages([Message("user", "first")])
    pane.recompute()
    first = pane.job
    ended: list[str] = []
    first.finished.connect(lambda _: ended.append("finished"))
    first.cancelled.connect(lambda: ended.append("cancelled"))
    qtbot.waitUntil(lambda: calls == ["first"], timeout=10000)
    pane.editor.set_messages([Message("user", "second")])
    pane.recompute()
    rendered(qtbot, pane)
    assert "second" in pane.results[0].prompt.text
    release.set()
    qtbot.waitUntil(lambda: first is not None and first.done, timeout=10000)
    qtbot.wait(100)  # (the first job's signals, if any, are delivered)
    assert "second" in pane.results[0].prompt.text and "first" not in pane.results[0].prompt.text
    assert "first" not in pane.views[0].toPlainText() and "second" in pane.views[0].toPlainText()
    assert ended == ["cancelled"]
    assert not any("first" in text for text in displayed)  # it stopped at its next step, not at the end


def test_a_template_error_is_a_message_in_the_pane(qtbot: QtBot, session: Session, hub: Path) -> None:  # noqa: F811
    fake_model(hub, "{% for m in messages %}")
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(load_tokenizer("hf:acme/tiny"), "hf:acme/tiny")
    rendered(qtbot, pane)
    assert pane.results == [] and "not valid Jinja" in pane.summary.text()
    assert pane.views[0].ids.tolist() == [] and pane.findings.count() == 0
    pane.template.setCurrentIndex(pane.template.findData("chatml"))  # a good template: shown again
    rendered(qtbot, pane)
    assert len(pane.results) == 1 and len(pane.views[0].ids) == len(pane.results[0].encoding.ids)


def test_a_compared_tokenizer_that_fails_to_load_is_a_message_in_the_pane(qtbot: QtBot, session: Session,
                                                                            tmp_path: Path) -> None:
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(load_tokenizer("cl100k_base"), "cl100k_base")
    rendered(qtbot, pane)
    broken = tmp_path / "tokenizer.json"
    broken.write_text("{ not json", encoding="utf-8")
    pane.compare_tokenizer.addItem("broken", str(broken))
    pane.compare_tokenizer.setCurrentIndex(pane.compare_tokenizer.count() - 1)
    qtbot.waitUntil(lambda: str(broken) in pane.summary.text() or "tokenizer.json" in pane.summary.text(),
                    timeout=20000)
    assert "color:#c0392b" in pane.summary.text()


def test_a_character_split_across_tokens_is_bracketed_with_its_glyph(qtbot: QtBot, session: Session) -> None:
    """As in the Tokens pane: the byte pieces of a character, then the character itself, uncoloured."""
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    tokenizer = load_tokenizer("cl100k_base")
    session.set_tokenizer(tokenizer, "cl100k_base")
    pane.editor.set_messages([Message("user", "a \U00013000 b")])  # an Egyptian hieroglyph: byte pieces
    pane.recompute()
    rendered(qtbot, pane)
    view = pane.views[0]
    assert ((view.flags & CUTS_START) != 0).any() and ((view.flags & CUTS_END) != 0).any()
    shown = view.toPlainText()
    assert ">\U00013000" in shown  # the glyph right after its last hex piece
    assert view.ids.tolist() == encode_chat(pane.editor.messages(), tokenizer, "plain", True).encoding.ids


@pytest.mark.parametrize("spec", [spec for spec, _ in BUNDLED])
def test_first_open_shows_no_foreign_template(qtbot: QtBot, session: Session, spec: str) -> None:
    """Every bundled tokenizer opens on a template that belongs to it: its own, or `plain` with a
    note saying why; "does not belong" appears only once the user picks such a template."""
    pane = ChatPane(session)
    qtbot.addWidget(pane)
    tokenizer = load_tokenizer(spec)
    session.set_tokenizer(tokenizer, spec)
    rendered(qtbot, pane)
    shown = [pane.findings.item(i).text() for i in range(pane.findings.count())]
    assert not [text for text in shown if "does not belong" in text], shown
    assert pane.note.isVisibleTo(pane) == (pane.template.currentData() == "plain")
    if pane.note.isVisibleTo(pane):
        assert pane.note.text().startswith(f"{tokenizer.name} has no chat tokens")
        pane.template.setCurrentIndex(pane.template.findData("chatml"))
        pane.recompute()
        rendered(qtbot, pane)
        assert any("does not belong" in pane.findings.item(i).text() for i in range(pane.findings.count()))
