"""The main window's menu bar: every window-wide command is one QAction, in a menu and on its keys.

The toolbar shows some of the same actions; nothing else in the app binds these keys, so each
shortcut belongs to exactly one action (Qt ignores a key bound twice, with an "ambiguous
shortcut" warning, and neither command runs).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QApplication, QMenu, QMessageBox, QWidget

from explorer import __version__

if TYPE_CHECKING:
    from explorer.ui.main_window import MainWindow

Keys = QKeySequence.StandardKey | str


def _keys(*keys: Keys) -> list[QKeySequence]:
    """Key sequences without repeats (a standard key often lists the same sequence twice)."""
    sequences: list[QKeySequence] = []
    for key in keys:
        found = QKeySequence.keyBindings(key) if isinstance(key, QKeySequence.StandardKey) else [QKeySequence(key)]
        sequences.extend(s for s in found if not s.isEmpty() and s not in sequences)
    return sequences


class MenuBar:
    """Builds the File / Edit / View / Help menus of `window` and keeps their actions."""

    def __init__(self, window: MainWindow, pane_titles: Sequence[tuple[str, str]]) -> None:
        self.window = window
        bar = window.menuBar()
        file_menu = bar.addMenu("&File")
        self.open_tokenizer = self._add(file_menu, "&Open tokenizer file...", window.open_tokenizer_file,
                                        QKeySequence.StandardKey.Open)
        self.open_corpus = self._add(file_menu, "Open &corpus files...", window.open_corpus_files, "Ctrl+Shift+O")
        file_menu.addSeparator()
        self.save_tokenizer = self._add(file_menu, "&Save trained tokenizer...", window.save_trained,
                                        QKeySequence.StandardKey.Save)
        self.export_hf = self._add(file_menu, "&Export Hugging Face tokenizer.json...", window.export_trained_hf)
        self.export_vocabulary = self._add(file_menu, "Export &vocabulary as CSV...", window.export_vocabulary)
        file_menu.addSeparator()
        self.quit = self._add(file_menu, "&Quit", window.close, "Ctrl+Q")
        file_menu.aboutToShow.connect(self._on_file_menu_about_to_show)

        edit_menu = bar.addMenu("&Edit")
        self.copy = self._add(edit_menu, "&Copy", lambda: _edit_focused("copy"), QKeySequence.StandardKey.Copy)
        self.paste = self._add(edit_menu, "&Paste", lambda: _edit_focused("paste"), QKeySequence.StandardKey.Paste)
        self.select_all = self._add(edit_menu, "Select &all", lambda: _edit_focused("selectAll"),
                                    QKeySequence.StandardKey.SelectAll)
        edit_menu.addSeparator()
        self.find = self._add(edit_menu, "&Find in the vocabulary...", window.find, QKeySequence.StandardKey.Find)

        view_menu = bar.addMenu("&View")
        self.pane_group = QActionGroup(window)
        self.panes: list[QAction] = []
        for index, (name, title) in enumerate(pane_titles):
            action = self._add(view_menu, f"&{title}", lambda _=False, n=name: window.show_pane(n), f"Alt+{index + 1}")
            action.setCheckable(True)
            self.pane_group.addAction(action)
            self.panes.append(action)
        view_menu.addSeparator()
        self.zoom_in = self._add(view_menu, "Zoom &in", lambda: window.zoom(+1),
                                 QKeySequence.StandardKey.ZoomIn, "Ctrl+=")
        self.zoom_out = self._add(view_menu, "Zoom &out", lambda: window.zoom(-1), QKeySequence.StandardKey.ZoomOut)
        self.zoom_reset = self._add(view_menu, "&Reset zoom", window.reset_zoom, "Ctrl+0")
        view_menu.addSeparator()
        self.presentation = self._add(view_menu, "&Presentation mode", window.toggle_presentation, "F5")
        self.presentation.setCheckable(True)
        self.presentation.setToolTip("Large fonts and full screen for talks (F5)")
        self.dark_theme = self._add(view_menu, "&Dark theme", window.toggle_theme, "Ctrl+Shift+D")
        self.dark_theme.setCheckable(True)
        self.colour_blind = self._add(view_menu, "&Colour-blind palette", window.toggle_colour_blind)
        self.colour_blind.setCheckable(True)
        self.colour_blind.setToolTip("Token colours derived from the Okabe-Ito palette, told apart with any colour vision")

        help_menu = bar.addMenu("&Help")
        self.shortcuts = self._add(help_menu, "&Keyboard shortcuts", self.show_shortcuts, QKeySequence.StandardKey.HelpContents)
        self.tour = self._add(help_menu, "&Tour", window.show_tour)
        help_menu.addSeparator()
        self.about = self._add(help_menu, "&About Tokenizer Explorer", window.show_about)
        self.about.setIconText("About")  # on the toolbar
        self.menus = {"file": file_menu, "edit": edit_menu, "view": view_menu, "help": help_menu}

    def _add(self, menu: QMenu, text: str, slot: Callable[..., object], *keys: Keys) -> QAction:
        action = QAction(text, self.window)
        action.setShortcuts(_keys(*keys))
        action.triggered.connect(slot)  # type: ignore[arg-type]
        menu.addAction(action)
        self.window.addAction(action)  # its keys work with the menu bar hidden (presentation mode)
        return action

    def _on_file_menu_about_to_show(self) -> None:
        trained = bool(self.window.session.trained)
        self.save_tokenizer.setEnabled(trained)
        self.export_hf.setEnabled(trained)

    def show_pane_checked(self, index: int) -> None:
        if 0 <= index < len(self.panes):
            self.panes[index].setChecked(True)

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(command, keys) for every menu action with keys, in menu order."""
        rows = []
        for menu in self.menus.values():
            for action in menu.actions():
                keys = ", ".join(text for text in (s.toString(QKeySequence.SequenceFormat.NativeText)
                                                   for s in action.shortcuts()) if _worth_listing(text))
                if keys:
                    rows.append((action.text().replace("&", "").rstrip("."), keys))
        return rows

    def show_shortcuts(self) -> None:
        rows = "".join(f"<tr><td>{command}</td><td>&nbsp;&nbsp;<b>{keys}</b></td></tr>"
                       for command, keys in self.shortcut_rows() + PANE_KEYS)
        box = QMessageBox(QMessageBox.Icon.NoIcon, "Keyboard shortcuts", f"<table>{rows}</table>",
                          QMessageBox.StandardButton.Close, self.window)
        box.setObjectName("shortcutsBox")
        box.exec()


