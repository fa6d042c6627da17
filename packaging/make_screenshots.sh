#!/usr/bin/env bash
# Regenerate the README's screenshots of every pane with the screenshot command.
# Usage: bash packaging/make_screenshots.sh            the README's set, into packaging/screenshots/
#        bash packaging/make_screenshots.sh --all DIR  every pane x script x theme x zoom x size into DIR,
#                                                      with DIR/index.html (packaging/screenshot_matrix.py)
# PYTHON=/path/to/venv/python chooses the interpreter. Offscreen by default; QT_QPA_PLATFORM=xcb with a
# DISPLAY renders the same pictures in real windows.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
if [[ "${1:-}" == "--all" ]]; then
    [[ -n "${2:-}" ]] || { echo "usage: $0 --all DIR" >&2; exit 2; }
    exec "$PYTHON" packaging/screenshot_matrix.py "$2"
fi
out=packaging/screenshots
mkdir -p "$out"
shot() { "$PYTHON" -m explorer screenshot --size 1280x800 "$@"; }
# Each pane light (NAME.png), dark (NAME-dark.png) and in presentation mode (NAME-presentation.png).
three() {
    local name=$1; shift
    shot "$@" --out "$out/$name.png"
    shot "$@" --theme dark --out "$out/$name-dark.png"
    shot "$@" --presentation --out "$out/$name-presentation.png"
}

prompt=$'The cat sat on the mat. In 1969, 600,000,000 people watched.  \nनमस्ते दुनिया 안녕하세요 👋🏽 <|endoftext|>'
three tokens --pane tokens --tokenizer o200k_base --text "$prompt"
three tokens-compare --pane tokens --tokenizer o200k_base --compare cl100k_base --compare r50k_base \
    --text $'The cat sat on the mat.\nनमस्ते दुनिया 👋🏽 1234567'
three chunks --pane chunks --text $'HOW\'S it going? how\'s it going?\n    return 1234567'
three bytes --pane bytes --tokenizer o200k_base --text 'मावा केक 🎂'
three merges --pane merges --tokenizer cl100k_base --text ' telecommunications'
three corpus --pane corpus
three training --pane training
three chat --pane chat --tokenizer o200k_base
# Every script (packaging/screenshot_matrix.py's texts) in the panes where scripts differ most: Tokens light, dark
# and in presentation mode, compared lanes, Bytes dark, Chunks in presentation mode, at 1280x800. The whole matrix
# (hundreds of files) goes outside the repository with --all.
mkdir -p "$out/scripts"
for script in english hindi arabic japanese thai emoji mixed long; do
    text=$("$PYTHON" -c "import sys; sys.path.insert(0, 'packaging'); import screenshot_matrix as m; print(m.TEXTS['$script'], end='')")
    shot --pane tokens --tokenizer o200k_base --text "$text" --out "$out/scripts/tokens-$script.png"
    shot --pane tokens --tokenizer o200k_base --text "$text" --theme dark --out "$out/scripts/tokens-$script-dark.png"
    shot --pane tokens --tokenizer o200k_base --text "$text" --presentation --out "$out/scripts/tokens-$script-presentation.png"
    shot --pane tokens --tokenizer o200k_base --compare cl100k_base --compare r50k_base --text "$text" \
        --out "$out/scripts/compare-$script.png"
    shot --pane bytes --tokenizer o200k_base --text "$text" --theme dark --out "$out/scripts/bytes-$script-dark.png"
    shot --pane chunks --text "$text" --presentation --out "$out/scripts/chunks-$script-presentation.png"
done
echo "wrote $(find "$out" -name '*.png' | wc -l) screenshots to $out"
