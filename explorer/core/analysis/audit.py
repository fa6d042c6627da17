"""The vocabulary audit: tokens a model will rarely or never see, and why.

- unreachable: made by a merge, yet encoding the token's own text gives other tokens. Either a
  longer merge swallows it first (seed 000's `ingred`, left over from ` ingredients`; inside a
  longer chunk it cannot fare better, since merges across its edges only take bytes away), or
  the pre-tokenizer never cuts text that way (o200k_base's `\\n//`, 12 such tokens in all;
  cl100k_base and r50k_base have none). Tokens that are not whole characters are replayed on
  their bytes alone.
- undecodable alone: holds part of a UTF-8 character, so decoding it alone gives U+FFFD.
- impossible in UTF-8: contains a byte that valid UTF-8 never uses (C0, C1, F5-FF).
- special: a control token that ordinary text never produces.
- never seen / rare: with a corpus, tokens its encoding never or seldom produces (`seen_flags`).

`audit_vocabulary` is a generator of progress records (the GUI runs it in a worker, the CLI
and tests drain it); it returns an `Audit`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from explorer.core.errors import ExplorerError
from explorer.core.sources.tokenizer import Tokenizer, UnsupportedView
from explorer.core.text.utf8 import impossible_in_utf8, is_complete

if TYPE_CHECKING:
    from explorer.core.analysis.efficiency import TokenizerRef

_STEP = 2000  # tokens between progress records


@dataclass(frozen=True, slots=True)
class AuditProgress:
    stage: str
    done: int
    total: int


@dataclass
class Audit:
    """Ids by finding. `unreachable_checked` is False when the tokenizer has no merges to replay."""

    unreachable: set[int] = field(default_factory=set)
    undecodable: set[int] = field(default_factory=set)
    impossible: set[int] = field(default_factory=set)
    special: set[int] = field(default_factory=set)
    unreachable_checked: bool = False

    def reasons(self, token_id: int) -> list[str]:
        """Plain-word findings for one token, e.g. ['unreachable', 'undecodable alone']."""
        found = [("unreachable", self.unreachable), ("undecodable alone", self.undecodable),
                 ("impossible in UTF-8", self.impossible), ("special", self.special)]
        return [name for name, ids in found if token_id in ids]


def audit_vocabulary(tokenizer: Tokenizer) -> Iterator[AuditProgress]:
    """Yield progress while checking every token; return an Audit.

    >>> from explorer.core.algorithms.bpe import BPE
    >>> from explorer.core.generators import run_to_end
    >>> toy = BPE([(97, 98, 256), (98, 99, 257), (97, 257, 258)], "none")  # ab, bc, then a + bc
    >>> audit = run_to_end(audit_vocabulary(toy))  # "abc" encodes as ab + c: ab was learned before bc
    >>> sorted(audit.unreachable), 0xFF in audit.impossible, 0x80 in audit.undecodable
    ([258], True, True)
    """
    result = Audit(special=set(tokenizer.special_tokens.values()))
    size = tokenizer.vocab_size
    forest = tokenizer.forest
    encode_bytes = None
    if forest is not None:
        try:
            encode_bytes = tokenizer.as_bpe().encode_bytes
        except UnsupportedView:
            pass
    encode_alone = getattr(tokenizer, "encode_alone", None)  # SentencePiece: a piece without the `▁` put in front
    result.unreachable_checked = forest is not None
    for start in range(0, size, _STEP):
        for token_id in range(start, min(start + _STEP, size)):
            if token_id in result.special:
                continue
            try:
                data = tokenizer.token_bytes(token_id)
            except ExplorerError:
                continue  # a hole in the id space
            complete = is_complete(data)
            if not complete:
                result.undecodable.add(token_id)
                if any(map(impossible_in_utf8, data)):
                    result.impossible.add(token_id)
            if forest is None or forest.rank(token_id) is None:
                continue  # bytes are always reachable; only merged tokens can be left over
            if encode_alone is not None:
                alone = encode_alone(data)
            elif complete:
                alone = tokenizer.encode(data.decode("utf-8"), "plain")
            elif encode_bytes is not None:
                alone = encode_bytes(data)
            else:
                continue
            if alone != [token_id]:
                result.unreachable.add(token_id)
        yield AuditProgress("auditing the vocabulary", min(start + _STEP, size), size)
    return result


def audit_reference(tokenizer: TokenizerRef) -> Iterator[AuditProgress]:
    """`audit_vocabulary` of the tokenizer `tokenizer` names: the form a child process runs (a
    module-level generator, a picklable argument). Encoding every token of a 32,768-token
    vocabulary takes 0.6 s of pure Python; on a thread of the window it shared the interpreter
    lock with the paint of the result, and the window stalled 95-230 ms at a time."""
    return (yield from audit_vocabulary(tokenizer.load()))


def seen_flags(counts: Sequence[int], special_ids: set[int], rare_below: int) -> tuple[set[int], set[int]]:
    """(never seen, rare) ids from corpus counts (id -> occurrences); special tokens are neither.

    >>> seen_flags([0, 3, 50], set(), 10)
    ({0}, {1})
    """
    never = {i for i, count in enumerate(counts) if count == 0 and i not in special_ids}
    rare = {i for i, count in enumerate(counts) if 0 < count < rare_below and i not in special_ids}
    return never, rare
