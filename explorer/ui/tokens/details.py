"""The details of one token: id, bytes, escaped text, merge rank, parents, span, split characters;
and the panel that shows them."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QEvent
from PySide6.QtGui import QPalette, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from explorer.core.algorithms.incremental import TokenizedText
from explorer.core.algorithms.merges import MergeForest
from explorer.core.plural import plural
from explorer.core.text.render import describe_char, escaped, hex_bytes, standalone_text


def token_details(state: TokenizedText, index: int, forest: MergeForest | None, forest_note: str = "",
                  columns: int = 1) -> str:
    """Rich text for the details panel: its rows in one column, or two side by side (a wide panel:
    half the height, so the token lanes above keep that room)."""
    token = state.token(index)
    tokenizer = state.tokenizer
    rows = [("Token", f"<b>{token.id}</b> of {html.escape(tokenizer.name)}" + (" (special, control token)" if token.special else "")),
            ("Text", f"<code>{html.escape(standalone_text(token.bytes))}</code>"),
            ("Escaped", f"<code>{html.escape(escaped(token.bytes))}</code>"),
            ("Bytes", f"<code>{hex_bytes(token.bytes)}</code> ({plural(len(token.bytes), 'byte')})"),
            ("Span", f"characters {token.start}-{token.end}, bytes {token.byte_start}-{token.byte_end}, "
                     f"token {index + 1} of {len(state):,}")]
    if forest is not None:
        rank = forest.rank(token.id)
        parents = forest.parents(token.id)
        rows.append(("Merge rank", f"{rank:,}" if rank is not None else _no_merge(state, token.id, token.bytes)))
        if parents is not None:
            rows.append(("Parents", _side_by_side([f"{p} <code>{html.escape(standalone_text(tokenizer.token_bytes(p)))}</code>"
                                                   for p in parents], " + ")))
    else:
        rows.append(("Merge rank", html.escape(forest_note or "not available for this tokenizer")))
    if token.cuts_start or token.cuts_end:
        rows.append(("Split character", html.escape(_split_note(state, index))))
    return _table(rows, columns) + "<p><small>Click the token to open it in the Merges pane.</small></p>"


def _table(rows: list[tuple[str, str]], columns: int) -> str:
    """The rows down the first column, then the second (so each column still reads top to bottom).
    Each value reads from the left, as its label: Qt gives a cell the direction of its first
    letter, and "Parents 9045 مر + 949 ح" stood at the right, its parts in the other order (a
    mark such as U+200E would do the same, but would be copied with the token's text)."""
    tall = -(-len(rows) // columns)
    parts = []
    for line in range(tall):
        cells = []
        for column in range(columns):
            if line + column * tall < len(rows):
                name, value = rows[line + column * tall]
                gap = " padding-left:24px" if column else ""
                cells.append(f"<td style='padding-right:10px;{gap}'><i>{name}</i></td><td><div dir='ltr'>{value}</div></td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>" + "".join(parts) + "</table>"


def _side_by_side(parts: list[str], between: str) -> str:
    """`parts` in a row of cells, `between` them: in one line, "9045 مر + 949 ح" was one run of
    right-to-left text (digits after Arabic letters join it) and read "9045 ح 949 + مر"."""
    cells = f"</div></td><td>{html.escape(between).replace(' ', '&nbsp;')}</td><td><div dir='ltr'>".join(parts)
    return f"<table cellspacing='0' cellpadding='0'><tr><td><div dir='ltr'>{cells}</div></td></tr></table>"


def _no_merge(state: TokenizedText, token_id: int, data: bytes) -> str:
    """Why a token has no merge: a special token, a byte, or (SentencePiece) a character merging starts from."""
    if token_id in state.tokenizer.special_tokens.values():
        return "none (special or added token)"
    if token_id < 256 or len(data) == 1:
        return "a byte (no merge)"
    if len(data.decode("utf-8", errors="replace")) == 1:
        return "a character (no merge)"
    return "none (special or added token)"


def _split_note(state: TokenizedText, index: int) -> str:
    token = state.token(index)
    notes = []
    if token.cuts_start and token.start < len(state.text):
        char = state.text[token.start]
        notes.append(f"starts inside {char} ({describe_char(char)}), begun by token {index}")
    if token.cuts_end and token.end - 1 < len(state.text):
        char = state.text[token.end - 1]
        notes.append(f"ends inside {char} ({describe_char(char)}), finished by token {index + 2}")
    return "; ".join(notes) + ": its bytes are shown in hex, the character is split across tokens."


HINT = "Hover over a token to see its id, bytes, merge rank and parents."


class DetailsView(QTextBrowser):
    """The token details: in two columns whenever they fit so side by side (half the height)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self._html: Callable[[int], str] | None = None
        self.columns = 0  # (nothing shown yet)
        self._show_hint()

    def _show_hint(self) -> None:
        """What the panel is for, in the placeholder's colour, until a token is shown: as text, not
        Qt's placeholder, which is drawn in one line (at 1280x800 in presentation mode it read
        'Hover over a token to see its id, bytes,' and stopped), and a screen reader reads it."""
        color = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        self.setHtml(f"<p style='color:{color}'>{HINT}</p>")

    def show_details(self, html_for: Callable[[int], str]) -> None:
        """Show the rich text `html_for(columns)` gives, in as many columns as fit."""
        self._html = html_for
        self.columns = 0
        self._render()

    def needed_width(self, columns: int) -> int:
        """Pixels the details need to stand in `columns` columns without wrapping (0: nothing shown)."""
        if self._html is None:
            return 0
        scratch = QTextDocument()
        scratch.setDefaultFont(self.font())
        scratch.setDocumentMargin(self.document().documentMargin())
        scratch.setHtml(self._html(columns))
        return int(scratch.idealWidth()) + 2 * self.frameWidth() + 2

    def _render(self) -> None:
        if self._html is None:
            return
        columns = 2 if self.width() >= self.needed_width(2) else 1
        if columns != self.columns:
            self.columns = columns
            self.setHtml(self._html(columns))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._render()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._html is None:
            self._show_hint()  # (its colour in the new theme)
        if event.type() == QEvent.Type.FontChange and self._html is not None:
            self.columns = 0  # (measured again at the new size)
            self._render()
