"""Ready-made texts that show the famous differences between pre-tokenizer patterns (seeds 000-002)."""

from __future__ import annotations

# (button label, text, what to look for)
EXAMPLES: list[tuple[str, str, str]] = [
    ("HOW'S vs how's", "HOW'S it going? how's it going? I'M fine, I'm fine.",
     "GPT-2 splits HOW'S into three pieces but how's into two; GPT-4 handles both alike."),
    ("Long number", "Order 1234567890 shipped; pi is 3.14159 and 8,100,000,000 people.",
     "GPT-2 swallows a long digit run whole; GPT-4 and GPT-4o cut digits in groups of three."),
    ("Python indentation", "def area(r):\n    if r < 0:\n        raise ValueError(r)\n    return 3.14159 * r ** 2\n",
     "How each pattern groups indentation: GPT-2 was bad at Python because of it."),
    ("Trailing spaces", "Hello world   \nThe prompt ends with a space ",
     "A space before a word joins the word; a trailing space is left alone, off-distribution."),
    ("dog. dog! dog?", "dog. dog! dog? dog, dog; the dog's dogs.",
     "The split keeps punctuation out of words, so BPE never learns dog. dog! dog? as tokens."),
    ("Mixed scripts", "Hello नमस्ते 안녕하세요 こんにちは مرحبا Привет 🎂👋🏽 42",
     "Letters of every script are \\p{L}; Devanagari vowel signs are marks (\\p{M}), which GPT-2 cuts off."),
]

DEFAULT_TEXT = "HOW'S it going? how's it going?\nOrder 1234567 costs 3.14  \n    return dog.name!\nनमस्ते 안녕 🎂"
