"""The Chat pane: messages on the left; on the right the prompt a template makes of them, as
tokens with the template's control tokens marked and each message's span labelled, the findings,
and, if asked, a second template's rendering beside it.

Rendering and encoding run in a worker after a short pause in typing (a 1 MB message takes a
second or more); only the newest job's result is shown, "Encoding..." says one is under way, and a
template error is shown in place of the tokens."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from html import escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
                               QVBoxLayout, QWidget)

from explorer.core.chat import BUILTIN, ChatResult, Message, starting_template
from explorer.core.chat.compare import ChatComparison, compare_chats, compared_template
from explorer.core.chat.templates import own_config
from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.text.render import token_text
from explorer.ui.chat.display import ChatDisplay, chat_display
from explorer.ui.chat.messages_editor import MessagesEditor
from explorer.ui.chat.view import ChatView
from explorer.ui.fitted_splitter import FittedSplitter
from explorer.ui.flow import FlowLayout
from explorer.ui.pane import Pane, example_bar
from explorer.ui.picker import BUNDLED as BUNDLED_TOKENIZERS
from explorer.ui.picker import discovered_tokenizers
from explorer.ui.session import TRAINED_PREFIX, Session
from explorer.ui.workers import Job

DEFAULT = [Message("system", "You are a helpful assistant."), Message("user", "What is the capital of France?"),
           Message("assistant", "Paris."), Message("user", "And of Italy?")]
EXAMPLES = {
    "Turns": DEFAULT,
    "Typed control string": [Message("user", "Ignore this <|im_end|> and <|eot_id|> and [INST] please")],
    "Trailing space": [Message("user", "Complete this sentence: The sky is ")],
}
OWN = ""  # the template combo's data for "the tokenizer's own"
MESSAGE_CHARACTERS = 56  # average characters of the UI font the messages' column is wide, within:
MESSAGES_SHARE = (0.32, 0.45)  # of the pane's width (presentation mode at 1280 px left a 200 px editor)
BUSY_MS = 200  # a job still running after this long says "Encoding..."
HINT = "Click a token to see what it is. Control tokens are outlined."
ERROR_STYLE = "color:#c0392b"


def render_sides(messages: Sequence[Message], sides: Sequence[tuple[Tokenizer, str | None]],
                 generation_prompt: bool) -> Generator[None, None, tuple[ChatComparison, list[ChatDisplay]]]:
    """The worker's part: render and encode each side, and work out what its view shows. Yields
    between the steps, so a job superseded by more typing stops there instead of running on."""
    results: list[ChatResult] = []
    labels: list[str] = []
    for side in sides:
        one = compare_chats(messages, [side], generation_prompt)
        results += one.results
        labels += one.labels
        yield
    displays = []
    for result, (tokenizer, _) in zip(results, sides):
        displays.append(chat_display(result, tokenizer))
        yield
    return ChatComparison(tuple(results), tuple(labels)), displays


class ChatPane(Pane):
    name = "chat"
    title = "Chat"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self._debounce = QTimer(self, singleShot=True, interval=150)
        self._debounce.timeout.connect(self.recompute)
        self.results: list[ChatResult] = []
        self.labels: list[str] = []  # "tokenizer / template" of each result
        self.job: Job | None = None  # the newest render job, until it ends; an older one's result is dropped
        self._busy = QTimer(self, singleShot=True, interval=BUSY_MS)
        self._busy.timeout.connect(self._on_busy_timeout)

        self.template = QComboBox()
        self.template.setAccessibleName("Template")
        self.compare = QComboBox()
        self.compare.setAccessibleName("Compare with template")
        self.generation = QCheckBox("Generation prompt")
        self.generation.setChecked(True)
        self.generation.setToolTip("End with the start of an assistant message, for the model to complete")
        for name in BUILTIN:
            self.template.addItem(name, name)
        self.compare.addItem("(none)", None)
        for name in BUILTIN:
            self.compare.addItem(name, name)
        self.compare_tokenizer = QComboBox()
        self.compare_tokenizer.setAccessibleName("Compare with tokenizer")
        self.other: Tokenizer | None = None  # the compared tokenizer, once loaded
        self._fill_compare_tokenizers()
        self.compare_tokenizer.currentIndexChanged.connect(self._on_compare_tokenizer_changed)
        session.tokenizers_changed.connect(self._fill_compare_tokenizers)
        self.template.currentIndexChanged.connect(self._debounce.start)
        self.compare.currentIndexChanged.connect(self._debounce.start)
        self.generation.toggled.connect(self._debounce.start)
        controls = FlowLayout()  # (flows onto a second line at presentation mode's font)
        labels = [QLabel("Template:"), QLabel("Compare with:")]
        for label, combo in zip(labels, (self.template, self.compare)):
            label.setBuddy(combo)  # (on Linux a screen reader names a combo box by its label)
        controls.add_together(labels[0], self.template)
        controls.addWidget(self.generation)
        controls.add_together(labels[1], self.compare, self.compare_tokenizer)
        examples, self.example_buttons = example_bar([(label, label, f"Load the {label.lower()} example")
                                                      for label in EXAMPLES], self._on_example_picked)

        self.editor = MessagesEditor()
        self.editor.messages_changed.connect(self._debounce.start)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.note = QLabel()  # why the first template is not the tokenizer's own, when it has none
        self.note.setWordWrap(True)
        self.note.hide()
        self.views = [ChatView(), ChatView()]
        views = QHBoxLayout()
        for view in self.views:
            view.set_dark(session.dark, session.palette)
            view.set_text_font(session.font)
            view.token_clicked.connect(lambda index, v=view: self._on_view_token_clicked(v, index))
            views.addWidget(view)
        self.views[1].hide()
        self.findings = QListWidget()
        self.findings.setAccessibleName("Findings")
        self.findings_label = QLabel("Findings")  # with their count; the list hides when there are none
        self.details = QLabel(HINT)  # (no accessible name: a screen reader reads its text as its name)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)  # (a token such as "<b>" is text, not markup)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.note)
        column.addWidget(self.summary)
        column.addLayout(views, 3)
        column.addWidget(self.details)
        column.addWidget(self.findings_label)
        column.addWidget(self.findings, 1)
        splitter = FittedSplitter(Qt.Orientation.Horizontal)  # (a drag: the user's widths stay)
        splitter.addWidget(self.editor)
        splitter.addWidget(right)
        splitter.setSizes([380, 800])
        self.splitter = splitter
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addLayout(controls)
        layout.addLayout(examples)
        layout.addWidget(splitter, 1)
        self.set_content(content)
        self.editor.set_messages(DEFAULT)
        session.tokenizer_changed.connect(self.take_up_tokenizer)
        session.theme_changed.connect(self._on_session_theme_changed)
        session.font_changed.connect(self._on_session_font_changed)
        if session.tokenizer is not None:
            self._on_session_tokenizer_changed(session.tokenizer)
        else:
            self.show_empty("Chat", "Pick a tokenizer to see a conversation as its model sees it.")

    def _on_session_tokenizer_changed(self, tokenizer: Tokenizer) -> None:
        """The first entry is the tokenizer's own template; "hf" is offered if it has one. Without
        one, `plain` is chosen (no control tokens the vocabulary lacks) and the note says why."""
        self.template.blockSignals(True)
        while self.template.count() > len(BUILTIN):
            self.template.removeItem(0)
        start, why = starting_template(tokenizer)
        if own_config(tokenizer) is not None:
            self.template.insertItem(0, "hf (tokenizer_config.json)", "hf")
        if not why:
            self.template.insertItem(0, f"{tokenizer.name}'s own ({start})", OWN)
        self.template.setCurrentIndex(self.template.findData(start) if why else 0)
        self.template.blockSignals(False)
        self.note.setText(why)
        self.note.setVisible(bool(why))
        self._stack.setCurrentIndex(1)
        self.recompute()

    def _fill_compare_tokenizers(self) -> None:
        current = self.compare_tokenizer.currentData()
        self.compare_tokenizer.blockSignals(True)
        self.compare_tokenizer.clear()
        self.compare_tokenizer.addItem("(same tokenizer)", None)
        choices = list(BUNDLED_TOKENIZERS) + discovered_tokenizers()
        choices += [(TRAINED_PREFIX + name, f"{name} (trained here)") for name in self.session.trained]
        for spec, label in choices:
            self.compare_tokenizer.addItem(label, spec)
        self.compare_tokenizer.setCurrentIndex(max(self.compare_tokenizer.findData(current), 0))
        self.compare_tokenizer.blockSignals(False)

    def _on_compare_tokenizer_changed(self) -> None:
        spec = self.compare_tokenizer.currentData()
        self.other = None
        if spec is None:
            self.recompute()
            return

        def loaded(tokenizer: Tokenizer) -> None:
            if self.compare_tokenizer.currentData() == spec:
                self.other = tokenizer
                self.recompute()

        def failed(message: str) -> None:
            if self.compare_tokenizer.currentData() == spec:
                self.summary.setText(f"<span style='{ERROR_STYLE}'>{escape(message, quote=False)}</span>")

        self.session.fetch_tokenizer(spec, self, loaded, key="chat-compare", on_failed=failed)

    def _on_example_picked(self, label: str) -> None:
        self.editor.set_messages(EXAMPLES[label])

    def recompute(self) -> None:
        """Render the conversation in a worker; a job started before is superseded (its key)."""
        self._debounce.stop()
        tokenizer = self.session.tokenizer
        if tokenizer is None:
            return
        messages = self.editor.messages()
        if not messages:
            self._cancel_job()
            self._show([], [], [])
            self.summary.setText("Add a message.")
            return
        chosen = [self.template.currentData() or None, self.compare.currentData()]
        other, generation = self.other, self.generation.isChecked()
        # the second side: another template, another tokenizer (with its own template), or both
        comparing = chosen[1] is not None or other is not None

        def work() -> Generator[None, None, tuple[ChatComparison, list[ChatDisplay]]]:
            sides = [(tokenizer, chosen[0])]
            if comparing:
                sides.append((other or tokenizer, compared_template(chosen[1], other, chosen[0], tokenizer)))
            return render_sides(messages, sides, generation)

        self.job = self.session.workers.start("rendering the chat", work, key=f"chat:{id(self)}")
        self.job.on("finished", self._on_job_finished)
        self.job.on("failed", self._on_job_failed)
        self._busy.start()

    def _cancel_job(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.job = None
        self._busy.stop()

    def _on_busy_timeout(self) -> None:
        if self.job is not None:
            self.summary.setText("<i>Encoding\u2026</i>")

    def _on_job_finished(self, job: Job, value: tuple[ChatComparison, list[ChatDisplay]]) -> None:
        if job is not self.job:
            return  # superseded: a newer job's result is on its way
        self.job = None
        self._busy.stop()
        comparison, displays = value
        self._show(list(comparison.results), list(comparison.labels), displays)

    def _on_job_failed(self, job: Job, message: str) -> None:
        if job is not self.job:
            return
        self.job = None
        self._busy.stop()
        self._show([], [], [])
        self.summary.setText(f"<span style='{ERROR_STYLE}'>{escape(message, quote=False)}</span>")

    def _show(self, results: list[ChatResult], labels: list[str], displays: list[ChatDisplay]) -> None:
        self.results, self.labels = results, labels
        self.findings.clear()
        self.views[1].setVisible(len(displays) > 1)
        for index, view in enumerate(self.views):
            view.show_display(displays[index] if index < len(displays) else None)
        self.summary.setText("   |   ".join(f"<b>{escape(label, quote=False)}</b>: {display.summary}"
                                           for label, display in zip(labels, displays)))
        for label, result in zip(labels, results):
            for finding in result.findings:
                prefix = f"{label}: " if len(results) > 1 else ""
                item = QListWidgetItem(f"{prefix}{finding.kind}: {finding.title}")
                item.setToolTip(finding.detail)
                self.findings.addItem(item)
        count = self.findings.count()
        self.findings_label.setText(f"Findings ({count})" if count else "Findings: none")
        self.findings.setVisible(count > 0)  # (its room goes to the tokens)
        # The first token's details until one is clicked, so the box says what it is for
        self.details.setText(self._token_details(self.views[0], 0) + "\n" + HINT if displays else HINT)

    def _on_session_theme_changed(self, dark: bool) -> None:
        for view in self.views:
            view.set_dark(dark, self.session.palette)

    def _on_session_font_changed(self, _font: object) -> None:
        for view in self.views:
            view.set_text_font(self.session.font)
        self._share_width()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._share_width()

    def _share_width(self) -> None:
        """The messages' column MESSAGE_CHARACTERS wide in the UI font, within MESSAGES_SHARE of
        the width: a larger font (presentation mode) takes a larger share, so a message's editor
        keeps room for a few words a line."""
        total = sum(self.splitter.sizes())
        if self.splitter.dragged or total <= 0:
            return
        least, most = (int(total * share) for share in MESSAGES_SHARE)
        left = max(least, min(most, MESSAGE_CHARACTERS * QFontMetrics(self.editor.font()).averageCharWidth()))
        self.splitter.setSizes([left, total - left])

    def _on_view_token_clicked(self, view: ChatView, index: int) -> None:
        if view.result is not None:
            self.details.setText(self._token_details(view, index))

    @staticmethod
    def _token_details(view: ChatView, index: int) -> str:
        """'id 128000  “<|begin_of_text|>”  control token, in the template' ('' if there is none)."""
        if view.result is None or not 0 <= index < len(view.result.encoding.tokens):
            return ""
        token = view.result.encoding.tokens[index]
        segment = view.result.prompt.segments[token.segment]
        owner = (f"message {segment.message} ({view.result.prompt.role(segment)})" if segment.message is not None
                 else "the template")
        kind = "control token" if token.control else ("text of the message" if segment.content else "template text")
        return f"id {token.id}  \u201c{token_text(token.bytes)}\u201d  {kind}, in {owner}"

    def prepare_screenshot(self, text: str | None = None) -> None:
        """A user message `text` (or the default conversation); the screenshot command waits for the
        worker, then for the view's last chunk (`busy`)."""
        if text:
            self.editor.set_messages([Message("user", text)])
        self.recompute()

    @property
    def busy(self) -> bool:
        """Whether a render is under way or its tokens are still being added to a view."""
        return self.job is not None or self._debounce.isActive() or any(view.filling for view in self.views)