# Keys the panes handle themselves, for the shortcuts list (they act in the pane shown).
PANE_KEYS = [
    ("Tokens: show ids / text", "Ctrl+I"),
    ("Tokens: compare with another tokenizer", "Ctrl+K"),
    ("Training: train", "Ctrl+Return"),
    ("Training, Bytes, Merges trace: play / pause, one step, reset", "F8, F9, F6"),
    ("Merges: back / forward", "Alt+Left, Alt+Right"),
]


def _worth_listing(keys: str) -> bool:
    """A key a person types (Ctrl+C), not a dedicated Copy key or F16 that a standard binding adds."""
    return "Ins" not in keys and ("+" in keys or bool(re.fullmatch(r"F([1-9]|1[0-2])", keys)))


def _edit_focused(method: str) -> None:
    """Copy, paste or select all in the focused widget. Text fields do this themselves before the
    menu's key is seen; a table or list copies the text of its selected cells."""
    widget: QWidget | None = QApplication.focusWidget()
    if widget is None:
        return
    if hasattr(widget, method):
        getattr(widget, method)()
    elif method == "copy" and isinstance(widget, QAbstractItemView) and widget.selectionModel() is not None:
        indexes = sorted(widget.selectionModel().selectedIndexes(), key=lambda i: (i.row(), i.column()))
        rows: dict[int, list[str]] = {}
        for index in indexes:
            rows.setdefault(index.row(), []).append(str(index.data() or ""))
        if rows:
            QGuiApplication.clipboard().setText("\n".join("\t".join(cells) for cells in rows.values()))


def about_text() -> str:
    """Version, what the app runs on, and the licences of what it bundles."""
    import PySide6
    import tokenizers
    from PySide6.QtCore import qVersion

    return (f"<h3>Tokenizer Explorer {__version__}</h3>"
            "<p>See byte-level BPE tokenization: train, encode, browse merges, chunks and bytes.<br>"
            "Licence: MIT.</p>"
            f"<p>Qt {qVersion()} · PySide6 {PySide6.__version__}<br>"
            f"tokenizers {tokenizers.__version__} · tiktoken {_dist_version('tiktoken')}</p>"
            "<p><b>Bundled encodings</b><br>"
            "r50k_base, cl100k_base, o200k_base (and o200k_harmony): OpenAI's tiktoken rank files, MIT licence, "
            "Copyright (c) 2022 OpenAI. qwen (dashscope) and tekken, mistral_v1/v3/v7 (mistral-common): "
            "Apache-2.0. Sources, hashes and licence texts: resources/encodings/SOURCES.md and licenses/.<br>"
            "Sample texts: written for this project, MIT licence.</p>"
            + _encoding_notices())


def _encoding_notices() -> str:
    """The attributions the encodings' licences ask for ("Built with Llama"), for those in use here."""
    from explorer.core.formats.tiktoken_file import BUNDLED

    notices = dict.fromkeys(encoding.notice for encoding in BUNDLED.values() if encoding.notice and encoding.available)
    return "".join(f"<p>{notice}</p>" for notice in notices)


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"
