"""Issue 12: Arabic and Hebrew read from the right and keep their joined letters in every pane that
draws tokens or chunks as boxes (Tokens lanes, Chunks, the Merges trace and tree)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFont, QGlyphRun, QTextLayout, QTextOption
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.core.algorithms.train import train
from explorer.core.formats.own import from_merges
from explorer.core.pretokenization.pretokenize import Pretokenizer
from explorer.core.sources.load import load_tokenizer
from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.text.bidi import has_right_to_left
from explorer.ui.chunks.view import ChunkView
from explorer.ui.merges import create_pane as create_merges_pane
from explorer.ui.merges.model import COLUMN_INDEX
from explorer.ui.merges.pane import MergesPane
from explorer.ui.merges.trace import TokenStrip
from explorer.ui.session import Session
from explorer.ui.tokens import create_pane
from explorer.ui.tokens.pane import TokensPane
from explorer.ui.tokens.view import TokenView, _measure, _measure_bidi
from explorer.ui.training.model import LEFT, NEW, RIGHT, MergesModel

ARABIC = "مرحبا بالعالم، كيف حالك اليوم؟"


def shaped(text: str, font: QFont, start: int = 0, length: int | None = None) -> list[tuple[str, int]]:
    """(font family, glyph id) Qt draws `text[start:start + length]` with when `text` is shaped whole."""
    layout = QTextLayout(text, font)
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(1e5)
    layout.endLayout()
    length = len(text) - start if length is None else length
    return [glyph for run in line.glyphRuns(start, length) for glyph in drawn(run)]


def drawn(run: QGlyphRun) -> list[tuple[str, int]]:
    """(font family, glyph id) of the glyphs of `run`, less the views' zero-width marks (Qt draws
    those with the font's own glyph for them, or its space)."""
    font = run.rawFont()
    hidden = set(font.glyphIndexesForString("\u200b\u200d\u2060\u2066\u2068\u2069 ")) - {0}
    return [(font.familyName(), glyph) for glyph in run.glyphIndexes() if glyph not in hidden]


@pytest.fixture(scope="module")
def r50k() -> Tokenizer:
    return load_tokenizer("r50k_base")


def tokens_pane(qtbot: QtBot, session: Session, tokenizer: Tokenizer, text: str) -> TokensPane:
    session.set_tokenizer(tokenizer, tokenizer.name)
    pane = create_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1000, 600)
    pane.show()
    pane.set_text(text)
    return pane


def box_of(view: TokenView) -> dict[int, tuple[float, float]]:
    """Token index -> (left, right) of its widest box on screen (one line texts; a token drawn in
    two places, `·Hello` after Arabic, has a box for its space by the Arabic and one for its word)."""
    boxes: dict[int, tuple[float, float]] = {}
    for index, rect in view.boxes_on_screen():
        if index not in boxes or rect.width() > boxes[index][1] - boxes[index][0]:
            boxes[index] = (rect.left(), rect.right())
    return boxes


def drawn_glyph_xs(view: TokenView, index: int) -> list[float]:
    """x (viewport) of every visible glyph drawn for token `index`'s coloured text."""
    start = view.position_of(index)
    block = view.document().findBlock(start)
    layout = block.layout()
    origin = view.blockBoundingGeometry(block).translated(view.contentOffset()).topLeft() + layout.position()
    line = layout.lineForTextPosition(start - block.position())
    xs = []
    for run in line.glyphRuns(start - block.position(), int(view.painted[index])):
        seen = set(drawn(run))
        family = run.rawFont().familyName()
        xs += [origin.x() + point.x() for glyph, point in zip(run.glyphIndexes(), run.positions())
               if (family, glyph) in seen]
    return xs


# Tokens lanes

