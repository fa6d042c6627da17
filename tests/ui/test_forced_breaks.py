"""A forced line break (every LONG_LINE display characters of a line without one) never falls
inside a character, not even where the display is cut into chunks: the Chat pane's chunks of
GROUP_TOKENS tokens and the Tokens lane's groups each end somewhere, and a break after a chunk's
last token used to land between two byte pieces of one emoji when the next chunk began with
the later piece."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.core.algorithms.incremental import encode_stream
from explorer.core.chat import Message
from explorer.core.chat.templates import encode_chat
from explorer.core.sources.load import load_tokenizer
from explorer.ui.chat import display as chat_display_module
from explorer.ui.tokens import display as display_module
from explorer.ui.tokens import lane as lane_module
from explorer.ui.tokens.display import DisplayBuilder, glued
from explorer.ui.tokens.wrapping import keep_whole

TEXT = "ab 🎉👋🏽 नमस्ते " * 40  # under r50k: every emoji and Devanagari letter is 2-3 byte pieces


NEWLINE = "\n".encode("utf-16-le")


def lines_starting_inside(units: bytes, starts: np.ndarray, held: np.ndarray) -> list[int]:
    """The glued tokens (a later byte piece, a first mark) whose display starts a new line;
    `units` is the display in UTF-16 (the offsets are Qt's)."""
    return [i for i in held.tolist() if starts[i] > 0 and units[2 * starts[i] - 2:2 * starts[i]] == NEWLINE]


@pytest.mark.parametrize("long_line", [24, 37, 60])
def test_a_chat_chunk_boundary_never_breaks_a_line_inside_a_character(
        monkeypatch: pytest.MonkeyPatch, long_line: int) -> None:
    tokenizer = load_tokenizer("r50k_base")
    result = encode_chat([Message("user", TEXT)], tokenizer, "plain")
    monkeypatch.setattr(display_module, "LONG_LINE", long_line)
    tokens = result.encoding.tokens
    for group in range(2, 12):
        monkeypatch.setattr(chat_display_module, "GROUP_TOKENS", group)
        shown = chat_display_module.chat_display(result, tokenizer)
        offsets = np.cumsum([0, *(chunk.piece.length for chunk in shown.chunks[:-1])])
        units = "".join(chunk.piece.text for chunk in shown.chunks).encode("utf-16-le")
        starts = np.concatenate([chunk.piece.starts + offset for chunk, offset in zip(shown.chunks, offsets)])
        flags = np.concatenate([chunk.flags for chunk in shown.chunks])
        held = glued(result.prompt.text, tokens.starts, flags)
        assert len(held)
        cut = lines_starting_inside(units, starts, held)
        assert not cut, f"GROUP_TOKENS={group}: a line starts inside a character at tokens {cut[:5]}"


@pytest.mark.parametrize("long_line", [24, 37, 60])
def test_a_lane_group_boundary_never_breaks_a_line_inside_a_character(
        monkeypatch: pytest.MonkeyPatch, long_line: int) -> None:
    tokenizer = load_tokenizer("r50k_base")
    monkeypatch.setattr(display_module, "LONG_LINE", long_line)
    for group in range(5, 30, 3):
        monkeypatch.setattr(lane_module, "GROUP_TOKENS", group)
        builder = DisplayBuilder(tokenizer, False, keep_whole)
        queued = list(lane_module._displayed(encode_stream(tokenizer, TEXT, "plain", block=64), builder, TEXT))
        pieces = [piece for *_, piece in queued]
        offsets = np.cumsum([0, *(piece.length for piece in pieces[:-1])])
        units = "".join(piece.text for piece in pieces).encode("utf-16-le")
        starts = np.concatenate([piece.starts + offset for piece, offset in zip(pieces, offsets)])
        batches = [batch for batch, *_ in queued]
        flags = np.concatenate([batch.flags for batch in batches])
        held = glued(TEXT, np.concatenate([batch.starts for batch in batches]), flags)
        assert len(held)
        cut = lines_starting_inside(units, starts, held)
        assert not cut, f"GROUP_TOKENS={group}: a line starts inside a character at tokens {cut[:5]}"
