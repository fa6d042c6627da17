"""WCAG contrast maths: the published reference values."""

from __future__ import annotations

import pytest

from explorer.core.contrast import contrast_ratio, relative_luminance


def test_reference_values() -> None:
    assert relative_luminance("#000000") == 0.0
    assert relative_luminance("#ffffff") == pytest.approx(1.0)
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # WebAIM's classic "just fails"
    assert contrast_ratio("#ffffff", "#767676") == pytest.approx(4.54, abs=0.01)  # and "just passes"


def test_a_bad_colour_says_what_was_wrong() -> None:
    with pytest.raises(ValueError, match="#rrggbb"):
        relative_luminance("red")
