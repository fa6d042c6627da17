"""What the chat view shows of a rendered prompt, worked out off the GUI thread.

The prompt is laid out as rows: a label line ("#1 user", "template") wherever the message
changes, then that span's tokens, drawn as the Tokens pane draws them (the same display text,
so `▁`, byte fallback and whitespace look alike in both panes). The text is cut into chunks of
about GROUP_TOKENS tokens, so the GUI thread adds a 1 MB prompt a chunk per event-loop turn.
No widgets here: a worker runs `chat_display`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.chat import ChatResult
from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.algorithms.incremental import CUTS_END, CUTS_START, TokenFacts
from explorer.core.plural import plural
from explorer.ui.tokens.display import DisplayBuilder, DisplayPiece, headline, utf16_length
from explorer.ui.tokens.wrapping import keep_whole

GROUP_TOKENS = 4_000  # tokens per chunk the view inserts in one event-loop turn (about 12,000 characters, 5-15 ms)


@dataclass(frozen=True)
class DisplayChunk:
    """Consecutive tokens' display, and the labels inside its text: (UTF-16 offset in the chunk, length)."""

    ids: np.ndarray
    flags: np.ndarray  # the token view's marks: characters split across tokens (control tokens are outlined apart)
    control: np.ndarray  # bool per token
    piece: DisplayPiece
    labels: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ChatDisplay:
    result: ChatResult
    chunks: tuple[DisplayChunk, ...]
    summary: str  # "N tokens, M of them control tokens" (rich text: the token count a large headline)


def row_label(result: ChatResult, segment_index: int) -> str:
    prompt = result.prompt
    segment = prompt.segments[segment_index]
    return f"#{segment.message} {prompt.role(segment)}" if segment.message is not None else "template"


def chat_display(result: ChatResult, tokenizer: Tokenizer) -> ChatDisplay:
    """The rows of `result` (encoded by `tokenizer`) as display chunks: a new row wherever the message changes."""
    tokens = result.encoding.tokens
    ids, control = tokens.ids, tokens.control
    message_of = np.asarray([-1 if s.message is None else s.message for s in result.prompt.segments], np.int64)
    messages = message_of[tokens.segments]
    builder = DisplayBuilder(tokenizer, False, keep_whole)
    # a character split across tokens (byte fallback, an emoji's bytes): bracketed, its glyph after its pieces
    continues = TokenFacts(tokenizer).look_up(ids)[2]
    flags = (continues * CUTS_START | np.concatenate([continues[1:], [False]]) * CUTS_END).astype(np.uint8)
    text = result.prompt.text
    row_starts = np.flatnonzero(np.concatenate([[True], messages[1:] != messages[:-1]])).tolist() \
        if len(ids) else []
    chunks: list[DisplayChunk] = []
    for number, first in enumerate(row_starts):
        stop = row_starts[number + 1] if number + 1 < len(row_starts) else len(ids)
        for begin in range(first, stop, GROUP_TOKENS):
            end = min(begin + GROUP_TOKENS, stop)
            following = int(ids[end]) if end < len(ids) else None
            labels: tuple[tuple[int, int], ...] = ()
            prefix = ""
            if begin == first:  # the row's label on a line of its own, after the row before ends its line
                label = row_label(result, int(tokens.segments[first]))
                prefix = ("\n" if builder.line else "") + label + "\n"
                labels = ((utf16_length(prefix) - utf16_length(label) - 1, utf16_length(label)),)
                builder.line = 0
            inside_row = end < stop  # (the next chunk goes on in this row: no break before a glued token)
            piece = builder.text_piece(ids[begin:end], following if inside_row else None, text,
                                       tokens.starts[begin:end], tokens.ends[begin:end], flags[begin:end],
                                       (int(tokens.starts[end]), int(flags[end])) if inside_row else None)
            shift = utf16_length(prefix)
            chunks.append(DisplayChunk(ids[begin:end], flags[begin:end], control[begin:end],
                                       DisplayPiece(prefix + piece.text, piece.starts + shift, piece.painted,
                                                    piece.length + shift), labels))
    count = int(control.sum())
    control_tokens = plural(count, "a control token", "control tokens", with_count=False)
    summary = f"{headline(plural(len(ids), 'token'))}, {count:,} of them {control_tokens}"
    return ChatDisplay(result, tuple(chunks), summary)
