"""Hugging Face `tokenizer.json` files behind the one Tokenizer interface, encoded by `tokenizers`.

Byte-level BPE (GPT-2, Llama 3, Qwen, ...) gets everything: ids from `tokenizers`, bytes, the
merge forest from the file's merges and, when the pre-tokenizer is a regex we can run, chunks.
WordPiece, Unigram, WordLevel and SentencePiece-style BPE (byte fallback) still encode, decode
and show tokens with their spans; `unsupported` says in plain words which views they lack.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

import tokenizers

from explorer.core.algorithms.bpe import BPE, SpecialTokens, TraceStep, join_token_bytes
from explorer.core.algorithms.bytelevel import from_chars
from explorer.core.algorithms.merges import MergeForest
from explorer.core.errors import ExplorerError, PatternError, SpecialTokenError, TokenizerFileError
from explorer.core.files import read_json
from explorer.core.pretokenization.pretokenize import (
    BYTE_LEVEL, NAMED_PATTERNS, NONE, WINDOW, Pretokenizer, hf_compatible)
from explorer.core.sources.hf_windows import AddedTokenPieces
from explorer.core.sources.rust_calls import RustCall
from explorer.core.sources.tokenizer import (MAX_TOKEN_ID, VIEW_BYTES, VIEW_CHUNKS, VIEW_MERGES, ListedVocabulary,
                                             SpecialMode, Token, UnsupportedView, tokens_from_ids)
from explorer.core.text.utf8 import without_surrogates


_BATCH = 8  # windows per encode_batch call (encoded in parallel, at most 512 KB)

_NO_MERGES = {
    "WordPiece": "WordPiece has no merges: it takes the longest vocabulary entry at each position of a word",
    "Unigram": "Unigram has no merges: it picks the most probable way to cut each word from scored pieces",
    "WordLevel": "WordLevel has no merges: it looks each whole word up in its vocabulary",
}
# BPE options that change how the merges are read: one that does not fit them panics tokenizers.
_MERGE_OPTIONS = ("continuing_subword_prefix", "end_of_word_suffix")
_NOT_BYTES = ("its tokens are strings, not bytes ({}), so the byte view shows their text encoded as UTF-8")


def looks_like_tokenizer_json(document: object) -> bool:
    return isinstance(document, dict) and isinstance(document.get("model"), dict)


class HFTokenizer(ListedVocabulary):
    """A `tokenizer.json`, encoded by `tokenizers` without the model's added [CLS]/BOS tokens.

    The file's truncation, padding and BPE dropout are switched off: they would cut the ids short,
    add pad ids, or change the ids from one encode to the next, and this app shows exactly and
    repeatably how a text is tokenized.
    """

    def __init__(self, document: dict[str, Any], text: str, name: str, source: str) -> None:
        self.name = name
        self.source = source
        _check_ids(document, source)
        self._hf = _exact(_read_by_library(document, text, source))
        self._document = document
        model = document["model"]
        self.model_type = type(self._hf.model).__name__
        self.byte_fallback = bool(model.get("byte_fallback"))
        self.byte_level = self.model_type == "BPE" and not self.byte_fallback and _mentions_byte_level(document)
        self.kind = ("byte-level BPE" if self.byte_level else
                     "BPE with byte fallback" if self.byte_fallback else self.model_type)
        # The ids the library gives the added tokens: one whose declared id another token holds
        # gets a new id there (an edited file gave id 5, the byte 0x05, to "<|x|>": tokenizers
        # encodes it as 300 and decodes 5 as the byte), and views must agree with its encode.
        added: list[dict[str, Any]] = []
        for token in document.get("added_tokens") or []:
            library_id = self._hf.token_to_id(token["content"])
            added.append({**token, "id": token["id"] if library_id is None else library_id})
        self._added_tokens = added
        self._special = SpecialTokens({t["content"]: t["id"] for t in added if t.get("special")})
        # Every added token, special or not, is matched in the text before the model runs.
        self._added = AddedTokenPieces(added)
        self._pattern, self._no_chunks = _pattern_of(document) if self.byte_level else (None, None)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], name: str | None = None) -> HFTokenizer:
        text, document = read_json(path)
        return cls.from_json(document, text, path, name)

    @classmethod
    def from_json(cls, document: object, text: str, path: str | os.PathLike[str],
                  name: str | None = None) -> HFTokenizer:
        """A parsed tokenizer.json (`text` is handed to `tokenizers` as it is)."""
        if not looks_like_tokenizer_json(document):
            raise TokenizerFileError(path, "not a Hugging Face tokenizer.json (it has no \"model\")")
        kind = document["model"].get("type", "BPE")  # type: ignore[index]
        if kind not in ("BPE", "WordPiece", "WordLevel", "Unigram"):
            raise TokenizerFileError(path, f"unsupported model type {kind!r}: BPE, WordPiece, WordLevel and Unigram "
                                     "are supported")
        return cls(document, text, name or _name_from_path(Path(path)), str(path))  # type: ignore[arg-type]

    # Vocabulary

    @cached_property
    def _vocab(self) -> list[bytes]:
        """id -> bytes: real bytes for byte-level BPE and byte-fallback pieces, else the token's text."""
        vocab = self._hf.get_vocab(with_added_tokens=True)
        table = [b""] * (max(vocab.values(), default=-1) + 1)
        added = {t["id"]: t["content"] for t in self._added_tokens}
        for token, token_id in vocab.items():
            table[token_id] = added[token_id].encode("utf-8") if token_id in added else self._token_bytes(token)
        return table

    def _token_bytes(self, token: str) -> bytes:
        if self.byte_level:
            try:
                return from_chars(token)
            except KeyError:
                return token.encode("utf-8")
        if self.byte_fallback and len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
            return bytes([int(token[3:5], 16)])
        return token.encode("utf-8")

    # Encoding

    def encode(self, text: str, special: SpecialMode = "disallowed") -> list[int]:
        return [token_id for _, encoding in self._encodings(text, special) for token_id in encoding.ids]

    def encode_tokens(self, text: str, special: SpecialMode = "disallowed") -> list[Token]:
        """Tokens with character spans into `text`.

        Byte-level tokens whose bytes spell the text get exact spans from their bytes. Where they
        do not (a normalizer changed the text, ByteLevel added a prefix space), spans are
        tokenizers' offsets: the characters of `text` each token's characters came from, so a
        token of NFC-composed or lowercased text spans the original characters. The prefix
        space is not in the text: tokenizers aligns it with the character after it; a token
        that is only that space gets an empty span there.
        """
        specials = set(self.special_tokens.values()) if special != "plain" else set()
        if self.byte_level:
            ids = self.encode(text, special)
            if join_token_bytes(self._vocab, ids) == text.encode("utf-8", errors="surrogatepass"):
                return tokens_from_ids(ids, self.token_bytes, specials if special == "allowed" else set())
            encodings = self._encodings(text, special, whole=True)  # offsets into the original text
        else:
            encodings = self._encodings(text, special)  # strings, not bytes: spans from the offsets
        byte_at = _byte_offsets(text)
        tokens: list[Token] = []
        for shift, encoding in encodings:
            datas = [self._vocab[token_id] for token_id in encoding.ids]
            for index, (token_id, data, (start, end)) in enumerate(zip(encoding.ids, datas, encoding.offsets)):
                start, end = start + shift, end + shift
                cuts_start = cuts_end = False
                if self.byte_level:
                    if data == b" " and text[start:end] != " ":
                        end = start  # the prefix space ByteLevel added
                    cuts_start = bool(data) and 0x80 <= data[0] < 0xC0
                    following = datas[index + 1] if index + 1 < len(datas) else b""
                    cuts_end = bool(following) and 0x80 <= following[0] < 0xC0
                tokens.append(Token(token_id, data, start, end, byte_at[start], byte_at[end], token_id in specials,
                                    cuts_start, cuts_end))
        return tokens

    def _encodings(self, text: str, special: SpecialMode, whole: bool = False
                   ) -> list[tuple[int, tokenizers.Encoding]]:
        """(character offset, Encoding) per window. `encode_batch` lets go of the interpreter lock
        (plain `encode` holds it: 6.5 s for 10 MB), and windows keep each result small.

        Windows are cut in the normalized text, where the pre-tokenizer runs (see hf_windows), and
        encoded by a copy without the normalizer; their offsets are then into that text. With
        `whole`, the text is encoded in one piece by the file's own pipeline, so offsets are
        into `text`.
        """
        text = without_surrogates(text)  # (tokenizers refuses the string: TypeError)
        self._special.check(text, special)  # raises in "disallowed" mode
        library = self._plain if special == "plain" else self._hf
        windows = [text]
        pretokenizer = self.pretokenizer
        if not whole and pretokenizer is not None and pretokenizer.windowed and len(text) > 2 * WINDOW:
            normalized = self._added.normalized(text, special, self._hf.normalizer)
            if normalized is not None:
                windows = self._added.windows(normalized, special, pretokenizer)
                if self._hf.normalizer is not None:
                    library = self._bare_plain if special == "plain" else self._bare
        encodings: list[tokenizers.Encoding] = []
        with RustCall(self._encode_failed, hold=self._custom_split):
            for group in range(0, len(windows), _BATCH):  # results are converted holding the lock: keep them small
                encodings += library.encode_batch(windows[group:group + _BATCH], add_special_tokens=False)
        shifts, position = [], 0
        for window in windows:
            shifts.append(position)
            position += len(window)
        if special == "disallowed":
            self._refuse_made_special_tokens(shifts, encodings)
        return list(zip(shifts, encodings))

    @cached_property
    def _unknown_id(self) -> int | None:
        """The id the model gives what its vocabulary lacks ([UNK], <unk>), if it has one."""
        model = self._document["model"]
        if type(model.get("unk_id")) is int:  # (Unigram names it by its place in the vocab)
            return int(model["unk_id"])
        token = model.get("unk_token")
        return self._hf.token_to_id(token) if isinstance(token, str) else None

    def _refuse_made_special_tokens(self, shifts: list[int], encodings: list[tokenizers.Encoding]) -> None:
        """The text was checked for special-token strings before encoding, but a normalizer can
        still make one: lowercased, 'say hello' held an added token written 'HeLLo'. Refused too,
        as 'disallowed' promises (at the character where the library found it, once normalized).
        The model's own unknown token ([UNK], <unk>) is no such token: it stands for what the
        vocabulary lacks."""
        names = {token_id: token for token, token_id in self.special_tokens.items()}
        names.pop(self._unknown_id, None)
        for shift, encoding in zip(shifts, encodings):
            if names.keys().isdisjoint(encoding.ids):
                continue
            at = next(i for i, token_id in enumerate(encoding.ids) if token_id in names)
            raise SpecialTokenError(names[encoding.ids[at]], shift + encoding.offsets[at][0])

    def _encode_failed(self, panic: str) -> ExplorerError:
        return ExplorerError(f"tokenizers failed to encode this text with {self.name} ({panic}); a split pattern "
                             "with nested repetition can exceed its regex engine's limit on some texts: simplify "
                             f"the pattern in {self.source}")

    @cached_property
    def _custom_split(self) -> bool:
        """A Split regex that is none of the known ones: Oniguruma may give up on it (and panic)."""
        known = {*NAMED_PATTERNS.values(), *map(hf_compatible, NAMED_PATTERNS.values())}
        return any(regex not in known for regex in _split_regexes(self._document.get("pre_tokenizer")))

    @cached_property
    def _plain(self) -> tokenizers.Tokenizer:
        """A second copy that reads special-token strings as ordinary text (for "plain" mode)."""
        return self._copy(plain=True)

    @cached_property
    def _bare(self) -> tokenizers.Tokenizer:
        """A copy without the normalizer, for windows of text normalized already."""
        return self._copy(bare=True)

    @cached_property
    def _bare_plain(self) -> tokenizers.Tokenizer:
        return self._copy(plain=True, bare=True)

    def _copy(self, plain: bool = False, bare: bool = False) -> tokenizers.Tokenizer:
        copy = tokenizers.Tokenizer.from_str(self._hf.to_str())
        copy.encode_special_tokens = plain
        if bare:
            copy.normalizer = None
        return copy

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        ids = list(ids)
        joined = join_token_bytes(self._vocab, ids, self.name)  # also checks every id exists
        if self.byte_level:
            return joined
        return self._hf.decode(ids, skip_special_tokens=False).encode("utf-8")

    # Views

    @property
    def pretokenizer(self) -> Pretokenizer | None:
        return self._pretokenizer

    @property
    def normalizer(self) -> dict[str, Any] | None:
        return self._document.get("normalizer") or None

    @property
    def spells_text(self) -> bool:
        return self.byte_level and self.pretokenizer is not None and self.normalizer is None

    @cached_property
    def _pretokenizer(self) -> Pretokenizer | None:
        return Pretokenizer(self._pattern, "tokenizers") if self._pattern is not None else None

    @cached_property
    def merges(self) -> list[tuple[int, int, int]]:
        """The file's merges as (left, right, new_id), in merge order (byte-level BPE only)."""
        if not self.byte_level:
            raise ExplorerError(self.unsupported[VIEW_MERGES])
        vocab = self._document["model"]["vocab"]
        merges = []
        for rank, merge in enumerate(self._document["model"].get("merges", [])):
            left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
            try:
                merges.append((vocab[left], vocab[right], vocab[left + right]))
            except KeyError as exc:
                raise TokenizerFileError(self.source, f"merge {rank} ({left!r} + {right!r}) uses {exc} "
                                         "which is not in the vocabulary") from None
        return merges

    @property
    def forest(self) -> MergeForest | None:
        return self._forest if self.byte_level else None

    @cached_property
    def _forest(self) -> MergeForest:
        return MergeForest(self.merges, self._vocab)

    def trace(self, chunk: str | bytes) -> list[TraceStep]:
        if not self.byte_level:
            return super().trace(chunk)  # raises with the reason
        return self._bpe.trace(chunk)  # the split pattern does not matter inside one chunk

    def as_bpe(self) -> BPE:
        if not self.byte_level:
            return super().as_bpe()  # raises with the reason
        if self.pretokenizer is None:
            raise UnsupportedView(f"{self.name} cannot be rebuilt here: {self.unsupported[VIEW_CHUNKS]}")
        return self._bpe

    @cached_property
    def _bpe(self) -> BPE:
        model = self._document["model"].get("vocab") or {}  # a special token in it at its own id is a model token
        special_ids = {token_id for token, token_id in self.special_tokens.items() if model.get(token) != token_id}
        model_vocab = [b"" if token_id in special_ids else data for token_id, data in enumerate(self._vocab)]
        return BPE(self.merges, self._pattern or NONE, self.special_tokens, self.name, source=self.source,
                   vocab=model_vocab, ignore_merges=bool(self._document["model"].get("ignore_merges")))

    @property
    def unsupported(self) -> dict[str, str]:
        reasons: dict[str, str] = {}
        if not self.byte_level:
            reasons[VIEW_MERGES] = _NO_MERGES.get(self.model_type, (
                "this BPE merges characters and uses bytes only for characters it does not know "
                "(SentencePiece style), so there is no byte-level merge forest"
                if self.byte_fallback else "this BPE is not byte-level, so there is no byte-level merge forest"))
            reasons[VIEW_BYTES] = _NOT_BYTES.format(self.model_type)
            reasons[VIEW_CHUNKS] = "the pre-tokenizer is not a regex split we can show"
        elif self.pretokenizer is None:
            reasons[VIEW_CHUNKS] = self._no_chunks or "the pre-tokenizer is not a regex split we can show"
        return reasons