def test_arabic_tokens_run_from_the_right_and_english_from_the_left(qtbot: QtBot, session: Session, o200k) -> None:  # type: ignore[no-untyped-def]
    pane = tokens_pane(qtbot, session, o200k, ARABIC)
    view = pane.main_lane.view
    boxes = box_of(view)
    assert len(boxes) == len(view.ids) > 5
    assert all(boxes[i][0] > boxes[i + 1][0] for i in range(len(boxes) - 1))
    assert boxes[0][1] > 0.8 * view.viewport().width()  # the line starts at the right edge
    pane.set_text("Hello world, how are you today?")
    boxes = box_of(pane.main_lane.view)
    assert all(boxes[i][0] < boxes[i + 1][0] for i in range(len(boxes) - 1))
    assert boxes[0][0] < 20


def test_an_english_phrase_in_an_arabic_line_reads_left_to_right(qtbot: QtBot, session: Session, o200k) -> None:  # type: ignore[no-untyped-def]
    pane = tokens_pane(qtbot, session, o200k, "مرحبا Hello world كيف")
    view = pane.main_lane.view
    texts = [o200k.token_bytes(int(token)).decode() for token in view.ids]
    boxes = box_of(view)
    hello, world = texts.index(" Hello"), texts.index(" world")
    assert boxes[hello][0] < boxes[world][0] < boxes[0][0]  # Hello, world: left to right; both left of مرحبا
    assert boxes[len(texts) - 1][0] < boxes[hello][0]  # كيف comes after them, further left
    pieces = sorted((rect.left(), rect.right()) for _, rect in view.boxes_on_screen())
    assert all(a[1] <= b[0] + 0.5 for a, b in zip(pieces, pieces[1:]))  # no box covers another token


def test_letters_keep_their_joined_forms_across_token_boundaries(qtbot: QtBot, session: Session, o200k) -> None:  # type: ignore[no-untyped-def]
    pane = tokens_pane(qtbot, session, o200k, ARABIC)
    view = pane.main_lane.view
    font = view.font()
    word = "مرحبا"
    first = o200k.encode_tokens(word)
    assert len(first) > 1  # the word is cut inside a run of joining letters
    start, length = view.position_of(0), int(view.painted[0])
    glyphs = shaped(view.document().firstBlock().text(), font, start, length)
    token = first[0].bytes.decode()
    assert glyphs == shaped(word, font, 0, len(token))  # as in the word shaped whole
    assert glyphs != shaped(token, font)  # not the token alone (its last letter would be final)


def test_ids_under_the_text_keep_the_letters_around_them_joined(qtbot: QtBot, session: Session, o200k) -> None:  # type: ignore[no-untyped-def]
    pane = tokens_pane(qtbot, session, o200k, "مرحبا")
    pane.under_button.setChecked(True)
    view = pane.main_lane.view
    qtbot.waitUntil(lambda: len(view.ids) == 2 and "\u2080" <= view.toPlainText()[-1] <= "\u2089")
    font, block = view.font(), view.document().firstBlock().text()
    digits = set(shaped("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089", font))
    first, second = (o200k.token_bytes(int(token)).decode() for token in view.ids)
    letters = [[glyph for glyph in shaped(block, font, view.position_of(i), int(view.painted[i])) if glyph not in digits]
               for i in (0, 1)]
    assert letters[0] == shaped("مرحبا", font, 0, len(first))  # the letters' forms in the whole word
    assert letters[1] == shaped("مرحبا", font, len(first), len(second))
    assert letters[0] != shaped(first, font)
    assert view.toPlainText().startswith(first + "\u2081")  # copied text has no joiners


def test_byte_pieces_of_arabic_letters_are_drawn_inside_their_own_boxes(qtbot: QtBot, session: Session, r50k) -> None:  # type: ignore[no-untyped-def]
    pane = tokens_pane(qtbot, session, r50k, "مرحبا بالعالم")
    view = pane.main_lane.view
    boxes = box_of(view)
    pieces = [i for i in range(len(view.ids)) if view.flags[i]]
    assert len(pieces) >= 4  # r50k cuts several letters into bytes
    for index in range(len(view.ids)):
        left, right = boxes[index]
        assert all(left - 1 <= x <= right + 1 for x in drawn_glyph_xs(view, index)), index
    assert all(boxes[i][0] > boxes[i + 1][0] for i in range(len(boxes) - 1))  # the pieces too, from the right


