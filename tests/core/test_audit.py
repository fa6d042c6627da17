"""The vocabulary audit: unreachable, undecodable alone, impossible bytes, special, never seen, rare."""

from __future__ import annotations

from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.train import train
from explorer.core.analysis.audit import Audit, audit_vocabulary, seen_flags
from explorer.core.formats.own import from_merges
from explorer.core.generators import run_to_end


def test_a_token_swallowed_by_a_longer_merge_is_unreachable() -> None:
    toy = BPE([(97, 98, 256), (98, 99, 257), (97, 257, 258)], "none", {"<|end|>": 259})
    audit = run_to_end(audit_vocabulary(toy))
    assert audit.unreachable == {258}  # "abc" always encodes as "ab" + "c"
    assert audit.special == {259} and 259 not in audit.unreachable
    assert audit.reasons(258) == ["unreachable"]


def test_bytes_that_are_not_characters() -> None:
    audit = run_to_end(audit_vocabulary(BPE([], "none")))
    assert audit.undecodable == set(range(0x80, 0x100))
    assert audit.impossible == {0xC0, 0xC1, *range(0xF5, 0x100)}
    assert not audit.unreachable  # bytes are always reachable


def test_every_flag_on_a_trained_tokenizer_is_true() -> None:
    texts = ["the ingredients of the ingredient list, ingredients again\n"] * 30 + ["नमस्ते दुनिया\n"] * 5
    tok = from_merges(list(train(texts, 320, "cl100k")), "cl100k", name="t")
    audit: Audit = run_to_end(audit_vocabulary(tok))
    for token_id in range(256, tok.vocab_size):
        data = tok.token_bytes(token_id)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            assert token_id in audit.undecodable
            continue
        assert (tok.encode(text) != [token_id]) == (token_id in audit.unreachable)


def test_seen_flags_leave_specials_out() -> None:
    assert seen_flags([0, 0, 5, 100], {1}, 10) == ({0}, {2})
