"""The two decoder lanes as running text: what a chat client would print, token after token.

The naive lane decodes every token alone (U+FFFD wherever a token ends inside a character);
the buffered lane uses an incremental decoder and shows the bytes it holds back as pending.
"Strict" shows seed 004's first decode instead, which raises on the first token that cuts a character.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from explorer.core.text.chars import visible
from explorer.core.text.graphemes import grapheme_bounds
from explorer.core.text.streaming import LaneState
from explorer.core.text.utf8 import REPLACEMENT
from explorer.ui.bytes.roles import pending_color, replacement_color, token_color_name
from explorer.ui.line_scroll import whole_line_scroll
from explorer.ui.pane import WrappingLabel

NAIVE_TITLE = "<b>Naive</b><br><small>each token decoded alone</small>"
STRICT_TITLE = "<b>Naive, strict</b><br><small>seed 004's first decode</small>"
MAX_PARTS = 300  # tokens shown in a lane; earlier ones fold into "…" (rich text grows slow beyond)
# Between two tokens' spans: a line may break there. The lanes show spaces as `·`, so a lane has
# no break of its own and would otherwise be one unbreakable word as wide as the whole text.
BREAK = "\u200b"
LANE_LINES = 2


class _LaneView(QScrollArea):
    """One lane, at most LANE_LINES lines high so both stay in sight, scrolled to its end: the
    newest tokens (a 400-character text makes a lane of many lines)."""

    def __init__(self, label: QLabel) -> None:
        super().__init__()
        self.label = label
        self.setWidget(label)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.verticalScrollBar().rangeChanged.connect(lambda *_: self._show_end())
        self._width = -1
        self._tail = 0  # blank room under the text (the label's bottom margin), see _show_end

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        lines = LANE_LINES * 1.35 * QFontMetrics(self.label.font()).lineSpacing()  # (Devanagari lines are taller)
        needed = self.label.heightForWidth(max(1, self.viewport().width())) - self._tail
        return QSize(100, int(min(max(needed, 1), lines)) + 2)

    def _show_end(self) -> None:
        """Scrolled to the newest tokens, the view starting at a line's top: at the very end it cut
        the line above in half (lines of mixed scripts differ in height), so the label gets up to a
        line of blank room below its text for the view to start where a line does."""
        bar, height = self.verticalScrollBar(), self.viewport().height()
        text_height = self.label.height() - self._tail
        tops = self._line_tops() if text_height > height else [0.0]
        start, tail = whole_line_scroll(tops, text_height, height, (tops[-1], text_height))
        if tail != self._tail:
            self._tail = tail
            self.label.setContentsMargins(0, 0, 0, tail)  # (the range changes: this runs again)
        bar.setValue(min(start, bar.maximum()))

    def _line_tops(self) -> list[float]:
        """Where each line of the label's text starts (laid out as QLabel does: no document margin)."""
        document = QTextDocument()
        document.setDocumentMargin(0)
        document.setDefaultFont(self.label.font())
        document.setHtml(self.label.text())
        document.setTextWidth(self.label.contentsRect().width())
        document.documentLayout().documentSize()
        tops, block = [], document.begin()
        while block.isValid():
            layout = block.layout()
            tops.extend(layout.position().y() + layout.lineAt(n).y() for n in range(layout.lineCount()))
            block = block.next()
        return tops or [0.0]

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.width() != self._width:  # another width, another number of lines
            self._width = self.width()
            self.updateGeometry()


