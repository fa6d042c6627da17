"""Counts with their noun: "1 token", "2 tokens", "1,024 merges" (the one helper every pane uses)."""

from __future__ import annotations


def plural(count: int, noun: str, plural_noun: str | None = None, with_count: bool = True) -> str:
    """`count` and `noun`, the noun in the plural unless the count is one.

    >>> plural(1, "token"), plural(356321, "token"), plural(2, "entry", "entries"), plural(1, "word", with_count=False)
    ('1 token', '356,321 tokens', '2 entries', 'word')
    """
    word = noun if count == 1 else (plural_noun or noun + "s")
    return f"{count:,} {word}" if with_count else word
