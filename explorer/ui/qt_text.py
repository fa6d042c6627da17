"""Python text handed to Qt whole, a leading byte order mark included.

PySide6 reads a str that starts with U+FEFF as UTF-16 with a byte order mark, and drops it; one
that starts with U+FFFE it reads as byte-swapped, and every character after comes out swapped
('\\ufffeab' becomes '愀戀'). A prompt copied from a file saved with a BOM lost its first
character in the editor, while its tokens (the BOM's among them) still counted it. Prefixed with
one U+FEFF, which the conversion takes as the mark, the text arrives as it is.
"""

from __future__ import annotations

_MARKS = ("\ufeff", "\ufffe")


def qt_text(text: str) -> str:
    """`text`, ready to be passed to any Qt call that takes a string.

    >>> qt_text("\\ufeffhi") == "\\ufeff\\ufeffhi", qt_text("hi")
    (True, 'hi')
    """
    return "\ufeff" + text if text.startswith(_MARKS) else text
