"""A byte-level BPE tokenizer: its merges and vocabulary, encoding and decoding.

Encoding replays history: inside each chunk, apply the pair that was merged earliest in
training, and repeat until no learned pair remains (merge_loops). Results are cached per chunk,
because most chunks repeat ("the" occurs a million times), which makes pure Python fast enough
(cached_encoding; special_tokens finds the control tokens first).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from explorer.core.algorithms.bytelevel import to_chars
from explorer.core.algorithms.cached_encoding import CachedEncoding
from explorer.core.algorithms.merge_loops import NEVER, merge_ids
from explorer.core.algorithms.merge_loops import pair_positions as _pair_positions
from explorer.core.algorithms.merge_loops import replace_pair as _replace_pair
from explorer.core.algorithms.merges import MergeForest
from explorer.core.algorithms.special_tokens import SpecialTokens
from explorer.core.collector import collector_paused
from explorer.core.errors import ExplorerError
from explorer.core.pretokenization.pretokenize import Pretokenizer
from explorer.core.pretokenization.unicode_classes import Reference
from explorer.core.sources.tokenizer import MAX_TOKEN_ID, Tokenizer, unknown_id
from explorer.core.text.utf8 import utf8

__all__ = ["BPE", "SpecialTokens", "TraceStep", "join_token_bytes"]


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One step of encoding a chunk: `left`+`right` -> `new_id` (merge `rank`) at `positions`."""

    rank: int
    left: int
    right: int
    new_id: int
    positions: tuple[int, ...]
    ids: tuple[int, ...]  # the chunk's ids after this step


