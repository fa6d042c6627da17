"""The Tokens pane driven like a user: type, paste, switch tokenizer, toggle ids, click, compare, export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.train import train
from explorer.core.analysis import findings as F
from explorer.core.formats.own import from_merges
from explorer.ui.session import Session
from explorer.ui.tokens import create_pane
from explorer.ui.tokens.pane import TokensPane

TEXTS = ["One eggless mawa cake for Saturday, please. Egg or egg? In 1969, 600,000 people watched.\n",
         "नमस्ते दुनिया, मावा केक 🎂 안녕하세요 <|endoftext|>\n"] * 5


@pytest.fixture(scope="module")
def small():  # type: ignore[no-untyped-def]
    return from_merges(list(train(TEXTS, 420, "cl100k", ["<|endoftext|>"])), "cl100k", ["<|endoftext|>"], name="small")


@pytest.fixture(scope="module")
def other():  # type: ignore[no-untyped-def]
    return from_merges(list(train(TEXTS, 300, "gpt2", ["<|endoftext|>"])), "gpt2", ["<|endoftext|>"], name="other")


@pytest.fixture
def pane(qtbot: QtBot, session: Session, small) -> TokensPane:  # type: ignore[no-untyped-def]
    session.set_tokenizer(small, "trained:small")
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    return widget


def ids_shown(pane: TokensPane, lane_index: int = 0) -> list[int]:
    lane = pane.lanes[lane_index]
    assert lane.state is not None
    return [int(i) for i in lane.state.ids]


def view_ids(pane: TokensPane) -> list[int]:
    return [int(i) for i in pane.main_lane.view.ids]


def test_starts_with_the_sample_tokenized(pane: TokensPane, small) -> None:  # type: ignore[no-untyped-def]
    assert pane.text()
    assert ids_shown(pane) == small.encode(pane.text(), "plain")
    assert view_ids(pane) == ids_shown(pane)
    assert "tokens" in pane.main_lane.counts.text()


def test_typing_updates_tokens_incrementally(pane: TokensPane, qtbot: QtBot, small) -> None:  # type: ignore[no-untyped-def]
    pane.set_text("Egg or egg")
    pane.editor.moveCursor(pane.editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(pane.editor, " and more eggs")
    text = pane.text()
    assert text == "Egg or egg and more eggs"
    assert ids_shown(pane) == small.encode(text)
    assert view_ids(pane) == small.encode(text)
    shown = pane.main_lane.view.toPlainText()
    assert shown == "".join(__import__("explorer.core.text.render", fromlist=["x"]).token_text(small.token_bytes(i))
                            for i in small.encode(text))
    assert "·more" in shown or "·" in shown
    assert pane.main_lane.last_edit_seconds < 0.05


def test_big_paste_is_tokenized_in_full_off_the_gui_thread(pane: TokensPane, qtbot: QtBot, small) -> None:  # type: ignore[no-untyped-def]
    big = ("".join(TEXTS).replace("<|endoftext|>", "") * 300)[:150_000]
    pane.set_text("")
    data = QMimeData()
    data.setText(big)
    pane.editor.insertFromMimeData(data)
    qtbot.waitUntil(lambda: not pane._bulk and pane.main_lane.complete and pane.text() == big, timeout=30_000)
    assert ids_shown(pane) == small.encode(big)
    assert view_ids(pane) == ids_shown(pane)  # shown in full, no cut-off
    assert pane.main_lane.view.document().characterCount() > len(big)  # every token is in the view


def test_switch_tokenizer_and_special_modes(pane: TokensPane, qtbot: QtBot, session: Session, small, other) -> None:  # type: ignore[no-untyped-def]
    text = "say <|endoftext|> now"
    pane.set_text(text)
    assert pane.banner.isVisible() and "special token" in pane.banner.message()
    assert ids_shown(pane) == small.encode(text, "plain")
    pane.mode_box.setCurrentIndex(pane.mode_box.findData("allowed"))
    assert session.special_mode == "allowed"
    assert ids_shown(pane) == small.encode(text, "allowed")
    assert small.special_tokens["<|endoftext|>"] in ids_shown(pane)
    assert not pane.banner.isVisible()
    session.set_tokenizer(other, "trained:other")
    assert ids_shown(pane) == other.encode(text, "allowed")
    assert "other" in pane.main_lane.counts.text()


def test_toggle_ids(pane: TokensPane, small) -> None:  # type: ignore[no-untyped-def]
    pane.set_text("egg egg")
    pane.ids_button.click()
    ids = small.encode("egg egg")
    assert pane.main_lane.view.toPlainText() == " ".join(map(str, ids)) + " "
    pane.ids_button.click()
    assert pane.main_lane.view.toPlainText().startswith("egg")


def test_hover_and_click_a_token(pane: TokensPane, qtbot: QtBot, session: Session, small) -> None:  # type: ignore[no-untyped-def]
    pane.set_text("Egg or egg")
    view = pane.main_lane.view
    boxes = view.boxes_on_screen()
    index, rect = boxes[2]
    with qtbot.waitSignal(session.token_requested) as requested:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert requested.args == [small.encode("Egg or egg")[index]]
    assert f"<b>{requested.args[0]}</b>" in pane.details.toHtml() or str(requested.args[0]) in pane.details.toPlainText()
    assert "Bytes" in pane.details.toPlainText()


def test_split_characters_shown_in_hex(pane: TokensPane, small) -> None:  # type: ignore[no-untyped-def]
    pane.set_text("🎂")
    tokens = small.encode_tokens("🎂")
    shown = pane.main_lane.view.toPlainText()
    if len(tokens) > 1:
        assert shown.startswith("<F0") and "\ufffd" not in shown
        assert pane.editor.extraSelections(), "the split character is marked in the editor"


def test_click_a_finding_jumps_to_its_span(pane: TokensPane, qtbot: QtBot) -> None:
    text = "Egg or egg? In 1969 there were 600000 people.\u200b "
    pane.set_text(text)
    qtbot.waitUntil(lambda: "looking" not in pane.findings_panel.label.text() and pane.findings_panel.model.rowCount() > 0,
                    timeout=10_000)
    kinds = {f.kind for f in pane.findings_panel.model.findings}
    assert {F.TRAILING_SPACE, F.INVISIBLE, F.WORD_FORMS} <= kinds
    row = next(i for i, f in enumerate(pane.findings_panel.model.findings) if f.kind == F.INVISIBLE)
    index = pane.findings_panel.model.index(row, 2)
    rect = pane.findings_panel.table.visualRect(index)
    qtbot.mouseClick(pane.findings_panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert pane.editor.textCursor().selectedText() == "\u200b"
    assert pane.main_lane.view.current == pane.main_lane.state.index_at(text.index("\u200b"))  # type: ignore[union-attr]


def test_compare_two_tokenizers(pane: TokensPane, qtbot: QtBot, session: Session, small, other) -> None:  # type: ignore[no-untyped-def]
    session.add_trained(other, select=False)
    text = "Egg or egg? In 1969, 600,000 people."
    pane.set_text(text)
    lane = pane.add_compare("trained:other")
    assert lane is not None and len(pane.lanes) == 2
    qtbot.waitUntil(lambda: lane.complete and lane.tokenizer is other, timeout=5000)
    assert ids_shown(pane, 1) == other.encode(text, "disallowed")
    qtbot.waitUntil(lambda: pane.main_lane.view.diff is not None and lane.view.diff is not None, timeout=10_000)
    assert pane.main_lane.view.diff.any() and lane.view.diff.any()  # type: ignore[union-attr]
    pane.editor.moveCursor(pane.editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(pane.editor, " egg")
    assert ids_shown(pane, 1) == other.encode(text + " egg")
    assert "other" in lane.counts.text()
    pane.remove_compare(lane)
    assert len(pane.lanes) == 1


def test_export(pane: TokensPane, tmp_path: Path, small, qtbot: QtBot) -> None:  # type: ignore[no-untyped-def]
    def done(job) -> None:  # type: ignore[no-untyped-def]
        """Exports are built on a worker: wait for this one."""
        with qtbot.waitSignal(job.finished, timeout=10_000):
            pass

    pane.set_text("Egg or egg\n")
    ids = small.encode("Egg or egg\n")
    done(pane.export_button.copy_ids())
    assert json.loads(QGuiApplication.clipboard().text()) == ids
    done(pane.export_button.save_csv(str(tmp_path / "t.csv")))
    lines = (tmp_path / "t.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("index,id") and len(lines) == len(ids) + 1
    assert lines[1].split(",")[1] == str(ids[0])
    done(pane.export_button.save_html(str(tmp_path / "t.html")))
    markup = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert markup.count("<span") == len(ids) and f'title="{ids[0]}"' in markup
    done(pane.export_button.save_png(str(tmp_path / "t.png")))
    from PySide6.QtGui import QImage

    image = QImage(str(tmp_path / "t.png"))
    assert image.width() >= 400 and image.height() > 20
    done(pane.export_button.copy_html())
    assert QGuiApplication.clipboard().mimeData().html().count("<span") == len(ids)
    with qtbot.waitSignal(pane.session.error_posted) as failed:
        pane.export_button.save_csv(str(tmp_path / "no-folder" / "t.csv"))
    assert "no-folder" in failed.args[1]


def test_missing_glyph_is_named(pane: TokensPane, qtbot: QtBot) -> None:
    pane.set_text("private \U000F0001 use")
    pane.main_lane.view.viewport().repaint()
    qtbot.waitUntil(lambda: pane.banner.isVisible() and "No installed font" in pane.banner.message(), timeout=3000)
    assert "U+F0001" in pane.banner.message()


def test_crlf_and_cr_line_endings_survive(pane: TokensPane, qtbot: QtBot, small) -> None:  # type: ignore[no-untyped-def]
    text = "Egg\r\negg\rend\n"
    pane.set_text(text)
    qtbot.waitUntil(lambda: not pane._bulk)
    assert pane.editor.toPlainText() == "Egg\negg\nend\n"  # the editor has one break per line ending
    assert pane.text() == text
    assert ids_shown(pane) == small.encode(text)
    shown = pane.main_lane.view.toPlainText()
    assert "\u240d" in shown and "\r" not in shown  # a carriage return is shown as ␍
    assert shown.count("\n") == 3  # a lone one ends a line in the view too
    pane.editor.moveCursor(pane.editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(pane.editor, "x")
    qtbot.keyClick(pane.editor, Qt.Key.Key_Return)
    assert pane.text() == text + "x\r\n"  # a new line gets the prompt's own line ending
    assert ids_shown(pane) == small.encode(text + "x\r\n")


def test_paste_keeps_crlf(pane: TokensPane, qtbot: QtBot, small) -> None:  # type: ignore[no-untyped-def]
    pane.set_text("")
    data = QMimeData()
    data.setText("one\r\ntwo\r\n")
    pane.editor.insertFromMimeData(data)
    qtbot.waitUntil(lambda: not pane._bulk)
    assert pane.text() == "one\r\ntwo\r\n"
    assert ids_shown(pane) == small.encode("one\r\ntwo\r\n")
    cursor = pane.editor.textCursor()
    cursor.setPosition(len("one\nt"))
    pane.editor.setTextCursor(cursor)
    qtbot.keyClick(pane.editor, Qt.Key.Key_Delete)
    assert pane.text() == "one\r\nto\r\n"
    assert ids_shown(pane) == small.encode("one\r\nto\r\n")


def test_the_prompt_is_remembered(pane: TokensPane, qtbot: QtBot, session: Session) -> None:
    pane.set_text("remember\r\nme 👋")
    qtbot.waitUntil(lambda: session.settings.last_prompt == "remember\r\nme 👋", timeout=3000)
    session.settings.sync()
    from PySide6.QtCore import QSettings

    on_disk = QSettings(session.settings.store.fileName(), QSettings.Format.IniFormat)
    assert on_disk.value("tokens/last_prompt") == "remember\r\nme 👋"
    again = create_pane(session)
    qtbot.addWidget(again)
    assert again.text() == "remember\r\nme 👋"


def test_jump_to_maps_positions_past_emoji_and_crlf(pane: TokensPane, qtbot: QtBot) -> None:
    text = "👋\r\n👋 egg\r\nend"
    pane.set_text(text)
    qtbot.waitUntil(lambda: not pane._bulk)
    start = text.index("egg")
    pane.jump_to(start, start + 3)
    assert pane.editor.textCursor().selectedText() == "egg"
    assert pane.main_lane.view.current == pane.main_lane.state.index_at(start)  # type: ignore[union-attr]


def test_typing_and_pasting_while_a_big_paste_goes_in(pane: TokensPane, qtbot: QtBot, small) -> None:  # type: ignore[no-untyped-def]
    big = ("Egg or egg?\r\n" * 20_000)[:200_000]
    pane.set_text("")
    data = QMimeData()
    data.setText(big)
    pane.editor.insertFromMimeData(data)
    assert pane._bulk  # the editor fills over several turns
    qtbot.keyClicks(pane.editor, "x")  # typed into the part already in
    second = QMimeData()
    second.setText("\r\nend")
    pane.editor.insertFromMimeData(second)  # the first paste is finished before this one goes in
    qtbot.waitUntil(lambda: not pane._bulk and pane.main_lane.complete, timeout=30_000)
    assert pane.editor.toPlainText() == pane.prompt.shown
    assert pane.text().endswith("\r\nend") and pane.text().count("\r\n") == big.count("\r\n") + 1
    assert "x" in pane.text()
    assert ids_shown(pane) == small.encode(pane.text())


def test_show_ids_on_a_big_text_rebuilds_the_view_in_full(pane: TokensPane, qtbot: QtBot, small) -> None:  # type: ignore[no-untyped-def]
    big = ("Egg or egg? 600,000 people.\n" * 3000)[:60_000]
    pane.set_text(big)
    qtbot.waitUntil(lambda: pane.main_lane.complete and not pane._bulk, timeout=30_000)
    ids = small.encode(big)
    pane.ids_button.click()
    qtbot.waitUntil(lambda: pane.main_lane.complete, timeout=30_000)
    assert pane.main_lane.view.toPlainText().split() == [str(i) for i in ids]
    assert view_ids(pane) == ids
    pane.ids_button.click()
    qtbot.waitUntil(lambda: pane.main_lane.complete, timeout=30_000)
    assert pane.main_lane.view.toPlainText().startswith("Egg·or")


def test_a_copied_html_does_not_crash_the_exit() -> None:
    """A QMimeData made in Python and left on the clipboard segfaulted the process at exit."""
    import os
    import subprocess
    import sys

    script = ("from PySide6.QtCore import QMimeData\n"
              "from PySide6.QtWidgets import QApplication\n"
              "app = QApplication([])\n"
              "from explorer.ui.tokens.export_button import release_clipboard\n"
              "data = QMimeData()\n"
              "data.setHtml('<b>egg</b>')\n"
              "data.setText('egg')\n"
              "app.clipboard().setMimeData(data)\n"
              "app.aboutToQuit.connect(release_clipboard)\n"
              "from PySide6.QtCore import QTimer\n"
              "QTimer.singleShot(0, app.quit)\n"
              "app.exec()\n"
              "assert app.clipboard().text() == 'egg'\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-500:]
