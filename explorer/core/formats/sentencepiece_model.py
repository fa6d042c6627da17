"""SentencePiece `.model` files (Llama 2, Mistral v1-v7, Gemma), read without protobuf.

A `.model` file is a serialized `ModelProto` (sentencepiece_model.proto): its pieces with
scores and types, the trainer's settings and the normalizer's. The few fields encoding needs
are read here with a small protobuf wire-format reader, so no new dependency is needed.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from explorer.core.errors import TokenizerFileError
from explorer.core.files import read_bytes

# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
TYPE_NAMES = {NORMAL: "normal", UNKNOWN: "unknown", CONTROL: "control", USER_DEFINED: "user-defined",
              UNUSED: "unused", BYTE: "byte"}
MODEL_TYPES = {1: "Unigram", 2: "BPE", 3: "Word", 4: "Char"}

_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5


@dataclass(frozen=True)
class Piece:
    piece: str
    score: float
    type: int = NORMAL


@dataclass(frozen=True)
class Normalizer:
    """NormalizerSpec: the rule set's name and the whitespace handling (defaults as in the proto)."""

    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    normalization_rule_tsv: str = ""


@dataclass(frozen=True)
class ModelFile:
    """The parts of a ModelProto that decide how text is encoded and decoded."""

    pieces: list[Piece]
    model_type: int = 1  # TrainerSpec.model_type, UNIGRAM by default
    byte_fallback: bool = False
    treat_whitespace_as_suffix: bool = False
    unk_surface: str = " \u2047 "
    bos_id: int = 1
    eos_id: int = 2
    normalizer: Normalizer = field(default_factory=Normalizer)
    denormalizer: Normalizer | None = None


def _fields(data: bytes, path: object) -> list[tuple[int, int, object]]:
    """(field number, wire type, value) of one message: ints for varints, bytes for the rest."""
    out: list[tuple[int, int, object]] = []
    position, end = 0, len(data)
    try:
        while position < end:
            key, position = _varint(data, position)
            number, wire = key >> 3, key & 7
            if wire == _VARINT:
                value, position = _varint(data, position)
                out.append((number, wire, value))
            elif wire == _BYTES:
                length, position = _varint(data, position)
                if position + length > end:
                    raise IndexError
                out.append((number, wire, data[position:position + length]))
                position += length
            elif wire == _FIXED32:
                out.append((number, wire, data[position:position + 4]))
                position += 4
            elif wire == _FIXED64:
                out.append((number, wire, data[position:position + 8]))
                position += 8
            else:
                raise ValueError(f"wire type {wire}")
            if position > end:
                raise IndexError
    except (IndexError, ValueError):
        raise TokenizerFileError(path, "not a SentencePiece model: its protobuf data is damaged or truncated "
                                 f"(at byte {position})") from None
    return out


