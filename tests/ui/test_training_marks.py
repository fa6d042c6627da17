"""The Training merges table: a Thai token that starts with a combining mark (ี, ่) is shown on a
dotted circle, as the Bytes pane and the token details show a mark alone (render.standalone_text):
alone in its cell the mark is drawn onto the cell's left edge, and cut there."""

from __future__ import annotations

import unicodedata

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from explorer.core.algorithms.train import Merge
from explorer.ui.training.model import LEFT, NEW, RIGHT, MergesModel

SARA_II = "ี".encode()  # U+0E35 THAI CHARACTER SARA II, a combining vowel (Mn)
MAI_EK = "่".encode()  # U+0E48 THAI CHARACTER MAI EK, a tone mark (Mn)


def test_a_token_that_starts_with_a_mark_gets_its_dotted_circle(qapp: QApplication) -> None:
    model = MergesModel()
    model.append([Merge(0, SARA_II[0], SARA_II[1], 256, SARA_II[:2], 9, 100),
                  Merge(1, 256, SARA_II[2], 257, SARA_II, 8, 90),
                  Merge(2, MAI_EK[0], MAI_EK[1], 258, MAI_EK[:2], 7, 80),
                  Merge(3, 258, MAI_EK[2], 259, MAI_EK, 7, 70),
                  Merge(4, 257, 259, 260, SARA_II + MAI_EK, 6, 60),
                  Merge(5, ord("a"), 257, 261, b"a" + SARA_II, 5, 50)])
    shown = {(row, column): model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole)
             for row in range(model.rowCount()) for column in (LEFT, RIGHT, NEW)}
    assert shown[(1, NEW)] == "◌ี" and shown[(4, NEW)] == "◌ี่"
    assert shown[(4, LEFT)] == "◌ี" and shown[(4, RIGHT)] == "◌่"
    assert shown[(5, NEW)] == "aี"  # (a mark after a letter sits on it)
    for (row, column), text in shown.items():
        assert text and not unicodedata.category(text[0]).startswith("M"), f"row {row}, column {column}: {text!r}"
