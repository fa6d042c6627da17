"""The Tokens pane gives its room where the content is (issue 12), at a laptop's 1280x800 in
presentation mode: no findings leave their room to the details and the tokens, a one-line prompt
keeps a small editor, and three compared lanes still leave the details a readable share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QModelIndex, QRect, Qt
from PySide6.QtGui import QImage, QPainter, QTextDocument
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionViewItem, QTableView, QWidget

from explorer.core.sources.load import load_tokenizer
from explorer.ui.main_window import MainWindow
from explorer.ui.session import Session
from explorer.ui.tokens.details import token_details
from explorer.ui.tokens.room import details_least
from tests.ui.windows import close_window, eventually, open_window, settle

# Mixed scripts with nothing odd in them (no trailing space, no word seen twice): no findings.
QUIET = "مرحبا بالعالم. สวัสดีชาวโลก こんにちは世界。 नमस्ते दुनिया! 👋🏽 🎉 done"


@pytest.fixture
def window(qapp: QApplication, session: Session) -> Iterator[MainWindow]:
    window = open_window(qapp, session, (1280, 800, "dark", True), "tokens")
    yield window
    close_window(qapp, window)


def looked(qapp: QApplication, pane: QWidget) -> bool:
    """Whether the findings of the prompt as it is now are all in (the idle look has run)."""
    label = pane.findings_panel.label
    return eventually(qapp, lambda: not pane._idle.isActive() and label.text() != "Findings"
                      and "looking" not in label.text(), 10)


def shown(qapp: QApplication, window: MainWindow, spec: str, text: str) -> QWidget:
    window.session.set_tokenizer(load_tokenizer(spec), spec)
    pane = window.panes["tokens"]
    pane.set_text(text)
    settle(qapp, window)
    assert looked(qapp, pane)
    pane._set_details(pane.main_lane, 0)  # (a hovered token's details)
    settle(qapp, window)
    for _ in range(3):
        qapp.processEvents()
    return pane


def one_column_height(pane: QWidget) -> float:
    """The details' height as one column of rows at the panel's width."""
    lane = pane.main_lane
    scratch = QTextDocument()
    scratch.setDefaultFont(pane.details.font())
    scratch.setTextWidth(pane.details.viewport().width())
    scratch.setHtml(token_details(lane.state, 0, lane.tokenizer.forest, ""))
    return scratch.size().height()


def test_no_findings_give_their_room_to_the_details_and_the_tokens(qapp: QApplication, window: MainWindow) -> None:
    pane = shown(qapp, window, "r50k_base", QUIET)
    panel, details = pane.findings_panel, pane.details
    assert panel.model.rowCount() == 0
    assert panel.table.isHidden() and "none" in panel.label.text(), "an empty findings table keeps its room"
    assert panel.width() < pane.width() // 4, f"no findings, still {panel.width()} px wide"
    # The details stand in two columns across the freed width: shorter, and whole.
    height = details.document().size().height()
    assert height < 0.75 * one_column_height(pane), "the details kept one tall column"
    assert details.verticalScrollBar().maximum() == 0 and details.horizontalScrollBar().maximum() == 0
    bottom = pane.splitter.sizes()[2]
    assert bottom <= max(130, height + 2 * details.frameWidth() + 12), f"the bottom kept {bottom} px"
    view = pane.main_lane.view
    assert view.height() >= view.lines_height(4), "the tokens scroll while the room goes elsewhere"
    assert window.width() == 1280


def test_findings_come_back_when_there_are_some(qapp: QApplication, window: MainWindow) -> None:
    pane = shown(qapp, window, "r50k_base", QUIET)
    pane.set_text(QUIET + " done done ")  # trailing whitespace
    settle(qapp, window)
    assert looked(qapp, pane) and pane.findings_panel.model.rowCount() > 0
    panel = pane.findings_panel
    assert panel.table.isVisible()
    table = panel.table
    for column in (0, 1):
        assert table.columnWidth(column) >= table.sizeHintForColumn(column)
    assert table.viewport().height() >= panel.model.rowCount() * table.verticalHeader().defaultSectionSize()
    window.toggle_presentation(False)  # the columns follow the zoom, down as up
    for column in (0, 1):
        assert eventually(qapp, lambda: table.sizeHintForColumn(column) <= table.columnWidth(column)
                          <= table.sizeHintForColumn(column) + 4, 5), (column, table.columnWidth(column))


def test_a_short_prompt_keeps_a_small_editor_and_a_long_one_a_bigger(qapp: QApplication, window: MainWindow) -> None:
    pane = shown(qapp, window, "o200k_base", QUIET)
    editor = pane.editor
    line = editor.fontMetrics().lineSpacing()
    # (its one line as laid out: mixed scripts from fallback fonts make it taller than `line`)
    first = editor.document().documentLayout().blockBoundingRect(editor.document().begin()).height()
    assert editor.height() <= first + line + 2 * editor.frameWidth() + 2 * editor.document().documentMargin() + 8, \
        f"one line of prompt in a {editor.height()} px editor"
    pane.set_text("\n".join(f"line {n}" for n in range(40)))
    settle(qapp, window)
    assert looked(qapp, pane)
    pane.fit_to_content()
    qapp.processEvents()
    # (40 lines of tokens do not fit either: the editor keeps a sixth, not a quarter, see room.py)
    assert editor.height() >= 0.14 * sum(pane.splitter.sizes()), "a long prompt's editor did not grow"
    assert editor.height() >= 2.5 * line + 2 * editor.frameWidth(), "a long prompt's editor did not grow"


def test_three_compared_lanes_leave_the_details_a_readable_share(qapp: QApplication, window: MainWindow) -> None:
    pane = shown(qapp, window, "o200k_base", QUIET + " " + QUIET)
    for spec in ("r50k_base", "cl100k_base"):
        pane.add_compare(spec)
        settle(qapp, window)
    pane._set_details(pane.main_lane, 0)
    for _ in range(5):
        qapp.processEvents()
    pane.fit_to_content()
    qapp.processEvents()
    sizes = pane.splitter.sizes()
    room = sizes[1] + sizes[2]
    details = pane.details
    needed = details.document().size().height() + 2 * details.frameWidth()
    # (every compared lane in sight comes first, tests/ui/test_tokens_room.py: the details keep two lines)
    assert sizes[2] >= min(needed, details_least(pane)), f"the details got {sizes[2]} of {room} px"
    assert sizes[1] >= 0.55 * room, f"the lanes got {sizes[1]} of {room} px"
    first = pane.main_lane
    assert pane.lanes_scroll.viewport().height() >= first.minimumSizeHint().height(), "not even one lane whole"
    assert window.width() == 1280


@pytest.fixture
def wide(qapp: QApplication, session: Session) -> Iterator[MainWindow]:
    window = open_window(qapp, session, (1920, 1080, "light", True), "tokens")
    yield window
    close_window(qapp, window)


def test_a_long_text_gives_the_tokens_most_of_the_room_not_the_findings(qapp: QApplication, wide: MainWindow) -> None:
    """5,000 characters of mixed scripts at 1920x1080 in presentation mode: ~1,900 tokens and 25
    findings. The tokens scroll either way; they keep the larger share, not 3 lines under a
    14-row findings table."""
    text = (" ".join([QUIET, "The cat sat on the mat. In 1969, 600,000,000 people watched."]) + " ") * 60
    pane = shown(qapp, wide, "o200k_base", text[:5000])
    assert pane.findings_panel.model.rowCount() > 14
    sizes = pane.splitter.sizes()
    room = sizes[1] + sizes[2]
    assert sizes[1] >= 0.55 * room, f"the tokens got {sizes[1]} of {room} px"
    view = pane.main_lane.view
    assert view.height() >= view.lines_height(6), "6 lines of tokens do not fit"
    assert wide.width() == 1920


def test_a_long_text_keeps_the_tokens_share_on_a_laptop_too(qapp: QApplication, window: MainWindow) -> None:
    """The same at 1280x800 in presentation mode: the details of a token (8 rows at 20 pt) stayed
    whole there and the tokens of a pasted text had 3 lines, a third of the room."""
    text = (" ".join([QUIET, "The cat sat on the mat. In 1969, 600,000,000 people watched."]) + " ") * 60
    pane = shown(qapp, window, "o200k_base", text[:5000])
    sizes = pane.splitter.sizes()
    room = sizes[1] + sizes[2]
    assert sizes[1] >= 0.55 * room, f"the tokens got {sizes[1]} of {room} px"
    view = pane.main_lane.view
    assert view.height() >= view.lines_height(3), "3 lines of tokens do not fit"
    assert pane.details.height() >= details_least(pane), "the details keep their least"


def test_a_short_prompt_stays_whole_beside_three_lanes(qapp: QApplication, wide: MainWindow) -> None:
    """Three lines of mixed scripts (taller lines than the editor font's: fallback fonts) and three
    lanes that scroll anyway: the editor gives up its spare line, never the prompt's own lines."""
    text = "Hello नमस्ते مرحبا こんにちは สวัสดี 👋🏽\ndef f(x):\n    return x ** 2  # 1234567 <|endoftext|> "
    pane = shown(qapp, wide, "o200k_base", text)
    for spec in ("r50k_base", "cl100k_base"):
        pane.add_compare(spec)
        settle(qapp, wide)
    pane.fit_to_content()
    qapp.processEvents()
    assert eventually(qapp, lambda: pane.editor.verticalScrollBar().maximum() == 0), \
        f"a three-line prompt scrolls in a {pane.editor.height()} px editor"


PROMPT = "The cat sat on the mat. In 1969, 600,000,000 people watched.  \nनमस्ते दुनिया 안녕하세요 👋🏽 <|endoftext|>"


def painted(table: QTableView, index: QModelIndex, height: int) -> QImage:
    """The cell at `index` as the table's delegate paints it in a row `height` px tall (inside the
    grid line, as QTableView paints a cell)."""
    grid = 1 if table.showGrid() else 0
    option = QStyleOptionViewItem()
    table.initViewItemOption(option)  # (the view's word wrap and elide mode)
    table.itemDelegateForIndex(index).initStyleOption(option, index)
    option.rect = QRect(0, 0, table.columnWidth(index.column()) - grid, height - grid)
    option.state &= ~QStyle.StateFlag.State_Selected
    image = QImage(option.rect.size(), QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    table.itemDelegateForIndex(index).paint(painter, option, index)
    painter.end()
    return image


def test_a_long_finding_wraps_whole_in_its_row(qapp: QApplication, window: MainWindow) -> None:
    """At 1280x800 in presentation mode a finding longer than its column wraps, and at any width
    the findings are given its row is tall enough that Qt paints every line whole: the cell looks
    the same as in a row 200 px taller, where it is centred 100 px lower (Qt measured two lines
    that just fitted, then painted the first elided: '"안녕하세요" is 2 tokens in NFC, 37 token...')."""
    pane = shown(qapp, window, "o200k_base", PROMPT)
    table = pane.findings_panel.table
    model = table.model()
    texts = [str(model.index(row, 2).data()) for row in range(model.rowCount())]
    assert any(table.fontMetrics().horizontalAdvance(text) > table.columnWidth(2) for text in texts)
    total = sum(pane.bottom.sizes())
    cut = []
    for findings_width in range(400, 800, 8):
        pane.bottom.setSizes([total - findings_width, findings_width])
        for _ in range(3):
            qapp.processEvents()  # (the rows fit their new width on the next turn)
        for row, text in enumerate(texts):
            index = model.index(row, 2)
            height = table.rowHeight(row)
            tall = painted(table, index, height + 200).copy(0, 100, table.columnWidth(2) - 1, height - 1)
            if painted(table, index, height) != tall:
                cut.append(f"{text!r} at {table.columnWidth(2)} px: cut in its {height} px row")
    assert not cut, "\n".join(cut)
