"""GPT-2's byte-to-character table, which Hugging Face byte-level tokenizers store tokens in.

Printable bytes stand for themselves; the rest are shifted to U+0100 and up, so a space is `Ġ`.
"""

from __future__ import annotations

from functools import cache


@cache
def byte_to_char() -> tuple[str, ...]:
    """byte value -> the character that stands for it in tokenizer.json files."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table: dict[int, str] = {b: chr(b) for b in printable}
    shifted = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + shifted)
            shifted += 1
    return tuple(table[b] for b in range(256))


@cache
def char_to_byte() -> dict[str, int]:
    return {c: b for b, c in enumerate(byte_to_char())}


def to_chars(data: bytes) -> str:
    """Bytes as a tokenizer.json token string (`b' cat'` -> `'Ġcat'`)."""
    table = byte_to_char()
    return "".join(table[b] for b in data)


def from_chars(text: str) -> bytes:
    """A tokenizer.json token string back to bytes; raises KeyError on a non-byte-level character."""
    table = char_to_byte()
    return bytes(table[c] for c in text)


@cache
def hf_byte_order() -> tuple[int, ...]:
    """byte value -> its position when the 256 characters are sorted by code point.

    Hugging Face's trainer numbers its initial alphabet in that order and breaks ties
    between equally frequent pairs by the smaller ids, so we need it to agree with it.
    """
    chars = byte_to_char()
    order = sorted(range(256), key=lambda b: ord(chars[b]))
    position = [0] * 256
    for index, b in enumerate(order):
        position[b] = index
    return tuple(position)
