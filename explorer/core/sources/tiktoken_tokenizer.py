"""tiktoken encodings behind the one Tokenizer interface: ids exactly tiktoken's, offline.

tiktoken itself encodes (it is exact by definition, and fast). The merge forest of a bundled
encoding ships with it; for any other file it is recovered from the ranks the first time a view
asks for it, and kept in the user's cache so the next start does not pay for it again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path

import tiktoken

from explorer.core.algorithms.bpe import BPE, SpecialTokens, join_token_bytes
from explorer.core.algorithms.merges import MergeForest, recover_merges
from explorer.core.algorithms.tiktoken_bpe import TiktokenBPE
from explorer.core.cache import cached_merges, read_merges
from explorer.core.errors import ExplorerError, PatternError, TokenizerFileError
from explorer.core.formats import tekken, tiktoken_file
from explorer.core.pretokenization.pretokenize import NAMED_PATTERNS, Pretokenizer
from explorer.core.sources.rust_calls import RustCall
from explorer.core.sources.tokenizer import MAX_TOKEN_ID, ListedVocabulary, SpecialMode


class TiktokenTokenizer(ListedVocabulary):
    """A `.tiktoken` rank file with its pattern and special tokens, encoded by tiktoken.

    >>> gpt4 = TiktokenTokenizer.bundled("cl100k_base")
    >>> gpt4.encode("hello world")
    [15339, 1917]
    """

    kind = "byte-level BPE (tiktoken)"

    def __init__(self, ranks: tiktoken_file.RankFile, pattern: str, special_tokens: dict[str, int],
                 name: str, source: str) -> None:
        missing = next((byte for byte in range(256) if bytes([byte]) not in ranks.ranks), None)
        if missing is not None:  # tiktoken would panic on the first text holding that byte
            raise TokenizerFileError(source, f"no token for the byte 0x{missing:02X}: a .tiktoken file must rank "
                                     "all 256 single bytes, or text containing that byte cannot be encoded")
        self.name = name
        self.source = source
        self.sha256 = ranks.sha256
        self.pattern = NAMED_PATTERNS.get(pattern, pattern)
        self._mergeable = ranks.vocab
        self._ranks = ranks.ranks  # bytes -> id, tiktoken's merge priority
        self._vocab = list(ranks.vocab)  # with the special tokens' bytes, for token_bytes and decoding
        for token, token_id in special_tokens.items():
            if not 0 <= token_id < MAX_TOKEN_ID:
                raise TokenizerFileError(source, f"the special token {token!r} has id {token_id}, outside 0 to "
                                         f"{MAX_TOKEN_ID - 1}")
            if token_id < len(ranks.vocab) and ranks.vocab[token_id]:
                raise TokenizerFileError(source, f"the special token {token!r} has id {token_id}, which is already "
                                         f"the token {ranks.vocab[token_id]!r}: encoding and decoding would disagree; "
                                         "give each special token an id of its own")
            self._vocab.extend([b""] * (token_id + 1 - len(self._vocab)))
            if not self._vocab[token_id]:  # (an id named twice: the first name decodes, as in tiktoken)
                self._vocab[token_id] = token.encode("utf-8")
        self._special = SpecialTokens(special_tokens)
        try:
            with RustCall(lambda panic: TokenizerFileError(source, f"tiktoken cannot use it: {panic}")):
                self._encoding = tiktoken.Encoding(name, pat_str=self.pattern, mergeable_ranks=ranks.ranks,
                                                   special_tokens=special_tokens)
        except ValueError as exc:  # fancy-regex rejects the pattern, or a special id collides
            raise TokenizerFileError(source, f"tiktoken cannot use it: {exc}") from None

    @classmethod
    def bundled(cls, name: str) -> TiktokenTokenizer:
        """A bundled encoding (`o200k_base`, `llama3`, `tekken`, ... or an alias such as `gpt2`),
        from the files shipped with the app."""
        encoding = tiktoken_file.bundled(name)
        if encoding is None:
            known = ", ".join(sorted([*tiktoken_file.BUNDLED, "gpt2"]))
            raise ExplorerError(f"no bundled encoding {name!r}; choose one of {known}")
        if not encoding.available:
            raise ExplorerError(encoding.missing_reason())
        if encoding.is_tekken:
            ranks = tekken.read_tekken(encoding.path, expected_sha256=encoding.sha256).ranks
        else:
            ranks = tiktoken_file.read_ranks(encoding.path, expected_sha256=encoding.sha256)
        return cls(ranks, encoding.pattern, encoding.special_tokens, encoding.name, encoding.source)

    @classmethod
    def from_tekken(cls, path: str | os.PathLike[str], document: object | None = None,
                    data: bytes | None = None) -> TiktokenTokenizer:
        """A Mistral Tekken file (`tekken.json`, or `.json.gz`), with its own pattern and specials;
        pass the `document` and raw `data` when the caller has parsed them already."""
        if document is None or data is None:
            found = tekken.read_tekken(path)
        else:
            found = tekken.from_document(document, path, hashlib.sha256(data).hexdigest())
        return cls(found.ranks, found.pattern, found.special_tokens, Path(path).name.split(".")[0], str(path))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], pattern: str | None = None,
                  special_tokens: dict[str, int] | None = None) -> TiktokenTokenizer:
        """Any `.tiktoken` file. A copy of a bundled encoding is recognised by its hash and
        needs nothing else; any other file needs its pre-tokenizer `pattern` (a name or a regex).
        """
        ranks = tiktoken_file.read_ranks(path)
        known = tiktoken_file.by_hash(ranks.sha256)
        if pattern is None and known is None:
            raise TokenizerFileError(path, "a .tiktoken file does not say how it splits text; give its pattern "
                                     f"(one of {', '.join(NAMED_PATTERNS)}, or a regex), e.g. --pattern o200k")
        if pattern is not None:
            try:
                pattern = Pretokenizer(pattern).regex
            except PatternError as exc:
                raise TokenizerFileError(path, str(exc)) from None
        chosen = pattern if pattern is not None else known.pattern  # type: ignore[union-attr]
        specials = special_tokens if special_tokens is not None else (known.special_tokens if known else {})
        return cls(ranks, chosen, specials, Path(path).stem, str(path))

    # The interface

    def encode(self, text: str, special: SpecialMode = "disallowed") -> list[int]:
        """tiktoken's ids, computed window by window so no single call holds on for long."""
        ids: list[int] = []
        custom = self.pretokenizer.name == "custom"
        # A custom pattern can hit fancy-regex's backtracking limit, on which tiktoken panics.
        with RustCall(self._encode_failed, hold=custom):
            for _, segment, special_id in self._special.segments(text, special):
                if special_id is not None:
                    ids.append(special_id)
                    continue
                for window in self.pretokenizer.windows(segment):
                    ids.extend(self._encoding.encode_ordinary(window))
                    if custom:
                        self._check_matched(window)
        return ids

    def _check_matched(self, text: str) -> None:
        """Refuse a text that a custom pattern leaves partly unmatched: tiktoken encodes only what
        the pattern matches, and the rest would be lost without a word (and token spans shifted).
        The pattern runs here with a time limit too, where fancy-regex may give up without saying."""
        if self.pretokenizer.covers(text):
            return
        gap = next((chunk for chunk in self.pretokenizer.chunks(text) if chunk.is_gap), None)
        if gap is not None:
            raise ExplorerError(f"the pattern of {self.name} leaves part of the text unmatched ({gap.text[:20]!r} at "
                                f"character {gap.start:,}), which tiktoken would drop; give a pattern that matches "
                                r"every character, e.g. end it with |[\s\S]")

    def _encode_failed(self, panic: str) -> ExplorerError:
        if self.pretokenizer.matches_empty:
            return ExplorerError(f"tiktoken failed to encode this text with {self.name} ({panic}): its split pattern "
                                 "can match empty text, which tiktoken cannot take; give a pattern whose every match "
                                 "holds a character (x+ rather than x*)")
        return ExplorerError(f"tiktoken failed to encode this text with {self.name} ({panic}); its split pattern "
                             "may be too complex for this text: simplify it (avoid nested repetition)")

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return join_token_bytes(self._vocab, ids, self.name)

    @cached_property
    def pretokenizer(self) -> Pretokenizer:
        return Pretokenizer(self.pattern, "tiktoken")

    @cached_property
    def merges(self) -> list[tuple[int, int, int]]:
        """(left, right, new_id) in rank order: shipped for the bundled encodings; for other files
        recovered once (seconds for 200,000 tokens) and then read from the user's cache."""
        bundled = tiktoken_file.by_hash(self.sha256)
        shipped = read_merges(bundled.merges_path) if bundled is not None else None
        return shipped if shipped is not None else cached_merges(self.sha256, lambda: recover_merges(self._mergeable))

    @cached_property
    def forest(self) -> MergeForest:
        return MergeForest(self.merges, self._vocab)

    def as_bpe(self) -> BPE:
        return self._bpe

    @cached_property
    def _bpe(self) -> BPE:
        return TiktokenBPE(self.merges, self.pattern, self.special_tokens, self.name, self.source,
                           self._mergeable, self._ranks, self.sha256)
