"""Box order by the bidi algorithm and the joiners that keep letters joined across boxes."""

from __future__ import annotations

import pytest

from explorer.core.text.bidi import (ZWJ, direction, has_right_to_left, isolated, joined_pieces, joins_across,
                                     label_direction, resolve, starts_right_to_left, visual_order)


@pytest.mark.parametrize(("text", "expected"), [
    ("·مرحبا", "R"), ("שלום", "R"), ("ܫܠܡܐ", "R"), ("ߒߞߏ", "R"), ("Hello", "L"), ("नमस्ते", "L"), ("·123", "N"),
    ("١٢٣", "N"), ("، .", ""), ("؟", "R"), ("", ""),
])
def test_direction_is_the_first_strong_character(text: str, expected: str) -> None:
    assert direction(text) == expected


def test_a_paragraph_reads_from_the_right_only_when_it_starts_so() -> None:
    assert starts_right_to_left("··مرحبا Hello")
    assert not starts_right_to_left("Hello مرحبا")
    assert not has_right_to_left("日本語 नमस्ते 😀") and has_right_to_left("a ש")


def test_an_english_phrase_in_an_arabic_line_keeps_its_order() -> None:
    # مرحبا ·Hello ·world ·كيف: the Arabic from the right, the English phrase left to right between.
    kinds = ["R", "L", "L", "R"]
    assert visual_order(kinds, True) == [3, 1, 2, 0]
    assert visual_order(kinds, False) == [0, 1, 2, 3]
    # a number after Arabic goes with the Arabic; a neutral between two directions takes the paragraph's
    assert resolve(["R", "N", "", "L"], True) == ["R", "R", "R", "L"]
    assert visual_order(["R", "N", "", "L"], True) == [3, 2, 1, 0]
    assert resolve(["L", "", "R"], False) == ["L", "L", "R"]
    assert visual_order([], True) == []


def test_joiners_go_where_letters_join_across_a_cut() -> None:
    # يستمع cut ي|ست|مع: every cut joins (ي, س and ت are dual-joining)
    assert joined_pieces(["ي", "ست", "مع"]) == ["ي" + ZWJ, ZWJ + "ست" + ZWJ, ZWJ + "مع"]
    # after alef, dal or reh nothing joins; a space never joins
    assert joined_pieces(["مر", "حبا"]) == ["مر", "حبا"]
    assert joined_pieces(["·كيف", "·حالك"]) == ["·كيف", "·حالك"]
    assert joins_across("ܫ", "ܠ") and joins_across("ߒ", "ߞ")  # Syriac, N'Ko
    assert joins_across("بَ", "ت")  # a vowel mark between is transparent
    # Hebrew, Devanagari, Thai and English pieces are left as they are
    for pieces in (["של", "ום"], ["क्", "ष"], ["สวั", "สดี"], ["Hel", "lo"], ["<D8>", "<AD>"]):
        assert joined_pieces(pieces) == pieces


def test_isolated_only_wraps_right_to_left_text() -> None:
    assert isolated("·the") == "·the"
    assert isolated("·مر") == "\u2068·مر\u2069"


def test_hex_pieces_of_a_label_are_neutral() -> None:
    assert label_direction("·<D7>") == "" and label_direction("<D7 A9>") == ""
    assert label_direction("<D8>م") == "R" and label_direction("·Hello") == "L"
