"""The one tokenizer interface every view and command talks to, whatever the source.

A loaded tokenizer (our own BPE, a tiktoken encoding, a Hugging Face tokenizer.json, a minbpe
model) offers the same things: ids <-> bytes, encoding to tokens with spans in the three
special-token modes, decoding, its pre-tokenizer if it has one, and for byte-level BPE the
merge forest. Views a tokenizer cannot support are listed with the reason, in plain words.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from explorer.core.errors import ExplorerError
from explorer.core.pretokenization.pretokenize import Chunk, Pretokenizer
from explorer.core.text.utf8 import utf8

if TYPE_CHECKING:
    from explorer.core.algorithms.bpe import BPE, SpecialTokens, TraceStep
    from explorer.core.algorithms.merges import MergeForest

SpecialMode = Literal["allowed", "disallowed", "plain"]
SPECIAL_MODES: tuple[SpecialMode, ...] = ("disallowed", "allowed", "plain")

# Views that depend on what a tokenizer is; `Tokenizer.unsupported` maps them to a reason.
VIEW_MERGES = "merges"
VIEW_CHUNKS = "chunks"
VIEW_BYTES = "bytes"

_CONTINUATION = bytes(range(0x80, 0xC0))

# Ids of a tokenizer file must be below this (the largest real vocabularies have about 2**18):
# a file that claims id 10**9 is damaged, and building its table would exhaust memory.
MAX_TOKEN_ID = 1 << 24


@dataclass(frozen=True, slots=True)
class Token:
    """One token of an encoded text, with where it came from.

    `start`/`end` are the characters the token touches; when a token holds only part of a
    character, `cuts_start` or `cuts_end` says so (two tokens then share that character).
    """

    id: int
    bytes: bytes
    start: int
    end: int
    byte_start: int
    byte_end: int
    special: bool = False
    cuts_start: bool = False  # begins in the middle of a character
    cuts_end: bool = False  # ends before its last character is complete


class UnsupportedView(ExplorerError):
    """A view asked of a tokenizer that cannot provide it (a WordPiece model has no merges)."""


class Tokenizer(ABC):
    """What every pane needs from a tokenizer.

    Subclasses set `name`, `source` (where it came from, for people) and `kind`
    ("byte-level BPE", "WordPiece", ...).
    """

    name: str = "tokenizer"
    source: str = ""
    kind: str = "byte-level BPE"

    @property
    @abstractmethod
    def vocab_size(self) -> int:
        """One more than the largest id (ids may have holes, as in cl100k_base)."""

    @property
    @abstractmethod
    def special_tokens(self) -> dict[str, int]: ...

    @abstractmethod
    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for; raises ExplorerError for an id that does not exist."""

    @abstractmethod
    def encode(self, text: str, special: SpecialMode = "disallowed") -> list[int]: ...

    @abstractmethod
    def decode_bytes(self, ids: Iterable[int]) -> bytes: ...

    def decode(self, ids: Iterable[int]) -> str:
        """Join the tokens' bytes, then decode once, with U+FFFD for invalid UTF-8."""
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def encode_tokens(self, text: str, special: SpecialMode = "disallowed") -> list[Token]:
        """Tokens with ids, bytes and character spans (for views that colour text)."""
        ids = self.encode(text, special)
        specials = set(self.special_tokens.values()) if special == "allowed" else set()
        return tokens_from_ids(ids, self.token_bytes, specials)

    @property
    def pretokenizer(self) -> Pretokenizer | None:
        """The regex split before BPE, if this tokenizer has one we can run."""
        return None

    @property
    def spells_text(self) -> bool:
        """Whether the model sees the text as given: its tokens' bytes are the text's UTF-8, so
        spans follow from bytes and chunks of the text are the model's. False for a normalizer,
        an added prefix space, or tokens that are strings (WordPiece): spans then come from
        `encode_tokens`."""
        return True

    @property
    def normalizer(self) -> dict[str, Any] | None:
        """What rewrites the text before it is split (a tokenizer.json `normalizer`), or None.

        `as_bpe()` does not apply it: exports carry it, or refuse (see export.export)."""
        return None

    def chunks(self, text: str) -> list[Chunk]:
        if self.pretokenizer is None:
            raise UnsupportedView(self.unsupported.get(VIEW_CHUNKS, f"{self.name} has no pre-tokenizer pattern"))
        return self.pretokenizer.chunks(text)

    @property
    def forest(self) -> MergeForest | None:
        """The merge forest for byte-level BPE (may be built on first use); None otherwise."""
        return None

    def trace(self, chunk: str | bytes) -> list[TraceStep]:
        """The merges applied to one chunk, in order, for step-through views."""
        return self.as_bpe().trace(chunk)

    def trace_start(self, chunk: str | bytes) -> list[int]:
        """The ids `trace(chunk)` starts from: the chunk's bytes for byte-level BPE."""
        return self.as_bpe().byte_tokens(utf8(chunk) if isinstance(chunk, str) else chunk)

    def as_bpe(self) -> BPE:
        """Our own BPE that encodes exactly like this tokenizer (for traces and export).

        Raises UnsupportedView for tokenizers that are not byte-level BPE.
        """
        raise UnsupportedView(self.unsupported.get(VIEW_MERGES, f"{self.name} is not a byte-level BPE tokenizer"))

    @property
    def unsupported(self) -> dict[str, str]:
        """View name -> why this tokenizer cannot show it. Empty for byte-level BPE."""
        return {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} ({self.kind}, {self.vocab_size:,} ids)>"


