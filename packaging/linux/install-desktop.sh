#!/usr/bin/env bash
# Add Tokenizer Explorer to the desktop menu for this user (run from the unpacked bundle folder).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
mkdir -p "$data/applications"
sed "s|^Exec=tokenizer-explorer|Exec=\"$here/tokenizer-explorer\"|" "$here/tokenizer-explorer.desktop" \
    > "$data/applications/tokenizer-explorer.desktop"
for size in 16 32 48 64 128 256 512; do
    icon="$here/_internal/explorer/resources/icons/tokenizer-explorer-$size.png"
    [ -f "$icon" ] || continue
    mkdir -p "$data/icons/hicolor/${size}x${size}/apps"
    cp "$icon" "$data/icons/hicolor/${size}x${size}/apps/tokenizer-explorer.png"
done
mkdir -p "$data/icons/hicolor/scalable/apps"
cp "$here/_internal/explorer/resources/icons/tokenizer-explorer.svg" "$data/icons/hicolor/scalable/apps/" 2>/dev/null || true
echo "installed $data/applications/tokenizer-explorer.desktop"
