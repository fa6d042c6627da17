"""The token view's display text: visible whitespace, line breaks, long lines, built in pieces."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.core.algorithms.train import train
from explorer.core.formats.own import from_merges
from explorer.core.text.render import token_text
from explorer.ui.tokens.display import LONG_LINE, DisplayBuilder, join_pieces
from explorer.ui.tokens.wrapping import shown

TEXTS = ["One eggless mawa cake, please.\r\nEgg or egg?\rOld Mac line\n", "नमस्ते 🎂 안녕하세요 " * 20]


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    return from_merges(list(train(TEXTS * 3, 350, "cl100k", [])), "cl100k", [], name="display")


def test_line_breaks_after_newlines_and_lone_carriage_returns(tokenizer) -> None:  # type: ignore[no-untyped-def]
    text = "a\r\nb\rc\nd\r"
    ids = tokenizer.encode(text)
    piece = DisplayBuilder(tokenizer, False).piece(ids)
    shown = "".join(token_text(tokenizer.token_bytes(i)) for i in ids)
    assert piece.text.replace("\n", "") == shown.replace("\n", "")
    assert piece.text.split("\n") == ["a\u240d\u21b5", "b\u240d", "c\u21b5", "d\u240d", ""]
    assert piece.length == len(piece.text)
    assert piece.starts.tolist() == np.concatenate([[0], np.cumsum([len(t) for t in _token_texts(piece)])])[:-1].tolist()


def _token_texts(piece):  # type: ignore[no-untyped-def]
    ends = [*piece.starts.tolist()[1:], piece.length]
    return [piece.text[start:end] for start, end in zip(piece.starts.tolist(), ends)]


def test_a_carriage_return_before_the_next_piece_waits_for_it(tokenizer) -> None:  # type: ignore[no-untyped-def]
    cr, lf = tokenizer.encode("\r"), tokenizer.encode("\n")
    builder = DisplayBuilder(tokenizer, False)
    assert builder.piece(cr, following=lf[0]).text == "\u240d"  # "\r" then "\n": one line break, after ↵
    assert builder.piece(cr).text == "\u240d\n"  # a lone "\r" at the end breaks the line


def test_long_lines_are_broken_the_same_in_one_piece_or_many(tokenizer) -> None:  # type: ignore[no-untyped-def]
    ids = tokenizer.encode("x" * 9000 + "\n" + "ab " * 2000)
    whole = DisplayBuilder(tokenizer, False).piece(ids)
    builder = DisplayBuilder(tokenizer, False)
    parts = [builder.piece(ids[i:i + 777]) for i in range(0, len(ids), 777)]
    joined = join_pieces(parts)
    assert joined.text == whole.text
    assert joined.starts.tolist() == whole.starts.tolist() and joined.painted.tolist() == whole.painted.tolist()
    longest_token = max(len(token_text(tokenizer.token_bytes(i))) for i in set(ids))
    assert max(map(len, whole.text.split("\n"))) <= LONG_LINE + longest_token
    assert whole.text.count("\n") == 4  # 9,000 x: two forced breaks; the newline; 6,000 more: one


def test_ids_mode_shows_one_id_per_token(tokenizer) -> None:  # type: ignore[no-untyped-def]
    ids = tokenizer.encode("egg\negg")
    piece = DisplayBuilder(tokenizer, True).piece(ids)
    assert piece.text.split() == [str(i) for i in ids]
    assert piece.painted.tolist() == [len(str(i)) for i in ids]


def test_sentencepiece_tokens_show_spaces_bytes_and_why_a_token_has_no_merge() -> None:
    """`▁` shows as a visible space, byte-fallback tokens as hex; a single character is where
    SentencePiece's merging starts, a byte-fallback token is a byte, a control token is special."""
    from explorer.core.algorithms.incremental import TokenizedText
    from explorer.core.sources.sentencepiece import SentencePieceTokenizer
    from explorer.ui.tokens.details import token_details

    mistral = SentencePieceTokenizer.bundled("mistral_v3")
    ids = mistral.encode("Hello झ", "plain")
    assert [shown(t) for t in _token_texts(DisplayBuilder(mistral, show_ids=False).piece(ids))] == ["·Hello", "·", "<E0>", "<A4>", "<9D>"]
    state = TokenizedText(mistral, "म [INST]", "allowed")
    assert "a character (no merge)" in token_details(state, 1, mistral.forest)
    assert "special or added token" in token_details(state, 3, mistral.forest)
    assert "a byte (no merge)" in token_details(TokenizedText(mistral, "झ"), 1, mistral.forest)
