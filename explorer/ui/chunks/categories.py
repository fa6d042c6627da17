"""One colour and one short tag per kind of chunk (letters, digits, punctuation...), in every column.

Colours follow the label of the alternative that matched ("letters"), not its position in the
pattern: GPT-2's first alternative is the contraction, GPT-4o's the letters, yet side by side
both show letters in the same colour. The hues come from the View menu's palette (explorer.ui.theme
KIND_HUES: Okabe-Ito and Paul Tol's muted ones in the colour-blind palette), mixed towards the
background so the text on them stays readable.
"""

from __future__ import annotations

import html
import zlib

from PySide6.QtGui import QColor

from explorer.core.pretokenization.pretokenize import GAP_LABEL
from explorer.ui.theme import kind_hue

# (label as describe_alternative names it, hue's role in explorer.ui.theme.KIND_HUES, tag drawn in
# the box): in the shared legend's order.
CATEGORIES: tuple[tuple[str, str, str], ...] = (
    ("letters", "blue", "L"),
    ("letters, lower-case end", "cyan", "Ll"),
    ("letters, upper-case", "navy", "Lu"),
    ("contraction", "orange", "'"),
    ("digits", "green", "N"),
    ("punctuation", "yellow", "P"),
    ("spaces before a word", "teal", "S"),
    ("whitespace", "grey", "W"),
    ("trailing whitespace", "red", "T"),
    ("newlines", "purple", "NL"),
    ("whole text", "sand", "*"),
)
_HUES = {label: hue for label, hue, _ in CATEGORIES}
_TAGS = {label: tag for label, _, tag in CATEGORIES}
ORDER = {label: index for index, (label, _, _) in enumerate(CATEGORIES)}
# Custom patterns' alternatives (named after their regex): a stable hue from the label's text.
_OTHER_HUES = ("#882255", "#AA4499", "#117733", "#332288", "#661100", "#6699CC", "#888888", "#999933")


def _mix(color: QColor, other: QColor, amount: float) -> QColor:
    """`color` moved `amount` of the way towards `other`."""
    return QColor(*(round(a + (b - a) * amount) for a, b in ((color.red(), other.red()),
                                                             (color.green(), other.green()),
                                                             (color.blue(), other.blue()))))


def hue(label: str) -> QColor:
    """In the palette chosen in the View menu (explorer.ui.theme)."""
    if label in _HUES:
        return kind_hue(_HUES[label])
    return QColor(_OTHER_HUES[zlib.crc32(label.encode("utf-8")) % len(_OTHER_HUES)])


def category_color(label: str, dark: bool) -> QColor:
    """The fill of a chunk box of this kind: the hue mixed towards the theme's background (lighter()
    would turn the pale hues white; this keeps each distinct)."""
    if label == GAP_LABEL:
        return QColor("#5a1f1f") if dark else QColor("#fde4e4")
    background = QColor("#17181a") if dark else QColor("#ffffff")
    return _mix(hue(label), background, 0.58 if dark else 0.6)


def category_border(label: str, dark: bool) -> QColor:
    fill = category_color(label, dark)
    return fill.lighter(190) if dark else fill.darker(150)


def category_tag(label: str) -> str:
    """The few letters drawn in a box's corner ("L", "N", "P"), empty for custom alternatives
    (their colour, the legend and the tooltip name them)."""
    return "gap" if label == GAP_LABEL else _TAGS.get(label, "")


def legend_order(labels: set[str]) -> list[str]:
    """Known kinds in their fixed order, then custom ones alphabetically."""
    return sorted(labels, key=lambda label: (ORDER.get(label, len(ORDER)), label))


def legend_html(labels: set[str], dark: bool, accent: QColor, gaps: bool) -> str:
    """The shared legend: a swatch with its tag per kind, then the gap and boundary marks."""
    entries = []
    for label in legend_order(labels - {GAP_LABEL}):
        fill, border, tag = category_color(label, dark), category_border(label, dark), category_tag(label)
        entries.append(f"<span style='background:{fill.name()}; border:1px solid {border.name()}'>"
                       f"&nbsp;{html.escape(tag) or '&nbsp;'}&nbsp;</span>&nbsp;{_unbroken(label)}")
    if gaps:
        entries.append(f"<span style='color:#b00020'>▨&nbsp;gap</span>&nbsp;{_unbroken('not matched')}")
    entries.append(f"<span style='color:{accent.name()}'>▌</span>&nbsp;{_unbroken('boundary other patterns lack')}")
    return "&nbsp;&nbsp; ".join(entries)


def _unbroken(text: str) -> str:
    """An entry's words kept on one line: the legend wraps between entries, never inside one
    ("spaces before a" at a line's end, "word" at the next's start)."""
    return html.escape(text).replace(" ", "&nbsp;").replace("-", "\u2011")  # (a non-breaking hyphen: "upper-case")
