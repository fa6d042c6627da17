"""SentencePiece BPE (Llama 2, Mistral v1-v7) behind the one Tokenizer interface, encoded by our own code.

The text is normalized as the model's NormalizerSpec says (spaces become `▁`, a `▁` is put in
front), then merged by score (sentencepiece_bpe.py); characters no piece covers fall back to
their UTF-8 bytes (`<0xE0>` pieces). A token's bytes are its piece with `▁` as a space, or the
byte itself, so the views show them as they show byte-level tokens. Ids equal the
`sentencepiece` package's (`add_bos` off); the merge tree is recovered from the scores.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from functools import cached_property
from itertools import repeat
from pathlib import Path

import numpy as np

from explorer.core.algorithms.bpe import BPE, SpecialTokens, TraceStep, join_token_bytes
from explorer.core.algorithms.merges import MergeForest
from explorer.core.algorithms.sentencepiece_bpe import Step, merge, recover_parents, score_ranks
from explorer.core.errors import ExplorerError, TokenizerFileError
from explorer.core.files import read_bytes
from explorer.core.formats.sentencepiece_model import (BUNDLED_MODELS, BYTE, CONTROL, MODEL_TYPES, NORMAL, UNKNOWN,
                                                       UNUSED, USER_DEFINED, ModelFile, parse_model)
from explorer.core.sources.tokenizer import VIEW_CHUNKS, ListedVocabulary, SpecialMode, Token, UnsupportedView

SPACE = "\u2581"  # ▁, SentencePiece's visible space
_CACHE_LIMIT = 1 << 20
_ESCAPED = {code: "\ufffd" for code in range(0xDC80, 0xDD00)}  # surrogateescape's bytes -> U+FFFD each


class _ChunkCache(dict[str, tuple[int, ...]]):
    """normalized chunk -> ids, encoded on first use so that repeated words cost a lookup."""

    def __init__(self, tokenizer: SentencePieceTokenizer) -> None:
        super().__init__()
        self._encode = tokenizer.encode_normalized

    def __missing__(self, chunk: str) -> tuple[int, ...]:
        ids = self[chunk] = tuple(self._encode(chunk))
        return ids


class SentencePieceTokenizer(ListedVocabulary):
    """A SentencePiece BPE `.model`.

    >>> mistral = SentencePieceTokenizer.bundled("mistral_v3")
    >>> mistral.encode("Hello world")
    [23325, 2294]
    """

    kind = "SentencePiece BPE"

    def __init__(self, model: ModelFile, name: str, source: str, sha256: str = "") -> None:
        _check_supported(model, source)
        self.name, self.source, self.sha256, self.model = name, source, sha256, model
        self.byte_fallback = model.byte_fallback
        if self.byte_fallback:
            self.kind = "SentencePiece BPE with byte fallback"
        spec = model.normalizer
        self._prefix = SPACE if spec.add_dummy_prefix else ""
        self.pieces = [p.piece for p in model.pieces]
        normal: dict[str, int] = {}  # bpe_model's pieces_: what merges may make (first id wins)
        reserved: dict[str, int] = {}  # control, unknown and byte pieces
        for token_id, p in enumerate(model.pieces):
            (normal if p.type in (NORMAL, USER_DEFINED, UNUSED) else reserved).setdefault(p.piece, token_id)
        self._id_of = {**normal, **reserved}  # PieceToId looks in the reserved pieces first
        self._rank_of = score_ranks({piece: model.pieces[token_id].score for piece, token_id in normal.items()})
        self.user_defined = frozenset(p.piece for p in model.pieces if p.type == USER_DEFINED)
        self._user_regex = (re.compile("|".join(map(re.escape, sorted(self.user_defined, key=len, reverse=True)))
                                       + "|.", re.DOTALL) if self.user_defined else None)
        self.unk_id = next(i for i, p in enumerate(model.pieces) if p.type == UNKNOWN)
        self._byte_ids = [self._id_of.get(f"<0x{b:02X}>", self.unk_id) for b in range(256)]
        self._is_byte = [p.type == BYTE for p in model.pieces]
        self._vocab = [_piece_bytes(p.piece, p.type) for p in model.pieces]
        self._length = [len(p.piece) for p in model.pieces]  # normalized characters a token covers
        self._special = SpecialTokens({p.piece: i for i, p in enumerate(model.pieces) if p.type == CONTROL})
        self.bos_id = model.bos_id if 0 <= model.bos_id < len(self.pieces) else None
        self.eos_id = model.eos_id if 0 <= model.eos_id < len(self.pieces) else None
        # A merge never joins a character to a following `▁` unless some piece holds one after
        # another character; then the text can be cut before every run of `▁` and each chunk
        # merged (and cached) alone with the same result.
        cuttable = not any(a != SPACE and b == SPACE for piece in normal for a, b in zip(piece, piece[1:]))
        self._chunk_regex = re.compile(f"{SPACE}+[^{SPACE}]*|[^{SPACE}]+" if cuttable else r".+", re.DOTALL)
        self._cache = _ChunkCache(self)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], name: str | None = None) -> SentencePieceTokenizer:
        """Any SentencePiece BPE `.model` file (a copy of a bundled one keeps its name)."""
        data = read_bytes(path)
        sha256 = hashlib.sha256(data).hexdigest()
        known = next((model for model in BUNDLED_MODELS.values() if model.sha256 == sha256), None)
        default = known.name if known is not None else Path(path).name.split(".")[0]
        return cls(parse_model(data, path), name or default, str(path), sha256)

    @classmethod
    def bundled(cls, name: str) -> SentencePieceTokenizer:
        """`mistral_v1`, `mistral_v3` or `mistral_v7`, from the files shipped with the app."""
        model = BUNDLED_MODELS.get(name)
        if model is None:
            raise ExplorerError(f"no bundled SentencePiece model {name!r}; choose one of {', '.join(BUNDLED_MODELS)}")
        data = read_bytes(model.path)
        sha256 = hashlib.sha256(data).hexdigest()
        if sha256 != model.sha256:
            raise TokenizerFileError(model.path, f"sha256 is {sha256}, not the pinned {model.sha256}: the file is "
                                     "damaged or a different version; run packaging/fetch_sentencepiece.py to restore it")
        return cls(parse_model(data, model.path), model.name, model.source, sha256)

    # Encoding

    def normalize(self, text: str) -> str:
        """The text as the model sees it (identity normalization): `▁` for spaces, one in front.

        >>> SentencePieceTokenizer.bundled("mistral_v1").normalize("a b")
        '▁a▁b'
        """
        if not text:
            return ""
        return self._prefix + text.replace(" ", SPACE)

    def symbols(self, normalized: str) -> list[str]:
        """Where merging starts: characters, with user-defined pieces matched whole (longest first)."""
        return self._user_regex.findall(normalized) if self._user_regex is not None else list(normalized)

    def encode_normalized(self, normalized: str) -> list[int]:
        """Merge normalized text and look the pieces up; unknown ones become bytes or <unk>."""
        out: list[int] = []
        id_of, unk = self._id_of, self.unk_id
        for symbol in merge(self.symbols(normalized), self._rank_of, self.user_defined):
            token_id = id_of.get(symbol, unk)
            if token_id != unk:
                out.append(token_id)
            elif self.byte_fallback:
                out.extend(self._byte_ids[b] for b in symbol.encode("utf-8", errors="surrogatepass"))
            elif not out or out[-1] != unk:  # a run of unknown pieces is one <unk>, as in sentencepiece
                out.append(unk)
        return out

    def _encode_text(self, text: str) -> list[int]:
        """Ids of ordinary text: normalized, cut before each run of `▁`, each chunk from the cache."""
        if len(self._cache) > _CACHE_LIMIT:
            self._cache.clear()
        out: list[int] = []
        for chunk in self._chunk_regex.findall(self.normalize(text)):
            out.extend(self._cache[chunk])
        if not self.byte_fallback:  # unknown runs split by a chunk cut are still one <unk>
            out = [i for n, i in enumerate(out) if i != self.unk_id or n == 0 or out[n - 1] != self.unk_id]
        return out

    def encode(self, text: str, special: SpecialMode = "disallowed") -> list[int]:
        """sentencepiece's ids without BOS; in 'allowed' mode control-token strings become their ids and
        the text between them is encoded as separate texts (each with its own `▁` in front)."""
        ids: list[int] = []
        for _, segment, special_id in self._special.segments(text, special):
            if special_id is not None:
                ids.append(special_id)
            else:
                ids.extend(self._encode_text(segment))
        return ids

    def spelled_text(self, text: str, special: SpecialMode = "disallowed") -> str:
        """The text the tokens' bytes spell: `text` with a space in front of each run of ordinary text
        (the `▁` SentencePiece puts there), for views that show the model's bytes."""
        return "".join(segment if special_id is not None or not segment else
                       (" " if self._prefix else "") + segment
                       for _, segment, special_id in self._special.segments(text, special))

    def encode_alone(self, data: bytes) -> list[int]:
        """What a token's own bytes encode to without the dummy prefix (for the vocabulary audit)."""
        text = data.decode("utf-8", errors="surrogateescape")
        return self.encode_normalized(text.replace(" ", SPACE))

    def encode_tokens(self, text: str, special: SpecialMode = "disallowed") -> list[Token]:
        """Tokens with spans into `text` (see `span_columns`)."""
        tokens: list[Token] = []
        byte_position = 0
        for start, segment, special_id in self._special.segments(text, special):
            size = len(segment.encode("utf-8", errors="surrogatepass"))
            if special_id is not None:
                tokens.append(Token(special_id, self._vocab[special_id], start, start + len(segment), byte_position,
                                    byte_position + size, special=True))
            elif segment:
                ids, starts, ends, byte_starts, byte_ends, cuts_start, cuts_end = self.span_columns(segment)
                tokens.extend(map(Token, ids.tolist(), [self._vocab[i] for i in ids.tolist()],
                                  (starts + start).tolist(), (ends + start).tolist(),
                                  (byte_starts + byte_position).tolist(), (byte_ends + byte_position).tolist(),
                                  repeat(False), cuts_start.tolist(), cuts_end.tolist()))
            byte_position += size
        return tokens

    def span_columns(self, text: str) -> tuple[np.ndarray, ...]:
        """The ids of ordinary text and, per token, its character start and end, byte start and end in
        `text`, and whether it starts or ends inside a character: numpy columns, no loop per token.

        The `▁` put in front belongs to the first character (a token that is only that `▁` has an
        empty span); the bytes of a character that fell back to bytes each get that character and
        are cut (`cuts_start`/`cuts_end`) as byte-level tokens are.
        """
        ids = np.asarray(self._encode_text(text), np.int64)
        count = np.arange(len(ids))
        is_byte = self._columns["byte"][ids]
        continues = self._columns["continuation"][ids]  # a byte token holding a character's later byte
        next_continues = np.zeros(len(ids), bool)
        next_continues[:-1] = continues[1:]
        advance = np.where(is_byte, ~next_continues, self._columns["length"][ids])  # normalized characters
        if not self.byte_fallback and (ids == self.unk_id).any():  # an <unk> is as long as what it stands for
            advance = np.asarray(self._symbol_lengths(text), np.int64)
        after = np.cumsum(advance) - len(self._prefix)
        starts = np.maximum(after - advance, 0)
        ends = np.where(is_byte, starts + 1, after)
        within = count - np.maximum.accumulate(np.where(continues, 0, count))  # bytes into its character
        offsets = _byte_offsets(text)
        byte_starts = offsets[starts] + within
        byte_ends = np.where(is_byte, byte_starts + 1, offsets[ends])
        return ids, starts, ends, byte_starts, byte_ends, within > 0, is_byte & next_continues

    def _symbol_lengths(self, text: str) -> list[int]:
        """Normalized characters of each token of `text`, from the merged pieces (a run of unknown
        ones is one <unk>, as in `_encode_text`)."""
        lengths: list[int] = []
        unknown = False
        for chunk in self._chunk_regex.findall(self.normalize(text)):
            for symbol in merge(self.symbols(chunk), self._rank_of, self.user_defined):
                if self._id_of.get(symbol, self.unk_id) != self.unk_id:
                    lengths.append(len(symbol))
                    unknown = False
                elif unknown:
                    lengths[-1] += len(symbol)
                else:
                    lengths.append(len(symbol))
                    unknown = True
        return lengths

    @cached_property
    def _columns(self) -> dict[str, np.ndarray]:
        """Per id: is it a byte token, one holding a continuation byte, and how many normalized characters."""
        is_byte = np.asarray(self._is_byte, bool)
        continuation = is_byte & np.asarray([bool(data) and 0x80 <= data[0] < 0xC0 for data in self._vocab], bool)
        return {"byte": is_byte, "continuation": continuation, "length": np.asarray(self._length, np.int64)}

    # Decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """sentencepiece's decoding before UTF-8: control tokens vanish, <unk> is ` ⁇ `, and the first
        piece loses the `▁` the encoder put in front."""
        return b"".join(self._runs(ids))

    def _runs(self, ids: Iterable[int]) -> list[bytes]:
        """`decode_bytes` cut at each control token: sentencepiece decodes each run to text on its
        own, so the two bytes of a character with a control token between them are two U+FFFD."""
        ids = ids if isinstance(ids, (list, tuple)) else list(ids)
        join_token_bytes(self._vocab, ids)  # raises for an id that does not exist
        strip = bool(self.model.normalizer.add_dummy_prefix or self.model.normalizer.remove_extra_whitespaces)
        out: list[bytes] = []
        runs: list[bytes] = []
        expecting, written = True, False  # a leading `▁` to drop; anything written yet
        for token_id in ids:
            kind = self.model.pieces[token_id].type
            if kind == BYTE:
                out.append(self._vocab[token_id])
                written = True
                continue
            if written:
                expecting = False
            if kind == CONTROL:
                runs.append(b"".join(out))
                out.clear()
                continue
            if kind == UNKNOWN:
                out.append(self.model.unk_surface.encode("utf-8"))
                written = True
                continue
            piece = self.pieces[token_id]
            dropped = expecting and strip and piece.startswith(SPACE)
            if dropped:
                piece = piece[1:]
            out.append(piece.replace(SPACE, " ").encode("utf-8"))
            written = written or bool(piece)
            expecting = expecting and not dropped
        runs.append(b"".join(out))
        return runs

    def decode(self, ids: Iterable[int]) -> str:
        """As sentencepiece decodes: each byte that is not part of a valid character is one U+FFFD."""
        return "".join(run.decode("utf-8", errors="surrogateescape") for run in self._runs(ids)).translate(_ESCAPED)

    # Views

    @property
    def spells_text(self) -> bool:
        return False  # the `▁` in front is not in the text

    @cached_property
    def merges(self) -> list[tuple[int, int, int]]:
        """(left, right, new_id) recovered from the scores, best score first (see recover_parents)."""
        id_of = self._id_of
        candidates = [p.piece for p in self.model.pieces if p.type == NORMAL and len(p.piece) > 1]
        parents = recover_parents(candidates, self.symbols, self._rank_of, self.user_defined)
        made = [(self._rank_of[piece], id_of[piece], id_of[left], id_of[right])
                for piece, (left, right) in parents.items()
                if id_of.get(left, self.unk_id) != self.unk_id and id_of.get(right, self.unk_id) != self.unk_id]
        return [(left, right, new_id) for _, new_id, left, right in sorted(made)]

    @cached_property
    def forest(self) -> MergeForest:
        return MergeForest(self.merges, self._vocab, leaf="char")

    def trace_start(self, chunk: str | bytes) -> list[int]:
        text = chunk.decode("utf-8", errors="replace") if isinstance(chunk, bytes) else chunk
        return self._expand(self.symbols(self.normalize(text)))

    def trace(self, chunk: str | bytes) -> list[TraceStep]:
        """Every merge, one at a time in sentencepiece's order (best score, then leftmost), over the
        whole normalized text; ids are shown with unknown characters as their bytes."""
        text = chunk.decode("utf-8", errors="replace") if isinstance(chunk, bytes) else chunk
        symbols = self.symbols(self.normalize(text))
        recorded: list[Step] = []
        merge(list(symbols), self._rank_of, self.user_defined, recorded)
        rank_of = {new_id: rank for rank, (_, _, new_id) in enumerate(self.merges)}
        steps = []
        for _, index, left, right in recorded:
            position = len(self._expand(symbols[:index]))
            symbols[index:index + 2] = (left + right,)
            new_id = self._id_of[left + right]
            steps.append(TraceStep(rank_of.get(new_id, -1), self._id_of.get(left, self.unk_id),
                                   self._id_of.get(right, self.unk_id), new_id, (position,),
                                   tuple(self._expand(symbols))))
        return steps

    def _expand(self, symbols: list[str]) -> list[int]:
        out: list[int] = []
        for symbol in symbols:
            token_id = self._id_of.get(symbol, self.unk_id)
            if token_id == self.unk_id and self.byte_fallback:
                out.extend(self._byte_ids[b] for b in symbol.encode("utf-8", errors="surrogatepass"))
            else:
                out.append(token_id)
        return out

    def as_bpe(self) -> BPE:
        raise UnsupportedView(f"{self.name} is SentencePiece BPE: it merges characters by score, not bytes by "
                              "rank, so it cannot be exported or rebuilt as byte-level BPE")

    @property
    def unsupported(self) -> dict[str, str]:
        return {VIEW_CHUNKS: "SentencePiece does not split the text with a pattern: it merges the whole text, "
                             "with `▁` for spaces"}


def _piece_bytes(piece: str, kind: int) -> bytes:
    """What a piece stands for: `<0xE0>` is the byte E0, `▁` is a space; control pieces keep their text."""
    if kind == BYTE:
        return bytes([int(piece[3:5], 16)])
    if kind in (CONTROL, UNKNOWN):
        return piece.encode("utf-8")
    return piece.replace(SPACE, " ").encode("utf-8")


def _byte_offsets(text: str) -> np.ndarray:
    """character index -> byte offset in UTF-8, for every character and the end."""
    if text.isascii():
        return np.arange(len(text) + 1)
    codes = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), np.uint32)
    sizes = 1 + (codes >= 0x80).astype(np.int64) + (codes >= 0x800) + (codes >= 0x10000)
    return np.concatenate([[0], np.cumsum(sizes)])


def _check_supported(model: ModelFile, path: object) -> None:
    """Refuse, in plain words, what this encoder does not do exactly as sentencepiece does."""
    spec = model.normalizer
    problems = []
    if model.model_type != 2:
        problems.append(f"it is a {MODEL_TYPES.get(model.model_type, 'unknown')} model; only BPE models are supported")
    if spec.precompiled_charsmap or spec.normalization_rule_tsv or spec.name not in ("identity", ""):
        problems.append(f"its normalizer is {spec.name or 'custom'!r}; only 'identity' is supported (Llama 2 and "
                        "Mistral use it)")
    if spec.remove_extra_whitespaces:
        problems.append("it removes extra whitespace, which is not supported")
    if not spec.escape_whitespaces:
        problems.append("it keeps spaces as they are (escape_whitespaces off), which is not supported")
    if model.treat_whitespace_as_suffix:
        problems.append("it puts `▁` after words (treat_whitespace_as_suffix), which is not supported")
    if model.denormalizer is not None and (model.denormalizer.precompiled_charsmap or
                                           model.denormalizer.normalization_rule_tsv):
        problems.append("it has a denormalizer, which is not supported")
    if any(p.type == UNUSED for p in model.pieces):
        problems.append("it has unused pieces, which are not supported")
    if sum(p.type == UNKNOWN for p in model.pieces) != 1:
        problems.append("it must have exactly one <unk> piece")
    if any(not p.piece for p in model.pieces):
        problems.append("a piece is empty")
    bytes_found = {p.piece for p in model.pieces if p.type == BYTE}
    if model.byte_fallback and len(bytes_found & {f"<0x{b:02X}>" for b in range(256)}) != 256:
        problems.append("it falls back to bytes but does not have all 256 byte pieces")
    if problems:
        raise TokenizerFileError(path, "cannot encode this SentencePiece model exactly: " + "; ".join(problems))