def _read_by_library(document: dict[str, Any], text: str, source: str) -> tokenizers.Tokenizer:
    """`tokenizers`' own reading of the file; a panic's report on stderr is held back, as the
    error says it in one line."""
    with RustCall(lambda panic: _unreadable(document, source, panic), hold=True):
        try:
            return tokenizers.Tokenizer.from_str(text)
        except Exception as exc:  # tokenizers raises plain Exception for every kind of bad file
            raise TokenizerFileError(source, f"tokenizers cannot read it: {exc}") from None


def _unreadable(document: dict[str, Any], source: str, panic: str) -> TokenizerFileError:
    """The error for a file `tokenizers` panicked on: its checks missed something it then tripped over,
    often a model option that does not fit the vocabulary and merges."""
    model = document["model"]
    bpe = model.get("type", "BPE") == "BPE"
    options = [f"{option} {model[option]!r}" for option in _MERGE_OPTIONS if bpe and model.get(option) is not None]
    verb = "does" if len(options) == 1 else "do"
    culprit = (f"its model's {' and '.join(options)} {verb} not fit its vocabulary and merges" if options else
               "the library tripped over something in it that its checks missed")
    return TokenizerFileError(source, f"tokenizers cannot read it ({panic}): {culprit}; check the file, or "
                              "export the tokenizer again from where it came from")


