"""Loading the first tokenizer while the window's own modules are still importing.

At start-up the GUI thread spends 0.4-0.8 s importing and building the window before its
workers can start, and the last tokenizer then takes as long again (o200k_base: imports, 0.16 s
of parsing, tiktoken's constructor). Started on a plain thread before those imports, the load
overlaps them, most of all on a cold start, where both wait on the disk.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future

from explorer.core.errors import ExplorerError
from explorer.core.sources.tokenizer import Tokenizer

# Encoded once where a tokenizer is loaded: letters beyond ASCII, CJK, Arabic, an emoji.
WARM_UP_TEXT = "Hello, w\u00f6rld \u2014 \u4f60\u597d \u0645\u0631\u062d\u0628\u0627 \U0001f642 2024"


def loaded_ready(spec: str) -> Tokenizer:
    """Load `spec` and do, there on the loading thread, what the first encode of a prompt does
    lazily: compile the pre-tokenizer's patterns for text beyond ASCII (~0.1 s of `re` parsing)
    and import numpy.ma (np.unique's first call, ~50 ms). Done on the GUI thread as the first
    tokenizer arrived, it froze the window for that long when it came after the first paint."""
    import numpy.ma  # noqa: F401

    from explorer.core.algorithms.incremental import encode_stream
    from explorer.core.sources.load import load_tokenizer

    tokenizer = load_tokenizer(spec)
    try:
        for _ in encode_stream(tokenizer, WARM_UP_TEXT):
            pass
    except ExplorerError:  # (not this text's to report: a prompt that hits it reports it itself)
        pass
    return tokenizer


def load_in_background(spec: str) -> Future[Tokenizer]:
    """`loaded_ready(spec)` on a new daemon thread; its tokenizer, or its exception, in the future."""
    future: Future[Tokenizer] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(loaded_ready(spec))
        except BaseException as exc:  # (re-raised where the result is asked for, as a worker would)
            future.set_exception(exc)

    threading.Thread(target=run, name=f"loading {spec}", daemon=True).start()
    return future
