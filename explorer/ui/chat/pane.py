"""The Chat pane: messages on the left; on the right the prompt a template makes of them, as
tokens with the template's control tokens marked and each message's span labelled, the findings,
and, if asked, a second template's rendering beside it.

Rendering a conversation takes milliseconds, so it runs on the GUI thread after a short pause in
typing; a template error is shown in place of the tokens."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QSplitter,
                               QVBoxLayout, QWidget)

from explorer.core.chat import BUILTIN, ChatResult, Message, default_template
from explorer.core.chat.compare import compare_chats, compared_template
from explorer.core.chat.templates import own_config
from explorer.core.errors import ExplorerError
from explorer.core.render import token_text
from explorer.core.tokenizer import Tokenizer
from explorer.ui.chat.messages_editor import MessagesEditor
from explorer.ui.chat.view import ChatView
from explorer.ui.pane import Pane, example_bar
from explorer.ui.picker import BUNDLED as BUNDLED_TOKENIZERS
from explorer.ui.picker import discovered_tokenizers
from explorer.ui.session import TRAINED_PREFIX, Session

DEFAULT = [Message("system", "You are a helpful assistant."), Message("user", "What is the capital of France?"),
           Message("assistant", "Paris."), Message("user", "And of Italy?")]
EXAMPLES = {
    "Turns": DEFAULT,
    "Typed control string": [Message("user", "Ignore this <|im_end|> and <|eot_id|> and [INST] please")],
    "Trailing space": [Message("user", "Complete this sentence: The sky is ")],
}
OWN = ""  # the template combo's data for "the tokenizer's own"


class ChatPane(Pane):
    name = "chat"
    title = "Chat"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self._debounce = QTimer(self, singleShot=True, interval=150)
        self._debounce.timeout.connect(self.recompute)
        self.results: list[ChatResult] = []
        self.labels: list[str] = []  # "tokenizer / template" of each result

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
        controls = QHBoxLayout()
        for widget in (QLabel("Template:"), self.template, self.generation, QLabel("Compare with:"), self.compare,
                       self.compare_tokenizer):
            controls.addWidget(widget)
        controls.addStretch(1)
        examples, self.example_buttons = example_bar([(label, label, f"Load the {label.lower()} example")
                                                      for label in EXAMPLES], self._on_example_picked)

        self.editor = MessagesEditor()
        self.editor.messages_changed.connect(self._debounce.start)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.views = [ChatView(), ChatView()]
        views = QHBoxLayout()
        for view in self.views:
            view.token_clicked.connect(lambda index, v=view: self._on_view_token_clicked(v, index))
            views.addWidget(view)
        self.views[1].hide()
        self.findings = QListWidget()
        self.findings.setAccessibleName("Findings")
        self.details = QLabel("Click a token to see what it is. Control tokens are drawn inverted.")
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.summary)
        column.addLayout(views, 3)
        column.addWidget(self.details)
        column.addWidget(self.findings, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.editor)
        splitter.addWidget(right)
        splitter.setSizes([380, 800])
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addLayout(controls)
        layout.addLayout(examples)
        layout.addWidget(splitter, 1)
        self.set_content(content)
        self.editor.set_messages(DEFAULT)
        session.tokenizer_changed.connect(self._on_session_tokenizer_changed)
        session.theme_changed.connect(lambda _dark: self.recompute())
        if session.tokenizer is not None:
            self._on_session_tokenizer_changed(session.tokenizer)
        else:
            self.show_empty("Chat", "Pick a tokenizer to see a conversation as its model sees it.")

    def _on_session_tokenizer_changed(self, tokenizer: Tokenizer) -> None:
        """The first entry is the tokenizer's own template; "hf" is offered if it has one."""
        self.template.blockSignals(True)
        while self.template.count() > len(BUILTIN):
            self.template.removeItem(0)
        try:
            own = default_template(tokenizer)
        except ExplorerError:
            own = None
        if own_config(tokenizer) is not None:
            self.template.insertItem(0, "hf (tokenizer_config.json)", "hf")
        self.template.insertItem(0, f"{tokenizer.name}'s own ({own})" if own else "(no own template)", OWN)
        self.template.setCurrentIndex(0 if own else self.template.findData("chatml"))
        self.template.blockSignals(False)
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

        self.session.fetch_tokenizer(spec, loaded, key="chat-compare")

    def _on_example_picked(self, label: str) -> None:
        self.editor.set_messages(EXAMPLES[label])

    def recompute(self) -> None:
        self._debounce.stop()
        tokenizer = self.session.tokenizer
        if tokenizer is None:
            return
        messages = self.editor.messages()
        chosen = [self.template.currentData() or None, self.compare.currentData()]
        self.results = []
        self.findings.clear()
        if not messages:
            self.summary.setText("Add a message.")
            for view in self.views:
                view.show_result(None, self.session.dark)
            return
        # the second side: another template, another tokenizer (with its own template), or both
        comparing = chosen[1] is not None or self.other is not None
        self.labels = []
        try:
            sides = [(tokenizer, chosen[0])]
            if comparing:
                template = compared_template(chosen[1], self.other, chosen[0], tokenizer)
                sides.append((self.other or tokenizer, template))
            comparison = compare_chats(messages, sides, self.generation.isChecked())
            self.results, self.labels = list(comparison.results), list(comparison.labels)
        except ExplorerError as exc:
            self.summary.setText(f"<span style='color:#c0392b'>{exc}</span>")
            self.results = []
        self.views[1].setVisible(comparing)
        for index, view in enumerate(self.views):
            view.show_result(self.results[index] if index < len(self.results) else None, self.session.dark)
        if self.results:
            self.summary.setText("   |   ".join(self._summary(label, result)
                                               for label, result in zip(self.labels, self.results)))
        for label, result in zip(self.labels, self.results):
            for finding in result.findings:
                prefix = f"{label}: " if len(self.results) > 1 else ""
                item = QListWidgetItem(f"{prefix}{finding.kind}: {finding.title}")
                item.setToolTip(finding.detail)
                self.findings.addItem(item)

    @staticmethod
    def _summary(label: str, result: ChatResult) -> str:
        tokens = result.encoding.tokens
        control = sum(token.control for token in tokens)
        return f"<b>{label}</b>: {len(tokens):,} tokens, {control:,} of them control tokens"

    def _on_view_token_clicked(self, view: ChatView, index: int) -> None:
        if view.result is None:
            return
        token = view.result.encoding.tokens[index]
        segment = view.result.prompt.segments[token.segment]
        owner = (f"message {segment.message} ({view.result.prompt.role(segment)})" if segment.message is not None
                 else "the template")
        kind = "control token" if token.control else ("text of the message" if segment.content else "template text")
        self.details.setText(f"id {token.id}  \u201c{token_text(token.bytes)}\u201d  {kind}, in {owner}")

    def prepare_screenshot(self, text: str | None = None) -> None:
        """A user message `text` (or the default conversation), rendered at once."""
        if text:
            self.editor.set_messages([Message("user", text)])
        self.recompute()
