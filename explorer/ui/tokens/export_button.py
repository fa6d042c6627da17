"""The Tokens pane's Export button: the prompt's tokens as ids, HTML, PNG or CSV, copied or saved."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QFont, QGuiApplication, QImage
from PySide6.QtWidgets import QFileDialog, QMenu, QToolButton, QWidget

from explorer.core.errors import ExplorerError
from explorer.core.plural import plural
from explorer.ui.qt_text import qt_text
from explorer.ui.session import Session
from explorer.ui.tokens import export
from explorer.ui.workers import Job


class ExportButton(QToolButton):
    """A menu of exports of `state()` (the main lane's tokens, or None when there are none yet)."""

    def __init__(self, session: Session, state: Callable[[], Any], show_ids: Callable[[], bool],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.state, self.show_ids = session, state, show_ids
        self.setText("Export")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self)
        for label, slot in [("Copy ids as JSON", self.copy_ids), ("Copy as HTML", self.copy_html),
                            ("Save as HTML...", self.save_html), ("Copy as PNG", self.copy_png),
                            ("Save as PNG...", self.save_png), ("Save tokens as CSV...", self.save_csv)]:
            menu.addAction(label, slot)
        self.setMenu(menu)

    # Each export is built on a worker (a 1 MB prompt has 356,000 tokens: a second of CSV), from a
    # snapshot of the tokens taken now; the clipboard is set on the GUI thread when it is ready.

    def copy_ids(self) -> Job | None:
        return self._export("copying the ids", export.ids_json,
                            lambda text, state: self._copy_text(text, f"Copied {plural(len(state), 'id')} as JSON"))

    def copy_html(self) -> Job | None:
        dark, show_ids, palette = self.session.dark, self.show_ids(), self.session.palette
        return self._export("copying the tokens as HTML", lambda state: export.tokens_html(state, dark, show_ids, None, palette),
                            lambda markup, _: self._copy_html(markup))

    def save_html(self, path: str | None = None) -> Job | None:
        path = path or QFileDialog.getSaveFileName(self, "Save tokens as HTML", "tokens.html", "HTML (*.html)")[0]
        dark, show_ids, palette = self.session.dark, self.show_ids(), self.session.palette
        return self._save(path, lambda state: "<!doctype html><meta charset='utf-8'>"
                          + export.tokens_html(state, dark, show_ids, None, palette))

    def copy_png(self) -> Job | None:
        dark, font, show_ids, palette = self.session.dark, QFont(self.session.font), self.show_ids(), self.session.palette
        return self._export("drawing the tokens", lambda state: export.tokens_image(state, dark, font, show_ids=show_ids, palette=palette),
                            lambda image, _: self._copy_image(image))

    def save_png(self, path: str | None = None) -> Job | None:
        path = path or QFileDialog.getSaveFileName(self, "Save tokens as PNG", "tokens.png", "PNG image (*.png)")[0]
        dark, font, show_ids, palette = self.session.dark, QFont(self.session.font), self.show_ids(), self.session.palette
        return self._save(path, lambda state: export.tokens_image(state, dark, font, show_ids=show_ids, palette=palette))

    def save_csv(self, path: str | None = None) -> Job | None:
        path = path or QFileDialog.getSaveFileName(self, "Save tokens as CSV", "tokens.csv", "CSV (*.csv)")[0]
        return self._save(path, export.tokens_csv)

    def _export(self, name: str, build: Callable[[Any], Any], done: Callable[[Any, Any], None]) -> Job | None:
        if (state := self.state()) is None:
            return None
        snapshot = state.snapshot()
        job = self.session.workers.start_call(name, lambda: build(snapshot))
        job.on("finished", self._exported, done, snapshot)  # (not called once this button is gone)
        job.failed.connect(lambda message: self.session.post_error("Could not export the tokens", message))
        return job

    def _exported(self, _job: Job, done: Callable[[Any, Any], None], snapshot: Any, result: Any) -> None:
        done(result, snapshot)

    def _save(self, path: str, build: Callable[[Any], Any]) -> Job | None:
        """Build the export and write it to `path` on the worker; text is UTF-8, a QImage PNG."""
        if not path:
            return None

        def built_and_written(state: Any) -> None:
            content = build(state)
            if isinstance(content, QImage):
                if not content.save(path, "PNG"):
                    raise ExplorerError(f"{path}: could not be written")
                return
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(content)

        return self._export(f"saving {path}", built_and_written,
                            lambda _, __: self.session.status_posted.emit(f"Saved {path}"))

    def _copy_text(self, text: str, message: str) -> None:
        QGuiApplication.clipboard().setText(qt_text(text))
        self.session.status_posted.emit(message)

    def _copy_html(self, markup: str) -> None:  # the mime data is Python-made: see release_clipboard
        data = QMimeData()
        data.setHtml(markup)
        data.setText(markup)
        QGuiApplication.clipboard().setMimeData(data)
        self.session.status_posted.emit("Copied the coloured tokens as HTML")

    def _copy_image(self, image: QImage) -> None:
        QGuiApplication.clipboard().setImage(image)
        self.session.status_posted.emit("Copied the coloured tokens as an image")


def release_clipboard() -> None:
    """Hand the clipboard's contents back to Qt before Python shuts down.

    "Copy as HTML" gives the clipboard a QMimeData made in Python. Left there, Qt deletes it in
    its own exit handlers, after Python has finalized, and the binding's clean-up of the Python
    side crashes the process (a segfault at exit, seen in CI). Setting the same text again makes
    the clipboard delete it now, while Python runs; only the HTML flavour is lost.
    """
    clipboard = QGuiApplication.clipboard()
    data = clipboard.mimeData()
    if data is not None and data.hasHtml():
        clipboard.setText(data.text())
