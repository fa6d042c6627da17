"""One entry point that turns what a user names (a file path, later a bundled name) into a tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.core.bpe import BPE
from explorer.core.errors import TokenizerFileError
from explorer.core.files import read_text
from explorer.core.formats import own


def load_tokenizer(spec: str) -> BPE:
    """Load a tokenizer from a file in the project's own format."""
    path = Path(spec)
    if not path.exists():
        raise TokenizerFileError(spec, "no such file")
    try:
        document = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise TokenizerFileError(spec, f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if own.is_own_format(document):
        return own.from_document(document, spec)
    raise TokenizerFileError(spec, "unsupported tokenizer file")
