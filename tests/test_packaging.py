"""The wheel carries the resources: installed into a fresh virtual environment, they are found."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

CHECK = """
import importlib.resources, explorer, pkgutil, sys
files = importlib.resources.files("explorer.resources") / "encodings"
names = sorted(p.name for p in files.iterdir())
assert "o200k_base.tiktoken" in names, names
assert "site-packages" in explorer.__file__, explorer.__file__
modules = sorted(m.name for m in pkgutil.walk_packages(explorer.__path__, "explorer.") if ".resources" not in m.name)
print("\\n".join(modules))
"""


def source_modules() -> list[str]:
    """Every module under explorer/ in the checkout, as dotted names."""
    names = []
    for path in (REPO / "explorer").rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        if parts[-1] == "__main__" or parts[-1] == "__init__":
            parts = parts[:-1] if parts[-1] == "__init__" else parts
        if len(parts) > 1:
            names.append(".".join(parts))
    return sorted(set(names))


def test_wheel_ships_resources(tmp_path: Path) -> None:
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path / "dist"), str(REPO)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("tokenizer_explorer-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    result = subprocess.run([str(python), "-c", CHECK], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shipped = set(result.stdout.split())
    missing = [m for m in source_modules() if m not in shipped and not m.endswith("__main__")]
    assert not missing, f"modules missing from the wheel (add their packages to pyproject.toml): {missing}"
    version = subprocess.run([str(venv / "bin" / "tokenizer-explorer"), "--version"], capture_output=True, text=True)
    assert version.stdout.startswith("tokenizer-explorer")
