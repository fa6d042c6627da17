"""Texts for the Bytes pane: the seeds' examples of characters that take several bytes."""

from __future__ import annotations

# Seed 004's order. The seed quotes the English message; the Hindi is our translation of it.
ENGLISH_ORDER = "One eggless mawa cake for Saturday, please."
HINDI_ORDER = "शनिवार के लिए एक एगलेस मावा केक, प्लीज़।"

# (button label, text, what to look for)
EXAMPLES: list[tuple[str, str, str]] = [
    ("मावा केक 🎂", "मावा केक 🎂", "Seed 004: 10 characters, 27 bytes: Devanagari takes 3 bytes a letter, the emoji 4."),
    ("न", "न", "Seed 000: one letter, three bytes; in many tokenizers two tokens, neither decodable alone."),
    ("Hindi order", HINDI_ORDER, "Seed 004's order in Hindi: compare its tokens with the English reference."),
    ("English order", ENGLISH_ORDER, "Seed 004's order in English: the reference for the cost ratio."),
    ("안녕 👋", "안녕 👋", "Seed 002: Korean syllables take 3 bytes, the emoji 4."),
    ("Emoji sequences", "👍🏽 👨‍👩‍👧 🇮🇳", "One visible emoji can be several code points joined: skin tone, ZWJ, flags."),
    ("é two ways", "é = é", "The same letter precomposed (1 code point) and combined (e + U+0301)."),
]

DEFAULT_TEXT = EXAMPLES[0][1]
