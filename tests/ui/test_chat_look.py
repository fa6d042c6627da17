"""The Chat pane reads well at a laptop's 1280x800 in presentation mode (issue 12): a message's
editor is as tall as its text (a Japanese line from the Noto CJK fallback is taller than the UI
font's), the token count is the summary's large headline as in the Tokens pane, the details say
something before the first click, no findings leave no empty list, and a screen reader can name
every control of the Chat and Tokens panes and read the details."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox, QScrollBar, QWidget

from explorer.core.chat import Message
from explorer.core.sources.load import load_tokenizer
from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from explorer.ui.tokens.display import headline
from tests.ui.windows import close_window, eventually, open_window, settle

TEXTS = {
    "english": "The cat sat on the mat. In 1969, 600,000,000 people watched the Moon landing. Don't stop!",
    "japanese": "こんにちは世界。今日はいい天気ですね。東京タワーに行きましょう、カタカナも漢字も。",
    "mixed": "Hello नमस्ते مرحبا こんにちは สวัสดี 👋🏽\ndef f(x):\n    return x ** 2  # 1234567 <|endoftext|> ",
}


@pytest.fixture
def window(qapp: QApplication, session: Session) -> Iterator[MainWindow]:
    window = open_window(qapp, session, (1280, 800, "light", True), "chat")
    window.session.set_tokenizer(load_tokenizer("o200k_base"), "o200k_base")
    settle(qapp, window)
    yield window
    close_window(qapp, window)


def shown(qapp: QApplication, window: MainWindow, text: str):  # type: ignore[no-untyped-def]
    pane = window.panes["chat"]
    pane.editor.set_messages([Message("user", text)])
    settle(qapp, window)
    assert eventually(qapp, lambda: not pane.busy and bool(pane.results), 10)
    for _ in range(3):
        qapp.processEvents()
    return pane


@pytest.mark.parametrize("name", list(TEXTS))
def test_a_message_editor_shows_its_whole_text(qapp: QApplication, window: MainWindow, name: str) -> None:
    pane = shown(qapp, window, TEXTS[name])
    editor = pane.editor.rows[0].content
    splitter = pane.editor.parentWidget()
    for left in (300, 380, 480):  # the editors' column narrower and wider: the text wraps anew
        splitter.setSizes([left, sum(splitter.sizes()) - left])
        settle(qapp, window)
        assert eventually(qapp, lambda: editor.verticalScrollBar().maximum() == 0), \
            f"a {editor.height()} px editor scrolls its {name} message at {left} px"
        layout = editor.document().documentLayout()
        block, text = editor.document().begin(), 0.0
        while block.isValid():
            text += layout.blockBoundingRect(block).height()
            block = block.next()
        spare = editor.viewport().height() - text - 2 * editor.document().documentMargin()
        line = editor.fontMetrics().lineSpacing()
        assert spare <= 1.3 * line or editor.viewport().height() <= 4.5 * line * 1.1, \
            f"{spare:.0f} px left empty below the {name} message at {left} px"
    assert window.width() == 1280


def test_the_token_count_is_the_summarys_headline(qapp: QApplication, window: MainWindow) -> None:
    pane = shown(qapp, window, TEXTS["english"])
    count = len(pane.results[0].encoding.ids)
    assert headline(f"{count:,} tokens") in pane.summary.text()


def test_the_details_and_findings_say_what_they_are_before_a_click(qapp: QApplication, window: MainWindow) -> None:
    pane = shown(qapp, window, TEXTS["english"])
    first = pane.results[0].encoding.tokens[0]
    assert pane.details.text().startswith(f"id {first.id} "), pane.details.text()
    assert "Click a token" in pane.details.text()
    assert pane.findings.count() == 0 and pane.findings.isHidden(), "an empty findings list keeps its room"
    assert pane.findings_label.text() == "Findings: none"
    pane = shown(qapp, window, TEXTS["mixed"])  # a typed special token and trailing whitespace
    assert pane.findings.count() >= 2 and pane.findings.isVisible()
    assert pane.findings_label.text() == f"Findings ({pane.findings.count()})"


def accessible_names(root: QWidget) -> dict[str, str]:
    """{widget: the name a screen reader says} for every control of `root` a user can reach: its
    accessible name, or for a combo box (whose name on Linux is its current text) the label it is
    labelled by."""
    names = {}
    for widget in root.findChildren(QWidget):
        reachable = isinstance(widget, (QAbstractButton, QComboBox)) or widget.focusPolicy() != Qt.FocusPolicy.NoFocus
        if not reachable or not widget.isVisibleTo(root) or isinstance(widget, QScrollBar):
            continue
        face = QAccessible.queryAccessibleInterface(widget)
        name = face.text(QAccessible.Text.Name) if face is not None else ""
        if isinstance(widget, QComboBox):
            labels = [other.text(QAccessible.Text.Name) for other, _ in face.relations(QAccessible.RelationFlag.Label)]
            name = widget.accessibleName() if widget.accessibleName() else (labels[0] if labels else "")
        names[f"{type(widget).__name__} {widget.objectName() or widget.accessibleName()}#{id(widget)}"] = name
    return names


@pytest.mark.parametrize("pane_name", ["chat", "tokens"])
def test_a_screen_reader_names_every_control(qapp: QApplication, window: MainWindow, pane_name: str) -> None:
    window.show_pane(pane_name)
    settle(qapp, window)
    pane = window.panes[pane_name]
    if pane_name == "tokens":
        pane.add_compare("r50k_base")
        settle(qapp, window)
    unnamed = {widget: name for widget, name in accessible_names(pane).items() if not any(c.isalpha() for c in name)}
    assert unnamed == {}, f"controls a screen reader cannot name: {unnamed}"


def test_a_screen_reader_reads_the_chat_details(qapp: QApplication, window: MainWindow) -> None:
    pane = shown(qapp, window, TEXTS["english"])
    face = QAccessible.queryAccessibleInterface(pane.details)
    assert pane.details.text().splitlines()[0] in face.text(QAccessible.Text.Name)


def labelled_by(widget: QWidget) -> list[str]:
    face = QAccessible.queryAccessibleInterface(widget)
    return [other.text(QAccessible.Text.Name) for other, _ in face.relations(QAccessible.RelationFlag.Label)]


def test_combo_boxes_are_labelled_by_the_label_beside_them(qapp: QApplication, window: MainWindow) -> None:
    """On Linux (AT-SPI) a combo box's accessible name is its current text ("disallowed"); a
    screen reader takes what it is from the label it is labelled by."""
    chat = window.panes["chat"]
    assert labelled_by(chat.template) == ["Template:"] and labelled_by(chat.compare) == ["Compare with:"]
    window.show_pane("tokens")
    settle(qapp, window)
    tokens = window.panes["tokens"]
    assert labelled_by(tokens.mode_box) == ["Special tokens:"]
    lane = tokens.add_compare("r50k_base")
    settle(qapp, window)
    choice = lane.findChild(QComboBox, "compareChoice")
    assert labelled_by(choice) == ["Compare with:"]


def test_a_message_editor_keeps_room_for_words_at_presentation_size(qapp: QApplication, window: MainWindow) -> None:
    """At 1280x800 in presentation mode the messages' column kept its 380-of-1180 share: each
    message's editor was about 200 px, three or four words a line."""
    pane = shown(qapp, window, TEXTS["english"])
    editor = pane.editor.rows[0].content
    words = editor.fontMetrics().horizontalAdvance("The cat sat on the mat. In 1969,")
    assert editor.viewport().width() >= words, f"{editor.viewport().width()} px for a {words} px line"
    right = pane.views[0]
    assert right.width() >= 0.5 * pane.width(), "the tokens keep the larger part"


def test_a_dragged_messages_column_keeps_its_width(qapp: QApplication, window: MainWindow) -> None:
    """Once the user drags the splitter, a resize shares the width as the splitter does (in
    proportion), not by the font again (which asks for 32% or more)."""
    pane = shown(qapp, window, TEXTS["english"])
    pane.splitter.splitterMoved.emit(300, 1)  # (what a drag of the handle emits)
    pane.splitter.setSizes([300, sum(pane.splitter.sizes()) - 300])
    window.resize(1300, 800)
    settle(qapp, window)
    assert 295 <= pane.splitter.sizes()[0] <= 310