class ListedVocabulary(Tokenizer):
    """A tokenizer that keeps its vocabulary as a list of bytes by id (holes are b"") and its
    special tokens in `_special`: the tiktoken and tokenizer.json adapters share these lookups."""

    _vocab: list[bytes]
    _special: SpecialTokens

    @property
    def vocab_size(self) -> int:
        return len(self._vocab)

    @property
    def special_tokens(self) -> dict[str, int]:
        return self._special.tokens

    def token_bytes(self, token_id: int) -> bytes:
        if not 0 <= token_id < len(self._vocab) or not self._vocab[token_id]:
            raise unknown_id(token_id, self._vocab, self.name)
        return self._vocab[token_id]


def unknown_id(token_id: object, vocab: Sequence[bytes], name: str = "this tokenizer") -> ExplorerError:
    """The error for an id that names no token: out of range, negative, or in a gap of the ids
    (cl100k_base has no 100261), which tiktoken refuses too."""
    last = len(vocab) - 1
    if isinstance(token_id, int) and 0 <= token_id <= last:
        return ExplorerError(f"unknown token id {token_id}: it is in a gap of {name}'s ids (ids 0 to {last}, "
                             "some unused), so no token has it")
    return ExplorerError(f"unknown token id {token_id}: {name} has ids 0 to {last}")


def tokens_from_ids(ids: Sequence[int], token_bytes: object, special_ids: set[int] = frozenset()) -> list[Token]:  # type: ignore[assignment]
    """Tokens with character spans, from ids whose bytes concatenate to the UTF-8 text.

    A token that begins with a continuation byte starts inside the previous token's last
    character; counting the character starts in each token (C-speed `translate`) gives spans
    without decoding anything.
    """
    lookup = token_bytes  # a callable id -> bytes
    datas = [lookup(i) for i in ids]  # type: ignore[operator]
    tokens: list[Token] = []
    chars = byte_position = 0
    for index, (token_id, data) in enumerate(zip(ids, datas)):
        cuts_start = bool(data) and 0x80 <= data[0] < 0xC0
        start = chars - 1 if cuts_start else chars
        chars += len(data.translate(None, _CONTINUATION))
        following = datas[index + 1] if index + 1 < len(datas) else b""
        cuts_end = bool(following) and 0x80 <= following[0] < 0xC0
        tokens.append(Token(token_id, data, start, max(chars, start + 1) if data else start, byte_position,
                            byte_position + len(data), token_id in special_ids, cuts_start, cuts_end))
        byte_position += len(data)
    return tokens
