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
    """Every model in the cache that has a tokenizer.json or a tokenizer.model, sorted by name."""
    root = hub_cache_dir() if root is None else root
    try:
        folders = sorted(root.glob("models--*"))
    except OSError:
        return []
    found = []
    for folder in folders:
        path = _snapshot_tokenizer(folder) or _snapshot_tokenizer(folder, SENTENCEPIECE_FILE)
        if path is not None:
            found.append(CachedModel(folder.name[len("models--"):].replace("--", "/"), path))
    return found


def find_model(name: str, root: Path | None = None) -> CachedModel | None:
    """The cached model called `name` ("ORG/NAME"), ignoring case as the hub does."""
    wanted = name.removeprefix(HF_PREFIX).strip("/").lower()
    return next((model for model in cached_models(root) if model.name.lower() == wanted), None)


def _snapshot_tokenizer(folder: Path, file: str = "tokenizer.json") -> Path | None:
    """The tokenizer.json (or `file`) of the revision `refs/main` points at, else of the newest snapshot."""
    main = folder / "refs" / "main"
    try:
        revision = main.read_text(encoding="utf-8").strip() if main.is_file() else ""
    except OSError:
        revision = ""
    preferred = folder / "snapshots" / revision / file
    if revision and preferred.is_file():
        return preferred
    candidates = [path for path in (folder / "snapshots").glob(f"*/{file}") if path.is_file()]
    return max(candidates, key=lambda path: path.stat().st_mtime, default=None)
