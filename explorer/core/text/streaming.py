"""Replaying a token stream one token at a time, as a chat client receives generated text.

`utf8.stream_decode` gives, per token, what a naive decoder prints (each token decoded alone)
and what a buffered decoder prints (bytes held back until a character completes). A replay
answers "what does each lane show after k tokens?" for the Bytes pane's Step/Play controls.
It also knows where seed 004's strict naive decode (no `errors="replace"`) would have raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from explorer.core.algorithms.tutorial_bugs import DecodeFailure, naive_decode_failure
from explorer.core.text.utf8 import REPLACEMENT, StreamStep, stream_decode


@dataclass(frozen=True, slots=True)
class LaneState:
    """Both lanes after `shown` tokens; the `*_parts` hold one string per token shown."""

    shown: int
    naive_parts: tuple[str, ...]
    buffered_parts: tuple[str, ...]
    pending: bytes  # what the buffered decoder holds back now
    strict_failure: DecodeFailure | None = None  # where a strict naive decode raised, among the tokens shown

    @property
    def naive(self) -> str:
        return "".join(self.naive_parts)

    @property
    def buffered(self) -> str:
        return "".join(self.buffered_parts)

    @property
    def replacements(self) -> int:
        """U+FFFD the naive lane printed: every one is a token that cut a character."""
        return self.naive.count(REPLACEMENT)


class StreamReplay:
    """The decoded lanes of a token sequence at every step.

    >>> replay = StreamReplay([b"\\xe0\\xa4", b"\\xa8!"])
    >>> state = replay.state(1)
    >>> state.naive, state.buffered, state.pending
    ('\\ufffd', '', b'\\xe0\\xa4')
    >>> replay.state(2).buffered
    'न!'
    """

    def __init__(self, token_bytes: Sequence[bytes]) -> None:
        self.token_bytes = list(token_bytes)
        self.steps: list[StreamStep] = list(stream_decode(self.token_bytes))
        self.strict_failure = naive_decode_failure(self.token_bytes)

    def __len__(self) -> int:
        return len(self.steps)

    def state(self, shown: int) -> LaneState:
        """The lanes after the first `shown` tokens (0 = nothing yet; clamped to the length)."""
        shown = max(0, min(shown, len(self.steps)))
        steps = self.steps[:shown]
        pending = steps[-1].pending if steps else b""
        failure = self.strict_failure if self.strict_failure is not None and self.strict_failure.index < shown else None
        return LaneState(shown, tuple(s.naive for s in steps), tuple(s.emitted for s in steps), pending, failure)

    @cached_property
    def final_text(self) -> str:
        """What the buffered decoder has printed after the last token, flushed."""
        tail = self.steps[-1].pending.decode("utf-8", errors="replace") if self.steps else ""
        return "".join(s.emitted for s in self.steps) + tail

    @cached_property
    def holding_steps(self) -> list[int]:
        """Step counts (1-based `shown`) after which the buffered decoder holds bytes back."""
        return [s.index + 1 for s in self.steps if s.pending]

    def interesting_step(self) -> int:
        """A mid-stream step worth a screenshot: bytes pending and a U+FFFD already printed, else the middle."""
        holding = self.holding_steps
        if holding:
            return holding[len(holding) // 2]
        return max(1, len(self.steps) // 2) if self.steps else 0