class BPE(CachedEncoding, Tokenizer):
    """A byte-level BPE tokenizer: pattern, ordered merges and special tokens.

    By default ids 0-255 are the bytes and merge number k creates id 256 + k (unless its bytes
    already exist, which Hugging Face's trainer allows); special tokens come after the merges.
    Real vocabularies number their bytes differently (tiktoken's r50k_base gives `!` id 0):
    pass `vocab`, the bytes of every id, and the bytes are looked up there. `ignore_merges`
    is Hugging Face's option (Llama 3 uses it): a chunk that is itself a token is taken whole.
    """

    def __init__(
        self,
        merges: Iterable[tuple[int, int, int]],
        pattern: str = "cl100k",
        special_tokens: dict[str, int] | None = None,
        name: str = "bpe",
        counts: Sequence[int] | None = None,
        metadata: dict[str, object] | None = None,
        source: str = "",
        vocab: Sequence[bytes] | None = None,
        ignore_merges: bool = False,
        reference: Reference = "tokenizers",
        specials_may_share: bool = False,
    ) -> None:
        # Built without collections: o200k's 200,000 merges started full ones of 50-180 ms on the
        # Merges pane's loader thread (holding the interpreter lock), and the tables make no cycles.
        with collector_paused():
            self.name = name
            self.source = source
            self.metadata = dict(metadata or {})
            self._pretokenizer = Pretokenizer(pattern, reference)  # whose Unicode tables the pattern follows
            self.vocab: list[bytes] = list(vocab) if vocab is not None else [bytes([b]) for b in range(256)]
            self.byte_ids = _byte_ids(self.vocab)  # byte value -> its id; None when they are equal
            self.merges: list[tuple[int, int, int]] = []
            self.ranks: dict[tuple[int, int], int] = {}
            self.merged: dict[tuple[int, int], int] = {}
            self._merged_by_rank: list[int] = []
            for merge in merges:
                self._add_merge(merge)
            self.counts = list(counts) if counts is not None else None  # training count of each merge
            self.special = SpecialTokens(special_tokens or {})
            shared: set[int] = set()  # ids a special token may share (tiktoken's o200k_harmony names 200018 twice)
            for token, token_id in sorted(self.special.tokens.items(), key=lambda item: item[1]):
                self._set_special(token, token_id, shared)
                if specials_may_share:
                    shared.add(token_id)
            self.ignore_merges = ignore_merges
            self._start_cache()

    def _set_bytes(self, token_id: int, data: bytes) -> None:
        if len(self.vocab) <= token_id:
            self.vocab.extend([b""] * (token_id + 1 - len(self.vocab)))
        self.vocab[token_id] = data

    def _set_special(self, token: str, token_id: int, special_ids: set[int]) -> None:
        """A special token may share an id only with a token of its bytes, with a byte or merged
        token spelt like it (`to_chars`, as Hugging Face's trainer shares them; see train.py), or
        with an earlier special token at an id in `shared` (the first name decodes, as tiktoken
        decodes o200k_harmony's 200018: `<|endofprompt|>`, not `<|reserved_200018|>`); any other
        token at its id is a clash: the file is damaged."""
        data = token.encode("utf-8")
        if not 0 <= token_id < MAX_TOKEN_ID:
            raise ExplorerError(f"the special token {token!r} has id {token_id}, outside 0 to {MAX_TOKEN_ID - 1}; "
                                "the file is damaged")
        existing = self.vocab[token_id] if token_id < len(self.vocab) else b""
        if existing and (to_chars(existing) == token or token_id in special_ids):
            return  # a byte or merged token spelt like it (they share the id: train.py), or an earlier name
        if existing and existing != data:
            raise ExplorerError(f"the special token {token!r} has id {token_id}, which is already the token "
                                f"{existing!r}; give it an id of its own (such as {len(self.vocab)})")
        self._set_bytes(token_id, data)

    def _add_merge(self, merge: tuple[int, int, int]) -> None:
        """Add `merge` (kept as given when it is a tuple, its pair shared by both tables: each
        tuple made here is one more object for the first collection after the build to walk,
        45 ms for o200k_base's 600,000 until they were 200,000)."""
        left, right, new_id = merge
        rank = len(self.merges)
        if min(left, right) < 0 or max(left, right) >= len(self.vocab) or not self.vocab[left] or not self.vocab[right]:
            bad = left if left < 0 or left >= len(self.vocab) or not self.vocab[left] else right
            raise ExplorerError(f"merge {rank} ({left} + {right} -> {new_id}) uses token {bad} before it exists; "
                                "a merge may only join tokens made earlier: the file is damaged")
        if not 0 <= new_id < MAX_TOKEN_ID:
            raise ExplorerError(f"merge {rank} ({left} + {right} -> {new_id}) makes an id outside 0 to "
                                f"{MAX_TOKEN_ID - 1}; the file is damaged")
        joined = self.vocab[left] + self.vocab[right]
        existing = self.vocab[new_id] if new_id < len(self.vocab) else b""
        # A tokenizer.json may hold a special token spelt like the merge (`Ġth`) at the merge's id.
        if existing and existing != joined and existing != to_chars(joined).encode("utf-8"):
            raise ExplorerError(f"merge {rank} ({left} + {right} -> {new_id}) would make id {new_id} {joined!r}, "
                                f"but id {new_id} is already {existing!r}; the merges do not agree with the bytes "
                                "they claim: the file is damaged or was edited, train or export it again")
        pair = (left, right)
        if pair in self.ranks:
            return  # a repeated pair never applies twice
        self.ranks[pair] = len(self.merges)
        self.merged[pair] = new_id
        self._merged_by_rank.append(new_id)
        self.merges.append(merge if type(merge) is tuple else (left, right, new_id))
        self._set_bytes(new_id, joined)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @property
    def special_tokens(self) -> dict[str, int]:
        return self.special.tokens

    @property
    def pretokenizer(self) -> Pretokenizer:
        return self._pretokenizer

    @property
    def pattern(self) -> str:
        return self._pretokenizer.regex

    @cached_property
    def forest(self) -> MergeForest:
        return MergeForest(self.merges, self.vocab, self.counts)

    def token_bytes(self, token_id: int) -> bytes:
        if not 0 <= token_id < len(self.vocab) or not self.vocab[token_id]:
            raise unknown_id(token_id, self.vocab, self.name)
        return self.vocab[token_id]

    # Encoding (`encode` itself: cached_encoding)

    def _merges_together(self) -> bool:
        """Whether `_learn` gives `encode_bytes`'s ids: a subclass with a merge rule of its own
        keeps it, chunk by chunk, unless it says its `_batch_tables` follow that rule."""
        return type(self).encode_bytes is BPE.encode_bytes

    @cached_property
    def _batch_tables(self) -> tuple[object, object]:
        """What `merge_chunks` needs: each byte's id as an array, and the pair ranks."""
        import numpy as np

        from explorer.core.algorithms.merge_batch import PairRanks

        byte_ids = np.array(self.byte_ids if self.byte_ids is not None else range(256), dtype=np.int64)
        return byte_ids, PairRanks.of_merges(self.merges, len(self.vocab))

    def byte_tokens(self, data: bytes) -> list[int]:
        """The id of each byte of `data`: where every encoding starts."""
        return list(data) if self.byte_ids is None else list(map(self.byte_ids.__getitem__, data))

    @cached_property
    def special_only_ids(self) -> frozenset[int]:
        """The ids of special tokens that are not also a byte or a merged token (a special token
        spelt like one shares its id, as Hugging Face's trainer does; see train.py)."""
        built = set(self._merged_by_rank).union(self.byte_ids if self.byte_ids is not None else range(256))
        return frozenset(token_id for token_id in self.special.tokens.values() if token_id not in built)

    @cached_property
    def _whole_tokens(self) -> dict[bytes, int]:
        specials = self.special_only_ids
        return {data: token_id for token_id, data in enumerate(self.vocab) if data and token_id not in specials}

    def encode_bytes(self, data: bytes) -> list[int]:
        """Apply merges to raw bytes, earliest-learned pair first (leftmost on a tie)."""
        if self.ignore_merges and (whole := self._whole_tokens.get(data)) is not None:
            return [whole]
        return self._merge(self.byte_tokens(data))

    def _merge(self, ids: list[int]) -> list[int]:
        """Apply merges to `ids` (bytes, or a chunk part way through), earliest-learned pair first."""
        return merge_ids(ids, self.ranks, self._merged_by_rank)

    def trace(self, chunk: str | bytes) -> list[TraceStep]:
        """The merges applied to one chunk, in order, for step-through views."""
        ids = self.byte_tokens(utf8(chunk) if isinstance(chunk, str) else chunk)
        steps: list[TraceStep] = []
        while len(ids) >= 2:
            pair = min(zip(ids, ids[1:]), key=lambda p: self.ranks.get(p, NEVER))
            if pair not in self.ranks:
                break
            positions = tuple(_pair_positions(ids, pair))
            ids = _replace_pair(ids, pair, self.merged[pair])
            steps.append(TraceStep(self.ranks[pair], pair[0], pair[1], self.merged[pair], positions, tuple(ids)))
        return steps

    # Decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return join_token_bytes(self.vocab, ids, self.name)

    def as_bpe(self) -> BPE:
        return self


