"""The Bytes pane: every character's UTF-8 bytes and bits, the tokens over them, and a token stream.

Play the tokens one at a time: the naive lane decodes each token alone (U+FFFD where a token
ends inside a character), the buffered lane holds bytes back until the character completes.
Texts here are short (a prompt, a sentence), so encoding runs on the GUI thread after a short
pause in typing; the limit keeps it well under the 50 ms budget.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPlainTextEdit, QPushButton, QScrollArea, QSlider, QTableView,
                               QVBoxLayout, QWidget)

from explorer.core.plural import plural
from explorer.core.errors import ExplorerError
from explorer.core.sources.tokenizer import Token, Tokenizer, tokens_from_ids
from explorer.core.text.chars import TextCounts, count, describe, tokens_of_chars
from explorer.core.text.streaming import StreamReplay
from explorer.ui.bytes.delegate import BitsDelegate, LeftElidingDelegate
from explorer.ui.bytes.examples import DEFAULT_TEXT, ENGLISH_ORDER, EXAMPLES
from explorer.ui.bytes.lanes import StreamLanes
from explorer.ui.bytes.model import COL_BITS, COL_NAME, COL_SCRIPT, COL_TOKENS, COLUMNS, CharTableModel
from explorer.ui.bytes.roles import legend_html
from explorer.ui.bytes.strip import BAND_GAP, MARGIN, ByteStrip
from explorer.ui.fitted_splitter import FittedSplitter
from explorer.ui.pane import Pane, WrappingLabel, align_to_text, example_bar
from explorer.ui.qt_text import qt_text
from explorer.ui.session import Session
from explorer.ui.timers import call_later, once_next_turn

MAX_CHARS = 2_000
DEBOUNCE_MS = 150
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)  # tokens per second
DEFAULT_SPEED = 2
NBSP = "\u00a0"
TABLE_ROWS = 4  # the character table's rows kept in sight under the stream before its strip takes more bands


class BytesPane(Pane):
    name = "bytes"
    title = "Bytes"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self.tokens: list[Token] = []
        self.replay = StreamReplay([])
        self.shown = 0
        self.using_bytes = True  # no tokenizer (or it failed): one byte per token
        self.note = ""
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.recompute)
        self._player = QTimer(self)
        self._player.timeout.connect(self._on_player_tick)
        self._fit_splitter_soon = once_next_turn(self, self._fit_splitter)  # (after the layout has settled)
        self._tokens_width, self._script_widths = 0, (0, 0)  # (measured: _measure_text_columns)
        self._build()
        self._build_shortcuts()
        self._apply_font(session.font)
        self._on_session_theme_changed(session.dark)
        session.tokenizer_changed.connect(self.take_up_tokenizer)
        session.special_mode_changed.connect(lambda _: self.recompute())
        session.font_changed.connect(self._apply_font)
        session.theme_changed.connect(self._on_session_theme_changed)
        # Text sent here before this pane was built (panes are built lazily) wins over the example.
        self.editor.setPlainText(qt_text(session.sent_text.get(self.name, DEFAULT_TEXT)))
        self.recompute()

    # Building

    def _build(self) -> None:
        content = QWidget()
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText("Type or paste text to see its UTF-8 bytes and how tokens cut them")
        self.editor.setMaximumHeight(64)
        self.editor.textChanged.connect(self._debounce.start)

        examples, self.example_buttons = example_bar(EXAMPLES, self.set_text)
        self.reference = QLineEdit(ENGLISH_ORDER)
        self.reference.setMinimumWidth(260)
        self.reference.setToolTip("The cost ratio compares this text's tokens with this sentence's "
                                  "(seed 004: the same order in English and in Hindi)")
        self.reference.textChanged.connect(self._debounce.start)
        examples.add_together(QLabel("English reference:"), self.reference, expanding=True)

        self.counts = WrappingLabel()
        self.counts.setObjectName("byteCounts")
        self.counts.setTextFormat(Qt.TextFormat.RichText)

        self.strip = ByteStrip()
        self.player = QWidget()  # the stream keys work while focus is anywhere in here
        player_layout = QVBoxLayout(self.player)
        player_layout.setContentsMargins(0, 0, 0, 0)
        player_layout.addLayout(self._build_controls())
        self.lanes = StreamLanes()  # (a few lines high whatever the text: the strip keeps its room)
        player_layout.addWidget(self.lanes)
        self.strip.token_clicked.connect(lambda index: self.set_shown(index + 1))
        self.strip.char_clicked.connect(self._on_strip_char_clicked)
        self.strip_scroll = QScrollArea()
        self.strip_scroll.setWidgetResizable(True)
        self.strip_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.strip_scroll.setWidget(self.strip)
        self.strip_scroll.verticalScrollBar().rangeChanged.connect(self._on_strip_range_changed)
        player_layout.addWidget(self.strip_scroll, 1)
        self.legend = WrappingLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        player_layout.addWidget(self.legend)

        self.model = CharTableModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.bits_delegate = BitsDelegate(self.table)
        self.table.setItemDelegateForColumn(COL_BITS, self.bits_delegate)
        self.table.setItemDelegateForColumn(COL_NAME, LeftElidingDelegate(self.table))
        self.table.setWordWrap(False)  # (one line a row: wrapped, some names took two lines, some were cut)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setResizeContentsPrecision(100)  # measure 100 rows, not all
        # The name and the script share what is left (see _fit_text_columns), eliding if they must.
        header.setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(COL_SCRIPT, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(COL_TOKENS, QHeaderView.ResizeMode.Fixed)  # as wide as its widest text
        header.setStretchLastSection(False)
        self.table.viewport().installEventFilter(self)  # (resized: the script's share again)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _: self.strip.select_char(current.row()))

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.editor)
        top_layout.addLayout(examples)
        top_layout.addWidget(self.counts)
        splitter = self.splitter = FittedSplitter(Qt.Orientation.Vertical)  # (sizes: see _fit_splitter)
        splitter.addWidget(self.player)
        splitter.addWidget(self.table)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([560, 140])
        self.strip_scroll.installEventFilter(self)  # (resized: the splitter fitted again, next turn)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(top)
        layout.addWidget(splitter, 1)
        # Taller than the pane (presentation mode's font at 1280x800): the pane scrolls, and every
        # part keeps its height; a layout given less than its minimum lays its widgets over each other.
        scroll = QScrollArea()
        scroll.setObjectName("bytesScroll")
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.set_content(scroll)

    def _build_controls(self) -> QHBoxLayout:
        row = QHBoxLayout()

        def button(text: str, tip: str, slot: object) -> QPushButton:
            made = QPushButton(text)
            made.setToolTip(tip)
            made.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keep the keys on the stream
            made.clicked.connect(slot)  # type: ignore[arg-type]
            row.addWidget(made)
            return made

        self.reset_button = button("|◀ Reset", "Back to no tokens (Home, F6)", self.reset)
        self.back_button = button("◀ Back", "One token back (←, F7)", self.back)
        self.step_button = button("Step ▶", "One more token (→, F9)", self.step)
        self.play_button = button("▶ Play", "Play the tokens one at a time (Space, F8)", self.toggle_play)
        self.end_button = button("End ▶|", "All tokens (End)", self.to_end)
        row.addSpacing(10)
        row.addWidget(QLabel("Speed:"))
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setValue(DEFAULT_SPEED)
        self.speed.setFixedWidth(120)
        self.speed.setToolTip("Tokens per second (+ / -)")
        self.speed.valueChanged.connect(self._on_speed_changed)
        row.addWidget(self.speed)
        self.speed_label = QLabel()
        row.addWidget(self.speed_label)
        row.addSpacing(10)
        self.position = QLabel()
        self.position.setObjectName("streamPosition")
        row.addWidget(self.position)
        row.addStretch(1)
        self.show_bits = QCheckBox("Bits")
        self.show_bits.setChecked(True)
        self.show_bits.setToolTip("Show every byte's bits, coloured by role")
        self.show_bits.toggled.connect(self.strip.set_show_bits)
        row.addWidget(self.show_bits)
        self._on_speed_changed(self.speed.value())
        return row

    def _build_shortcuts(self) -> None:
        local = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys, slot in ((("Space",), self.toggle_play), (("Right",), self.step), (("Left",), self.back),
                           (("Home",), self.reset), (("End",), self.to_end),
                           (("+", "="), lambda: self.speed.setValue(self.speed.value() + 1)),
                           (("-",), lambda: self.speed.setValue(self.speed.value() - 1))):
            for key in keys:
                shortcut = QShortcut(QKeySequence(key), self.player)
                shortcut.setContext(local)
                shortcut.activated.connect(slot)
        for key, slot in (("F6", self.reset), ("F7", self.back), ("F8", self.toggle_play), ("F9", self.step)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(local)
            shortcut.activated.connect(slot)

    # Text and tokens

    def text(self) -> str:
        return self.editor.toPlainText()[:MAX_CHARS]

    def set_text(self, text: str) -> None:
        self.editor.setPlainText(qt_text(text))
        self.recompute()

    def _on_session_tokenizer_changed(self, _tokenizer: object) -> None:
        self.recompute()

    def recompute(self) -> None:
        """Describe the characters, encode, and restart the stream showing every token."""
        self._debounce.stop()
        self.stop()
        text = self.text()
        align_to_text(self.editor, text)
        safe = text.encode("utf-8", errors="replace").decode("utf-8")  # lone surrogates from a paste
        self.tokens, self.note, reference, shown = self._encode(safe)
        chars = describe(shown)
        self.replay = StreamReplay([t.bytes for t in self.tokens])
        held = tokens_of_chars(chars, [(t.byte_start, t.byte_end) for t in self.tokens])
        self.model.set_chars(chars, held, [t.id for t in self.tokens])
        self._measure_text_columns()
        self.strip.set_data(chars, self.tokens, self.replay.steps)
        tokenizer = self.session.tokenizer
        counts = count(safe, None if self.using_bytes else len(self.tokens), reference)
        self._show_counts(counts, tokenizer, len(self.editor.toPlainText()) > MAX_CHARS)
        self.set_shown(len(self.replay))
        self._fit_splitter_soon.start()

    def _measure_text_columns(self) -> None:
        """Measure the tokens and script columns' texts (new text or a new font), then fit them."""
        self._tokens_width = self._widest(COL_TOKENS)
        self._script_widths = (self._widest(COL_SCRIPT, 0), self._widest(COL_SCRIPT))  # (its title, its texts)
        self._fit_text_columns()

    def _fit_text_columns(self) -> None:
        """The tokens column as wide as its widest text in any row, not only the rows Qt samples
        ("#841 (id 173468)" far down is wider than "#1 (id 976)" at the top): an id is never cut.
        The name and the script share the rest: the script as wide as its text up to a third of
        it (a danda's reads "Common (with Bengali, Devanagari, Dogra +15)"), the name all the rest
        (sharing equally, "DEVANAGARI VOWEL SIGN AA" read "DEVANAGARI …" beside "Devanagari").
        At a resize the widths measured last are used: the texts are not measured again."""
        self.table.setColumnWidth(COL_TOKENS, self._tokens_width)
        header = self.table.horizontalHeader()
        others = sum(header.sectionSize(c) for c in range(len(COLUMNS))
                     if c not in (COL_NAME, COL_SCRIPT) and not header.isSectionHidden(c))
        shared = self.table.viewport().width() - others
        title, texts = self._script_widths
        width = max(title, min(texts, shared // 3))
        if header.sectionSize(COL_SCRIPT) != width:
            self.table.setColumnWidth(COL_SCRIPT, width)

    def _widest(self, column: int, rows: int = 24) -> int:
        """Pixels the column's header and its `rows` longest texts need (0 rows: the header's)."""
        metrics = QFontMetrics(self.table.font())
        texts = self.model.longest_texts(column, rows) if rows else []
        widest = max((metrics.horizontalAdvance(text) for text in texts), default=0)
        title = QFontMetrics(self.table.horizontalHeader().font()).horizontalAdvance(COLUMNS[column])
        return max(widest, title) + 16

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self._fit_text_columns()
        if event.type() == QEvent.Type.Resize and watched is self.strip_scroll:
            self._fit_splitter_soon.start()
        return super().eventFilter(watched, event)

    def _fit_splitter(self) -> None:
        """The strip as many whole bands as it has that fit above TABLE_ROWS rows of the table; the
        table the rest (at 1920x1080 in presentation mode the strip kept a band's height of blank
        under its band while the table showed three rows). Once the user drags the handle, theirs."""
        splitter, table = self.splitter, self.table
        total = sum(splitter.sizes())
        if splitter.dragged or total <= 0 or not self.strip.bands:
            return
        rows = sum(table.rowHeight(row) for row in range(min(self.model.rowCount(), TABLE_ROWS)))
        bar = table.horizontalScrollBar().sizeHint().height() if table.horizontalScrollBar().isVisible() else 0
        table_height = table.horizontalHeader().height() + rows + bar + 2 * table.frameWidth()
        around = self.player.height() - self.strip_scroll.viewport().height()  # controls, lanes, legend
        band = self.strip.band_height + BAND_GAP
        bands = max(1, min(len(self.strip.bands), int((total - table_height - around - MARGIN) // band)))
        player = max(self.player.minimumSizeHint().height(), around + int(bands * band + MARGIN))
        if player < total and splitter.sizes()[0] != player:
            splitter.setSizes([player, total - player])

    def _on_strip_range_changed(self, _minimum: int, _maximum: int) -> None:
        """The strip or its view changed height (new text, a resize, the lanes' lines): keep the
        current token's band in view."""
        if self.shown > 0:
            self._scroll_to_token(self.shown - 1)

    def _encode(self, text: str) -> tuple[list[Token], str, int | None, str]:
        """The tokens to stream, a note for the reader, the reference sentence's token count, and
        the text whose bytes are shown (the model's, when it puts a space in front as SentencePiece does)."""
        tokenizer = self.session.tokenizer
        byte_tokens = tokens_from_ids(list(text.encode("utf-8")), lambda b: bytes([b]))
        if tokenizer is None:
            self.using_bytes = True
            return byte_tokens, "No tokenizer loaded: the stream plays one byte at a time.", None, text
        try:
            tokens = tokenizer.encode_tokens(text, self.session.special_mode)
            reference = len(tokenizer.encode(self.reference.text(), "plain")) if self.reference.text() else None
        except ExplorerError as exc:
            self.using_bytes = True
            return byte_tokens, f"{tokenizer.name}: {exc} — playing bytes instead.", None, text
        spelled = b"".join(t.bytes for t in tokens)
        model_text = getattr(tokenizer, "spelled_text", None)  # SentencePiece: with the `▁` it puts in front
        seen = model_text(text, self.session.special_mode) if model_text is not None else text
        if spelled != text.encode("utf-8") and spelled == seen.encode("utf-8"):
            self.using_bytes = False
            specials = {t.id for t in tokens if t.special}
            return (tokens_from_ids([t.id for t in tokens], tokenizer.token_bytes, specials),
                    f"{tokenizer.name} puts a space (▁) in front of the text, as SentencePiece does: the bytes "
                    "below are the text as the model sees it.", reference, seen)
        if spelled != text.encode("utf-8"):
            self.using_bytes = True
            return byte_tokens, (f"{tokenizer.name} ({tokenizer.kind}) changes the text before encoding, so its "
                                 "tokens do not spell these bytes; playing bytes instead."), None, text
        self.using_bytes = False
        return tokens, "", reference, text

    def _show_counts(self, counts: TextCounts, tokenizer: Tokenizer | None, truncated: bool) -> None:
        # A count and its unit never break apart (at 1280 px in presentation mode the line broke
        # inside "(11 tokens)"): they are joined by no-break spaces; the line breaks between parts.
        def bold(count: int, noun: str) -> str:
            return f"<b>{count:,}</b>{NBSP}{plural(count, noun, with_count=False).replace(' ', NBSP)}"

        parts = [bold(counts.chars, "character"), bold(counts.bytes, "UTF-8 byte")]
        if counts.tokens is not None and tokenizer is not None:
            parts.append(f"{bold(counts.tokens, 'token')} ({html.escape(tokenizer.name)})")
            if counts.bytes_per_token:
                parts.append(f"{counts.bytes_per_token:.2f}{NBSP}bytes{NBSP}per{NBSP}token")
            if counts.cost_ratio is not None:
                reference = plural(counts.reference_tokens, "token").replace(" ", NBSP)
                parts.append(f"<b>{counts.cost_ratio:.2f}×</b> the tokens of the English reference ({reference})")
        text = " · ".join(parts)
        if truncated:
            text += f" <i>(showing the first {MAX_CHARS:,} characters)</i>"
        if self.note:  # (plain text: a special token's '<|endoftext|>' read as a tag vanished)
            text += f"<br><i>{html.escape(self.note)}</i>"
        self.counts.setText(text)

    # The stream

    def set_shown(self, shown: int) -> None:
        """Show the stream after `shown` tokens in both lanes and the strip."""
        self.shown = max(0, min(shown, len(self.replay)))
        state = self.replay.state(self.shown)
        self.lanes.show_state(state, [t.id for t in self.tokens], self.replay.final_text)
        self.strip.set_shown(self.shown)
        unit = "bytes" if self.using_bytes else "tokens"
        self.position.setText(f"{self.shown} / {len(self.replay)} {unit}")
        at_end = self.shown >= len(self.replay)
        self.step_button.setEnabled(not at_end)
        self.end_button.setEnabled(not at_end)
        self.back_button.setEnabled(self.shown > 0)
        self.reset_button.setEnabled(self.shown > 0)
        if self.shown > 0:
            # After the strip's new height has reached the scroll area (a queued layout request).
            call_later(self, lambda: self._scroll_to_token(self.shown - 1))

    def step(self) -> None:
        self.set_shown(self.shown + 1)

    def back(self) -> None:
        self.stop()
        self.set_shown(self.shown - 1)

    def reset(self) -> None:
        self.stop()
        self.set_shown(0)

    def to_end(self) -> None:
        self.stop()
        self.set_shown(len(self.replay))

    @property
    def playing(self) -> bool:
        return self._player.isActive()

    def toggle_play(self) -> None:
        if self.playing:
            self.stop()
            return
        if self.shown >= len(self.replay):
            self.set_shown(0)  # play again from the start
        self._player.start()
        self.play_button.setText("⏸ Pause")
        self.strip.setFocus()

    def stop(self) -> None:
        self._player.stop()
        self.play_button.setText("▶ Play")

    def _on_player_tick(self) -> None:
        self.step()
        if self.shown >= len(self.replay):
            self.stop()

    def _on_speed_changed(self, value: int) -> None:
        speed = SPEEDS[max(0, min(value, len(SPEEDS) - 1))]
        self._player.setInterval(int(1000 / speed))
        self.speed_label.setText(f"{speed:g} tokens/s")

    def _scroll_to_token(self, index: int) -> None:
        if index < len(self.tokens) and self.strip.bands:
            bar, height = self.strip_scroll.verticalScrollBar(), self.strip_scroll.viewport().height()
            value, tail = self.strip.scroll_stop(index, bar.value(), height)
            # Room below the last band for the view to start at a band's top (else the end of the
            # stream showed the band above cut in half); the range grows, then this runs again.
            self.strip.set_tail(tail)
            bar.setValue(min(value, bar.maximum()))

    # Selection between strip and table

    def _on_strip_char_clicked(self, row: int) -> None:
        self.strip.select_char(row)
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)

    # Presentation

    def _apply_font(self, font: QFont) -> None:
        self.editor.setFont(font)
        # Two whole lines at any zoom (a fixed 64 px cut the second line in presentation mode); a
        # line of Devanagari or Thai is about a third taller than one of the fixed font.
        margins = 2 * (self.editor.frameWidth() + self.editor.document().documentMargin())
        self.editor.setMaximumHeight(max(64, int(2 * 1.35 * QFontMetrics(font).lineSpacing() + margins)))
        self.strip.setFont(font)
        self.strip_scroll.setMinimumHeight(int(self.strip.band_height) + 16)  # one band whole, whatever the zoom
        self.lanes.set_text_font(font)
        table_font = QFont(font)
        table_font.setPointSizeF(max(8.0, font.pointSizeF() * 0.9))
        self.table.setFont(table_font)
        self.table.resizeRowsToContents()
        self._measure_text_columns()

    def _on_session_theme_changed(self, dark: bool) -> None:
        self.strip.set_dark(dark)
        self.lanes.set_dark(dark)
        self.bits_delegate.dark = dark
        self.table.viewport().update()
        self.legend.setText(legend_html(dark))

    def prepare_screenshot(self, text: str | None = None) -> None:
        """Show `text` (or the default) mid-stream, at a step where the buffered decoder holds bytes."""
        if text:
            self.editor.blockSignals(True)
            self.editor.setPlainText(qt_text(text))
            self.editor.blockSignals(False)
        self.recompute()
        self.set_shown(self.replay.interesting_step())
