"""Tokenizers already on this machine: the `tokenizer.json` files in the Hugging Face hub cache
(or, for a model that has none, its SentencePiece `tokenizer.model`).

The cache keeps each model as `models--ORG--NAME/snapshots/<revision>/tokenizer.json` under
`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub` (by default
`~/.cache/huggingface/hub`), as `huggingface_hub` lays it out. Nothing here touches the network.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import TokenizerFileError
from explorer.core.files import display_path

HF_PREFIX = "hf:"
SENTENCEPIECE_FILE = "tokenizer.model"  # what a SentencePiece model (Llama 2, Mistral) ships beside or instead


@dataclass(frozen=True, slots=True)
class CachedModel:
    """A model with a tokenizer.json (or a tokenizer.model) in the cache: `name` is "ORG/NAME" (or "NAME")."""

    name: str
    path: Path  # the tokenizer.json of its newest snapshot, else its tokenizer.model

    @property
    def spec(self) -> str:
        return HF_PREFIX + self.name


def hub_cache_dir() -> Path:
    """Where `huggingface_hub` keeps downloaded models, from the same variables it reads."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]) / "hub"
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "huggingface" / "hub"


def cached_models(root: Path | None = None) -> list[CachedModel]:
    """Every model in the cache that has a tokenizer.json or a tokenizer.model, sorted by name.
    A damaged model folder is left out (`skipped_models` says why), so it cannot hide the others."""
    return _scan(root)[0]


def skipped_models(root: Path | None = None) -> list[str]:
    """One sentence for each model folder `cached_models` leaves out because it is damaged."""
    return _scan(root)[1]


def find_model(name: str, root: Path | None = None) -> CachedModel | None:
    """The cached model called `name` ("ORG/NAME"), ignoring case as the hub does. Only folders of
    that name are read, and a damaged one raises TokenizerFileError saying what is wrong."""
    wanted = name.removeprefix(HF_PREFIX).strip("/").lower()
    for folder in _model_folders(root):
        if _model_name(folder).lower() == wanted and (model := _cached_model(folder)) is not None:
            return model
    return None


def _scan(root: Path | None) -> tuple[list[CachedModel], list[str]]:
    """The models of the cache, and why each damaged folder was left out."""
    found: list[CachedModel] = []
    skipped: list[str] = []
    for folder in _model_folders(root):
        try:
            model = _cached_model(folder)
        except TokenizerFileError as exc:
            skipped.append(str(exc))
            continue
        if model is not None:
            found.append(model)
    return found, skipped


def _model_folders(root: Path | None) -> list[Path]:
    """The cache's `models--*` folders, sorted; none when the cache cannot be read."""
    root = hub_cache_dir() if root is None else root
    try:
        return sorted(root.glob("models--*"))
    except OSError:
        return []


def _is_utf8(name: str) -> bool:
    """Whether a file name was UTF-8 on disk (Python keeps other bytes as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _model_name(folder: Path) -> str:
    return folder.name[len("models--"):].replace("--", "/")


def _cached_model(folder: Path) -> CachedModel | None:
    """The model of one cache folder, or None when it has no tokenizer.

    A folder name that is not UTF-8 is refused: hub names are ASCII, so it is no download, and no
    name printed for it (in `list`, or its JSON) could be typed back as an hf: spec.
    """
    if not _is_utf8(folder.name):
        raise TokenizerFileError(display_path(folder), "the folder name is not UTF-8, so no hf: name can "
                                 "load it; rename or delete the folder")
    path = _snapshot_tokenizer(folder) or _snapshot_tokenizer(folder, SENTENCEPIECE_FILE)
    return CachedModel(_model_name(folder), path) if path is not None else None


def _snapshot_tokenizer(folder: Path, file: str = "tokenizer.json") -> Path | None:
    """The tokenizer.json (or `file`) of the revision `refs/main` points at, else of the newest snapshot."""
    revision = _main_revision(folder)
    preferred = folder / "snapshots" / revision / file
    if revision and preferred.is_file():
        return preferred
    candidates = [path for path in (folder / "snapshots").glob(f"*/{file}") if path.is_file()]
    return max(candidates, key=lambda path: path.stat().st_mtime, default=None)


def _main_revision(folder: Path) -> str:
    """The revision `refs/main` names, "" when there is no such file or it cannot be read.
    A file that is not UTF-8 text is damaged, not missing: raises TokenizerFileError naming it."""
    main = folder / "refs" / "main"
    try:
        return main.read_text(encoding="utf-8").strip() if main.is_file() else ""
    except UnicodeDecodeError:
        raise TokenizerFileError(display_path(main), "is not UTF-8 text, so it names no revision: the model's "
                                 "entry in the Hugging Face cache is damaged; download the model again (or delete "
                                 f"its folder, {folder.name})") from None
    except OSError:
        return ""
