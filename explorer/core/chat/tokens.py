"""A prompt's tokens: numpy columns, with a `ChatToken` record made for each one asked for.

A 1 MB message has 400,000 tokens. As objects they took a third of a second to make, the garbage
collector walked them all on every full collection, and letting go of them (each new rendering in
the GUI) held the interpreter lock for 70 ms in one piece; as five columns they cost nothing of
this. The sequence reads as the tuple of records it stands for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple, overload

import numpy as np


class ChatToken(NamedTuple):
    """One token of the prompt: `start`/`end` are characters of `Prompt.text`; `segment` indexes
    `Prompt.segments` (the one the token starts in), so its message and role are known."""

    id: int
    bytes: bytes
    start: int
    end: int
    control: bool
    segment: int


class ChatTokens(Sequence[ChatToken]):
    """Columns `ids`, `starts`, `ends`, `control`, `segments` (numpy, one entry per token) and the
    tokenizer's id -> bytes; indexing and iterating give `ChatToken` records."""

    __slots__ = ("ids", "starts", "ends", "control", "segments", "_token_bytes")

    def __init__(self, ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, control: np.ndarray,
                 segments: np.ndarray, token_bytes: Callable[[int], bytes]) -> None:
        self.ids, self.starts, self.ends = ids.astype(np.int64), starts.astype(np.int64), ends.astype(np.int64)
        self.control, self.segments = control.astype(bool), segments.astype(np.int64)
        self._token_bytes = token_bytes

    @classmethod
    def joined(cls, parts: Sequence[ChatTokens], token_bytes: Callable[[int], bytes]) -> ChatTokens:
        def column(name: str, dtype: type) -> np.ndarray:
            return np.concatenate([getattr(part, name) for part in parts]) if parts else np.zeros(0, dtype)
        return cls(column("ids", np.int64), column("starts", np.int64), column("ends", np.int64),
                   column("control", bool), column("segments", np.int64), token_bytes)

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> ChatToken: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[ChatToken, ...]: ...

    def __getitem__(self, index: int | slice) -> ChatToken | tuple[ChatToken, ...]:
        if isinstance(index, slice):
            return tuple(self._records(index))
        token_id = int(self.ids[index])  # (an index out of range raises IndexError here, as a tuple's)
        return ChatToken(token_id, self._token_bytes(token_id), int(self.starts[index]), int(self.ends[index]),
                         bool(self.control[index]), int(self.segments[index]))

    def __iter__(self) -> Iterator[ChatToken]:
        return self._records(slice(None))

    def _records(self, part: slice) -> Iterator[ChatToken]:
        ids = self.ids[part].tolist()
        return map(ChatToken, ids, map(self._token_bytes, ids), self.starts[part].tolist(),
                   self.ends[part].tolist(), self.control[part].tolist(), self.segments[part].tolist())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        shown = ", ".join(map(repr, self[:3]))
        return f"ChatTokens([{shown}{', ...' if len(self) > 3 else ''}], {len(self):,} tokens)"
