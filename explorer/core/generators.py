"""Running a progress generator to its end without a worker: the one loop the CLI, the tests
and the panes that need a result at once (a merge table built on the spot) all use.

The core's slow work is written as generators that yield progress records and return their
result; a worker (explorer/ui/workers.py) iterates them with cancel and pause between yields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


def run_to_end(generator: Iterator[Any], each: Callable[[Any], object] | None = None) -> Any:
    """The value `generator` returns, after handing every item it yields to `each` (if given).

    >>> def counting(n):
    ...     for i in range(n):
    ...         yield i
    ...     return "done"
    >>> seen = []
    >>> run_to_end(counting(3), seen.append), seen
    ('done', [0, 1, 2])
    """
    while True:
        try:
            item = next(generator)
        except StopIteration as stop:
            return stop.value
        if each is not None:
            each(item)
