"""Shared fixtures: small texts in many scripts. Corpora for tests are made by tests/corpora.py."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

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


@pytest.fixture(scope="module", autouse=True)
def module_caches_freed(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test module's own `@cache` helpers (its loaded tokenizers and references) are emptied when
    the module ends: kept for the rest of the run, they added up to GBs in the one pytest process."""
    yield
    module = request.module
    for value in list(vars(module).values()):
        if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == module.__name__:
            value.cache_clear()
    gc.collect()