def _exact(library: tokenizers.Tokenizer) -> tokenizers.Tokenizer:
    """`library` set to give every id of a text, the same ids each time: no truncation, no padding,
    no BPE dropout (copies made from its `to_str()` keep these settings)."""
    library.no_truncation()
    library.no_padding()
    if isinstance(library.model, tokenizers.models.BPE):
        library.model.dropout = None
    return library


def _check_ids(document: dict[str, Any], source: str) -> None:
    """Refuse ids that no real vocabulary has before `tokenizers` or our id table allocates for them."""
    vocab = document["model"].get("vocab")
    model_ids = list(vocab.values()) if isinstance(vocab, dict) else []
    added = document.get("added_tokens") or []
    if not isinstance(added, list):
        raise TokenizerFileError(source, f"\"added_tokens\" is {type(added).__name__}, not a list: the file is damaged")
    ids = model_ids + [t.get("id") for t in added if isinstance(t, dict)]
    bad = next((i for i in ids if not isinstance(i, int) or not 0 <= i < MAX_TOKEN_ID), None)
    if bad is not None:
        raise TokenizerFileError(source, f"the id {bad!r} is not a whole number from 0 to {MAX_TOKEN_ID - 1}: "
                                 "the file is damaged")
    if len(set(model_ids)) != len(model_ids):
        twice = next(token_id for token_id, count in Counter(model_ids).items() if count > 1)
        tokens = [token for token, token_id in vocab.items() if token_id == twice]  # type: ignore[union-attr]
        raise TokenizerFileError(source, f"the vocabulary gives the id {twice} to {tokens[0]!r} and {tokens[1]!r}; "
                                 "each token needs its own id")


