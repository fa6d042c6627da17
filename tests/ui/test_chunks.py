"""The Chunks pane: boxes equal the core's chunks, differences, custom patterns, errors and timeouts."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, QTimer
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.train import train
from explorer.core.formats.own import from_merges
from explorer.core.pretokenization.chunk_diff import compare, tokens_by_chunk
from explorer.core.pretokenization.pretokenize import Pretokenizer
from explorer.ui.chunks import create_pane
from explorer.ui.chunks.column import PatternColumn
from explorer.ui.chunks.examples import EXAMPLES
from explorer.ui.chunks.pane import ChunksPane
from explorer.ui.chunks.view import PAD_X, ChunkView
from explorer.ui.session import Session


@pytest.fixture
def pane(qtbot: QtBot, session: Session) -> ChunksPane:
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.resize(1200, 700)
    widget.show()
    return widget


def shown(column: PatternColumn) -> list[tuple[str, int, int, str]]:
    return [(c.text, c.start, c.end, c.label) for c in column.view.chunks]


def expected(pattern: str, text: str) -> list[tuple[str, int, int, str]]:
    return [(c.text, c.start, c.end, c.label) for c in Pretokenizer(pattern).chunks(text)]


def settle(qtbot: QtBot, pane: ChunksPane) -> None:
    text = pane.text()
    qtbot.waitUntil(lambda: all(c.run is not None and c.run.text == text and c.run.pattern == c.pattern()
                                for c in pane.columns), timeout=5000)


def test_default_columns_show_the_cores_chunks(qtbot: QtBot, pane: ChunksPane) -> None:
    settle(qtbot, pane)
    assert [c.pattern() for c in pane.columns] == ["gpt2", "cl100k", "o200k"]
    text = pane.text()
    for column in pane.columns:
        assert shown(column) == expected(column.pattern(), text)
        assert column.count.text().startswith(f"{len(column.view.chunks)} chunks")
        # Every character of every chunk is inside one of its boxes, in order.
        covered = [(b.start, b.end) for b in column.view.boxes]
        assert covered[0][0] == 0 and covered[-1][1] == len(text)
        assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))
    assert "letters" in pane.legend.text()


def test_hows_example_highlights_the_differing_boundary(qtbot: QtBot, pane: ChunksPane) -> None:
    label, text, _ = EXAMPLES[0]
    button = next(b for b in pane.example_buttons if b.text() == label)
    button.click()
    assert pane.text() == text
    settle(qtbot, pane)
    gpt2, cl100k = pane.columns[0], pane.columns[1]
    assert [c.text for c in gpt2.view.chunks[:3]] == ["HOW", "'", "S"]
    assert [c.text for c in cl100k.view.chunks[:2]] == ["HOW", "'S"]
    differing = compare([c.view.chunks for c in pane.columns]).all_differing
    assert 4 in differing  # between ' and S: only GPT-2 cuts there
    apostrophe = gpt2.view.chunks[1]
    assert gpt2.view.edges[1] == (True, True) and gpt2.view.differs[1]  # GPT-4o keeps HOW'S whole
    assert cl100k.view.edges[0] == (False, True) and not cl100k.view.edges[0][0]
    assert "GPT-4" in gpt2.view.describe(1) and "no boundary there" in gpt2.view.describe(1)
    assert apostrophe.label == "punctuation"
    assert "disagree" in pane.summary.text()


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_every_example_runs(qtbot: QtBot, pane: ChunksPane, index: int) -> None:
    pane.example_buttons[index].click()
    settle(qtbot, pane)
    for column in pane.columns:
        assert shown(column) == expected(column.pattern(), EXAMPLES[index][1])


def test_custom_pattern_marks_gaps_live(qtbot: QtBot, pane: ChunksPane) -> None:
    pane.set_text("ab12cd345")
    column = pane.columns[2]
    column.set_pattern(r"\d+")
    assert column.editor.isVisible()
    settle(qtbot, pane)
    assert [(c.text, c.is_gap) for c in column.view.chunks] == [("ab", True), ("12", False), ("cd", True),
                                                                 ("345", False)]
    assert [b.tag for b in column.view.boxes] == ["gap", "", "gap", ""]  # a custom kind: colour and legend only
    assert "gap" in pane.legend.text() and "2 gaps" in column.count.text()
    assert "gap" in column.view.describe(0)
    column.editor.setText(r"\d")  # typing updates the result
    qtbot.waitUntil(lambda: column.run is not None and column.run.pattern == r"\d")
    assert [c.text for c in column.view.chunks if not c.is_gap] == ["1", "2", "3", "4", "5"]


def test_invalid_pattern_shows_error_and_keeps_last_view(qtbot: QtBot, pane: ChunksPane) -> None:
    column = pane.columns[0]
    column.set_pattern(r"\p{L}+|\s+")
    settle(qtbot, pane)
    good = shown(column)
    column.editor.setText(r"\p{L}+|(\s+")
    qtbot.waitUntil(column.message.isVisible)
    assert "Invalid pattern at position 11" in column.message.text()
    assert "missing )" in column.message.text()
    assert shown(column) == good and column.view.stale
    assert "last valid" in column.count.text()
    column.editor.setText(r"\p{L}+|(\s+)")
    qtbot.waitUntil(lambda: not column.message.isVisible())
    assert not column.view.stale


def test_slow_pattern_is_stopped_without_freezing(qtbot: QtBot, pane: ChunksPane) -> None:
    pane.set_text("a" * 200 + "," * 40)
    settle(qtbot, pane)
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(50)
    column = pane.columns[1]
    column.set_pattern(r"(.*?,){11}P")  # catastrophic backtracking
    qtbot.waitUntil(lambda: "Stopped" in column.message.text(), timeout=10_000)
    timer.stop()
    assert column.message.isVisible() and "longer than" in column.message.text()
    assert len(ticks) >= 15, "the event loop kept running while the pattern was matched"
    assert shown(column) == expected("cl100k", pane.text())  # the last good view stays


def test_text_sent_from_another_pane(qtbot: QtBot, pane: ChunksPane, session: Session) -> None:
    shown_panes: list[str] = []
    session.pane_requested.connect(shown_panes.append)
    session.send_text("chunks", "dog. dog! dog?")
    assert pane.editor.toPlainText() == "dog. dog! dog?" and shown_panes == ["chunks"]
    settle(qtbot, pane)
    assert [c.text for c in pane.columns[0].view.chunks] == ["dog", ".", " dog", "!", " dog", "?"]
    session.send_text("bytes", "not for this pane")
    assert pane.editor.toPlainText() == "dog. dog! dog?"


def test_columns_can_be_added_and_removed_within_limits(qtbot: QtBot, pane: ChunksPane) -> None:
    pane.add_button.click()
    assert len(pane.columns) == 4 and not pane.add_button.isEnabled()
    assert pane.add_column() is None
    settle(qtbot, pane)
    assert shown(pane.columns[3]) == expected(pane.columns[3].pattern(), pane.text())
    for column in list(pane.columns[:3]):
        column.remove.click()
    assert len(pane.columns) == 2 and not pane.columns[0].remove.isVisible()


def test_tokens_inside_chunks(qtbot: QtBot, pane: ChunksPane, session: Session) -> None:
    texts = ["the cat sat on the mat. the cat ate the rat.", "HOW'S it going? how's it going?"]
    tokenizer = from_merges(list(train(texts, 290, "cl100k")), "cl100k", name="test")
    session.set_tokenizer(tokenizer, "trained:test")
    assert pane.show_tokens.isEnabled() and "test" in pane.show_tokens.text()
    pane.set_text("the cat ate HOW'S")
    pane.show_tokens.setChecked(True)
    settle(qtbot, pane)
    qtbot.waitUntil(lambda: all(c.view.tokens is not None for c in pane.columns))
    tokens = tokenizer.encode_tokens(pane.text())
    for column in pane.columns:
        assert column.view.tokens == tokens_by_chunk(pane.text(), column.view.chunks, tokens)
    assert "tokens:" in pane.columns[1].view.describe(0)
    pane.show_tokens.setChecked(False)
    assert all(c.view.tokens is None for c in pane.columns)


def test_zoom_and_theme_follow_the_session(qtbot: QtBot, pane: ChunksPane, session: Session) -> None:
    settle(qtbot, pane)
    height = pane.columns[0].view.minimumHeight()
    session.set_point_size(24)
    assert pane.columns[0].view.font().pointSize() == 24
    assert pane.columns[0].view.minimumHeight() > height
    session.set_dark(True)
    assert all(c.view.dark for c in pane.columns)


def test_prepare_screenshot_computes_now(qtbot: QtBot, pane: ChunksPane) -> None:
    pane.prepare_screenshot("HOW'S 1234567")
    assert shown(pane.columns[0]) == expected("gpt2", "HOW'S 1234567")
    assert "disagree" in pane.summary.text()


def test_a_chunk_wider_than_the_column_continues_in_open_boxes(qtbot: QtBot, pane: ChunksPane) -> None:
    text = "word " * 200 + "\nend"
    pane.columns[0].set_pattern("none")
    pane.set_text(text)
    settle(qtbot, pane)
    view = pane.columns[0].view
    assert len(view.chunks) == 1 and len(view.boxes) > 3
    assert [(b.start, b.end) for b in view.boxes][0][0] == 0 and view.boxes[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(view.boxes, view.boxes[1:]))
    assert not view.boxes[0].open_left and view.boxes[0].open_right
    assert view.boxes[-1].open_left and not view.boxes[-1].open_right and view.boxes[-1].tag == "*"
    assert all(b.rect.right() <= view.width() for b in view.boxes)
    newline = next(b for b in view.boxes if text[b.end - 1] == "\n")
    after = view.boxes[view.boxes.index(newline) + 1]
    assert after.rect.top() > newline.rect.top()  # the text's line break is kept


def test_note_where_tiktoken_and_tokenizers_classify_the_text_apart(qtbot: QtBot, pane: ChunksPane) -> None:
    """tiktoken's \\w holds U+200D (ZERO WIDTH JOINER), tokenizers' does not: the column says so."""
    pane.set_text("a\u200db and c")
    column, plain = pane.columns[2], pane.columns[0]
    column.set_pattern(r"\w+|\W+")
    settle(qtbot, pane)
    assert column.reference_note.isVisible() and not plain.reference_note.isVisible()
    note = column.reference_note.text()
    assert "U+200D ZERO WIDTH JOINER" in note and r"tiktoken: \w; tokenizers: not \w" in note
    assert "follow tokenizers" in note and "tiktoken would cut this text into 5 chunks" in note
    assert [c.text for c in column.view.chunks][:3] == ["a", "\u200d", "b"]
    pane.set_text("a and c")  # nothing classified apart: the note goes
    settle(qtbot, pane)
    assert not column.reference_note.isVisible()


# Drawing every script: graphemes, colours by kind, heights


def _box_fits(view: ChunkView, number: int) -> bool:
    """The text drawn in a box (with its tag) is no wider than the box, and the box is in the view."""
    box = view.boxes[number]
    drawn = view._text_layout(number).lineAt(0).naturalTextWidth()
    tag = QFontMetricsF(view._small).horizontalAdvance(box.tag) + 3 if box.tag else 0.0
    return drawn + 2 * PAD_X + tag <= box.rect.width() + 0.5 and 0 <= box.rect.left() and \
        box.rect.right() <= view.width()


def test_a_flag_stays_inside_its_box_and_a_cut_one_is_labelled(qtbot: QtBot, pane: ChunksPane) -> None:
    """A space, a flag and a newline in one chunk (Qt counts UTF-16 units, Python code points), and a
    flag cut in two by a custom pattern: every box holds what it draws, and a lone regional
    indicator is drawn as its code point, not as a broken glyph."""
    text = "cake \U0001F1FA\U0001F1E6\nx \U0001F382\n\U0001F468\u200d\U0001F469"
    pane.set_text(text)
    pane.columns[2].set_pattern(".")
    settle(qtbot, pane)
    for column in pane.columns:
        view = column.view
        assert all(_box_fits(view, number) for number in range(len(view.boxes))), column.title()
        shown_texts = [view._text_layout(n).text() for n in range(len(view.boxes))]
        assert "\ufffd" not in "".join(shown_texts)
    cut = pane.columns[2].view
    drawn = [cut._text_layout(n).text() for n in range(len(cut.boxes))]
    assert "U+1F1FA" in drawn and "U+1F1E6" in drawn and "ZWJ" in drawn
    whole = pane.columns[1].view  # cl100k keeps the flag whole: drawn as the flag itself
    assert any("\U0001F1FA\U0001F1E6" in whole._text_layout(n).text() for n in range(len(whole.boxes)))


def test_a_long_run_of_flags_wraps_between_flags(qtbot: QtBot, pane: ChunksPane) -> None:
    flags = "".join(chr(0x1F1E6 + a) + chr(0x1F1E6 + b) for a, b in [(20, 0), (9, 15), (5, 17), (3, 4)] * 20)
    pane.set_text(" " + flags)  # one chunk; the flags start at odd offsets
    settle(qtbot, pane)
    view = pane.columns[0].view
    assert len(view.chunks) == 1 and len(view.boxes) > 1
    assert all(box.start % 2 == 1 or box.start == 0 for box in view.boxes)  # never inside a flag
    assert not any("U+" in view._text_layout(n).text() for n in range(len(view.boxes)))
    assert all(_box_fits(view, number) for number in range(len(view.boxes)))


def test_one_colour_per_kind_in_every_column(qtbot: QtBot, pane: ChunksPane) -> None:
    """GPT-2's whitespace is its 7th alternative, GPT-4's its 8th: the same kind, the same colour."""
    pane.differences.setChecked(False)  # no accent bars over the fills
    pane.set_text("Hello world  \n  x 42")
    settle(qtbot, pane)
    images = {column: column.view.grab().toImage() for column in pane.columns}
    seen: dict[str, set[str]] = {}
    indexes: dict[str, set[int]] = {}
    for column, image in images.items():
        view = column.view
        for box in view.boxes:
            chunk = view.chunks[box.chunk]
            x = int(box.rect.left() + PAD_X / 2 + 0.5)
            y = int(box.rect.center().y())
            seen.setdefault(chunk.label, set()).add(image.pixelColor(x * image.devicePixelRatio(),
                                                                     y * image.devicePixelRatio()).name())
            indexes.setdefault(chunk.label, set()).add(chunk.alternative)
    assert any(len(found) > 1 for found in indexes.values()), "the text should put one kind at two indexes"
    assert all(len(colors) == 1 for colors in seen.values()), seen
    assert len({next(iter(colors)) for colors in seen.values()}) == len(seen)  # kinds apart
    legend = pane.legend.text().replace("&nbsp;", " ").replace("\u2011", "-")  # (an entry never breaks)
    assert all(label in legend for label in seen)
    assert not any(isinstance(child, QLabel) and child.objectName() == "chunkLegend"
                   for column in pane.columns for child in column.findChildren(QLabel))


def test_columns_fit_their_content_and_scroll_together(qtbot: QtBot, pane: ChunksPane) -> None:
    """Every column's boxes are as tall as their rows (no empty band, no cut row) and the pane
    scrolls all columns together down to the last row of the longest."""
    pane.resize(1200, 800)
    line = ("Hello, how's it going? I'M fine.\nनमस्ते दुनिया\nمرحبا بالعالم\nこんにちは世界\n"
            "สวัสดีชาวโลก \U0001F1FA\U0001F1E6 \U0001F468\u200d\U0001F469\u200d\U0001F467\n")
    for text in (line, line * 6):
        pane.set_text(text)
        settle(qtbot, pane)
        qtbot.wait(50)
        bottoms = []
        for column in pane.columns:
            view = column.view
            bottom = view.boxes[-1].rect.bottom()
            assert bottom <= view.height() < bottom + 20, column.title()  # sized to its content
            bottoms.append(view.mapTo(pane.splitter, QPointF(0, bottom).toPoint()).y())
        bar = pane.columns_scroll.verticalScrollBar()
        bar.setValue(bar.maximum())
        assert bar.value() + pane.columns_scroll.viewport().height() >= max(bottoms)  # the last row in reach
    assert bar.maximum() > 0  # the long text scrolls


def test_a_pane_destroyed_while_its_columns_run_says_nothing_when_they_end(qtbot: QtBot, session: Session) -> None:
    """The columns' jobs end after the pane and its widgets are gone: CI once saw 'Internal C++
    object (TextWideCombo) already deleted' from such a job, as a test closed its window."""
    import shiboken6

    widget = create_pane(session)
    widget.resize(1200, 700)
    widget.show()
    widget.editor.setPlainText("The cat sat on the mat. " * 20_000)  # (each column's job takes a while)
    widget.refresh()
    running = [job for job in session.workers.running if job.name.startswith("chunking")]
    assert running
    shiboken6.delete(widget)
    qtbot.waitUntil(lambda: all(job.done for job in running), timeout=20_000)
    qtbot.wait(50)  # (their signals delivered: an exception in a slot fails the test)
