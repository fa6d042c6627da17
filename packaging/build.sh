#!/usr/bin/env bash
# Build the one-folder bundle into dist/tokenizer-explorer/ and a tar.gz archive beside it.
# Usage: bash packaging/build.sh   (PYTHON=/path/to/venv/python to choose the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

"$PYTHON" -c "import PyInstaller" 2>/dev/null || "$PYTHON" -m pip install -q "pyinstaller>=6.3"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/tokenizer-explorer.spec

# Desktop integration files travel with the bundle.
cp packaging/linux/tokenizer-explorer.desktop packaging/linux/install-desktop.sh dist/tokenizer-explorer/

arch="$(uname -m)"
tar -C dist -czf "dist/tokenizer-explorer-linux-${arch}.tar.gz" tokenizer-explorer
echo "built dist/tokenizer-explorer/ and dist/tokenizer-explorer-linux-${arch}.tar.gz"
