"""The child side of `workers.ProcessJob`: iterate a generator, batch its items, obey commands.

No Qt here: a child process only imports this module and the work it runs, so it starts in a
few tens of milliseconds. Commands arrive between items: ("pause",), ("resume",), ("step", n),
("rate", per_second or None), ("cancel",). Results go back as ("batch", items),
("finished", value), ("failed", message) or ("cancelled", None).
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection
from typing import Any

from explorer.core.errors import ExplorerError

POLL_SECONDS = 0.01  # how often a child at full speed looks for commands
NICE = 5  # the child's scheduling priority below the window's (Unix)
# Items per batch at most: a generator that yields fast (the Hugging Face engine's merges, all at
# once) would otherwise send one batch of tens of thousands, which the window unpickles and shows
# in one go, holding its event loop for a tenth of a second.
MAX_BATCH = 512


def returned(function: Callable[..., Any], *args: Any) -> Iterator[None]:
    """`function(*args)` as a generator that yields nothing and returns its value: a plain call
    in the form a child runs (`Workers.start_process_call`)."""
    return function(*args)
    yield  # (makes this a generator)


def child_main(function: Callable[..., Iterable[Any]], args: tuple[Any, ...], step_types: tuple[type, ...],
               results: Connection, commands: Connection, batch_seconds: float) -> None:
    """The child's loop: iterate the generator, batch items, obey commands between items."""
    if hasattr(os, "nice"):
        # Background work yields the CPU to the window: on two cores shared with other programs,
        # a child at the same priority delays the GUI thread's timers by tens of milliseconds.
        os.nice(int(os.environ.get("EXPLORER_CHILD_NICE", NICE)))
    budget: int | None = None  # steppable items that may still pass; None = no limit
    rate: float | None = None
    batch: list[Any] = []
    last_flush = next_slot = time.monotonic()
    last_poll = -POLL_SECONDS  # look for commands sent before the child started

    def flush() -> None:
        nonlocal batch, last_flush
        if batch:
            results.send(("batch", batch))
            batch = []
        last_flush = time.monotonic()

    try:
        iterator = iter(function(*args))
        while True:
            now = time.monotonic()
            if budget is not None or rate is not None or now - last_poll >= POLL_SECONDS:
                last_poll = now
                while budget == 0 or commands.poll():
                    if budget == 0:
                        flush()
                    command = commands.recv()
                    if command[0] == "cancel":
                        if hasattr(iterator, "close"):
                            iterator.close()
                        flush()
                        results.send(("cancelled", None))
                        return
                    if command[0] == "pause":
                        budget = 0
                    elif command[0] == "resume":
                        budget = None
                    elif command[0] == "step":
                        budget = (budget or 0) + int(command[1])
                    elif command[0] == "rate":
                        rate, next_slot = command[1], time.monotonic()
            try:
                item = next(iterator)
            except StopIteration as stop:
                flush()
                results.send(("finished", stop.value))
                return
            batch.append(item)
            if isinstance(item, step_types):
                if budget:
                    budget -= 1
                if rate:
                    flush()
                    next_slot = max(next_slot + 1 / rate, time.monotonic())
                    delay = next_slot - time.monotonic()
                    if delay > 0:
                        commands.poll(delay)  # wakes early for a command
            if len(batch) >= MAX_BATCH or time.monotonic() - last_flush >= batch_seconds:
                flush()
    except (BrokenPipeError, EOFError):
        return  # the window has gone
    except ExplorerError as exc:
        results.send(("failed", str(exc)))
    except MemoryError:
        results.send(("failed", "out of memory; try a smaller input"))
    except Exception as exc:  # a bug: show it rather than lose it silently
        results.send(("failed", f"failed unexpectedly: {exc!r}\n\n{traceback.format_exc(limit=6)}"))
