"""Per-character facts for the Bytes pane: code points, names, scripts, bytes and bit roles."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from explorer.core.text.chars import bit_groups, char_name, count, describe, script_of, scripts_used_with, visible
from tests.conftest import HARD_CASES


def test_seed_002_table_rows() -> None:
    """Seed 002: English one byte, Korean three, emoji four; the lead bits say how many."""
    rows = {c.char: c for c in describe("h안👋")}
    assert (rows["h"].code_point, rows["h"].hex) == ("U+0068", "68")
    assert (rows["안"].code_point, rows["안"].hex) == ("U+C548", "EC 95 88")
    assert (rows["👋"].code_point, rows["👋"].hex) == ("U+1F44B", "F0 9F 91 8B")
    assert [[(g.bits, g.role) for g in groups] for groups in rows["안"].bits] == [
        [("1110", "lead3"), ("1100", "payload")],
        [("10", "continuation"), ("010101", "payload")],
        [("10", "continuation"), ("001000", "payload")],
    ]
    assert [g.role for g in bit_groups(ord("h"))] == ["ascii", "payload"]
    assert bit_groups(0xC3)[0].bits == "110" and bit_groups(0xF0)[0].bits == "11110"


def test_seed_000_na_is_three_bytes_in_devanagari() -> None:
    (na,) = describe("न")
    assert (na.code_point, na.name, na.script, na.hex) == ("U+0928", "DEVANAGARI LETTER NA", "Devanagari", "E0 A4 A8")
    assert int(na.payload, 2) == 0x928


@given(st.text())
def test_payload_bits_spell_the_code_point_and_bytes_tile_the_text(text: str) -> None:
    infos = describe(text)
    assert b"".join(i.data for i in infos) == text.encode("utf-8", errors="surrogatepass")
    for info in infos:
        assert info.byte_end - info.byte_start == len(info.data)
        if not 0xD800 <= ord(info.char) <= 0xDFFF:
            assert int(info.payload, 2) == ord(info.char)
        for byte, groups in zip(info.data, info.bits):
            assert "".join(g.bits for g in groups) == f"{byte:08b}"


def test_scripts_of_the_seed_texts() -> None:
    assert [script_of(c) for c in "aमा안日🎂 1"] == ["Latin", "Devanagari", "Devanagari", "Hangul", "Han", "Common",
                                                     "Common", "Common"]
    assert script_of("\u0301") == "Inherited"
    assert script_of("𐌀") == "Old Italic"  # found through the regex module's table, with readable spaces
    assert "Devanagari" in scripts_used_with("।")
    assert scripts_used_with("न") == ()


def test_names_of_controls_and_unassigned() -> None:
    assert char_name("\n") == "<control> LINE FEED"
    assert char_name("\x01") == "<control> 0001"
    assert char_name("\ue000") == "<private use>"
    assert char_name("\U000e0fff") == "<unassigned>"
    assert char_name("🎂") == unicodedata.name("🎂")


@given(st.text())
def test_visible_keeps_one_character_per_character(text: str) -> None:
    shown = visible(text)
    assert len(shown) == len(text)
    assert " " not in shown and "\n" not in shown and "\t" not in shown


def test_visible_uses_the_house_convention() -> None:
    assert visible("a b\tc\n") == "a·b→c↵"
    assert visible("\x00\x1b") == "␀␛"


def test_counts_and_cost_ratio() -> None:
    counts = count("मावा केक 🎂", tokens=27, reference_tokens=9)  # seed 004's numbers
    assert (counts.chars, counts.bytes) == (10, 27)
    assert counts.bytes_per_token == 1.0 and counts.cost_ratio == 3.0
    assert count("abc").cost_ratio is None and count("abc", 2, 0).cost_ratio is None


def test_hard_cases_describe_without_error() -> None:
    for text in HARD_CASES:
        assert len(describe(text)) == len(text)
        assert all(info.name and info.script for info in describe(text[:50]))


def test_glyph_names_invisible_characters() -> None:
    from explorer.core.text.chars import glyph

    assert [glyph(c) for c in "a \u200d\ufe0f\U000e0067\u2028\u200f\u3000"] == \
        ["a", "·", "ZWJ", "VS16", "TAG", "LS", "RLM", "⍽"]  # (one table of names with the token view's)
