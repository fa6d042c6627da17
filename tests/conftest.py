"""Shared fixtures: small texts in many scripts. Corpora for tests are made by tests/corpora.py."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]

HARD_CASES = [
    "",
    "hello world",
    "Hello, WORLD! How's it going? I'M fine, you'll see.",
    "नमस्ते दुनिया, मावा केक 🎂",
    "안녕하세요 👋 세계",
    "日本語のテキストと中文文本。",
    "مرحبا بالعالم",
    "👨‍👩‍👧‍👦 family, 👍🏽 thumbs, 🇺🇦 flag",
    "e\u0301 vs \u00e9, a\u0308\u0304 stacked",
    "tabs\tand\r\nCRLF\rCR\n\n\nnewlines   ",
    "In 1969, 600,000,000 people watched. 3.14159 1234567890",
    " " * 3000 + "x",
    "a" * 5000,
    "\u200b\ufeff\u00ad\u00a0 invisible",
    "    def f(x):\n        return x  # comment\n",
    "\x00 NUL and \x7f DEL",
]
