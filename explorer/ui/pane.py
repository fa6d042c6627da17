"""What every pane shares: the session, and an empty state that says what to do."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent, QTextDocument, QTextOption
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSizePolicy, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.text.bidi import starts_right_to_left
from explorer.ui.flow import FlowLayout
from explorer.ui.qt_text import qt_text
from explorer.ui.session import Session
from explorer.ui.timers import call_later
from explorer.ui.zoom import add_keeping_fonts, fit_rows

LATER_MS = 50  # between the parts a pane built at once defers `later` (each in a turn of its own)
# A hidden widget's first paint is done in this many horizontal bands, one turn each: painting a
# whole pane the first time (text shaping, delegates' caches, plots' axes) froze the window 40-160 ms.
PAINT_BANDS = 4


def paint_band(widget: QWidget, band: int) -> None:
    """Paint band `band` (of PAINT_BANDS, from the top) of hidden `widget` off-screen, so that its
    first paint on screen finds its caches filled and its items laid out."""
    top, bottom = widget.height() * band // PAINT_BANDS, widget.height() * (band + 1) // PAINT_BANDS
    widget.grab(QRect(0, top, widget.width(), bottom - top))


def text_height(editor: QPlainTextEdit, most: float, width: float | None = None, characters: int | None = None) -> float:
    """Pixels of an editor's text as laid out (its margins left out), counted up to `most`: a line
    of Devanagari, Arabic or CJK from a fallback font is taller than the editor font's line
    spacing says, so QFontMetrics alone would miss it. `width`: laid out at this width instead, in
    a scratch document with the editor's font (in a resize event the editor's own layout still has
    the old width); `characters`: the first so many only. The one measure of the Tokens pane's
    prompt and the Chat pane's messages."""
    document = editor.document()
    if width is not None:
        scratch = QTextDocument()
        scratch.setDefaultFont(editor.font())
        scratch.setDocumentMargin(document.documentMargin())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        scratch.setDefaultTextOption(option)
        scratch.setPlainText(qt_text(editor.toPlainText()[:characters]))
        scratch.setTextWidth(max(width, 40))
        document = scratch
    layout, block, height = document.documentLayout(), document.begin(), 0.0
    while block.isValid() and height < most:
        height += layout.blockBoundingRect(block).height()
        block = block.next()
    return height


def align_to_text(edit: QPlainTextEdit, text: str) -> bool:
    """A text that starts in Arabic or Hebrew reads from the right: align `edit`'s lines right.
    Each line's direction and order stay Qt's bidi algorithm over the whole line (which also
    keeps letters joined across token boundaries), so an English paragraph in it still reads
    left to right. True if the alignment changed."""
    alignment = Qt.AlignmentFlag.AlignRight if starts_right_to_left(text) else Qt.AlignmentFlag.AlignLeft
    option = edit.document().defaultTextOption()
    if option.alignment() == alignment:
        return False
    option.setTextDirection(Qt.LayoutDirection.LayoutDirectionAuto)
    option.setAlignment(alignment)
    edit.document().setDefaultTextOption(option)
    return True


def editor_chrome(editor: QPlainTextEdit) -> int:
    """Pixels of an editor's frame and margins around its text."""
    return 2 * editor.frameWidth() + 2 * int(editor.document().documentMargin()) + 2


def editor_least_height(editor: QPlainTextEdit) -> int:
    """Pixels an editor of the user's text takes at its smallest: one line, and it scrolls."""
    return editor.fontMetrics().lineSpacing() + editor_chrome(editor)


def editor_height(editor: QPlainTextEdit, total: int, share: float, least_lines: int) -> int:
    """Pixels an editor of the user's text needs for its text and a line more to type into,
    between `least_lines` lines and `share` of `total` (then it scrolls); a text of up to
    `least_lines` lines is kept whole whatever the share. The Tokens pane's prompt and the
    Chunks pane's text: a one-line text in a four-line box left the boxes below less room."""
    line = editor.fontMetrics().lineSpacing()
    chrome = editor_chrome(editor)
    least = least_lines * line
    text = text_height(editor, max(total, least))
    cap = max(int(total * share), min(text, 2 * least) + chrome)
    return int(min(cap, max(least, text + line) + chrome))


def example_bar(examples: Sequence[tuple[str, str, str]],
                on_pick: Callable[[str], None]) -> tuple[FlowLayout, list[QToolButton]]:
    """A row "Examples: [label] [label] ..." whose buttons hand their text to `on_pick`.

    `examples` holds (label, text, tooltip); callers may append. The row flows onto a second
    line where the pane is too narrow for it (presentation mode's large font at 1280 px).
    """
    row = FlowLayout()
    row.setSpacing(4)
    row.addWidget(QLabel("Examples:"))
    buttons: list[QToolButton] = []
    for label, text, hint in examples:
        button = QToolButton()
        button.setText(label)
        button.setToolTip(hint)
        button.clicked.connect(lambda _=False, t=text: on_pick(t))
        row.addWidget(button)
        buttons.append(button)
    return row, buttons