def test_hover_and_arrow_keys_in_an_arabic_line(qtbot: QtBot, session: Session, r50k) -> None:  # type: ignore[no-untyped-def]
    pane = tokens_pane(qtbot, session, r50k, ARABIC)
    view = pane.main_lane.view
    for index, rect in view.boxes_on_screen():
        assert view.index_at_point(rect.center().toPoint()) == index
    view.setFocus()
    view.walk_to(0)
    qtbot.keyClick(view, Qt.Key.Key_Right)  # the arrows walk the tokens in reading (logical) order
    assert view.current == 1
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert view.current == 0


# Chunks

def chunk_view(qtbot: QtBot, text: str) -> ChunkView:
    view = ChunkView()
    qtbot.addWidget(view)
    view.resize(900, 300)
    pretokenizer = Pretokenizer("o200k")
    view.set_chunks(text, pretokenizer.chunks(text), ["letters"] * 20, [""] * 20)
    view.show()
    view.grab()  # paints: the boxes' text layouts
    return view


def test_chunk_boxes_follow_the_text_direction(qtbot: QtBot) -> None:
    view = chunk_view(qtbot, ARABIC)
    lefts = [box.rect.left() for box in view.boxes]
    assert len(lefts) > 4 and all(a > b for a, b in zip(lefts, lefts[1:]))
    assert view.boxes[0].rect.right() > 0.9 * view.width()
    view = chunk_view(qtbot, "Hello world, how are you?")
    lefts = [box.rect.left() for box in view.boxes]
    assert all(a < b for a, b in zip(lefts, lefts[1:]))
    view = chunk_view(qtbot, "مرحبا Hello world كيف")
    texts = [box_text.strip() for box_text in (view.text[b.start:b.end] for b in view.boxes)]
    x = {text: box.rect.left() for text, box in zip(texts, view.boxes)}
    assert x["كيف"] < x["Hello"] < x["world"] < x["مرحبا"]


def test_positions_inside_an_arabic_chunk_run_from_its_right(qtbot: QtBot) -> None:
    view = chunk_view(qtbot, "مرحبا")
    box = view.boxes[0]
    assert box.rtl
    xs = [view._x_at(box, box.start + i) for i in range(box.end - box.start + 1)]
    assert all(a > b for a, b in zip(xs, xs[1:]))  # (token bars and highlights are drawn from these)
    assert xs[0] <= box.rect.right() and xs[-1] >= box.rect.left()


# Merges: the encode trace's boxes and the tree

def test_trace_boxes_run_from_the_right_and_keep_joined_letters(qtbot: QtBot) -> None:
    strip = TokenStrip()
    qtbot.addWidget(strip)
    strip.resize(600, 80)
    pieces = ["ي", "ست", "مع"]  # يستمع cut where its letters join
    strip.label = lambda token: pieces[token]
    strip.set_tokens([(0, 1, 2)], None)
    rects = [box[0] for box in strip._boxes]
    assert rects[0].left() > rects[1].left() > rects[2].left()
    middle = strip._boxes[1][3]
    font = strip.font()
    assert shaped(middle, font) == shaped("يستمع", font, 1, 2)  # medial forms, as in the word
    assert shaped(middle, font) != shaped("ست", font)  # not the letters shaped alone
    # r50k's שלום: byte pieces go with the letters around them, all from the right
    hebrew = ["·<D7>", "<A9>", "ל", "ו", "<D7>", "<9D>"]
    strip.label = lambda token: hebrew[token]
    strip.set_tokens([tuple(range(6))], None)
    lefts = [box[0].left() for box in strip._boxes]
    assert all(a > b for a, b in zip(lefts, lefts[1:]))
    strip.label = lambda token: ["Hel", "lo", "!"][token]
    strip.set_tokens([(0, 1, 2)], None)
    rects = [box[0] for box in strip._boxes]
    assert rects[0].left() < rects[1].left() < rects[2].left()
    assert strip._boxes[1][3] == "lo"


ARABIC_AND_ENGLISH = ["مرحبا بالعالم مرحبا كيف حالك the cat sat on the mat\n"] * 20


