"""What a piece of text cut out of a longer one shows: whole graphemes as themselves, cut ones as labels."""

from __future__ import annotations

from explorer.core.text.graphemes import grapheme_bounds, shown_piece, shown_text

FLAG = "\U0001F1FA\U0001F1E6"
FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
KEYCAP = "1\ufe0f\u20e3"


def shown(text: str, start: int, end: int) -> str:
    return shown_piece(text, start, end, grapheme_bounds(text)).text


def test_whole_graphemes_are_drawn_as_themselves() -> None:
    text = f" {FLAG} {FAMILY} नमस्ते {KEYCAP}\n"
    assert shown(text, 0, len(text)) == f"·{FLAG}·{FAMILY}·नमस्ते·{KEYCAP}↵"
    assert shown_text(text, 0, len(text), grapheme_bounds(text)) == shown(text, 0, len(text))


def test_a_cut_flag_shows_its_code_points() -> None:
    text = f"x{FLAG}y"
    assert shown(text, 0, 2) == "xU+1F1FA" and shown(text, 2, 4) == "U+1F1E6y"
    assert shown("\U0001F1FA", 0, 1) == "U+1F1FA"  # a lone indicator has no glyph either


def test_a_cut_family_names_its_joiners_and_a_cut_keycap_its_marks() -> None:
    assert shown(FAMILY, 0, 2) == "\U0001F468ZWJ"
    assert shown(FAMILY, 1, 2) == "ZWJ"
    assert shown(KEYCAP, 1, 3) == "VS16 U+20E3"  # not a keycap drawn around the label's last letter
    assert shown(KEYCAP, 2, 3) == "U+20E3"  # nor an empty keycap on its own
    assert shown("नमस्ते", 3, 4) == "\u094d"  # a vowel sign alone: the font's dotted circle says enough


def test_offsets_are_utf16_units() -> None:
    text = f" {FLAG}\n"
    piece = shown_piece(text, 0, len(text), grapheme_bounds(text))
    assert piece.units == (0, 1, 3, 5, 6)  # each regional indicator is two UTF-16 units
    assert piece.muted == ((0, 1), (5, 1))  # the · and the ↵, never half a surrogate pair
    cut = shown_piece(text, 0, 2, grapheme_bounds(text))
    assert cut.text == "·U+1F1FA" and cut.units == (0, 1, 8) and cut.muted == ((0, 1), (1, 7))