class StreamLanes(QWidget):
    """Shows a LaneState; `naive_text`, `buffered_text` and `pending` are exactly what is on screen."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dark = False
        self.ids: list[int] = []
        self.state: LaneState | None = None
        self.expected = ""
        self.naive_text = ""
        self.buffered_text = ""
        self.pending = b""
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setHorizontalSpacing(10)
        self.naive_title = QLabel(NAIVE_TITLE)
        self.strict = QCheckBox("strict")
        self.strict.setToolTip("Seed 004's first decode: vocab[i].decode(\"utf-8\") for each token, without "
                               "errors=\"replace\": it raises on the first token that cuts a character")
        self.strict.toggled.connect(self._on_strict_toggled)
        self.buffered_title = QLabel("<b>Buffered</b><br><small>incremental decoder</small>")
        self.naive = WrappingLabel()
        self.buffered = WrappingLabel()
        self.status = WrappingLabel()
        self.status.setObjectName("streamStatus")
        for label in (self.naive, self.buffered):
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for title in (self.naive_title, self.buffered_title):
            title.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        naive_box = QVBoxLayout()
        naive_box.setContentsMargins(0, 0, 0, 0)
        naive_box.addWidget(self.naive_title)
        naive_box.addWidget(self.strict, 0, Qt.AlignmentFlag.AlignRight)
        layout.addLayout(naive_box, 0, 0)
        self.naive_view, self.buffered_view = _LaneView(self.naive), _LaneView(self.buffered)
        layout.addWidget(self.naive_view, 0, 1)
        layout.addWidget(self.buffered_title, 1, 0)
        layout.addWidget(self.buffered_view, 1, 1)
        layout.addWidget(self.status, 2, 1)
        layout.setColumnStretch(1, 1)

    def set_text_font(self, font: QFont) -> None:
        big = QFont(font)
        big.setPointSizeF(font.pointSizeF() * 1.3)
        self.naive.setFont(big)
        self.buffered.setFont(big)
        for view in (self.naive_view, self.buffered_view):
            view.updateGeometry()

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        if self.state is not None:
            self.show_state(self.state, self.ids, self.expected)

    def show_state(self, state: LaneState, ids: list[int], expected: str) -> None:
        """Draw the lanes after `state.shown` tokens; `expected` is the input, for the final check."""
        self.state, self.ids, self.expected = state, ids, expected
        self.naive_text, self.buffered_text, self.pending = state.naive, state.buffered, state.pending
        failure = state.strict_failure if self.strict.isChecked() else None
        if failure is not None:
            self.naive_text = f"{''.join(state.naive_parts[: failure.index])} {failure.message}"
        self.naive.setText(self._naive_html(state))
        buffered = self._parts(state.buffered_parts)
        if state.pending:
            color = pending_color(self.dark).name()
            buffered += (f"<span style='background:{color}'>&nbsp;⏳ {state.pending.hex(' ').upper()}&nbsp;</span>")
        self.buffered.setText(buffered or self._waiting())
        for view in (self.naive_view, self.buffered_view):
            view.updateGeometry()
        done = state.shown == len(ids) and ids
        if failure is not None:
            self.status.setText(f"✗ the strict naive decode raised at token {failure.index + 1}, which ends inside a "
                                "character · the buffered decoder waits for the rest")
        elif not done:
            self.status.setText(f"after {state.shown} of {len(ids)} tokens · naive printed "
                                f"{state.replacements} × U+FFFD" if state.shown else "press Play or Step")
        elif state.buffered == expected and not state.pending:
            self.status.setText(f"✓ the buffered text equals the input · the naive one has {state.replacements} × "
                                "U+FFFD" + (" where tokens cut characters" if state.replacements else ""))
        else:
            self.status.setText("✗ the buffered text differs from the input")

    def _on_strict_toggled(self, strict: bool) -> None:
        self.naive_title.setText(STRICT_TITLE if strict else NAIVE_TITLE)
        if self.state is not None:
            self.show_state(self.state, self.ids, self.expected)

    def _naive_html(self, state: LaneState) -> str:
        failure = state.strict_failure
        if not self.strict.isChecked() or failure is None:
            return self._parts(state.naive_parts) or self._waiting()
        warning = replacement_color(self.dark).name()
        return (self._parts(state.naive_parts[: failure.index])
                + f" <b style='color:{warning}'>{html.escape(failure.message)}</b>")

    def _waiting(self) -> str:
        return "<span style='color:gray'>…</span>"

    def _parts(self, parts: tuple[str, ...]) -> str:
        """One span per token, tinted with its token colour; U+FFFD in bold warning colour. The
        tokens of one grapheme (a flag, a family emoji cut by token boundaries) share one span,
        in the first one's colour: apart, each was shaped alone (🇺🇦 read "U A")."""
        warning = replacement_color(self.dark).name()
        first = max(0, len(parts) - MAX_PARTS)
        out = ["<span style='color:gray'>…</span>"] if first else []
        for index, part in self._whole_graphemes(parts, first):
            background = token_color_name(self.ids[index], self.dark) if index < len(self.ids) else ""
            text = html.escape(visible(part)).replace(
                REPLACEMENT, f"<b style='color:{warning}'>{REPLACEMENT}</b>")
            out.append(f"<span style='background:{background}'>{text}</span>")
        return BREAK.join(out)

    @staticmethod
    def _whole_graphemes(parts: tuple[str, ...], first: int) -> list[tuple[int, str]]:
        """(token index, text) of the non-empty parts from `first` on, a part that starts inside a
        grapheme joined to the one before."""
        shown = [(index, parts[index]) for index in range(first, len(parts)) if parts[index]]
        joined = "".join(part for _, part in shown)
        if joined.isascii():
            return shown
        bounds = grapheme_bounds(joined)
        out: list[tuple[int, str]] = []
        offset = 0
        for index, part in shown:
            if out and offset not in bounds:
                out[-1] = (out[-1][0], out[-1][1] + part)
            else:
                out.append((index, part))
            offset += len(part)
        return out