def _varint(data: bytes, position: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, position
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _text(value: object, path: object) -> str:
    try:
        return bytes(value).decode("utf-8")  # type: ignore[call-overload]
    except (UnicodeDecodeError, TypeError):
        raise TokenizerFileError(path, "not a SentencePiece model: a piece is not UTF-8 text") from None


def _int32(value: int) -> int:
    """A protobuf int32 written as a 64-bit varint (negative numbers, like pad_id -1)."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _normalizer(data: bytes, path: object) -> Normalizer:
    values: dict[str, object] = {}
    for number, wire, value in _fields(data, path):
        if number == 1 and wire == _BYTES:
            values["name"] = _text(value, path)
        elif number == 2 and wire == _BYTES:
            values["precompiled_charsmap"] = bytes(value)  # type: ignore[call-overload]
        elif number in (3, 4, 5) and wire == _VARINT:
            values[{3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}[number]] = bool(value)
        elif number == 6 and wire == _BYTES:
            values["normalization_rule_tsv"] = _text(value, path)
    return Normalizer(**values)  # type: ignore[arg-type]


def _piece(data: bytes, path: object) -> Piece:
    piece, score, kind = "", 0.0, NORMAL
    for number, wire, value in _fields(data, path):
        if number == 1 and wire == _BYTES:
            piece = _text(value, path)
        elif number == 2 and wire == _FIXED32:
            score = struct.unpack("<f", value)[0]  # type: ignore[arg-type]
        elif number == 3 and wire == _VARINT:
            kind = int(value)  # type: ignore[call-overload]
    return Piece(piece, score, kind)


def parse_model(data: bytes, path: object = "<model>") -> ModelFile:
    """A ModelProto's pieces and settings; raises TokenizerFileError for anything else."""
    pieces: list[Piece] = []
    trainer: dict[str, object] = {}
    normalizer, denormalizer = Normalizer(), None
    for number, wire, value in _fields(data, path):
        if wire != _BYTES:
            continue
        if number == 1:
            pieces.append(_piece(value, path))  # type: ignore[arg-type]
        elif number == 2:
            for sub, sub_wire, sub_value in _fields(value, path):  # type: ignore[arg-type]
                if sub_wire == _VARINT and sub in (3, 24, 35, 41, 42):
                    name = {3: "model_type", 24: "treat_whitespace_as_suffix", 35: "byte_fallback",
                            41: "bos_id", 42: "eos_id"}[sub]
                    trainer[name] = _int32(sub_value) if sub in (41, 42) else (
                        int(sub_value) if sub == 3 else bool(sub_value))  # type: ignore[call-overload]
                elif sub == 44 and sub_wire == _BYTES:
                    trainer["unk_surface"] = _text(sub_value, path)
        elif number == 3:
            normalizer = _normalizer(value, path)  # type: ignore[arg-type]
        elif number == 5:
            denormalizer = _normalizer(value, path)  # type: ignore[arg-type]
    if not pieces:
        raise TokenizerFileError(path, "not a SentencePiece model: it has no pieces")
    first: dict[str, int] = {}  # (sentencepiece refuses a model that defines a piece twice)
    for index, piece in enumerate(pieces):
        if first.setdefault(piece.piece, index) != index:
            raise TokenizerFileError(path, f"the piece {piece.piece!r} is defined twice (ids {first[piece.piece]} "
                                     f"and {index}): the file is damaged")
    return ModelFile(pieces, normalizer=normalizer, denormalizer=denormalizer, **trainer)  # type: ignore[arg-type]


def looks_like_model(data: bytes) -> bool:
    """Whether `data` starts as a ModelProto does: field 1 (a piece, 0x0A) holding a message whose
    first field is the piece's text (0x0A again), non-empty UTF-8. Text files never pass."""
    if len(data) < 4 or data[0] != 0x0A:
        return False
    try:
        length, position = _varint(data, 1)
        if data[position] != 0x0A or position + length > len(data):
            return False
        first = _fields(data[position:position + length], "<model>")
    except (IndexError, ValueError, TokenizerFileError):
        return False
    return bool(first) and first[0][:2] == (1, _BYTES) and _is_text(first[0][2])


def _is_text(value: object) -> bool:
    try:
        return bool(bytes(value).decode("utf-8"))  # type: ignore[call-overload]
    except (UnicodeDecodeError, TypeError):
        return False


def read_model(path: str | os.PathLike[str]) -> ModelFile:
    return parse_model(read_bytes(path), path)


@dataclass(frozen=True)
class BundledModel:
    """A SentencePiece model shipped with the app (packaging/fetch_sentencepiece.py fetches them)."""

    name: str
    sha256: str
    description: str
    member: str  # where it is in the mistral-common wheel
    family: str = "Mistral"

    @property
    def path(self) -> Path:
        """The shipped file, found through the package so it works from a wheel or a checkout."""
        return Path(str(resources.files("explorer.resources") / "sentencepiece" / f"{self.name}.model"))

    @property
    def source(self) -> str:
        return f"bundled SentencePiece model ({self.description})"


BUNDLED_MODELS: dict[str, BundledModel] = {
    model.name: model
    for model in [
        BundledModel("mistral_v1", "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
                     "Mistral 7B v0.1-v0.2, Mixtral 8x7B", "mistral_common/data/tokenizer.model.v1"),
        BundledModel("mistral_v3", "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
                     "Mistral 7B v0.3, Mixtral 8x22B, Codestral 22B",
                     "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3"),
        BundledModel("mistral_v7", "1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a",
                     "Mistral Large 2411", "mistral_common/data/mistral_instruct_tokenizer_241114.model.v7"),
    ]
}
