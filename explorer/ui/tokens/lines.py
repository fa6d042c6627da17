"""The token view's line layout: a line ends between two tokens, never inside one.

The wrapping marks (wrapping.py) tell Qt where it may break, and Qt keeps to them except in a
Thai run: there it hands the line breaks to libthai, which breaks before a Thai word whatever
the marks say (`·ยินดี` wraps after its `·`). So the layout itself is checked: a block that Qt
laid out with a line ending inside a token is laid out again, that line ending at the token's
start instead (`QTextLine.setNumColumns`). A token wider than a whole line still breaks where
Qt breaks it, and is shown with a box on each line it takes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QTextBlock, QTextDocument, QTextLine

from explorer.ui.timers import call_later
from explorer.ui.tokens.wrapping import BREAK

# (first, last) display positions -> the starts of the tokens that reach into them, in order
# (the first may start before `first`), and the end of the last token known.
Starts = Callable[[int, int], tuple[np.ndarray, int]]


class LineFitter:
    """Ends the lines of a QPlainTextEdit's blocks between tokens (see the module docstring).

    Qt lays blocks out lazily, in C++; the view asks, before it reads a block's geometry (painting,
    hit tests, its height), that the block be fitted. Overriding the layout's virtual
    `blockBoundingRect` instead would call into Python for each of the hundreds of times Qt asks
    for a block's rectangle, each one waiting for the interpreter lock while a worker tokenizes
    (a 1 MB paste then took half as long again). A fitted block carries `key` (the view's width,
    font and alignment) in its user state, so a block is checked once per layout of it.
    """

    def __init__(self, document: QTextDocument, starts: Starts) -> None:
        self.document = document
        self._starts = starts
        self._size_changed = False

    def ensure(self, block: QTextBlock, key: int) -> bool:
        """Fit `block` unless it was fitted for `key`; True if its lines changed."""
        if block.userState() == key:
            return False
        layout = self.document.documentLayout()
        if not block.layout().lineCount():
            layout.blockBoundingRect(block)  # (Qt lays the block out)
        block.setUserState(key)
        return self.fit(block)

    def forget(self, position: int) -> None:
        """Text was inserted at display position `position`: its block is to be fitted again. (The
        blocks the insertion made are new, and new blocks carry no key; Qt laid them out, if at
        all, before their tokens were known.)"""
        self.document.findBlock(position).setUserState(-1)

    def fit(self, block: QTextBlock) -> bool:
        """Lay `block` out again if a line of it ends inside a token; True if it was."""
        layout = block.layout()
        position, length = block.position(), block.length() - 1
        ends = [line.textStart() + line.textLength() for line in map(layout.lineAt, range(layout.lineCount() - 1))]
        if not ends:
            return False
        starts, known = self._starts(position, position + length)
        document = self.document

        def inside(end: int) -> int | None:  # (positions in the block)
            start = _inside(starts, position + end, known, document)
            return None if start is None else start - position

        if all(inside(end) is None for end in ends):
            return False
        margin = document.documentMargin()
        width = layout.lineAt(0).width()  # (what Qt laid it out to: the viewport's width less the margins)
        lines_before = document.lineCount()
        layout.beginLayout()  # as QPlainTextDocumentLayout lays a block out, with the line ends moved
        height = 0.0
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLeadingIncluded(True)
            line.setLineWidth(width)
            _end_between_tokens(line, width, length, inside)
            line.setPosition(QPointF(margin, height))
            height += line.height() + (math.ceil(line.leading()) if line.leading() < 0 else 0)
        layout.endLayout()
        block.setLineCount(layout.lineCount() if block.isVisible() else 0)
        if document.lineCount() != lines_before and not self._size_changed:
            self._size_changed = True  # (the scroll bars follow once, after the layout that asked)
            call_later(document, self._emit_size_changed)
        return True

    def _emit_size_changed(self) -> None:
        self._size_changed = False
        layout = self.document.documentLayout()
        layout.documentSizeChanged.emit(layout.documentSize())


def _inside(starts: np.ndarray, at: int, known: int, document: QTextDocument) -> int | None:
    """Where the token starts that a line ending at display position `at` would cut, or None when
    `at` is between tokens: at a token's start, or just after its zero-width break mark."""
    if at >= known:
        return None  # (text whose tokens the view has not been given yet)
    index = int(np.searchsorted(starts, at, side="right")) - 1
    if index < 0:
        return None
    start = int(starts[index])
    if start == at or start + 1 == at and document.characterAt(start) == BREAK:
        return None
    return start


def _end_between_tokens(line: QTextLine, width: float, length: int, inside: Callable[[int], int | None]) -> None:
    """End `line`, laid out to `width`, at the start of the token it would cut. Laid out with
    `setNumColumns(n)` a line holds n clusters (Qt breaks anywhere when no break fits), so the
    largest n that ends it at or before the token's start is searched for; if that ends it in
    an earlier token, that token's start is aimed at next. A line with no token start to end
    at (one token wider than the line) is left as Qt laid it out."""
    start = line.textStart()
    end = start + line.textLength()
    target = inside(end) if end < length else None
    if target is None or target <= start:
        return
    high = target - start  # characters: at least as many as clusters
    while target is not None and target > start:
        low, best = 1, 0
        while low <= high:  # the largest column count whose line ends by `target`
            middle = (low + high) // 2
            line.setNumColumns(middle, width)
            if start + line.textLength() <= target:
                best, low = middle, middle + 1
            else:
                high = middle - 1
        if not best:
            break
        line.setNumColumns(best, width)
        end = start + line.textLength()
        target, high = inside(end), best - 1
    if target is not None:
        line.setLineWidth(width)
