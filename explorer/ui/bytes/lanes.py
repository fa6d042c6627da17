"""The two decoder lanes as running text: what a chat client would print, token after token.

The naive lane decodes every token alone (U+FFFD wherever a token ends inside a character);
the buffered lane uses an incremental decoder and shows the bytes it holds back as pending.
"Strict" shows seed 004's first decode instead, which raises on the first token that cuts a character.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QVBoxLayout, QWidget

from explorer.core.chars import visible
from explorer.core.streaming import LaneState
from explorer.core.utf8 import REPLACEMENT
from explorer.ui.bytes.roles import pending_color, replacement_color, token_color_name

NAIVE_TITLE = "<b>Naive</b><br><small>each token decoded alone</small>"
STRICT_TITLE = "<b>Naive, strict</b><br><small>seed 004's first decode</small>"
MAX_PARTS = 300  # tokens shown in a lane; earlier ones fold into "…" (rich text grows slow beyond)


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
        self.naive = QLabel()
        self.buffered = QLabel()
        self.status = QLabel()
        self.status.setObjectName("streamStatus")
        for label in (self.naive, self.buffered):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setMinimumHeight(28)
        for title in (self.naive_title, self.buffered_title):
            title.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        naive_box = QVBoxLayout()
        naive_box.setContentsMargins(0, 0, 0, 0)
        naive_box.addWidget(self.naive_title)
        naive_box.addWidget(self.strict, 0, Qt.AlignmentFlag.AlignRight)
        layout.addLayout(naive_box, 0, 0)
        layout.addWidget(self.naive, 0, 1)
        layout.addWidget(self.buffered_title, 1, 0)
        layout.addWidget(self.buffered, 1, 1)
        layout.addWidget(self.status, 2, 1)
        layout.setColumnStretch(1, 1)

    def set_text_font(self, font: QFont) -> None:
        big = QFont(font)
        big.setPointSizeF(font.pointSizeF() * 1.3)
        self.naive.setFont(big)
        self.buffered.setFont(big)

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
        """One span per token, tinted with its token colour; U+FFFD in bold warning colour."""
        warning = replacement_color(self.dark).name()
        first = max(0, len(parts) - MAX_PARTS)
        out = ["<span style='color:gray'>…</span>"] if first else []
        for index in range(first, len(parts)):
            part = parts[index]
            if not part:
                continue
            background = token_color_name(self.ids[index], self.dark) if index < len(self.ids) else ""
            text = html.escape(visible(part)).replace(
                REPLACEMENT, f"<b style='color:{warning}'>{REPLACEMENT}</b>")
            out.append(f"<span style='background:{background}'>{text}</span>")
        return "".join(out)