def arabic_merges_pane(qtbot: QtBot, session: Session) -> tuple[MergesPane, Tokenizer]:
    """The Merges pane showing a tokenizer trained on ARABIC_AND_ENGLISH."""
    tokenizer = from_merges(list(train(ARABIC_AND_ENGLISH, 300, "cl100k", [])), "cl100k", [], name="arabic")
    pane = create_merges_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1300, 800)
    pane.show()
    session.set_tokenizer(tokenizer, "trained:arabic")
    qtbot.waitUntil(lambda: pane.table is not None and not pane.busy, timeout=20_000)
    return pane, tokenizer


def test_an_arabic_tokens_tree_has_its_first_parent_on_the_right(qtbot: QtBot, session: Session) -> None:
    pane, tokenizer = arabic_merges_pane(qtbot, session)
    for word, first_on_right in ((" مرحبا", True), (" cat", False)):
        [token] = tokenizer.encode(word)
        pane.table_view.selectRow(pane.model.row_of_token(token))
        view = pane.token_panel.tree_view
        root = view.tree.root  # type: ignore[union-attr]
        items = {item.token_id: item for item in view.nodes}
        left, right = (view.tree.nodes[i].token_id for i in root.children)  # type: ignore[union-attr]
        assert (items[left].x() > items[right].x()) == first_on_right, word
    # a token quoted in a list or a sentence is an isolate: its own order, the line's direction kept
    [letter] = tokenizer.encode("م")
    pane.table_view.selectRow(pane.model.row_of_token(letter))
    used_by = pane.token_panel.children_model
    rows = [str(used_by.data(used_by.index(row))) for row in range(used_by.rowCount())]
    assert rows and all(row.startswith("\u2068") == has_right_to_left(row) for row in rows)
    assert any(row.startswith("\u2068") for row in rows)


@pytest.mark.parametrize("second", ["مرحبا", "world"])
def test_a_token_after_a_line_break_mark_gets_its_notch_in_either_direction(qtbot: QtBot, second: str) -> None:
    """A token's zero-width break mark left at the end of the line before: its box on the next
    line still begins the token, with the notch, in the bidi line walk as in the left-to-right one."""
    first = "x" * 12
    text = first + "\u200b" + second
    layout = QTextLayout(text, QFont())
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    layout.setTextOption(option)
    probe = QTextLayout(first + "\u200b", QFont())
    probe.beginLayout()
    probe.createLine().setNumColumns(len(first) + 1)
    probe.endLayout()
    width = probe.lineAt(0).naturalTextWidth() + 2
    layout.beginLayout()
    y = 0.0
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        line.setPosition(QPointF(0, y))
        y += line.height()
    layout.endLayout()
    assert layout.lineCount() == 2 and layout.lineAt(1).textStart() == len(first) + 1  # the mark ended line 1
    starts, ends = [0, len(first)], [len(first), len(text)]
    for boxes in (_measure(layout, starts, ends), _measure_bidi(layout, starts, ends, text)):
        second_boxes = [(rect, tick) for offset, rect, tick in boxes if offset == 1]
        assert second_boxes, boxes
        assert any(tick is not None for _, tick in second_boxes), "no notch where the second token begins"


def test_every_editor_of_the_users_text_aligns_arabic_right(qtbot: QtBot, session: Session) -> None:
    """The Tokens prompt did; the Chunks and Bytes texts and a chat message started Arabic at the
    left, above boxes that run from the right."""
    from explorer.core.chat import Message
    from explorer.ui.bytes import create_pane as create_bytes_pane
    from explorer.ui.chat.messages_editor import MessageRow
    from explorer.ui.chunks import create_pane as create_chunks_pane

    def alignment(editor) -> Qt.AlignmentFlag:  # type: ignore[no-untyped-def]
        return editor.document().defaultTextOption().alignment() & Qt.AlignmentFlag.AlignHorizontal_Mask

    for pane in (create_chunks_pane(session), create_bytes_pane(session)):
        qtbot.addWidget(pane)
        pane.set_text(ARABIC)
        assert alignment(pane.editor) == Qt.AlignmentFlag.AlignRight, type(pane).__name__
        pane.set_text("Hello " + ARABIC)
        assert alignment(pane.editor) == Qt.AlignmentFlag.AlignLeft, type(pane).__name__
    row = MessageRow(Message("user", ARABIC))
    qtbot.addWidget(row)
    assert alignment(row.content) == Qt.AlignmentFlag.AlignRight
    row.content.setPlainText("Hi")
    assert alignment(row.content) == Qt.AlignmentFlag.AlignLeft


