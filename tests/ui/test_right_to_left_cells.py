"""An Arabic token reads in its own direction in every table cell, as in the merge tree and the
trace: ' مرح' (a space, then letters) shows its space marker on the right, where the space sits
in Arabic text. The Merges pane's Token column and the Training pane's token columns once drew it
on the left, beside parent cells that drew it on the right."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QTextLayout, QTextOption
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.core.formats.own import from_merges
from explorer.core.algorithms.train import train
from explorer.ui.merges.model import COLUMN_INDEX
from explorer.ui.merges import create_pane
from explorer.ui.session import Session
from explorer.ui.training.model import LEFT, NEW, RIGHT, MergesModel

ARABIC = ["مرحبا بالعالم، مرحبا بكم في المدينة\n"] * 40


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
    letters = [index for index, char in enumerate(text) if "\u0600" <= char <= "\u06ff"]
    assert letters and "·" in text, text
    return all(x_of[text.index("·")] > x_of[index] for index in letters)


def test_the_merges_table_shows_an_arabic_token_as_its_parents(qtbot: QtBot, session: Session) -> None:
    bpe = from_merges(list(train(ARABIC, 300, "cl100k")), "cl100k", name="arabic")
    pane = create_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1300, 800)
    pane.show()
    session.set_tokenizer(bpe, "trained:arabic")
    qtbot.waitUntil(lambda: pane.table is not None and not pane.busy, timeout=20_000)
    checked = {"Token": 0, "Left parent": 0}
    for row in range(pane.model.rowCount()):
        for title in checked:
            cell = pane.model.index(row, COLUMN_INDEX[title]).data()
            if "·" in cell and any("\u0600" <= char <= "\u06ff" for char in cell):
                assert space_marker_on_the_right(cell), (title, cell)
                checked[title] += 1
    assert min(checked.values()) >= 2, checked


def test_the_training_table_shows_arabic_tokens_in_their_own_direction(qapp: QApplication) -> None:
    merges = list(train(ARABIC, 300, "cl100k"))
    model = MergesModel()
    model.append(merges)
    vocab = model.vocab
    checked = 0
    for row, merge in enumerate(merges):
        for column, token in ((LEFT, merge.left), (RIGHT, merge.right), (NEW, merge.new_id)):
            text = vocab[token]
            if text.startswith(" ".encode()) and len(text.decode("utf-8", "replace")) > 1 and text[1] >= 0xD8:
                cell = model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole)
                if "\ufffd" not in text.decode("utf-8", "replace"):
                    assert space_marker_on_the_right(cell), (row, column, cell)
                    checked += 1
    assert checked >= 3
