"""A short, dismissable first-run tour: one card per pane, pointing at the part it describes.

The card sits inside the window beside its target, never over it; a spotlight dims the rest of
the window and an arrow runs from the card to the target.
"""

from __future__ import annotations

import html
import re
import math

from PySide6.QtCore import QEvent, QObject, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPalette, QPen, QPolygonF, QRegion
from PySide6.QtWidgets import QCheckBox, QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.ui.session import Session
from explorer.ui.timers import call_later

SHOWN_KEY = "tour/shown"
# (pane, title, text); TARGETS names the widget of that pane the card points at.
STOPS = [
    ("tokens", "Tokens", "Type or paste a prompt: every token is coloured, with visible spaces (·) and newlines (↵). "
     "Hover a token for its id, bytes and parents; the Findings list points at what is odd (a trailing space, "
     "<|endoftext|> in the text, a number split in pieces)."),
    ("corpus", "Corpus", "The text a tokenizer learns from: add your own files or folders, or pick Samples (a story "
     "in four languages, some Python), then compare what each tokenizer costs per language on the Efficiency tab."),
    ("training", "Training", "Press Train to learn merges from the corpus and watch them stream in, or Step (F9) "
     "and Play (F8) to show them one at a time. The result appears in the toolbar picker."),
    ("merges", "Merges", "Every token of the vocabulary, with the tree of merges that built it down to the "
     "bytes, and a step-by-step trace of how a word is encoded."),
    ("chunks", "Chunks", "Before BPE, a regex cuts text into chunks and merges never cross them. Compare GPT-2, "
     "GPT-4 and GPT-4o side by side."),
    ("bytes", "Bytes", "The UTF-8 bytes and bits of each character, the tokens over them, and a token-by-token "
     "stream where a naive decoder prints U+FFFD. F5 is presentation mode; Ctrl +/- zooms."),
    ("chat", "Chat", "A conversation as the model sees it: the chat template's control tokens drawn inverted, "
     "each message's tokens labelled, and findings such as a control string typed in a message."),
]


TARGETS = {"tokens": "editor", "corpus": "add_files_button", "training": "start_button", "merges": "table_view",
           "chunks": "splitter", "bytes": "strip_scroll", "chat": "editor"}
# Where a card goes when beside its target is not the best place: below the Tokens prompt is the
# token lane the card talks about, so that card waits in the bottom corner (over the details).
CORNER_FIRST = {"tokens"}
GAP = 28  # between the card and its target: room for the arrow
MARGIN = 12


class Spotlight(QWidget):
    """Dims the window except the target, rings the target and draws an arrow from the card to it.
    Clicks pass through: the user may try the widget the card describes."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.target = QRect()
        self.card = QRect()

    def point_at(self, target: QRect, card: QRect) -> None:
        self.target, self.card = target, card
        self.setGeometry(self.parentWidget().rect())
        self.update()

    def arrow(self) -> tuple[QPointF, QPointF]:
        """From the card's edge nearest the target to the target's edge (window coordinates)."""
        card, target = QRectF(self.card), QRectF(self.target.adjusted(-4, -4, 4, 4))
        start = _edge_point(card, target.center())
        return start, _edge_point(target, start)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        hole = QPainterPath()
        hole.addRoundedRect(QRectF(self.target.adjusted(-4, -4, 4, 4)), 6, 6)
        painter.save()
        painter.setClipRegion(QRegion(self.rect()).subtracted(QRegion(self.target.adjusted(-4, -4, 4, 4))))
        painter.fillRect(self.rect(), QColor(0, 0, 0, 110))
        painter.restore()
        accent = self.palette().color(QPalette.ColorRole.Highlight)
        painter.setPen(QPen(accent, 3))
        painter.drawPath(hole)
        start, end = self.arrow()
        painter.drawLine(start, end)
        angle = math.atan2(end.y() - start.y(), end.x() - start.x())
        head = [end, *(end - QPointF(math.cos(angle + d) * 14, math.sin(angle + d) * 14) for d in (-0.45, 0.45))]
        painter.setBrush(accent)
        painter.drawPolygon(QPolygonF(head))


def _edge_point(rect: QRectF, toward: QPointF) -> QPointF:
    """Where the line from `rect`'s centre to `toward` leaves `rect`."""
    centre = rect.center()
    dx, dy = toward.x() - centre.x(), toward.y() - centre.y()
    if dx == 0 and dy == 0:
        return centre
    scale = min(rect.width() / 2 / abs(dx) if dx else math.inf, rect.height() / 2 / abs(dy) if dy else math.inf)
    scale = min(scale, 1.0)
    return QPointF(centre.x() + dx * scale, centre.y() + dy * scale)


