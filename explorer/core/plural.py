"""Counts with their noun or unit: "1 token", "2 tokens", "1,024 merges", "3.2 MB" (the helpers every pane uses)."""

from __future__ import annotations


def plural(count: int, noun: str, plural_noun: str | None = None, with_count: bool = True) -> str:
    """`count` and `noun`, the noun in the plural unless the count is one.

    >>> plural(1, "token"), plural(356321, "token"), plural(2, "entry", "entries"), plural(1, "word", with_count=False)
    ('1 token', '356,321 tokens', '2 entries', 'word')
    """
    word = noun if count == 1 else (plural_noun or noun + "s")
    return f"{count:,} {word}" if with_count else word


def human_bytes(size: int) -> str:
    """A size in bytes as people read it, in decimal units as file managers show them.

    >>> human_bytes(1), human_bytes(999), human_bytes(12_345), human_bytes(406_000_000), human_bytes(2 * 10**9)
    ('1 byte', '999 bytes', '12.3 KB', '406.0 MB', '2.0 GB')
    """
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:,.1f} {unit}"
    return plural(size, "byte")
