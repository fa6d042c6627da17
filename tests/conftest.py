"""Shared fixtures: the corpora beside the repository, small texts in many scripts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
SHARED_CORPORA = REPO.parent / "shared" / "corpora"

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


def corpus_path(name: str) -> Path:
    path = SHARED_CORPORA / name
    if not path.exists():
        pytest.skip(f"{path} is missing: the shared corpora live beside the repository")
    return path


def corpus_lines(name: str, limit_bytes: int) -> list[str]:
    """The first `limit_bytes` of a shared corpus, one text per line with its ending."""
    data = corpus_path(name).read_bytes()[:limit_bytes]
    text = data.decode("utf-8", errors="ignore")
    return [line for line in text.split("\n")[:-1]] and [line + "\n" for line in text.split("\n")[:-1]]
