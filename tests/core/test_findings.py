"""Findings and counts: each kind found where it is, with the tokenizer's exact ids."""

from __future__ import annotations

import bisect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.algorithms.incremental import TokenizedText
from explorer.core.algorithms.train import train
from explorer.core.analysis import findings as F
from explorer.core.analysis.compare import boundary_differences, compare, count
from explorer.core.formats.own import from_merges
from explorer.core.text.render import shown_text, token_text

TEXTS = ["Egg or egg? An egg, eggs. The egg and the Egg. In 1969 and 2024, 600000 people watched.",
         "café e\u0301 नमस्ते 안녕하세요 <|endoftext|> 😀"] * 4


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    return from_merges(list(train(TEXTS, 500, "cl100k", ["<|endoftext|>"])), "cl100k", ["<|endoftext|>"], name="t")


def kinds(tokenizer, text: str, mode: str = "plain") -> dict[str, list[F.Finding]]:  # type: ignore[no-untyped-def]
    out: dict[str, list[F.Finding]] = {}
    for finding in F.iter_findings(TokenizedText(tokenizer, text, "plain", mode)):
        out.setdefault(finding.kind, []).append(finding)
    return out


def test_trailing_whitespace(tokenizer) -> None:  # type: ignore[no-untyped-def]
    found = kinds(tokenizer, "ends with a space ")[F.TRAILING_SPACE]
    assert [(f.start, f.end) for f in found] == [(17, 18)]
    assert F.TRAILING_SPACE not in kinds(tokenizer, "no space")


