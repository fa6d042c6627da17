"""Corpus script shares count each letter for its own script (issue 12's walk: the Corpus summary
read "CJK 78% · Other script 22%" for a Japanese text and "Other script 3%" for an emoji text)."""

from __future__ import annotations

from collections import Counter

from explorer.core.analysis.script_stats import NEUTRAL, OTHER, count_scripts


def counted(text: str) -> dict[str, int]:
    counts: Counter[str] = Counter()
    count_scripts(text, counts)
    return dict(counts)


def test_japanese_is_all_cjk_past_a_prolonged_sound_mark() -> None:
    text = "東京タワーに行きましょう、カタカナも漢字も。"  # ー is Script=Common: the run of other letters began there
    letters = sum(1 for char in text if char.isalpha())
    assert counted(text) == {"CJK": letters, NEUTRAL: len(text) - letters}


def test_a_variation_selector_or_skin_tone_is_no_letter() -> None:
    assert counted("heart ❤️‍🔥 wave 👋🏽") == {"Latin": 9, NEUTRAL: 9}


def test_a_run_of_other_letters_stops_at_a_named_script() -> None:
    assert counted("ᏣᎳᎩabcनम") == {OTHER: 3, "Latin": 3, "Devanagari": 2}
