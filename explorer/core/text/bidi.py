"""Right-to-left text and joining scripts, for views that draw pieces of a text as separate boxes.

A text shaped whole gets its direction and its joined letter forms from the font and the Unicode
bidi algorithm; a view that draws each chunk or token in its own box loses both. These helpers
give the box order of a line (the bidi algorithm's reordering, with each box as one unit) and the
zero-width joiners that keep a letter's joined form when its neighbour is drawn in another box.
No Qt here.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import regex

ZWJ = "\u200d"
# Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, ... and their
# presentation forms): a text without any needs no bidi work at all.
_RIGHT_TO_LEFT = regex.compile(r"[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\U00010800-\U00010FFF\U0001E800-\U0001EFFF]")
# A letter that joins to the letter after it (dual-joining, or a join-causing tatweel) and one
# that joins to the letter before it (dual- or right-joining), in logical order.
_JOINS_NEXT = regex.compile(r"\p{Joining_Type=Dual_Joining}|\p{Joining_Type=Join_Causing}|\p{Joining_Type=Left_Joining}")
_JOINS_PREVIOUS = regex.compile(r"\p{Joining_Type=Dual_Joining}|\p{Joining_Type=Join_Causing}|\p{Joining_Type=Right_Joining}")
_TRANSPARENT = regex.compile(r"\p{Joining_Type=Transparent}+")
_HEX_PIECE = regex.compile(r"<[0-9A-F]{2}(?: [0-9A-F]{2})*>")  # a token's partial bytes as shown (core/render.py)


def has_right_to_left(text: str) -> bool:
    """True if `text` has a letter of a right-to-left script (a quick test before any bidi work)."""
    return text.isascii() is False and _RIGHT_TO_LEFT.search(text) is not None


def direction(text: str) -> str:
    """'R' or 'L' for the first strong character of `text` (the Unicode rule for a paragraph's
    direction), 'N' for a text of digits and neutrals that has a digit, '' for neutrals only.

    >>> direction("·مرحبا"), direction("Hello"), direction("·123"), direction("، ")
    ('R', 'L', 'N', '')
    """
    number = False
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return "R"
        if kind == "L":
            return "L"
        number = number or kind in ("EN", "AN")
    return "N" if number else ""


def label_direction(label: str) -> str:
    """`direction` of a token as shown, its hex pieces neutral: `<D7>` is half a Hebrew letter,
    not a Latin word, and goes where the letters around it go.

    >>> label_direction("·<D7>"), label_direction("<D7>ש"), label_direction("<F0 9F>a")
    ('', 'R', 'L')
    """
    return direction(_HEX_PIECE.sub("", label) if "<" in label else label)


def starts_right_to_left(text: str) -> bool:
    """The text reads from the right: its first strong character is right-to-left. (Reads up to
    that character only: cheap on every keystroke in a 1 MB prompt.)"""
    return direction(text) == "R"


def resolve(kinds: Sequence[str], right_to_left: bool) -> list[str]:
    """The direction ('R' or 'L') each unit of one line takes, the units being of direction
    `kinds[i]` (see `direction`) in a paragraph that reads from the right if `right_to_left`.

    The bidi algorithm at the level of units: a number takes the direction of the strong unit
    before it, a neutral that of its neighbours when they agree, else the paragraph's.

    >>> resolve(["R", "", "N", "L", "", "L"], True)
    ['R', 'R', 'R', 'L', 'L', 'L']
    """
    base = "R" if right_to_left else "L"
    resolved: list[str] = []
    previous = base
    for kind in kinds:
        if kind == "N":
            kind = previous
        if kind:
            previous = kind
        resolved.append(kind)
    before = [base] * len(resolved)  # the strong direction before each unit
    for index in range(1, len(resolved)):
        before[index] = resolved[index - 1] or before[index - 1]
    following = base
    for index in range(len(resolved) - 1, -1, -1):
        if resolved[index]:
            following = resolved[index]
        else:
            resolved[index] = before[index] if before[index] == following else base
    return resolved


def visual_order(kinds: Sequence[str], right_to_left: bool) -> list[int]:
    """The left-to-right order of units (boxes) of one line (see `resolve`): units against the
    paragraph's direction form runs that keep their own order.

    >>> visual_order(["R", "R", "", "R"], True)
    [3, 2, 1, 0]
    >>> visual_order(["R", "R", "L", "L", "R"], True)
    [4, 2, 3, 1, 0]
    >>> visual_order(["L", "R", "R", "L"], False)
    [0, 2, 1, 3]
    """
    if right_to_left:
        levels = [1 if kind == "R" else 2 for kind in resolve(kinds, True)]
    else:
        levels = [1 if kind == "R" else 0 for kind in resolve(kinds, False)]
    order = list(range(len(kinds)))
    for level in range(max(levels, default=0), 0, -1):  # reverse every run at this level or above
        index = 0
        while index < len(order):
            if levels[order[index]] >= level:
                end = index
                while end < len(order) and levels[order[end]] >= level:
                    end += 1
                order[index:end] = order[index:end][::-1]
                index = end
            else:
                index += 1
    return order


def joins_forward(text: str) -> bool:
    """The last letter of `text` joins a letter after it (Arabic, Syriac, N'Ko, Mongolian...)."""
    text = _TRANSPARENT.sub("", text[-4:]) if text else ""  # (a vowel mark is transparent)
    return bool(text) and _JOINS_NEXT.fullmatch(text[-1]) is not None


def joins_backward(text: str) -> bool:
    """The first letter of `text` joins a letter before it."""
    text = _TRANSPARENT.sub("", text[:4]) if text else ""
    return bool(text) and _JOINS_PREVIOUS.fullmatch(text[0]) is not None


def joins_across(before: str, after: str) -> bool:
    """True if the last letter of `before` and the first of `after` join: drawn in two boxes,
    each needs a zero-width joiner on that side to keep its form.

    >>> joins_across("مر", "حبا"), joins_across("مرح", "با"), joins_across("با", "لعا")
    (False, True, False)
    """
    return joins_forward(before) and joins_backward(after)


def joined_pieces(texts: Sequence[str]) -> list[str]:
    """`texts` (consecutive pieces of one text, each drawn on its own) with a zero-width joiner on
    each side where a letter joins its neighbour in the next piece, so each keeps its joined form.

    >>> joined_pieces(["مرح", "با"]) == ["مرح" + ZWJ, ZWJ + "با"]
    True
    """
    out = list(texts)
    for index in range(len(texts) - 1):
        if joins_across(texts[index], texts[index + 1]):
            out[index] += ZWJ
            out[index + 1] = ZWJ + out[index + 1]
    return out


def isolated(text: str) -> str:
    """`text` as a first-strong isolate (U+2068 ... U+2069) when it holds right-to-left letters: a
    token quoted in a sentence (`merge #5: ·<D9> + <85> → ·م`) then keeps its place and its own
    order, and the sentence its direction. Other text is returned as it is.

    >>> isolated("·the"), isolated("·م") == "\\u2068·م\\u2069"
    ('·the', True)
    """
    return f"\u2068{text}\u2069" if has_right_to_left(text) else text