def test_special_string_has_both_readings(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = "say <|endoftext|> now"
    for mode, uses in [("allowed", "control token"), ("plain", "plain-text reading"), ("disallowed", "refuses")]:
        (finding,) = kinds(tokenizer, text, mode)[F.SPECIAL_STRING]
        assert (finding.start, finding.end) == (4, 17)
        control = tokenizer.special_tokens["<|endoftext|>"]
        assert finding.token_ids == (control, *tokenizer.encode("<|endoftext|>", "plain"))
        assert uses in finding.detail


def test_word_forms_egg(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = "Egg and egg or egg"
    (finding,) = kinds(tokenizer, text)[F.WORD_FORMS]
    assert text[finding.start:finding.end] == " egg"
    assert "Egg" in finding.title and "·egg" in finding.title


def test_counts_say_one_token_not_one_tokens() -> None:
    assert count("a", 1).summary() == "1 char · 1 byte · 1 token · 1.00 bytes/token · 1 word · 1.00 tokens/word"
    assert "2 chars · 2 bytes · 2 tokens" in count("ab", 2).summary()


def test_numbers_split(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = "In 1969 there were 600000 of 7"
    found = kinds(tokenizer, text)[F.NUMBER_SPLIT]
    spans = [text[f.start:f.end] for f in found]
    assert "600000" in spans and "7" not in spans
    six = found[spans.index("600000")]
    assert list(six.token_ids) == [t.id for t in tokenizer.encode_tokens(text, "plain") if 19 <= t.start < 25]


def test_invisible_characters(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = "a\u200bb\u00a0c\ufeffd\u00ade x\u200dy"
    found = kinds(tokenizer, text)[F.INVISIBLE]
    assert [text[f.start:f.end] for f in found] == ["\u200b", "\u00a0", "\ufeff", "\u00ad", "\u200d"]
    assert found[0].title == "Invisible character: U+200B ZERO WIDTH SPACE"


def test_direction_marks_are_invisible_characters_and_shown_by_name(tokenizer) -> None:  # type: ignore[no-untyped-def]
    """A right-to-left mark (U+200F) or override (U+202E) in a prompt reorders the text and
    changes the tokens: a finding, and shown by name, not as an empty token (a trained token
    made of U+200F alone showed as an empty cell in the Training pane)."""
    text = "price\u200f 10 \u202eabc\u202c"
    found = kinds(tokenizer, text)[F.INVISIBLE]
    assert [text[f.start:f.end] for f in found] == ["\u200f", "\u202e", "\u202c"]
    assert found[0].title == "Invisible character: U+200F RIGHT-TO-LEFT MARK"
    assert token_text("\u200f".encode()) == "\u27e8RLM\u27e9"
    assert shown_text("a\u2066b\u2069".encode(), alone=True) == "a\u27e8LRI\u27e9b\u27e8PDI\u27e9"


def test_a_zwj_inside_an_emoji_sequence_is_no_finding(tokenizer) -> None:  # type: ignore[no-untyped-def]
    """👨‍👩‍👧 (family), 👋🏽‍... (after a skin tone), 🏳️‍🌈 (after U+FE0F) are spelled with ZWJs."""
    text = "👨\u200d👩\u200d👧 🧑🏽\u200d💻 🏳\ufe0f\u200d🌈"
    assert F.INVISIBLE not in kinds(tokenizer, text)
    found = kinds(tokenizer, "👨\u200d a\u200d👩")[F.INVISIBLE]  # a ZWJ with no pictograph on one side is odd
    assert len(found) == 2


def test_one_letter_words_are_no_word_forms(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = "A cake, a cake. I said i. Egg or egg"
    found = kinds(tokenizer, text).get(F.WORD_FORMS, [])
    assert [f.title.split('"')[1] for f in found] == ["Egg"]


def test_nfc_nfd(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = "un café"
    (finding,) = kinds(tokenizer, text)[F.NORMALIZATION]
    assert text[finding.start:finding.end] == " café"
    assert "the text uses NFC" in finding.title


def test_audit_flags(tokenizer) -> None:  # type: ignore[no-untyped-def]
    state = TokenizedText(tokenizer, "Egg egg")
    flagged_id = int(state.ids[0])
    found = [f for f in F.iter_findings(state, flagged=lambda i: "unreachable" if i == flagged_id else None)
             if f.kind == F.AUDIT]
    assert [(f.start, f.token_ids) for f in found] == [(0, (flagged_id,))]


def test_counts_and_compare(tokenizer) -> None:  # type: ignore[no-untyped-def]
    counts = count("नमस्ते egg", 5)
    assert (counts.chars, counts.bytes, counts.tokens, counts.words) == (10, 22, 5, 2)
    readings, spans = compare("the egg", [tokenizer, from_merges([], "cl100k", name="bytes")])
    assert [r.counts.tokens for r in readings] == [len(tokenizer.encode("the egg")), 7]
    assert spans and spans[0][0] >= 0 and spans[-1][1] == 7
    same = readings[0].tokens.byte_boundaries()
    assert boundary_differences("the egg", [same, same]) == []


def test_audit_check_uses_the_audit_rules() -> None:
    from explorer.core.algorithms.bpe import BPE

    toy = BPE([(97, 98, 256), (98, 99, 257), (97, 257, 258)], "none")  # "abc" encodes as ab + c
    verdict = F.audit_check(toy)
    assert verdict(258) is not None and verdict(258).startswith("unreachable")
    assert verdict(256) is None and verdict(0xFF) == "impossible in UTF-8"


def spans_one_cut_at_a_time(text: str, boundaries: list[set[int]]) -> list[tuple[int, int]]:
    """boundary_differences as it was written first, a loop over the differing cuts: the reference."""
    shared = set.intersection(*boundaries)
    offsets = [i for i, char in enumerate(text) for _ in char.encode("utf-8", "surrogatepass")] + [len(text)]
    shared_sorted = sorted(shared | {0, len(offsets) - 1})
    spans: list[tuple[int, int]] = []
    for cut in sorted(set.union(*boundaries) - shared):
        i = bisect.bisect_right(shared_sorted, cut)
        low, high = shared_sorted[i - 1], min(shared_sorted[min(i, len(shared_sorted) - 1)], len(offsets) - 1)
        span = (offsets[low], offsets[high - 1] + 1 if high > low else offsets[high])
        if spans and span[0] <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], span[1]))
        else:
            spans.append(span)
    return spans


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab é\u0301नमस्ते😀\n"), max_size=40), st.data())
def test_boundary_differences_equal_the_loop_over_cuts(text: str, data: st.DataObject) -> None:
    size = len(text.encode("utf-8"))
    boundaries = [data.draw(st.sets(st.integers(0, size), max_size=size + 1)) | {0, size}
                  for _ in range(data.draw(st.integers(2, 4)))]
    assert boundary_differences(text, boundaries) == spans_one_cut_at_a_time(text, boundaries)
    arrays = [np.array(sorted(cuts)) for cuts in boundaries]
    assert boundary_differences(text, arrays) == spans_one_cut_at_a_time(text, boundaries)


def test_a_difference_inside_one_character_is_that_character() -> None:
    # Both cut the 4-byte emoji after byte 3, only one after byte 2: the span is the emoji, not empty.
    assert boundary_differences("x\U0001f468", [{0, 1, 4, 5}, {0, 1, 3, 4, 5}]) == [(1, 2)]
