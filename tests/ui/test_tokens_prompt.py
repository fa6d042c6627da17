"""The prompt keeps its own line endings while the editor (which has only "\\n") is edited."""

from __future__ import annotations

import random

import pytest

from explorer.ui.tokens.prompt import Prompt, shown

PIECES = ["a", "egg ", "\r\n", "\r", "\n", "👋", "नम", "\u2029", "\t", "한"]


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_line_endings_survive_an_edit_elsewhere() -> None:
    prompt = Prompt("one\r\ntwo\rthree\nfour")
    assert prompt.shown == "one\ntwo\nthree\nfour"
    assert prompt.follow("one\ntwo!\nthree\nfour")
    assert prompt.text == "one\r\ntwo!\rthree\nfour"
    assert not prompt.follow("one\ntwo!\nthree\nfour")


def test_new_lines_take_the_prompts_line_ending() -> None:
    prompt = Prompt("a\r\nb")
    prompt.follow("a\nb\nc")
    assert prompt.text == "a\r\nb\r\nc"
    plain = Prompt("ab")
    plain.follow("a\nb")
    assert plain.text == "a\nb"


def test_a_lone_cr_never_pairs_with_a_new_lf() -> None:
    prompt = Prompt("x\ry\nz")
    prompt.follow("x\n\nz")  # "y" deleted: still two line breaks, not one "\r\n"
    assert shown(prompt.text) == "x\n\nz"
    prompt = Prompt("x\r")
    prompt.replace(2, 2, "\ny")
    assert shown(prompt.text) == "x\n\ny"


def test_positions_map_to_the_editor_and_back() -> None:
    text = "a👋\r\nनम\rb👋\n"
    prompt = Prompt(text)
    for index in range(len(text) + 1):
        if index > 0 and text[index - 1:index + 1] == "\r\n":
            continue  # inside a line ending: not a place the editor has
        position = prompt.to_editor(index)
        assert position == utf16(shown(text[:index]))
        assert prompt.from_editor(position) == index
    inside_emoji = prompt.to_editor(1) + 1
    assert prompt.from_editor(inside_emoji) == 1  # rounds down to the emoji's start


@pytest.mark.parametrize("seed", range(8))
def test_random_edits_keep_text_and_editor_in_step(seed: int) -> None:
    rng = random.Random(seed)
    prompt = Prompt("".join(rng.choice(PIECES) for _ in range(40)))
    for _ in range(150):
        editor = prompt.shown
        start = rng.randrange(len(editor) + 1)
        end = min(len(editor), start + rng.choice([0, 0, 1, 3]))
        typed = "".join(rng.choice(["x", "\n", "👋", " "]) for _ in range(rng.choice([0, 1, 2])))
        before = prompt.text[:max(0, prompt.to_text(start) - 1)]  # what lies well before the edit stays
        if rng.random() < 0.3:
            pasted = "".join(rng.choice(PIECES) for _ in range(rng.randrange(4)))
            prompt.replace(start, end, pasted)
            expected_editor = editor[:start] + shown(pasted) + editor[end:]
        else:
            expected_editor = editor[:start] + typed + editor[end:]
            prompt.follow(expected_editor)
        assert prompt.shown == expected_editor == shown(prompt.text)
        assert prompt.text.startswith(before)
        fresh = Prompt(prompt.text)
        assert prompt._crlf.tolist() == fresh._crlf.tolist()
        assert prompt._astral.tolist() == fresh._astral.tolist()
