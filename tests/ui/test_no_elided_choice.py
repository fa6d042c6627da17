"""No chooser hides its choice (issue 12): in every pane, at a laptop's and a projector's size,
normal and presentation mode, every visible combo box shows its current entry whole, and no field
or label holding an id or hex bytes is cut. At 1280x800 in presentation mode the Chunks columns
showed "GPT-4o / o200k_b…", the Training settings "built-in (streams ev…" and "Quick start: t…".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QLineEdit, QWidget

from explorer.ui.eliding_style import combo_shown_text
from explorer.ui.main_window import MainWindow
from tests.ui.test_layout import PRESENTATION_PANES
from tests.ui.windows import configuration_id, session_window, settle

CONFIGURATIONS = [(width, height, "light", presenting) for width, height in ((1280, 800), (1920, 1080))
                  for presenting in (False, True)]
# an id ("id 100781", "#123456", a bare number) or hex bytes ("<E8 9F>", "E8 9F 8C")
ID_OR_HEX = re.compile(r"^\s*(?:(?:id|#)\s*)?\d[\d,]*\s*$|<?\b[0-9A-F]{2}(?: [0-9A-F]{2})+\b>?")


@pytest.fixture(params=CONFIGURATIONS, ids=configuration_id)
def window(qapp: QApplication, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    with session_window(qapp, tmp_path / "choice.ini", request.param, "tokens") as window:
        yield window


def elided(root: QWidget) -> list[str]:
    """What each visible chooser, id field or hex label under `root` cuts of its text."""
    found = []
    for combo in root.findChildren(QComboBox):
        if combo.isVisible() and not combo.isEditable() and combo_shown_text(combo) != combo.currentText():
            found.append(f"{combo.currentText()!r} shown as {combo_shown_text(combo)!r} ({combo.width()} px)")
    for widget in [*root.findChildren(QLineEdit), *root.findChildren(QLabel)]:
        if not widget.isVisible() or isinstance(widget, QLabel) and widget.wordWrap():
            continue
        text = widget.text()
        if not ID_OR_HEX.search(text) or "<" in text and isinstance(widget, QLabel) and "</" in text:
            continue  # (not an id, or rich text: laid out by Qt, wrapped or not)
        room = widget.contentsRect().width() - (4 if isinstance(widget, QLineEdit) else 0)
        if widget.fontMetrics().horizontalAdvance(text) > room:
            found.append(f"{type(widget).__name__} {text!r} cut at {room} px")
    return found


def panes_shown(app: QApplication, window: MainWindow) -> Iterator[str]:
    """Each pane in turn, and each tab of a pane with tabs (the Corpus pane's Efficiency, with the
    samples in the corpus: its reference chooser names one)."""
    for name in PRESENTATION_PANES:
        window.show_pane(name)
        if name == "corpus":
            window.panes[name].prepare_screenshot(None)  # type: ignore[attr-defined]
        settle(app, window)
        yield name
        tabs = getattr(window.panes[name], "tabs", None)
        for index in range(1, tabs.count() if tabs is not None else 0):
            tabs.setCurrentIndex(index)
            settle(app, window)
            yield f"{name}, tab {tabs.tabText(index)!r}"


def test_every_chooser_shows_its_choice_whole(qapp: QApplication, window: MainWindow) -> None:
    size = QSize(window.size())
    cut: list[str] = []
    for shown in panes_shown(qapp, window):
        cut += [f"{shown}: {what}" for what in elided(window)]
        assert window.size() == size, f"{shown} changed the window's size"
    assert not cut, "\n".join(cut)

