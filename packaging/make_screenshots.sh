#!/usr/bin/env bash
# Regenerate the README's screenshots of every pane with the screenshot command.
# Usage: bash packaging/make_screenshots.sh   (PYTHON=/path/to/venv/python to choose the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
out=packaging/screenshots
mkdir -p "$out"
shot() { QT_QPA_PLATFORM=offscreen "$PYTHON" -m explorer screenshot --size 1280x800 "$@"; }

prompt=$'The cat sat on the mat. In 1969, 600,000,000 people watched.  \nनमस्ते दुनिया 안녕하세요 👋🏽 <|endoftext|>'
shot --pane tokens --tokenizer o200k_base --text "$prompt" --out "$out/tokens.png"
shot --pane tokens --tokenizer o200k_base --text "$prompt" --theme dark --out "$out/tokens-dark.png"
shot --pane chunks --text $'HOW\'S it going? how\'s it going?\n    return 1234567' --out "$out/chunks.png"
shot --pane bytes --tokenizer o200k_base --text 'मावा केक 🎂' --out "$out/bytes.png"
shot --pane merges --tokenizer cl100k_base --text ' telecommunications' --out "$out/merges.png"
shot --pane corpus --out "$out/corpus.png"
shot --pane training --out "$out/training.png"
echo "wrote $(ls "$out" | wc -l) screenshots to $out"
