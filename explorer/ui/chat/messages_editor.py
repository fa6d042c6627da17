"""The messages of a conversation as editable rows: a role, a text, a button to remove it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QPlainTextEdit, QPushButton, QScrollArea, QToolButton,
                               QVBoxLayout, QWidget)

from explorer.core.chat import ROLES, Message
from explorer.ui.pane import align_to_text, text_height
from explorer.ui.qt_text import qt_text

EDITOR_LINES = 4  # a message's editor shows at least this many lines at any zoom (a fixed 72 px was 2 at presentation size)
MAX_LINES = 12  # ... and grows with its text up to this many, then scrolls
MEASURED = 4_000  # characters of a message measured for its height (more fill MAX_LINES anyway)


class MessageRow(QWidget):
    changed = Signal()
    removed = Signal(object)  # the row

    def __init__(self, message: Message, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = QComboBox()
        self.role.addItems(list(ROLES))
        self.role.setCurrentText(message.role)
        self.role.setAccessibleName("Role")
        self.content = QPlainTextEdit(qt_text(message.content))
        self.content.setAccessibleName("Message text")
        self.content.installEventFilter(self)  # its font and width change with the zoom: so does its height
        self._fit_height()
        self.name = message.name
        remove = QToolButton()
        remove.setText("✕")
        remove.setToolTip("Remove this message")
        remove.setAccessibleName("Remove this message")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.role)
        layout.addWidget(self.content, 1)
        layout.addWidget(remove)
        self.role.currentTextChanged.connect(self.changed)
        self.content.textChanged.connect(self.changed)
        self.content.textChanged.connect(lambda: self._fit_height())
        self.content.textChanged.connect(lambda: align_to_text(self.content, self.content.toPlainText()))
        align_to_text(self.content, message.content)
        remove.clicked.connect(lambda: self.removed.emit(self))

    def _fit_height(self, width: int | None = None) -> None:
        """As tall as the text at the editor's width, between EDITOR_LINES and MAX_LINES lines of its
        font, with its frame and margins, the text measured by pane.text_height (a line from a
        fallback font, Noto CJK, is taller than the UI font's: hence also the 1.1 of the least
        height). `width`: the editor's new width (in its resize event the
        viewport still has its old one); the text is measured at the width less the frame, as a
        scroll bar shows only past MAX_LINES."""
        editor = self.content
        line = QFontMetrics(editor.font()).lineSpacing() * 1.1
        margin = editor.document().documentMargin()
        least, most = EDITOR_LINES * line + 2 * margin, MAX_LINES * line + 2 * margin
        inner = (editor.width() if width is None else width) - 2 * editor.frameWidth()
        text = text_height(editor, most, inner, MEASURED) + 2 * margin + 2
        height = int(min(max(text, least), most) + 2 * editor.frameWidth() + 0.5)
        if height != editor.height() or editor.minimumHeight() != height:
            editor.setFixedHeight(height)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.content and event.type() == QEvent.Type.FontChange:
            self._fit_height()
        elif watched is self.content and event.type() == QEvent.Type.Resize:
            self._fit_height(event.size().width())  # type: ignore[attr-defined]  (a QResizeEvent)
        return super().eventFilter(watched, event)

    def message(self) -> Message:
        return Message(self.role.currentText(), self.content.toPlainText(), self.name)


class MessagesEditor(QWidget):
    """Rows of messages in a scroll area, and "+ Message" below them."""

    messages_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[MessageRow] = []
        inner = QWidget()
        self._rows_layout = QVBoxLayout(inner)
        self._rows_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        scroll.setAccessibleName("Messages")
        add = QPushButton("+ Message")
        add.clicked.connect(self._on_add_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll, 1)
        layout.addWidget(add)

    def messages(self) -> list[Message]:
        return [row.message() for row in self.rows]

    def set_messages(self, messages: list[Message]) -> None:
        for row in self.rows:
            self._drop(row)
        self.rows = []
        for message in messages:
            self._add(message)
        self.messages_changed.emit()

    def _add(self, message: Message) -> None:
        row = MessageRow(message)
        row.changed.connect(self.messages_changed)
        row.removed.connect(self._on_row_removed)
        self._rows_layout.insertWidget(len(self.rows), row)
        self.rows.append(row)

    def _on_add_clicked(self) -> None:
        last = self.rows[-1].role.currentText() if self.rows else "assistant"
        self._add(Message("assistant" if last == "user" else "user", ""))
        self.rows[-1].content.setFocus()
        self.messages_changed.emit()

    def _on_row_removed(self, row: MessageRow) -> None:
        self.rows.remove(row)
        self._drop(row)
        self.messages_changed.emit()

    def _drop(self, row: MessageRow) -> None:
        """Out of the layout and hidden now (deleteLater alone leaves it drawn until the event loop runs)."""
        self._rows_layout.removeWidget(row)
        row.hide()
        row.deleteLater()
