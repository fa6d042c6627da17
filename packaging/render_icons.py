"""Render resources/icons/tokenizer-explorer.svg to the PNG sizes desktops ask for (hicolor)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication(sys.argv[:1])  # noqa: F841 (needed for painting)
    renderer = QSvgRenderer(str(ICONS / "tokenizer-explorer.svg"))
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        image.save(str(ICONS / f"tokenizer-explorer-{size}.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
