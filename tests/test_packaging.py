"""The wheel carries the resources: installed into a fresh virtual environment, they are found."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.conftest import REPO

CHECK = """
import importlib.metadata, importlib.resources, explorer
files = importlib.resources.files("explorer.resources") / "encodings"
names = sorted(p.name for p in files.iterdir())
assert "o200k_base.tiktoken" in names and "o200k_base.merges.gz" in names, names
assert "site-packages" in explorer.__file__, explorer.__file__
shipped = importlib.metadata.files("tokenizer-explorer")
modules = [".".join(f.with_suffix("").parts) for f in shipped if f.suffix == ".py" and f.parts[0] == "explorer"]
print("\\n".join(m.removesuffix(".__init__") for m in modules))
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
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The dependencies come from this environment's site-packages (a plain path entry: its .pth
    # files, such as an editable install of the checkout, are not processed), the app from the wheel.
    venv_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip()
    parent = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(venv_site) / "dependencies.pth").write_text("\n".join(sorted(parent)) + "\n")
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                                "--target", venv_site, str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    result = subprocess.run([str(python), "-c", CHECK], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shipped = set(result.stdout.split())
    missing = [m for m in source_modules() if m not in shipped and not m.endswith("__main__")]
    assert not missing, f"modules missing from the wheel (add their packages to pyproject.toml): {missing}"
    version = subprocess.run([str(python), "-m", "explorer", "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert version.stdout.startswith("tokenizer-explorer"), version.stderr
    scripts = subprocess.run([str(python), "-c", "import importlib.metadata as m; print([e.value for e in "
                              "m.entry_points(group='console_scripts', name='tokenizer-explorer')])"],
                             capture_output=True, text=True)
    assert "explorer.__main__:main" in scripts.stdout
