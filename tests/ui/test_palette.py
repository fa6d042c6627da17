"""Every token colour in every palette and theme: readable text, not near the page, far from the others."""

from __future__ import annotations

import itertools

import pytest

from explorer.core.contrast import MARK_CONTRAST, TEXT_CONTRAST, contrast_ratio, distance
from explorer.ui.theme import BASE, PALETTE_NAMES, TEXT, token_color, token_colors

CASES = [(name, dark) for name in PALETTE_NAMES for dark in (False, True)]


@pytest.mark.parametrize(("name", "dark"), CASES)
def test_text_on_every_token_colour_reads_at_4_5(name: str, dark: bool) -> None:
    for color in token_colors(dark, name):
        assert contrast_ratio(TEXT[dark], color.name()) >= TEXT_CONTRAST, (name, dark, color.name())


@pytest.mark.parametrize(("name", "dark"), CASES)
def test_no_token_colour_is_near_the_page(name: str, dark: bool) -> None:
    """A near-white token on a white page (or near-black on black) reads as no token at all."""
    for color in token_colors(dark, name):
        assert contrast_ratio(BASE[dark], color.name()) >= 1.3, (name, dark, color.name())


@pytest.mark.parametrize(("name", "dark"), CASES)
def test_token_colours_are_far_apart(name: str, dark: bool) -> None:
    colors = [c.name() for c in token_colors(dark, name)]
    assert len(set(colors)) == 8
    assert min(distance(a, b) for a, b in itertools.combinations(colors, 2)) >= 34, (name, dark)


@pytest.mark.parametrize(("name", "dark"), CASES)
def test_the_boundary_mark_stands_out_from_every_token(name: str, dark: bool) -> None:
    """The mark at a token's start is the text colour: as visible as the text on any token."""
    for color in token_colors(dark, name):
        assert contrast_ratio(TEXT[dark], color.name()) >= MARK_CONTRAST


def test_a_token_keeps_its_colour_and_the_palettes_differ() -> None:
    assert token_color(15496, True).name() == token_color(15496, True).name()
    assert [c.name() for c in token_colors(False)] != [c.name() for c in token_colors(False, "colour-blind")]
    assert token_color(5, False, "nonsense").name() == token_color(5, False).name()
