"""Lines of the Tokens pane that never cost a second line: a lane's summary and the notice banner.

Three compared lanes and the special-token notice did not fit at 1280x800: the notice took two
lines, and each compared lane's summary wrapped beside its "Compare with:" choice, a line of
tokens each. A summary here shows the figures that fit its width, most telling first (the
token count, then a compared lane's change), the rest in its tooltip; the notice shows its
first line, elided, with a "more" link that opens it whole (the pane shares the room again).
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QResizeEvent, QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from explorer.ui.pane import WrappingLabel
from explorer.ui.timers import call_later

SEPARATOR = " · "
MORE = "…"  # ends a summary that left figures out (they are in its tooltip)
INK, PAPER = "#5c4400", "#fff3cd"  # the notice's colours, in both themes (its link too)


def plain(text: str) -> str:
    """Rich text as it reads (a tooltip, an accessible description)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


class PartsLabel(WrappingLabel):
    """A summary of figures on one line: as many as fit its width, chosen by rank (0 is kept
    longest), shown in their own order; the whole summary in the tooltip when some are left out.
    Other texts (a message while tokenizing) are set with setText and wrap as ever."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self._parts: tuple[str, tuple[tuple[str, int], ...]] | None = None
        self._fitted: tuple[int, object] | None = None

    def set_parts(self, prefix: str, parts: list[tuple[str, int]]) -> None:
        """Show `prefix` and then `parts` (rich text, rank) joined by SEPARATOR, those that fit."""
        self._parts = (prefix, tuple(parts))
        self._fitted = None
        self._fit()

    def setText(self, text: str) -> None:  # noqa: N802 (Qt override: a text of its own ends the parts)
        self._parts = None
        self.setToolTip("")
        super().setText(text)

    def _fit(self) -> None:
        if self._parts is None or self._fitted == (self.width(), self._parts):
            return
        self._fitted = (self.width(), self._parts)
        prefix, parts = self._parts
        kept: set[int] = set()
        for index in sorted(range(len(parts)), key=lambda i: parts[i][1]):
            if not kept or self._fits(self._joined(prefix, parts, kept | {index})):
                kept.add(index)
        text = self._joined(prefix, parts, kept)
        whole = self._joined(prefix, parts, set(range(len(parts))))
        super().setText(text)
        self.setToolTip(plain(whole) if len(kept) < len(parts) else "")
        self.setAccessibleDescription(plain(whole))  # (a screen reader hears every figure)

    @staticmethod
    def _joined(prefix: str, parts: tuple[tuple[str, int], ...], kept: set[int]) -> str:
        shown = [text for index, (text, _) in enumerate(parts) if index in kept]
        return prefix + SEPARATOR.join(shown) + (f" {MORE}" if len(kept) < len(parts) else "")

    def _fits(self, text: str) -> bool:
        document = QTextDocument()
        document.setDefaultFont(self.font())
        document.setDocumentMargin(0)
        document.setHtml(text)
        return document.idealWidth() + 2 * self.margin() + 4 <= self.width()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        self._fit()  # (before the height for the new width is asked)
        super().resizeEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode: fewer figures fit
            self._fitted = None
            call_later(self, self._fit)


class Banner(QLabel):
    """A notice on one line, elided, with a "more" link that opens it whole ("less" closes it);
    the whole text in its tooltip and accessible description. `toggled` says its height changed."""

    toggled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._message = ""
        self.open = False
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setObjectName("tokensBanner")
        self.setStyleSheet(f"QLabel#tokensBanner {{ background: {PAPER}; color: {INK}; padding: 4px 8px;"
                           " border-radius: 4px; }")
        policy = self.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)  # (a long notice never widens the window)
        self.setSizePolicy(policy)
        self.linkActivated.connect(self._on_link)

    def message(self) -> str:
        return self._message

    def set_message(self, message: str) -> None:
        self._message = message
        self.setToolTip(message)
        self.setAccessibleDescription(message)
        self._show()

    def _on_link(self, _link: str) -> None:
        self.open = not self.open
        self._show()
        self.toggled.emit()

    def _show(self) -> None:
        message = self._message
        self.setWordWrap(self.open)
        if self.open:
            super().setText(html.escape(message, quote=False).replace("\n", "<br>") + " &nbsp;" + self._link("less"))
            return
        line = " · ".join(message.splitlines())
        link = " " + self._link("more")
        room = self.contentsRect().width() - 2 * self.margin() - 16
        elided = self.fontMetrics().elidedText(line, Qt.TextElideMode.ElideRight, max(0, room))
        if elided == line:
            super().setText(html.escape(line, quote=False))
        else:
            room -= self.fontMetrics().horizontalAdvance("more") + self.fontMetrics().horizontalAdvance(" ")
            elided = self.fontMetrics().elidedText(line, Qt.TextElideMode.ElideRight, max(0, room))
            super().setText(html.escape(elided, quote=False) + link)

    def _link(self, word: str) -> str:
        """The link in the notice's own text colour (the palette's link blue was faint on its
        yellow in the dark theme)."""
        return f"<a href='{word}' style='color:{INK}'>{word}</a>"

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if not self.open and event.size().width() != event.oldSize().width():
            self._show()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode: elided anew, once the new
            call_later(self, self._show)  # font is everywhere (a window gets it before its children)
