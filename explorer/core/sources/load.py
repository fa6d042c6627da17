"""One entry point that turns what a user names into a tokenizer, and the list of what there is.

A spec is a bundled encoding (`o200k_base`, `cl100k_base`, `r50k_base` or `gpt2`, `o200k_harmony`,
`llama3`, `llama4`, `qwen`, `tekken`), `hf:ORG/NAME` for a model in the local Hugging Face cache,
or a path: our own JSON, a Hugging Face tokenizer.json (or a folder holding one), a Mistral
`tekken.json`, a `.tiktoken` rank file, or a minbpe `.model`.
Files are recognised by their content, so a renamed file still loads.
SentencePiece BPE models load too: the bundled `mistral_v1`, `mistral_v3` and `mistral_v7`, any
SentencePiece `.model` file, and a cached model's `tokenizer.model` when it has no tokenizer.json.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import ExplorerError, TokenizerFileError
from explorer.core.files import parse_json, read_bytes
from explorer.core.formats import tekken, tiktoken_file
from explorer.core.formats.sentencepiece_model import BUNDLED_MODELS, looks_like_model
from explorer.core.sources.hf_cache import HF_PREFIX, SENTENCEPIECE_FILE, cached_models, find_model, hub_cache_dir
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer
from explorer.core.sources.tokenizer import Tokenizer

# The other sources (Hugging Face's tokenizers, SentencePiece, our own and minbpe files with the
# trainer behind them) are imported where a spec needs them: at start-up the last tokenizer is
# usually a bundled encoding, and their 40-70 ms of imports sat on the way to its first tokens.

_RANK_LINE = re.compile(rb"[A-Za-z0-9+/=]+ \d+\r?\n")


@dataclass(frozen=True, slots=True)
class TokenizerEntry:
    """A tokenizer that can be loaded by its `spec`, for pickers and `tokenizer-explorer list`."""

    name: str
    source: str
    spec: str
    family: str = ""  # the picker's group for a bundled encoding: "OpenAI", "Meta Llama", ...
    description: str = ""  # one line for a bundled encoding: the models that use it


def load_tokenizer(spec: str, pattern: str | None = None) -> Tokenizer:
    """The tokenizer that `spec` names; `pattern` is needed only by an unknown `.tiktoken` file.

    >>> load_tokenizer("gpt2").name
    'r50k_base'
    """
    if pattern is not None and not _is_rank_file(Path(spec)):  # (it would be ignored without a word)
        tokenizer = load_tokenizer(spec)
        if not _same_pattern(pattern, tokenizer):
            raise ExplorerError(f"{spec} has its own pattern; a pattern is given only with a .tiktoken rank file, "
                                "which does not say how it splits text")
        return tokenizer
    if tiktoken_file.bundled(spec) is not None:
        return TiktokenTokenizer.bundled(spec)
    if spec in BUNDLED_MODELS:
        from explorer.core.sources.sentencepiece import SentencePieceTokenizer

        return SentencePieceTokenizer.bundled(spec)
    if spec.startswith(HF_PREFIX):
        from explorer.core.sources.hf_tokenizer import HFTokenizer
        from explorer.core.sources.sentencepiece import SentencePieceTokenizer

        model = find_model(spec)
        if model is None:
            raise TokenizerFileError(spec, f"no such model in the Hugging Face cache ({hub_cache_dir()}); "
                                     "`tokenizer-explorer list` shows the models found there")
        if model.path.name == SENTENCEPIECE_FILE:
            return SentencePieceTokenizer.from_file(model.path, name=model.name)
        return HFTokenizer.from_file(model.path, name=model.name)
    path = Path(spec)
    if not path.exists() and (close := _close_bundled_names(spec)):
        raise TokenizerFileError(spec, f"no such file, and no bundled encoding of that name; did you mean "
                                 f"{' or '.join(close)}? (`tokenizer-explorer list` shows them all)")
    if path.is_dir():
        if not (path / "tokenizer.json").is_file() and not (path / SENTENCEPIECE_FILE).is_file():
            raise TokenizerFileError(spec, f"a folder without a tokenizer.json or a {SENTENCEPIECE_FILE}")
        path = path / ("tokenizer.json" if (path / "tokenizer.json").is_file() else SENTENCEPIECE_FILE)
    return load_file(path, pattern)


def is_bundled(spec: str) -> bool:
    """Whether `spec` names a tokenizer shipped with the app, which is the same at every load:
    one loaded already can be used again (a file may have changed on disk since)."""
    return tiktoken_file.bundled(spec) is not None or spec in BUNDLED_MODELS


def _close_bundled_names(spec: str) -> list[str]:
    """Bundled encodings (or aliases) that `spec` probably means: "o200k" and "O200K_BASE" mean
    o200k_base, "gpt-4" the encoding of GPT-4 (cl100k_base), "cl100k_bas" cl100k_base."""
    def key(text: str) -> str:
        return re.sub(r"[^a-z0-9]", "", text.lower())

    wanted = key(spec)
    if not wanted or "/" in spec or "\\" in spec:
        return []
    encodings = tiktoken_file.BUNDLED.values()
    names = {name: encoding.name for encoding in encodings for name in (encoding.name, *encoding.aliases)}
    close = [name for name in names if key(name).startswith(wanted) or wanted.startswith(key(name))]
    close += [encoding.name for encoding in encodings if wanted in map(key, encoding.description.split(","))]
    close = close or difflib.get_close_matches(spec.lower(), names, n=1, cutoff=0.6)
    one_each = {names[name]: name for name in reversed(close)}  # the first name given for each encoding
    return list(reversed(one_each.values()))


def load_file(path: Path, pattern: str | None = None) -> Tokenizer:
    """A tokenizer file of any supported format, recognised by its first bytes."""
    from explorer.core.formats import minbpe, own
    from explorer.core.sources.hf_tokenizer import HFTokenizer, looks_like_tokenizer_json
    from explorer.core.sources.sentencepiece import SentencePieceTokenizer

    data = read_bytes(path)
    kind = _kind_of(path, data)
    if kind == "minbpe":
        return minbpe.load(path)
    if kind == "json":
        text = _utf8(path, data)
        document = parse_json(text, path)
        if own.is_own_format(document):
            return own.from_document(document, path)
        if looks_like_tokenizer_json(document):
            return HFTokenizer.from_json(document, text, path)
        if tekken.is_tekken(document):
            return TiktokenTokenizer.from_tekken(path, document, data)
        raise TokenizerFileError(path, "unsupported JSON: neither a tokenizer-explorer file nor a Hugging Face "
                                 "tokenizer.json (which has a \"model\")")
    if kind == "sentencepiece":
        return SentencePieceTokenizer.from_file(path)
    if kind == "tiktoken":
        return TiktokenTokenizer.from_file(path, pattern)
    if not data.strip():
        raise TokenizerFileError(path, "the file is empty")
    raise TokenizerFileError(path, "unsupported tokenizer file: expected a tokenizer.json, our own JSON, "
                             "a .tiktoken rank file, a minbpe .model or a SentencePiece .model")


def _same_pattern(pattern: str, tokenizer: Tokenizer) -> bool:
    """Whether `pattern` is the one `tokenizer` splits by anyway (a script may always pass it)."""
    from explorer.core.pretokenization.pretokenize import Pretokenizer, hf_compatible

    own = tokenizer.pretokenizer
    try:
        given = Pretokenizer(pattern)
    except ExplorerError:
        return False
    return own is not None and (own.regex in (given.regex, hf_compatible(given.regex)) or
                                given.name == own.name != "custom")


def _is_rank_file(path: Path) -> bool:
    try:
        return path.is_file() and _kind_of(path, read_bytes(path)) == "tiktoken"
    except (OSError, ExplorerError):
        return False


def _kind_of(path: Path, data: bytes) -> str | None:
    """The format a file's first bytes (or, for JSON and .tiktoken, its name) say it is."""
    from explorer.core.formats import minbpe

    if minbpe.is_minbpe(data):
        return "minbpe"
    if data.lstrip()[:1] == b"{":
        return "json"
    if looks_like_model(data):
        return "sentencepiece"
    if path.suffix == ".tiktoken" or _RANK_LINE.match(data):  # (ranks exported under a .json name too)
        return "tiktoken"
    if path.suffix == ".json":  # (damaged JSON: said so as JSON)
        return "json"
    return None


