"""Replaying a token stream: naive and buffered lanes at every step."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from explorer.core.text.streaming import StreamReplay
from explorer.core.text.utf8 import REPLACEMENT, stream_decode

NA = "न".encode()  # seed 000: two tokens, neither decodes alone


def test_na_split_in_two_tokens() -> None:
    replay = StreamReplay([NA[:2], NA[2:]])
    first, second = replay.state(1), replay.state(2)
    assert (first.naive, first.buffered, first.pending) == (REPLACEMENT, "", NA[:2])
    assert (second.naive, second.buffered, second.pending) == (REPLACEMENT * 2, "न", b"")
    assert second.replacements == 2
    assert replay.holding_steps == [1] and replay.interesting_step() == 1
    assert replay.final_text == "न"


def test_state_is_clamped_and_starts_empty() -> None:
    replay = StreamReplay([b"a", b"b"])
    assert replay.state(0).naive == "" and replay.state(0).pending == b""
    assert replay.state(99).shown == 2 and replay.state(-1).shown == 0
    assert StreamReplay([]).interesting_step() == 0


@st.composite
def cut_text(draw: st.DrawFn) -> tuple[str, list[bytes]]:
    text = draw(st.text(alphabet=st.characters(exclude_categories=["Cs"])))
    data = text.encode()
    cuts = sorted(set(draw(st.lists(st.integers(0, len(data)), max_size=12))))
    edges = [0, *cuts, len(data)]
    return text, [data[a:b] for a, b in zip(edges, edges[1:]) if b > a]


@given(cut_text())
def test_lanes_equal_stream_decode_token_by_token(case: tuple[str, list[bytes]]) -> None:
    text, tokens = case
    replay = StreamReplay(tokens)
    steps = list(stream_decode(tokens))
    for k in range(len(tokens) + 1):
        state = replay.state(k)
        assert state.naive == "".join(s.naive for s in steps[:k])
        assert state.buffered == "".join(s.emitted for s in steps[:k])
        assert state.pending == (steps[k - 1].pending if k else b"")
    assert replay.final_text == text
    assert replay.state(len(tokens)).buffered == text  # whole characters in: nothing left pending
