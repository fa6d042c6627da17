"""The Tokens pane: type or paste a prompt, see every token, find what is odd about it.

Top: the editor. Middle: one lane per tokenizer (the current one, plus up to three to compare,
with the spans where their boundaries differ underlined in magenta). Bottom: the hovered token's
details and the findings list; a click on a finding selects its span in the editor and the view.
"""

from __future__ import annotations


from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeySequence, QTextCursor
from PySide6.QtWidgets import (QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QSplitter,
                               QVBoxLayout, QWidget)

from explorer.core.plural import plural
from explorer.core.sources.tokenizer import SPECIAL_MODES, Tokenizer
from explorer.ui.fitted_splitter import FittedSplitter
from explorer.ui.pane import Pane, WrappingLabel, align_to_text
from explorer.ui.session import Session
from explorer.ui.timers import call_later, once_next_turn
from explorer.ui.tokens.compare import CompareLanes
from explorer.ui.tokens.details import DetailsView, token_details
from explorer.ui.tokens.editor import PromptEditor
from explorer.ui.tokens.export_button import ExportButton
from explorer.ui.tokens.findings_panel import FindingsPanel
from explorer.ui.tokens.glyphs import missing_message
from explorer.ui.tokens.lane import Lane
from explorer.ui.tokens.one_line import Banner
from explorer.ui.tokens.prompt import Prompt
from explorer.ui.tokens.room import fit_to_content
from explorer.ui.tokens.view import DIFF_COLOR
from explorer.ui.workers import freeze_long_lived

SAMPLE = ("One eggless mawa cake for Saturday, please. Egg or egg?\n"
          "एक एगलेस मावा केक शनिवार के लिए, कृपया।\n"
          "In 1969, 600,000,000 people watched.\t안녕하세요 👋 ")
IDLE_MS = 250  # after typing stops: findings, word counts and the comparison
REMEMBERED_CHARACTERS = 100_000  # a longer prompt is not kept for the next start (the settings file would balloon)