def _split_regexes(component: dict[str, Any] | None) -> list[str]:
    """The regex of every Split step of a pre-tokenizer, inside Sequences too."""
    if not isinstance(component, dict):
        return []
    own = [component["pattern"]["Regex"]] if component.get("type") == "Split" and isinstance(
        component.get("pattern"), dict) and "Regex" in component["pattern"] else []
    return own + [regex for step in component.get("pretokenizers") or [] for regex in _split_regexes(step)]


def _mentions_byte_level(document: dict[str, Any]) -> bool:
    """ByteLevel in the decoder or the pre-tokenizer: the vocabulary is GPT-2's byte characters."""
    return "ByteLevel" in _types(document.get("decoder")) | _types(document.get("pre_tokenizer"))


def _types(component: dict[str, Any] | None) -> set[str]:
    """The `type` of a pipeline component and of every step of a Sequence inside it."""
    if not component:
        return set()
    steps = component.get("pretokenizers") or component.get("decoders") or []
    return {str(component.get("type"))}.union(*(_types(step) for step in steps))


def _pattern_of(document: dict[str, Any]) -> tuple[str | None, str | None]:
    """The regex that chunks text before BPE, or None and the reason we cannot run it."""
    pre = document.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    if len(steps) == 1 and steps[0].get("type") == "ByteLevel":
        pattern = BYTE_LEVEL if steps[0].get("use_regex", True) else NONE
        byte_level = steps[0]
    elif (len(steps) == 2 and steps[0].get("type") == "Split" and steps[1].get("type") == "ByteLevel"
          and "Regex" in (steps[0].get("pattern") or {}) and str(steps[0].get("behavior")).lower() == "isolated"
          and not steps[0].get("invert") and not steps[1].get("use_regex", True)):
        pattern, byte_level = steps[0]["pattern"]["Regex"], steps[1]
    else:
        return None, "the pre-tokenizer is not one regex split followed by ByteLevel"
    if byte_level.get("add_prefix_space"):
        return None, "the pre-tokenizer adds a space before the text, which a regex split cannot show"
    try:
        Pretokenizer(pattern)
    except PatternError as exc:
        return None, f"the split pattern does not compile here ({exc})"
    return pattern, None


def _byte_offsets(text: str) -> list[int]:
    """character index -> byte offset in UTF-8, for every character and the end."""
    if text.isascii():
        return list(range(len(text) + 1))
    offsets = [0]
    for char in text:
        offsets.append(offsets[-1] + len(char.encode("utf-8", errors="surrogatepass")))
    return offsets


def _name_from_path(path: Path) -> str:
    """`tokenizer.json` says nothing about its model, so name it after its folder."""
    return path.parent.name if path.name == "tokenizer.json" and path.parent.name else path.stem