def place_card(size: tuple[int, int], target: QRect, area: QRect, corner_first: bool = False) -> QRect:
    """The card's rectangle inside `area`: beside `target` (right, left, below, above: the first
    that fits; with `corner_first` the bottom-left corner before those), else wherever it covers
    the least of the target."""
    width, height = size
    inner = area.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)

    def clamp(x: int, y: int) -> QRect:
        x = max(inner.left(), min(x, inner.right() - width + 1))
        y = max(inner.top(), min(y, inner.bottom() - height + 1))
        return QRect(x, y, width, height)

    middle_y = target.center().y() - height // 2
    middle_x = target.center().x() - width // 2
    candidates = [clamp(target.right() + GAP, middle_y), clamp(target.left() - GAP - width, middle_y),
                  clamp(middle_x, target.bottom() + GAP), clamp(middle_x, target.top() - GAP - height)]
    if corner_first:
        candidates.insert(0, clamp(inner.left(), inner.bottom()))
    for card in candidates:
        if not card.intersects(target.adjusted(-8, -8, 8, 8)):
            return card
    corners = [clamp(inner.right(), inner.bottom()), clamp(inner.left(), inner.bottom()),
               clamp(inner.right(), inner.top()), clamp(inner.left(), inner.top())]

    def covered(card: QRect) -> int:
        overlap = card.intersected(target)
        return overlap.width() * overlap.height() if overlap.isValid() else 0
    return min(candidates + corners, key=covered)


