"""The core must never import Qt: the CLI and tests use it without a display."""

from __future__ import annotations

import subprocess
import sys

BLOCKER = """
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6") or name.startswith("explorer.ui"):
            raise ImportError(f"the core imported {name}")
sys.meta_path.insert(0, Block())
import pkgutil, importlib, explorer.core
for module in pkgutil.walk_packages(explorer.core.__path__, "explorer.core."):
    importlib.import_module(module.name)
import explorer.cli
print("ok")
"""


def test_core_and_cli_import_without_qt() -> None:
    result = subprocess.run([sys.executable, "-c", BLOCKER], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
