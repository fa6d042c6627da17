"""Python's cycle collector paused while much is built that makes no reference cycles.

Every 700 new container objects start a collection of the young ones, every tenth of those the
older ones, and now and then the whole heap. Work that makes hundreds of thousands of tuples and
lists (encoding a corpus, a 200,000-merge table) pays for walks that find nothing, and a walk
holds the interpreter lock: done on a worker thread, the window could not repaint meanwhile.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection inside the block; the first one after it finds whatever there is.
    (Process-wide: a block entered while another thread's pause holds just ends with that one.)"""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
