"""A FlowLayout row asks only for its widest widget and wraps the rest onto more lines."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from explorer.ui.flow import FlowLayout


def build(qtbot: QtBot) -> tuple[QWidget, FlowLayout, list[QPushButton], QLineEdit]:
    host = QWidget()
    qtbot.addWidget(host)
    column = QVBoxLayout(host)
    row = FlowLayout()
    row.setSpacing(4)
    buttons = [QPushButton(f"A button labelled {n}") for n in range(6)]
    for button in buttons:
        row.addWidget(button)
    field = QLineEdit()
    field.setMinimumWidth(120)
    row.add_together(field, expanding=True)
    column.addLayout(row)
    column.addStretch(1)
    return host, row, buttons, field


def test_a_row_asks_for_its_widest_widget_and_wraps(qtbot: QtBot) -> None:
    host, row, buttons, _ = build(qtbot)
    one_line = row.sizeHint().width()
    widest = max(button.sizeHint().width() for button in buttons)
    assert row.minimumSize().width() <= max(widest, 120) + 1 < one_line
    assert row.heightForWidth(widest) > row.heightForWidth(one_line), "narrower: more lines, taller"
    host.resize(widest + 40, 400)
    host.show()
    qtbot.waitExposed(host)
    tops = {button.geometry().top() for button in buttons}
    assert len(tops) > 1, "the buttons went onto several lines"
    assert all(host.rect().contains(button.geometry()) for button in buttons), "none is cut at the right"
    qtbot.wait(50)  # (the new minimum height reaches the host's layout through a posted layout request)
    wrapped = row.heightForWidth(row.geometry().width())
    assert host.minimumSizeHint().height() >= wrapped, "a splitter (no height-for-width) still keeps every line"


def test_a_wide_row_stays_one_line_and_its_field_takes_the_rest(qtbot: QtBot) -> None:
    host, row, buttons, field = build(qtbot)
    host.resize(row.sizeHint().width() + 300, 200)
    host.show()
    qtbot.waitExposed(host)
    assert len({button.geometry().center().y() for button in buttons}) == 1
    group = field.parentWidget()
    assert group.geometry().right() >= host.contentsRect().right() - 20, "the expanding field fills the line"
    assert group.geometry().width() >= 120 + 250