class WrappingLabel(QLabel):
    """A label of the user's text (or one that names it): wraps to the width it is given, never asks
    for more, and is never cut short in height.

    A word-wrapped QLabel asks for the width of its longest unbreakable run as its minimum: a pasted
    text (tokens joined without spaces) then widens the whole window. Here the layout decides the
    width, and the minimum height is the wrapped text's height at that width, so a splitter or a
    crowded layout cannot hide the last line.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        policy = self.sizePolicy()  # (keeps the height-for-width flag setWordWrap set)
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        self.setSizePolicy(policy)
        self._width = -1

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(0, self.heightForWidth(max(1, self.width())) if self.text() else 0)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.width() != self._width:  # a new width: another height
            self._width = self.width()
            self.updateGeometry()


class EmptyState(QLabel):
    """A centred, friendly message instead of a blank area."""

    def __init__(self, title: str, hint: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setObjectName("emptyState")
        self.set_message(title, hint)

    def set_message(self, title: str, hint: str) -> None:
        self.setText(f"<h2>{title}</h2><p style='font-size:large'>{hint}</p>")


class Pane(QWidget):
    """Base for the panes: `content` holds the real view, `empty` the empty state.

    A pane may build a costly part of itself later (`defer`): when the main window builds the pane
    in the background, each such part gets an event-loop turn of its own, so no turn freezes the
    window for the whole pane; built any other way (on demand, in a test) the part is built at
    once, in the constructor, as if it were not deferred (or, deferred `later`, on a timer just
    after). A pane the main window hands out is whole (`finish_building`).

    A new current tokenizer reaches a pane through `take_up_tokenizer`: a pane hidden in a shown
    window takes it up as one more deferred part, so the main window hands it to one pane per
    turn (see MainWindow), and a pane shown or used first has it at once."""

    name = "pane"
    title = "Pane"
    _in_steps = False  # while the main window builds a pane in the background (see built_in_steps)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._deferred: list[Callable[[], None]] = []
        self._stack = QStackedWidget(self)
        self.empty = EmptyState(self.title, "")
        self._stack.addWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._stack)
        if hasattr(self, "set_text"):  # a pane that shows a text takes one sent from another pane
            session.text_sent.connect(self._on_session_text_sent)

    @staticmethod
    @contextmanager
    def built_in_steps() -> Iterator[None]:
        """Panes built inside this keep their deferred parts for `build_next_part` (the main
        window's background builder; on the GUI thread only, so a class attribute is enough)."""
        Pane._in_steps = True
        try:
            yield
        finally:
            Pane._in_steps = False

    def defer(self, part: Callable[[], None], later: bool = False) -> None:
        """Build `part` in a later step when built in steps, else now, or with `later` on a timer
        after the constructor's turn. A part builds widgets and then catches up with the session
        (font, theme, tokenizer) itself: signals that arrive before it is built must not need it."""
        if Pane._in_steps or later:
            self._deferred.append(part)
            if not Pane._in_steps and len(self._deferred) == 1:
                call_later(self, self._build_later, LATER_MS)
        else:
            part()

    def _build_later(self) -> None:
        if self.build_next_part() and self._deferred:
            call_later(self, self._build_later, LATER_MS)

    def build_next_part(self) -> bool:
        """Build the next deferred part; False if none was left."""
        if not self._deferred:
            return False
        self._deferred.pop(0)()
        fit_rows(self)  # (the main window fitted the tables the pane had when it was built)
        return True

    def finish_building(self) -> None:
        """Every deferred part built: before the pane is shown or used from outside."""
        while self.build_next_part():
            pass

    @property
    def has_deferred_parts(self) -> bool:
        return bool(self._deferred)

    def take_up_tokenizer(self, tokenizer: Tokenizer | None) -> None:
        """The session's `tokenizer_changed`, for the pane's `_on_session_tokenizer_changed`: at once
        if the pane is shown or its window is not, else in a deferred part of its own (every pane
        taking a trained tokenizer up in the turn it was published froze the window 50-70 ms: the
        prompt re-encoded, the bytes table refilled, the vocabulary reset). The part takes up
        whichever tokenizer is current by then: two changes in a row cost one take-up."""
        if self.isVisible() or not self.window().isVisible():
            self._on_session_tokenizer_changed(tokenizer)  # type: ignore[attr-defined]
        elif self._catch_up_tokenizer not in self._deferred:
            self._deferred.append(self._catch_up_tokenizer)

    def _catch_up_tokenizer(self) -> None:
        self._on_session_tokenizer_changed(self.session.tokenizer)  # type: ignore[attr-defined]

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        if self._catch_up_tokenizer in self._deferred:  # (shown some other way than by the main window, which finishes it first)
            self._deferred.remove(self._catch_up_tokenizer)
            self._catch_up_tokenizer()
        super().showEvent(event)

    def _on_session_text_sent(self, pane: str, text: str) -> None:
        if pane == self.name:
            self.set_text(text)  # type: ignore[attr-defined]

    def set_content(self, widget: QWidget) -> None:
        add_keeping_fonts(self._stack, widget)  # (fonts a pane gave its views before this stay)
        self._stack.setCurrentWidget(widget)

    def show_empty(self, title: str, hint: str) -> None:
        self.empty.set_message(title, hint)
        self._stack.setCurrentWidget(self.empty)

    def prepare_screenshot(self, text: str | None) -> None:
        """Hook for `tokenizer-explorer screenshot --pane NAME [--text T]` (explorer/ui/screenshot.py).

        Called once the pane is built, sized and shown, with the session's tokenizer already set
        (`--tokenizer`) and `text` from `--text`/`--file` (None if neither was given). Put the pane
        in a state worth a picture: show the text, run the first step, select something. Start
        slow work through `session.workers` as usual; the command waits until no worker has run
        for 300 ms, then grabs the pane. The default does nothing: the pane shows its own state.
        """

    def show_content(self) -> None:
        if self._stack.count() > 1:
            self._stack.setCurrentIndex(1)


class PlaceholderPane(Pane):
    """A pane that is not built yet: it says what it will do and how to get there."""

    def __init__(self, session: Session, name: str, title: str, hint: str) -> None:
        self.name, self.title = name, title
        super().__init__(session)
        self.show_empty(title, hint)
