"""The Tokens pane's Export button: the prompt's tokens as ids, HTML, PNG or CSV, copied or saved."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMenu, QToolButton, QWidget

from explorer.ui.session import Session
from explorer.ui.tokens import export


class ExportButton(QToolButton):
    """A menu of exports of `state()` (the main lane's tokens, or None when there are none yet)."""

    def __init__(self, session: Session, state: Callable[[], Any], show_ids: Callable[[], bool],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.state, self.show_ids = session, state, show_ids
        self.setText("Export")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self)
        self.actions_by_key: dict[str, QAction] = {}
        for key, label, slot in [("ids", "Copy ids as JSON", self.copy_ids),
                                 ("html", "Copy as HTML", self.copy_html),
                                 ("save_html", "Save as HTML...", self.save_html),
                                 ("png", "Copy as PNG", self.copy_png),
                                 ("save_png", "Save as PNG...", self.save_png),
                                 ("csv", "Save tokens as CSV...", self.save_csv)]:
            self.actions_by_key[key] = menu.addAction(label, slot)
        self.setMenu(menu)

    def copy_ids(self) -> None:
        if (state := self.state()) is not None:
            QGuiApplication.clipboard().setText(export.ids_json(state))
            self.session.status_posted.emit(f"Copied {len(state):,} ids as JSON")

    def copy_html(self) -> None:
        if (state := self.state()) is not None:
            data = QMimeData()
            markup = export.tokens_html(state, self.session.dark, self.show_ids())
            data.setHtml(markup)
            data.setText(markup)
            QGuiApplication.clipboard().setMimeData(data)
            self.session.status_posted.emit("Copied the coloured tokens as HTML")

    def save_html(self, path: str | None = None) -> None:
        if (state := self.state()) is None:
            return
        path = path or QFileDialog.getSaveFileName(self, "Save tokens as HTML", "tokens.html", "HTML (*.html)")[0]
        if path:
            self._write(path, "<!doctype html><meta charset='utf-8'>"
                        + export.tokens_html(state, self.session.dark, self.show_ids()))

    def copy_png(self) -> None:
        if (state := self.state()) is not None:
            QGuiApplication.clipboard().setImage(export.tokens_image(state, self.session.dark, self.session.font,
                                                                     show_ids=self.show_ids()))
            self.session.status_posted.emit("Copied the coloured tokens as an image")

    def save_png(self, path: str | None = None) -> None:
        if (state := self.state()) is None:
            return
        path = path or QFileDialog.getSaveFileName(self, "Save tokens as PNG", "tokens.png", "PNG image (*.png)")[0]
        if path:
            image = export.tokens_image(state, self.session.dark, self.session.font, show_ids=self.show_ids())
            if not image.save(path, "PNG"):
                self.session.post_error("Could not save the image", f"{path}: could not be written")

    def save_csv(self, path: str | None = None) -> None:
        if (state := self.state()) is None:
            return
        path = path or QFileDialog.getSaveFileName(self, "Save tokens as CSV", "tokens.csv", "CSV (*.csv)")[0]
        if path:
            self._write(path, export.tokens_csv(state))

    def _write(self, path: str, text: str) -> None:
        try:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        except OSError as exc:
            self.session.post_error("Could not save", f"{path}: {exc.strerror}")
            return
        self.session.status_posted.emit(f"Saved {path}")
