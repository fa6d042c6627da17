"""Writing files: a failed write names the file the user asked for and leaves nothing behind."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from explorer.core.files import write_atomic


def test_a_write_that_cannot_replace_its_target_names_the_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A target marked immutable (chattr +i) refuses the rename: the message named the temporary
    file (`.tok.json.9w5uyynl.tmp`), which the user never gave."""
    target = tmp_path / "tok.json"
    target.write_text("old", encoding="utf-8")

    def refuse(source: str, destination: str) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted", source)

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError) as caught:
        write_atomic(target, "new")
    assert caught.value.filename == str(target) and caught.value.errno == errno.EPERM
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tok.json"]  # no temporary file left
    assert target.read_text(encoding="utf-8") == "old"
