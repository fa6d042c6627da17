"""Seed 004's bugs beside the fixes: the naive encode in the Merges trace, the naive decode in the Bytes stream."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.core.algorithms.train import train
from explorer.core.formats.own import from_merges
from explorer.ui.session import Session
from tests.core.test_train import BAKERY
from tests.ui.test_merges import open_pane

BAKERY_TOKENIZER = from_merges(list(train([BAKERY], 256 + 30, "none", rules="minbpe")), "none", name="bakery")


def test_naive_encode_beside_the_trace_stops_on_the_seeds_key_error(qtbot: QtBot, session: Session) -> None:
    pane = open_pane(qtbot, session, BAKERY_TOKENIZER)
    trace = pane.trace_panel
    trace.set_text("Your cake is late.")
    assert trace.naive.isHidden()
    trace.naive_check.setChecked(True)
    assert not trace.naive.isHidden()
    assert "0 naive steps" in trace.naive.status.text()
    trace.go_to(trace.total)
    assert "KeyError: (89, 111)" in trace.naive.status.text() and "b&#x27;Yo&#x27;" not in trace.naive.status.text()
    assert "b'Yo' was never learned" in trace.naive.status.text()
    assert len(trace.naive.strip.tokens_shown()) == len("Your cake is late.")  # it never merged anything
    assert "Same as encoding the text" in trace.status.text()  # the real trace beside it is right
    trace.naive_check.setChecked(False)
    assert trace.naive.isHidden()


def test_naive_encode_that_merges_out_of_order(qtbot: QtBot, session: Session) -> None:
    pane = open_pane(qtbot, session, BAKERY_TOKENIZER)
    trace = pane.trace_panel
    trace.naive_check.setChecked(True)
    trace.set_text("our our")  # 'ou' and 'r ' are learned: the naive encode applies some merges, then fails
    trace.go_to(trace.total)
    naive = trace.naive.naive
    assert naive is not None and naive.trace.steps and naive.failure.startswith("KeyError")
    assert "Naive step" in trace.naive.status.text()


def test_strict_naive_decode_in_the_bytes_stream_raises_where_the_seed_does(qtbot: QtBot, session: Session) -> None:
    from explorer.ui.bytes import create_pane as create_bytes_pane

    pane = create_bytes_pane(session)
    qtbot.addWidget(pane)
    session.set_tokenizer(BAKERY_TOKENIZER, "trained:bakery")
    pane.set_text("Your मावा")  # no Hindi in the bakery replies: every Devanagari byte is its own token
    lanes = pane.lanes
    pane.reset()
    pane.step()
    assert lanes.naive_text == "Your "
    lanes.strict.setChecked(True)
    assert lanes.naive_title.text().startswith("<b>Naive, strict")
    pane.step()  # the first byte of म, alone
    message = "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe0 in position 0: unexpected end of data"
    assert lanes.naive_text == f"Your  {message}"
    assert "raised at token 2" in lanes.status.text()
    for _ in range(len(pane.tokens)):
        pane.step()
    assert lanes.buffered_text == "Your मावा"  # the fix beside it: join the bytes, then decode
    lanes.strict.setChecked(False)
    assert lanes.naive_text.startswith("Your \ufffd")