class TokensPane(CompareLanes, Pane):
    name = "tokens"
    title = "Tokens"

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self.lanes: list[Lane] = []
        self._bulk = False  # the editor is being filled with text the prompt already has
        self._typed_while_filling = False
        self._forest_ready: set[int] = set()
        self._forest_note = ""
        self._forest_jobs: dict[object, Tokenizer] = {}
        self._detail_lane: Lane | None = None
        self._detail_index = -1
        self._missing: set[str] = set()
        self._banner_error = ""
        self.prompt = Prompt()
        self._remembered: str | None = None
        self._fit_soon = once_next_turn(self, self.fit_to_content)  # (a lane's summary wrapped anew: share the room again)
        self._build()
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(IDLE_MS)
        self._idle.timeout.connect(self._on_idle)
        session.tokenizer_changed.connect(self.take_up_tokenizer)
        session.special_mode_changed.connect(self._on_session_special_mode_changed)
        session.font_changed.connect(self._on_session_font_changed)
        session.theme_changed.connect(self._on_session_theme_changed)
        session.tokenizers_changed.connect(self._refill_compare_choices)
        self.set_content(self.content)
        remembered = session.settings.last_prompt
        self.set_text(SAMPLE if remembered is None else remembered)
        if session.tokenizer is not None:
            self._on_session_tokenizer_changed(session.tokenizer)

    # Building

    def _build(self) -> None:
        self.content = QWidget(self)
        self.editor = PromptEditor(self)
        self.editor.setFont(self.session.font)
        self.editor.textChanged.connect(self._on_editor_text_changed)
        self.editor.cursorPositionChanged.connect(self._on_editor_cursor_moved)
        self.editor.verticalScrollBar().valueChanged.connect(lambda _: self._mark_editor())

        self.mode_box = QComboBox(self)
        for mode in SPECIAL_MODES:
            self.mode_box.addItem(mode, mode)
        self.mode_box.setCurrentIndex(SPECIAL_MODES.index(self.session.special_mode))
        self.mode_box.setToolTip("Special-token strings such as <|endoftext|> in the prompt: refuse them "
                                 "(disallowed), encode them as control tokens (allowed), or as plain text (plain)")
        self.mode_box.currentIndexChanged.connect(lambda _: self.session.set_special_mode(self.mode_box.currentData()))
        self.ids_button = QPushButton("Show ids", self)
        self.ids_button.setCheckable(True)
        self.ids_button.setShortcut(QKeySequence("Ctrl+I"))
        self.ids_button.setToolTip("Toggle between token text and token ids (Ctrl+I)")
        self.ids_button.toggled.connect(self._on_ids_toggled)
        self.under_button = QPushButton("Ids under text", self)
        self.under_button.setCheckable(True)
        self.under_button.setShortcut(QKeySequence("Ctrl+Shift+I"))
        self.under_button.setToolTip("Show each token's id under its text (Ctrl+Shift+I)")
        self.under_button.toggled.connect(self._on_under_toggled)
        self.copy_ids_button = QPushButton("Copy ids", self)
        self.copy_ids_button.setToolTip("Copy the token ids to the clipboard, separated by spaces")
        self.copy_ids_button.clicked.connect(self.copy_ids)
        self.compare_button = QPushButton("Compare +", self)
        self.compare_button.setToolTip("Add a tokenizer to compare (up to four), Ctrl+K")
        self.compare_button.setShortcut(QKeySequence("Ctrl+K"))
        self.compare_button.clicked.connect(lambda: self.add_compare())
        self.export_button = ExportButton(self.session, self._state, self.ids_button.isChecked, self)
        bar = QHBoxLayout()
        mode_label = QLabel("Special tokens:", self)
        mode_label.setBuddy(self.mode_box)  # (on Linux a screen reader names a combo box by its label)
        bar.addWidget(mode_label)
        bar.addWidget(self.mode_box)
        bar.addWidget(self.ids_button)
        bar.addWidget(self.under_button)
        bar.addWidget(self.copy_ids_button)
        bar.addWidget(self.compare_button)
        bar.addWidget(self.export_button)
        bar.addStretch(1)
        # One click carries this text to the Chunks and Bytes panes.
        for pane, label, tip in (("chunks", "Show chunks", "See how the pre-tokenizer regex cuts this text"),
                                 ("bytes", "Show bytes", "See this text's UTF-8 bytes and stream its tokens")):
            button = QPushButton(label, self)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, p=pane: self.session.send_text(p, self.text()))
            bar.addWidget(button)
            setattr(self, f"{pane}_button", button)

        self.banner = Banner(self)  # (one line, "more" opens it: three compared lanes need the room)
        self.banner.toggled.connect(self.fit_to_content)
        self.banner.hide()

        self.lanes_widget = QSplitter(Qt.Orientation.Vertical, self)
        self.lanes_widget.setChildrenCollapsible(False)
        # Each lane keeps its summary and MIN_LINES lines of tokens (Lane.minimumSizeHint); lanes that
        # do not fit so scroll together, each view scrolling its own tokens.
        self.lanes_scroll = QScrollArea(self)
        self.lanes_scroll.setWidget(self.lanes_widget)
        self.lanes_scroll.setWidgetResizable(True)
        self.lanes_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.lanes_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.main_lane = self._new_lane()
        self.legend = WrappingLabel("", self)
        self.legend.setObjectName("tokensLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self._show_legend()
        lanes_box = QWidget(self)
        lanes_layout = QVBoxLayout(lanes_box)
        lanes_layout.setContentsMargins(0, 0, 0, 0)
        lanes_layout.setSpacing(2)
        lanes_layout.addWidget(self.lanes_scroll, 1)
        lanes_layout.addWidget(self.legend)

        self.details = DetailsView(self)
        self.findings_panel = FindingsPanel(self.session.workers, self)
        self.findings_panel.words_counted.connect(self._on_findings_words_counted)
        self.findings_panel.differences_found.connect(self._on_findings_differences_found)
        self.findings_panel.span_clicked.connect(self.jump_to)
        self.findings_panel.looked.connect(self.fit_to_content)
        self.findings_panel.rows_fitted.connect(self._fit_soon.start)
        bottom = self.bottom = FittedSplitter(Qt.Orientation.Horizontal, self)
        bottom.addWidget(self.details)
        bottom.addWidget(self.findings_panel)
        bottom.setSizes([380, 620])

        splitter = self.splitter = FittedSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.editor)
        splitter.addWidget(lanes_box)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 4)
        splitter.setStretchFactor(2, 2)
        splitter.setSizes([160, 380, 200])
        self._name_controls()
        layout = QVBoxLayout(self.content)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)

    def fit_to_content(self) -> None:
        """Share the room by what each part holds (explorer/ui/tokens/room.py)."""
        fit_to_content(self)

    def _name_controls(self) -> None:
        """Accessible names for screen readers: what each control is, where its text does not say it."""
        for widget, name in ((self.editor, "Prompt"), (self.mode_box, "Special tokens mode"),
                             (self.details, "Token details"), (self.findings_panel.table, "Findings"),
                             (self.banner, "Notice"), (self.legend, "Legend of the token marks"),
                             (self.lanes_scroll, "Token lanes")):
            widget.setAccessibleName(name)
        for button in (self.ids_button, self.under_button, self.copy_ids_button, self.compare_button,
                       self.export_button, self.chunks_button, self.bytes_button):  # type: ignore[attr-defined]
            button.setAccessibleName(button.text().replace("+", "").strip())
            button.setAccessibleDescription(button.toolTip())

    def _show_legend(self) -> None:
        """What the marks in the view and the editor mean (the comparison's only while comparing)."""
        muted = self.palette().placeholderText().color().name()
        # (short: at 1280 px in presentation mode it stays one line, which three compared lanes need)
        parts = ["<b>╻</b> a token starts",
                 "<u>&nbsp;&nbsp;&nbsp;</u> byte pieces of one character, then its glyph",
                 f"<span style='color:{muted}'>┈┈</span> dotted underline: a character split across tokens"]
        if len(self.lanes) > 1:
            parts.append(f"<span style='color:{DIFF_COLOR.name()}'>▁▁</span> tokenizers cut the text differently")
        self.legend.setText("<small>" + " &nbsp;·&nbsp; ".join(parts) + "</small>")

    def _new_lane(self) -> Lane:
        lane = Lane(self.session, self.lanes_widget)
        lane.updated.connect(self._on_lane_updated)
        lane.token_hovered.connect(self._on_lane_token_hovered)
        lane.token_clicked.connect(self._on_lane_token_clicked)
        lane.status.connect(self._on_lane_status)
        lane.chrome_changed.connect(lambda _: self._fit_soon.start())
        lane.view.glyphs_missing.connect(self._on_glyphs_missing)
        lane.ids_under = self.under_button.isChecked()
        lane.set_show_ids(self.ids_button.isChecked())
        lane.view.setAccessibleName("Tokens" if not self.lanes else "Compared tokens")
        self.lanes_widget.addWidget(lane)
        self.lanes.append(lane)
        if hasattr(self, "legend"):
            self._show_legend()
        return lane

    # Text in, tokens out

    def set_text(self, text: str) -> None:
        """Show `text` as a new prompt (line endings and all)."""
        self.prompt.set(text)
        self._bulk = True  # (first: the lanes' tokens of a short text come at once, before the editor has it)
        self._on_prompt_changed()
        self.editor.fill(self.prompt.shown, replace=True)

    def insert(self, text: str) -> None:
        """Insert `text` at the editor's cursor, instead of its selection (a paste or a drop)."""
        if self._bulk:
            self.editor.finish_fill()  # (a paste while the last one is still going in)
        cursor = self.editor.textCursor()
        start = self.prompt.shown_index(cursor.selectionStart())
        end = self.prompt.shown_index(cursor.selectionEnd())
        added = self.prompt.replace(start, end, text)
        self._bulk = True
        self._on_prompt_changed()
        self.editor.fill(added)

    def text(self) -> str:
        """The prompt, with its own line endings (the editor has "\n" for each)."""
        return self.prompt.text

    def end_bulk(self) -> None:
        self._bulk = False
        if self._typed_while_filling:
            self._typed_while_filling = False
            self._on_editor_text_changed()
        self._mark_editor()

    def _on_editor_text_changed(self) -> None:
        if self._bulk:  # the editor is filling: the prompt has the text already
            self._typed_while_filling |= not self.editor.inserting
            return
        if self.prompt.follow(self.editor.document().toRawText().replace("\u2029", "\n")):
            self._on_prompt_changed()

    def _on_prompt_changed(self) -> None:
        text = self.prompt.text
        align_to_text(self.editor, text)  # as the lanes below it
        for lane in self.lanes:
            lane.set_text(text)
        self._idle.start()

    def _on_lane_updated(self, lane: Lane) -> None:
        self._idle.start()
        self._show_references()
        if lane is self.main_lane:
            self._mark_editor()
        if self._detail_lane is not None and self._detail_lane.state is not None:
            self._detail_index = min(self._detail_index, len(self._detail_lane.state) - 1)

    def _mark_editor(self) -> None:
        """Mark split characters and characters no font can draw in the editor's visible part."""
        lane = self.main_lane
        if lane.state is None or lane.text != self.prompt.text or self._bulk:
            return
        unusual = self.editor.mark(lane.state, self.prompt)
        if unusual - self._missing:
            self._on_glyphs_missing(unusual)

    def _on_lane_status(self, lane: Lane, message: str) -> None:
        if lane is self.main_lane:
            self._banner_error = message
            self._show_banner()

    def _show_banner(self) -> None:
        parts = [p for p in (self._banner_error, missing_message(self._missing) if self._missing else "") if p]
        shown = self.banner.isVisibleTo(self)
        self.banner.set_message("\n".join(parts))
        self.banner.setVisible(bool(parts))
        if shown != bool(parts):  # the room above the splitter changed: share it again once laid out
            self._fit_soon.start()

    def _on_glyphs_missing(self, chars: set[str]) -> None:
        self._missing |= chars
        self._show_banner()

    # Session

    def _on_session_tokenizer_changed(self, tokenizer: Tokenizer) -> None:
        freeze_long_lived()
        self._forest_note = ""
        self.main_lane.tokenizer = tokenizer
        self.main_lane.encode_all(self.text())
        self._warm_forest(tokenizer)

    def _on_session_special_mode_changed(self, mode: str) -> None:
        index = SPECIAL_MODES.index(mode)  # type: ignore[arg-type]
        if self.mode_box.currentIndex() != index:
            self.mode_box.setCurrentIndex(index)
        for lane in self.lanes:
            lane.set_mode(mode)  # type: ignore[arg-type]

    def _on_session_font_changed(self, font: object) -> None:
        self.editor.setFont(self.session.font)
        for lane in self.lanes:
            lane.view.set_text_font(self.session.font)
        # The share of lanes and findings was measured at the old size: measure again once the
        # new fonts are laid out (else presentation mode left the findings their normal-size room).
        call_later(self, self.fit_to_content)

    def _on_session_theme_changed(self, dark: bool) -> None:
        for lane in self.lanes:
            lane.view.set_dark(dark, self.session.palette)

    def _warm_forest(self, tokenizer: Tokenizer) -> None:
        """Build the merge forest in the background (recovering it from tiktoken ranks takes seconds)."""
        if id(tokenizer) in self._forest_ready:
            return
        self._forest_note = "computing the merge forest..."
        job = self.session.workers.start_call("building the merge forest", lambda: tokenizer.forest is not None,
                                              key=f"forest:{id(self)}")
        self._forest_jobs[job] = tokenizer
        job.on("finished", self._on_forest_finished)
        job.on("failed", self._on_forest_failed)

    def _on_forest_finished(self, job: object, has_forest: object) -> None:
        tokenizer = self._forest_jobs.pop(job, None)
        if tokenizer is not None:
            self._on_forest_ready(tokenizer, bool(has_forest))

    def _on_forest_failed(self, job: object, message: str) -> None:
        self._forest_jobs.pop(job, None)
        self._forest_note = message

    def _on_forest_ready(self, tokenizer: Tokenizer, has_forest: bool) -> None:
        freeze_long_lived()
        if has_forest:
            self._forest_ready.add(id(tokenizer))
        else:
            self._forest_note = f"{tokenizer.name} ({tokenizer.kind}) has no merges"
        self._show_details()

    # Idle work: remembering the prompt, counts, findings, comparison

    def _remember_prompt(self) -> None:
        text = self.prompt.text
        if text is not self._remembered:
            self._remembered = text
            self.session.settings.last_prompt = text if len(text) <= REMEMBERED_CHARACTERS else None

    def _on_idle(self) -> None:
        self._remember_prompt()
        lanes = [lane for lane in self.lanes if lane.complete and lane.state is not None]
        if self.main_lane not in lanes:
            return
        state = self.main_lane.state.snapshot()  # type: ignore[union-attr]
        others = [(lane, state if lane is self.main_lane else lane.state.snapshot()) for lane in lanes]  # type: ignore[union-attr]
        self.findings_panel.look(state, others)
        self.fit_to_content()

    def _on_findings_words_counted(self, words: int) -> None:
        for lane in self.lanes:
            lane.set_words(words)

    def _on_findings_differences_found(self, masks: list[tuple[Lane, object]]) -> None:
        for lane, mask in masks:
            if lane in self.lanes:
                lane.view.set_diff(mask)

    def jump_to(self, start: int, end: int) -> None:
        """Select characters [start, end) in the editor and show their first token in the view."""
        cursor = QTextCursor(self.editor.document())
        cursor.setPosition(self.prompt.to_editor(start))
        cursor.setPosition(self.prompt.to_editor(end), QTextCursor.MoveMode.KeepAnchor)
        self.editor.setTextCursor(cursor)
        self.editor.ensureCursorVisible()
        lane = self.main_lane
        if lane.state is not None and len(lane.state):
            index = lane.state.index_at(start)
            lane.view.show_token(index)
            self._set_details(lane, index)

    def _on_editor_cursor_moved(self) -> None:
        lane = self.main_lane
        if lane.state is None or not lane.complete or not len(lane.state):
            return
        cursor = self.editor.textCursor()
        if lane.text != self.prompt.text:
            return
        index = lane.state.index_at(self.prompt.from_editor(cursor.selectionStart()))
        lane.view.set_current(index)
        self._set_details(lane, index)

    # Details and navigation

    def _on_lane_token_hovered(self, lane: Lane, index: int) -> None:
        self._set_details(lane, index)

    def _on_lane_token_clicked(self, lane: Lane, index: int) -> None:
        if lane.state is not None and 0 <= index < len(lane.state):
            self._set_details(lane, index)
            self.session.show_token(int(lane.state.ids[index]))

    def _set_details(self, lane: Lane, index: int) -> None:
        self._detail_lane, self._detail_index = lane, index
        self._show_details()

    def _show_details(self) -> None:
        lane, index = self._detail_lane, self._detail_index
        if lane is None or lane.state is None or not 0 <= index < len(lane.state):
            return
        tokenizer = lane.state.tokenizer
        forest = tokenizer.forest if id(tokenizer) in self._forest_ready else None
        if forest is None and id(tokenizer) not in self._forest_ready and tokenizer is not self.session.tokenizer:
            self._warm_forest(tokenizer)
        texts = [token_details(lane.state, index, forest, self._forest_note, columns) for columns in (1, 2)]
        self.details.show_details(lambda columns: texts[columns - 1])
        # Details that grew past their room (the merge forest arrived with rank and parents) get
        # the share measured again: else whether they scrolled depended on which came first.
        if self.details.document().size().height() > self.details.viewport().height():
            call_later(self, self.fit_to_content)

    # Presentation toggles

    def _on_ids_toggled(self, show: bool) -> None:
        self.ids_button.setText("Show text" if show else "Show ids")
        self.ids_button.setAccessibleName(self.ids_button.text())
        if show and self.under_button.isChecked():
            self.under_button.blockSignals(True)
            self.under_button.setChecked(False)
            self.under_button.blockSignals(False)
        for lane in self.lanes:
            lane.ids_under = self.under_button.isChecked()
            lane.set_show_ids(show)

    def _on_under_toggled(self, on: bool) -> None:
        """The text stays, each token's id under it (leaves the ids-only view)."""
        if on and self.ids_button.isChecked():
            self.ids_button.blockSignals(True)
            self.ids_button.setChecked(False)
            self.ids_button.setText("Show ids")
            self.ids_button.blockSignals(False)
        for lane in self.lanes:
            lane.ids_under = on
            lane.set_show_ids(self.ids_button.isChecked())

    def copy_ids(self) -> None:
        """The main lane's token ids on the clipboard, separated by spaces (one click)."""
        state = self.main_lane.state
        if state is None or not self.main_lane.complete:
            self.session.status_posted.emit("No tokens to copy yet")
            return
        QGuiApplication.clipboard().setText(" ".join(map(str, state.ids.tolist())))
        self.session.status_posted.emit(f"Copied {plural(len(state), 'token id')}")

    def _state(self):  # type: ignore[no-untyped-def]
        """The main lane's tokens to export, or None (and a message) while there are none yet."""
        state = self.main_lane.state
        if state is None or not self.main_lane.complete:
            self.session.post_error("Nothing to export", "Type or paste a prompt and wait for its tokens first.")
            return None
        return state

    # The screenshot command's hook (see explorer/ui/pane.py)

    def prepare_screenshot(self, text: str | None) -> None:
        if text is not None:
            self.set_text(text)

