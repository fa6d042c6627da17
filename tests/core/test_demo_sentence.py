"""The sentence the Training pane shows being tokenized, drawn from the corpus's start."""

from __future__ import annotations

from collections.abc import Iterator

from explorer.core.algorithms.demo_sentence import CHARS_LOOKED_AT, DEFAULT_SENTENCE, first_sentence

WANTED = "This one is long enough to show merges."


def test_a_sentence_is_drawn_from_the_first_lines() -> None:
    assert first_sentence(["A Title\n", "\n", f"Too short. {WANTED} More."]) == WANTED
    assert first_sentence([]) == DEFAULT_SENTENCE


def test_only_the_start_of_a_huge_line_is_searched() -> None:
    """The pane draws it on the window's thread when the corpus changes: a corpus of one 11 MB line
    without a sentence end was searched whole (0.5-0.8 s frozen). Past CHARS_LOOKED_AT characters
    a line is not read; its start, cut between words, stands in."""
    words = "alpha beta gamma delta " * (CHARS_LOOKED_AT // 8)
    shown = first_sentence([words + ". " + WANTED])
    assert shown != WANTED and words.startswith(shown) and 20 <= len(shown) <= 120
    assert first_sentence([words[: CHARS_LOOKED_AT - 100] + ". " + WANTED]) == WANTED  # within the start: found


def test_texts_after_a_huge_one_are_not_read() -> None:
    """A JSON Lines corpus of 10 MB records was read 200 records deep for the sentence (0.45 s on the
    window's thread); the reading now stops past TEXT_LOOKED_AT characters, before the next text."""
    from explorer.core.algorithms.demo_sentence import TEXT_LOOKED_AT

    given: list[str] = []

    def texts() -> Iterator[str]:
        for text in ["word " * (TEXT_LOOKED_AT // 4), WANTED]:
            given.append(text)
            yield text

    assert first_sentence(texts()) != WANTED and len(given) == 1
