"""The Training pane's merges table never elides a cell (issue 12): at a laptop's and a projector's
size, normal and presentation mode, a merge of partial characters ('<E0 A4>' + '<A8 E0 A5>') shows
both parts, the new token, its id and count whole; where the row is wider than the view, the
table scrolls sideways with the merge number pinned. At 1280x800 the parts read '<E0 …'.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionViewItem, QTableView

from explorer.core.algorithms.train import Merge
from explorer.ui.main_window import MainWindow
from explorer.ui.training.model import COLUMNS, LEFT, NEW, RIGHT
from tests.ui.test_no_elided_choice import CONFIGURATIONS
from tests.ui.windows import configuration_id, session_window, settle

FIRST_RANK = 99_990  # ranks and ids of a long run: the widest numbers the columns hold


def partial_merges() -> list[Merge]:
    """Merges whose parts are pieces of Devanagari, Thai, CJK and emoji characters, as a byte-level
    run learns them: 'E0 A4' + 'A8 E0 A5' -> 'न<E0 A5>', each part learned before by merges of its own."""
    ids: dict[bytes, int] = {bytes([b]): b for b in range(256)}
    merges: list[Merge] = []

    def learn(token: bytes, split: int = -1) -> int:
        if token not in ids:
            left, right = learn(token[:split]), learn(token[split:])
            rank = FIRST_RANK + len(merges)
            merges.append(Merge(rank, left, right, 256 + rank, token, 123_456, 1_000_000))
            ids[token] = 256 + rank
        return ids[token]

    for text in ("नमस्ते", "สวัสดี", "世界", "🎂👋🏽"):
        data = text.encode("utf-8")
        for start in range(0, len(data) - 4, 2):  # 'E0 A4' + 'A8 E0 A5', 'A4 A8' + 'E0 A4 AE', ...
            learn(data[start:start + 5], 2)
    learn(" न".encode()[:3] + "म".encode()[:2], 3)  # ' <E0 A4>' + 'A8 E0 A4'
    return merges


def cut_cells(table: QTableView) -> list[str]:
    """Every cell in the visible rows whose text the view would elide: the delegate's own text
    rectangle, less the style's text margins, against the text's width in the cell's font."""
    model, style = table.model(), table.style()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    first, last = table.rowAt(0), table.rowAt(table.viewport().height() - 1)
    last = model.rowCount() - 1 if last < 0 else last
    cut = []
    for row in range(first, last + 1):
        for column in range(model.columnCount()):
            if table.isColumnHidden(column):
                continue
            index: QModelIndex = model.index(row, column)
            option = QStyleOptionViewItem()
            table.itemDelegateForIndex(index).initStyleOption(option, index)
            option.rect = table.visualRect(index)
            room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, table).width() - 2 * margin
            width = QFontMetricsF(option.font).horizontalAdvance(option.text)
            if width > room:
                cut.append(f"{COLUMNS[column]} {option.text!r}: {width:.0f} px in {room} px")
    return cut


@pytest.fixture(params=CONFIGURATIONS, ids=configuration_id)
def window(qapp: QApplication, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    with session_window(qapp, tmp_path / "cells.ini", request.param, "training") as window:
        yield window


def test_no_merge_cell_is_elided(qapp: QApplication, window: MainWindow) -> None:
    pane = window.panes["training"]
    merges = partial_merges()
    assert any(b"\xe0\xa4" == merge.token for merge in merges) and len(merges) > 20
    pane.model.append(merges)  # type: ignore[attr-defined]
    table: QTableView = pane.table  # type: ignore[attr-defined]
    cut = []
    for end, scroll in (("top", table.scrollToTop), ("bottom", table.scrollToBottom)):  # the newest in bold
        scroll()
        settle(qapp, window)
        cut += [f"{end}: {what}" for what in cut_cells(table)]
    assert not cut, "\n".join(cut)
    model = pane.model  # type: ignore[attr-defined]
    for column in (LEFT, RIGHT, NEW):  # and each text whole in its tooltip too (a column the user narrowed)
        index = model.index(model.rowCount() - 1, column)
        assert str(index.data(Qt.ItemDataRole.ToolTipRole)).endswith("\n" + str(index.data()))
    if table.horizontalScrollBar().maximum() > 0:  # too wide for the view: the merge number stays in sight
        table.horizontalScrollBar().setValue(table.horizontalScrollBar().maximum())
        qapp.processEvents()
        pinned = table.findChild(QTableView, "mergesTablePinned")
        assert pinned is not None and pinned.isVisible() and pinned.columnWidth(0) == table.columnWidth(0)


def mixed_text(words: int = 30_000) -> list[str]:
    """Lines of made-up words in Latin, kana, kanji, Hangul and Devanagari syllables: many distinct
    words, so that a thousand merges make short tokens and pieces of characters ('<E4 B8>', 'ー<E3 82>'),
    as on a real multilingual corpus."""
    pick = random.Random(0)
    syllables = [*"ta ke shi mo ru na bo le ti ga pu re".split(), *"かきくけこさしすせそ", *"가나다라마바사",
                 *"कखगघचछजझ", *map(chr, range(0x4E00, 0x5600))]
    text = [" ".join("".join(pick.choice(syllables) for _ in range(pick.randint(1, 4))) for _ in range(12))
            for _ in range(words // 12)]
    return [line + "\n" for line in text]


def test_a_laptop_screen_shows_every_column_of_a_short_run(qapp: QApplication, tmp_path: Path) -> None:
    """At 1280x800 the table of a run of a thousand merges shows all its columns, the Tie column
    (which merges won a tie, and among how many) included: it was cut off by about 30 px, under
    the cut-column cover, while the plots beside kept 60 px more than they need."""
    from explorer.core.algorithms.train import train

    with session_window(qapp, tmp_path / "tie.ini", (1280, 800, "light", False), "training") as window:
        pane = window.panes["training"]
        merges = list(train(mixed_text(), 1024, "cl100k", explain_ties=True))
        assert sum(merge.tie is not None for merge in merges) > 100
        pane.model.append(merges)  # type: ignore[attr-defined]
        table: QTableView = pane.table  # type: ignore[attr-defined]
        table.scrollToBottom()
        settle(qapp, window)
        assert table.horizontalScrollBar().maximum() == 0, [table.columnWidth(c) for c in range(len(COLUMNS))]
        assert not cut_cells(table)
