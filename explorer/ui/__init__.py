"""The Qt layer: one package or module per pane, over the core."""

from __future__ import annotations

import ctypes
import sys


def _keep_none_alive() -> None:
    """Work around PySide6 6.12 on Python 3.11: every call of a Qt method that returns void
    (`QLabel.setText`, `QPainter.fillRect`, ...) drops one reference to None, so a long session
    ends in "Fatal Python error: none_dealloc". Python 3.12 made None immortal; this gives 3.11's
    None a reference count that no session can use up, which amounts to the same."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    ctypes.c_ssize_t.from_address(id(None)).value += 1 << 60


_keep_none_alive()
