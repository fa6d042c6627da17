"""The rendered prompt as HTML: one row per message span, a label, then its tokens.

Each token has its id's colour; a control token is drawn inverted and bold, so a control token
and the same string typed as text never look alike. Clicking a token says what it is."""

from __future__ import annotations

import html

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QTextBrowser, QWidget

from explorer.core.chat import ChatResult
from explorer.core.render import token_text
from explorer.ui.theme import token_color


def prompt_html(result: ChatResult, dark: bool, text_color: QColor, base_color: QColor) -> str:
    """Rows of (label, tokens): a new row wherever the message changes."""
    prompt, tokens = result.prompt, result.encoding.tokens
    rows: list[tuple[str, list[str]]] = []
    current: object = object()
    for index, token in enumerate(tokens):
        segment = prompt.segments[token.segment]
        if segment.message != current:
            current = segment.message
            label = f"#{segment.message} {prompt.role(segment)}" if segment.message is not None else "template"
            rows.append((label, []))
        shown = html.escape(token_text(token.bytes)).replace("\n", "<br>")
        if token.control:
            style = f"background:{text_color.name()}; color:{base_color.name()}; font-weight:bold"
        else:
            style = f"background:{token_color(token.id, dark).name()}"
        rows[-1][1].append(f'<a href="token:{index}" style="text-decoration:none; color:inherit">'
                           f'<span style="{style}">{shown}</span></a>')
    cells = "".join(f'<tr><td style="color:gray; padding-right:8px" valign="top"><i>{html.escape(label)}</i></td>'
                    f'<td>{"&#8203;".join(parts)}</td></tr>' for label, parts in rows)
    return f'<table cellspacing="2">{cells}</table>'


class ChatView(QTextBrowser):
    """Read-only, links are tokens: `token_clicked(index)`."""

    token_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.result: ChatResult | None = None

    def show_result(self, result: ChatResult | None, dark: bool) -> None:
        self.result = result
        if result is None:
            self.clear()
            return
        palette = self.palette()
        self.setHtml(prompt_html(result, dark, palette.color(QPalette.ColorRole.Text),
                                 palette.color(QPalette.ColorRole.Base)))

    def _on_anchor_clicked(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("token:"):
            self.token_clicked.emit(int(text[len("token:"):]))