@pytest.mark.parametrize("columns", [1, 2])
def test_token_details_read_from_the_left_whatever_the_token(qtbot: QtBot, columns: int) -> None:
    """A row such as "Parents 9045 مر + 949 ح" took its direction from its first letter: it stood
    at the right of its cell, its ids and tokens in the other order. Each value reads from the
    left, as the labels do, and each parent is a cell of its own (in one line, the digits after
    Arabic letters joined their run: "9045 ح 949 + مر"); the Arabic itself still reads from the right."""
    from PySide6.QtGui import QTextDocument

    from explorer.core.algorithms.incremental import TokenizedText
    from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
    from explorer.ui.tokens.details import token_details

    tokenizer = TiktokenTokenizer.bundled("o200k_base")
    state = TokenizedText(tokenizer, ARABIC)
    document = QTextDocument()
    directions = []
    for index in range(len(state)):
        document.setHtml(token_details(state, index, tokenizer.forest, "", columns))
        block = document.begin()
        while block.isValid():
            if has_right_to_left(block.text()):
                directions.append((block.text(), block.textDirection()))
            block = block.next()
    assert any(text[0].isdigit() for text, _ in directions)  # (an Arabic token's parents)
    assert not any("+" in text for text, _ in directions)
    assert all(direction == Qt.LayoutDirection.LeftToRight for _, direction in directions), directions


# A token's own direction in table cells: ' مرح' (a space, then letters) shows its space marker on
# the right, where the space sits in Arabic text. The Merges pane's Token column and the Training
# pane's token columns once drew it on the left, beside parent cells that drew it on the right.

def space_marker_on_the_right(text: str) -> bool:
    """Whether the '·' of `text`, laid out in a left-to-right cell as item views do, is drawn right
    of all its letters."""
    layout = QTextLayout(text, QFont())
    option = QTextOption()
    option.setTextDirection(Qt.LayoutDirection.LeftToRight)
    layout.setTextOption(option)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    x_of: dict[int, float] = {}  # character index -> its glyph's left edge
    for run in layout.glyphRuns(0, len(text), QTextLayout.GlyphRunRetrievalFlag.RetrieveAll):
        x_of.update(zip(run.stringIndexes(), (point.x() for point in run.positions())))
    letters = [index for index, char in enumerate(text) if has_right_to_left(char)]
    assert letters and "·" in text, text
    return all(x_of[text.index("·")] > x_of[index] for index in letters)


def test_the_merges_table_shows_an_arabic_token_as_its_parents(qtbot: QtBot, session: Session) -> None:
    pane, _ = arabic_merges_pane(qtbot, session)
    checked = {"Token": 0, "Left parent": 0}
    for row in range(pane.model.rowCount()):
        for title in checked:
            cell = pane.model.index(row, COLUMN_INDEX[title]).data()
            if "·" in cell and has_right_to_left(cell):
                assert space_marker_on_the_right(cell), (title, cell)
                checked[title] += 1
    assert min(checked.values()) >= 2, checked


def test_the_training_table_shows_arabic_tokens_in_their_own_direction(qapp: QApplication) -> None:
    merges = list(train(ARABIC_AND_ENGLISH, 300, "cl100k"))
    model = MergesModel()
    model.append(merges)
    checked = 0
    for row, merge in enumerate(merges):
        for column, token in ((LEFT, merge.left), (RIGHT, merge.right), (NEW, merge.new_id)):
            text = model.vocab[token].decode("utf-8", "replace")
            if text.startswith(" ") and has_right_to_left(text) and "\ufffd" not in text:
                assert space_marker_on_the_right(model.data(model.index(row, column))), (row, column)
                checked += 1
    assert checked >= 3