def _utf8(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TokenizerFileError(path, f"not UTF-8 text (byte {exc.start})") from None


def is_tokenizer_file(path: Path) -> bool:
    """Whether `path` holds a tokenizer in a format we read (as its content says, without building
    it): a file that `export` may replace, where any other would be lost."""
    from explorer.core.formats import own
    from explorer.core.sources.hf_tokenizer import looks_like_tokenizer_json

    try:
        data = read_bytes(path)
        kind = _kind_of(path, data)
        if kind != "json":
            return kind is not None and (kind != "tiktoken" or _RANK_LINE.match(data) is not None)
        document = parse_json(_utf8(path, data), path)
    except TokenizerFileError:
        return False
    return own.is_own_format(document) or looks_like_tokenizer_json(document) or tekken.is_tekken(document)


def bundled_tokenizers() -> list[TokenizerEntry]:
    """Every encoding and model that comes with the app (or, for Llama, with its package)."""
    return [TokenizerEntry(encoding.name, encoding.source if encoding.available else encoding.missing_reason(),
                           encoding.name, encoding.family,
                           encoding.description + ("" if encoding.available else " (not installed)"))
            for encoding in tiktoken_file.BUNDLED.values()] + bundled_sentencepiece()


def bundled_sentencepiece() -> list[TokenizerEntry]:
    """The SentencePiece models shipped with the app (Mistral's)."""
    return [TokenizerEntry(model.name, model.source, model.name, model.family, model.description)
            for model in BUNDLED_MODELS.values()]


def canonical_spec(spec: str) -> str:
    """The bundled encoding's own name for an alias (`gpt2` -> `r50k_base`), as pickers list it;
    any other spec as it is."""
    encoding = tiktoken_file.bundled(spec)
    return encoding.name if encoding is not None else spec


def bundled_names() -> list[str]:
    """Every name `load_tokenizer` knows without a file: the bundled encodings and their aliases."""
    return [name for encoding in tiktoken_file.BUNDLED.values() for name in (encoding.name, *encoding.aliases)] + \
        list(BUNDLED_MODELS)


def discover_tokenizers() -> list[TokenizerEntry]:
    """Tokenizers found on this machine: every model with a tokenizer.json in the Hugging Face cache."""
    return [TokenizerEntry(model.name, str(model.path), model.spec) for model in cached_models()]


def list_tokenizers() -> list[TokenizerEntry]:
    """Bundled encodings first, then what the Hugging Face cache holds."""
    return bundled_tokenizers() + discover_tokenizers()