class Tour(QDialog):
    """The tour's card. With a window to point into, it is a child of that window (no window
    manager decides where it goes); alone, it is an ordinary dialog."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Welcome to Tokenizer Explorer")
        self.setObjectName("tourCard")
        self.spotlight: Spotlight | None = None
        if parent is not None:
            self.setWindowFlags(Qt.WindowType.Widget)
            self.setAutoFillBackground(True)
            self.setFrameStyle()
            self.spotlight = Spotlight(parent)
            self.spotlight.hide()
            parent.installEventFilter(self)
        self.index = 0
        self.heading = QLabel()
        # "1 of 7" in a label of its own, in the UI font: a <small> in the heading stayed below
        # presentation mode's least size, and no layout check can see a size set inside rich text
        self.step = QLabel()
        self.step.setObjectName("tourStep")
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.again = QCheckBox("Show this tour at the next start")
        self.back_button = QPushButton("Back")
        self.next_button = QPushButton("Next")
        self.next_button.setDefault(True)
        close = QPushButton("Close")
        self.back_button.clicked.connect(lambda: self.go(self.index - 1))
        self.next_button.clicked.connect(self._on_next_clicked)
        close.clicked.connect(self.accept)
        buttons = QHBoxLayout()
        buttons.addWidget(self.again)
        buttons.addStretch(1)
        for button in (self.back_button, self.next_button, close):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.step)
        layout.addWidget(self.body, 1)
        layout.addLayout(buttons)
        self.finished.connect(self._on_finished)
        self.go(0)

    def setFrameStyle(self) -> None:  # noqa: N802 (a card, not a window: a border of its own)
        self.setStyleSheet("QDialog#tourCard { border: 2px solid palette(highlight); border-radius: 8px; "
                           "background: palette(window); }")

    def go(self, index: int) -> None:
        self.index = max(0, min(index, len(STOPS) - 1))
        pane, title, text = STOPS[self.index]
        self.heading.setText(f"<h2>{title}</h2>")
        self.step.setText(f"{self.index + 1} of {len(STOPS)}")
        self.body.setText(f"<p style='font-size:large'>{_unbroken_tokens(html.escape(text))}</p>")
        self.back_button.setEnabled(self.index > 0)
        self.next_button.setText("Done" if self.index == len(STOPS) - 1 else "Next")
        self.session.show_pane(pane)
        self.place()
        call_later(self, self.place)  # again once the pane just shown is laid out

    def target(self) -> QWidget | None:
        """The widget the current card describes, if the tour points into a window."""
        window = self.parentWidget()
        panes = getattr(window, "panes", None)
        if panes is None:
            return None
        name = STOPS[self.index][0]
        pane = panes[name]
        widget = getattr(pane, TARGETS.get(name, ""), None)
        return widget if isinstance(widget, QWidget) and widget.isVisible() else pane

    def target_rect(self) -> QRect:
        """The target's rectangle in the window's coordinates."""
        target, window = self.target(), self.parentWidget()
        if target is None or window is None:
            return QRect()
        return QRect(target.mapTo(window, target.rect().topLeft()), target.size()).intersected(window.rect())

    def place(self) -> None:
        window = self.parentWidget()
        if self.spotlight is None or window is None:
            return
        width, height = self.card_size(window.rect().adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN).size())
        self.resize(width, height)
        target = self.target_rect()
        card = place_card((self.width(), self.height()), target, window.rect(), STOPS[self.index][0] in CORNER_FIRST)
        self.setGeometry(card)
        self.spotlight.point_at(target, card)
        if self.isVisible():
            self.spotlight.show()
            self.spotlight.raise_()
            self.raise_()

    def card_size(self, room: QSize) -> tuple[int, int]:
        """The card's size: its body about 50 characters wide (in characters, not pixels: at 20 pt
        a 460 px body cut the text after four lines) and at most half the room, wider when that
        would be taller than `room`,
        and as tall as the text wrapped at the width the body really gets. The height is worked out
        for the card's width with the body free to fill it: a body narrower than the buttons row
        (the normal font) was given a height for the card's width and lost its last lines."""
        layout = self.layout()
        margins = layout.contentsMargins()
        sides = margins.left() + margins.right()
        em = max(1, self.body.fontMetrics().averageCharWidth())
        self.body.setMinimumWidth(0)
        widest = max(1, room.width())
        width = min(max(min(50 * em + sides, widest // 2), layout.minimumSize().width()), widest)
        height = layout.totalHeightForWidth(width)
        while height > room.height() and width < widest:  # taller than the window: wider, fewer lines
            width = min(widest, width + 10 * em)
            height = layout.totalHeightForWidth(width)
        return width, height

    def showEvent(self, event: object) -> None:  # noqa: N802
        super().showEvent(event)  # type: ignore[arg-type]
        self.place()

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        # A zoom reaches the card's labels after the window's own re-layout placed the card: its
        # text got taller, so the card must too.
        if event.type() == QEvent.Type.LayoutRequest and self.isVisible() and self.spotlight is not None:
            window = self.parentWidget()
            room = window.rect().adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN).size()
            if self.card_size(room) != (self.width(), self.height()):
                self.place()
        return handled

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest) and self.isVisible():
            self.place()
        return False

    def _on_next_clicked(self) -> None:
        if self.index == len(STOPS) - 1:
            self.accept()
        else:
            self.go(self.index + 1)

    def _on_finished(self, _result: int) -> None:
        if self.spotlight is not None:
            self.spotlight.hide()
            self.spotlight.deleteLater()
            self.spotlight = None
            if self.parentWidget() is not None:
                self.parentWidget().removeEventFilter(self)
        self.session.settings.store.setValue(SHOWN_KEY, not self.again.isChecked())
        self.session.show_pane("tokens")


def _unbroken_tokens(text: str) -> str:
    """Special tokens kept on one line: the card wrapped "<|" at a line's end, "endoftext|>" on the next."""
    # (a word joiner after each bar, where lines may break: Qt ignores white-space:nowrap on a span)
    return re.sub(r"&lt;\|[^|]*\|&gt;", lambda found: found.group().replace("|", "|\u2060"), text)


def should_show(session: Session) -> bool:
    return str(session.settings.store.value(SHOWN_KEY, "false")).lower() not in ("true", "1")