def join_token_bytes(vocab: Sequence[bytes], ids: Iterable[int], name: str = "this tokenizer") -> bytes:
    """The bytes of `ids` joined, with a clear error for an id the vocabulary does not have:
    too large, negative (Python would index from the end) or in a gap (its bytes are b"")."""
    ids = ids if isinstance(ids, (list, tuple)) else list(ids)
    try:
        parts = [vocab[i] for i in ids]
        if all(parts) and min(ids, default=0) >= 0:  # two C-level passes: no hole, no negative id
            return b"".join(parts)
    except (IndexError, TypeError):
        pass
    bad = next(i for i in ids if not isinstance(i, int) or not 0 <= i < len(vocab) or not vocab[i])
    raise unknown_id(bad, vocab, name) from None


def _byte_ids(vocab: Sequence[bytes]) -> list[int] | None:
    """Where each of the 256 bytes sits in `vocab`: None if byte b is id b, as in our own files."""
    if all(vocab[b] == bytes([b]) for b in range(min(256, len(vocab)))) and len(vocab) >= 256:
        return None
    position = {data: token_id for token_id, data in enumerate(vocab) if len(data) == 1}
    missing = [b for b in range(256) if bytes([b]) not in position]
    if missing:
        raise ExplorerError(f"the vocabulary has no token for byte 0x{missing[0]:02X}, so it is not byte-level BPE")
    return [position[bytes([b])] for b in range(256)]
