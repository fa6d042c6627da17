"""Chat pane: a 1 MB message rendered and shown, with the longest GUI stall, alone and compared.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_chat_pane.py [--tokenizer llama3]

Target (issue 14): rendering and encoding run in a worker, so no gap between 10 ms timer ticks is
longer than 50 ms while a 1 MB conversation is encoded and its tokens reach the view; typing a
character into it costs the GUI thread no more than that either.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QElapsedTimer, QTimer  # noqa: E402

from tests.benchmarks.bench_tokens_view import sample  # noqa: E402
from tests.benchmarks.gui_window import SlowCollections, open_window  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokenizer", default="llama3")
    parser.add_argument("--chars", type=int, default=1_000_000)
    args = parser.parse_args()
    from explorer.core.chat import Message
    from explorer.core.sources.load import load_tokenizer

    app, session, window = open_window("chat")
    pane = window.panes["chat"]
    session.set_tokenizer(load_tokenizer(args.tokenizer), args.tokenizer)

    def settle(predicate, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while not predicate() and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.001)

    settle(lambda: not pane.busy)
    big = sample(args.chars)
    messages = [Message("system", "You are a helpful assistant."), Message("user", big),
                Message("assistant", "A summary."), Message("user", "Thanks!")]

    def measure(label: str, change) -> None:  # type: ignore[no-untyped-def]
        """Run `change()`, then let the pane finish; report the time and the longest tick gap after it."""
        started = time.perf_counter()
        change()
        changed = time.perf_counter() - started
        gaps: list[float] = []
        clock = QElapsedTimer()
        clock.start()
        last = [clock.elapsed()]

        def tick() -> None:
            now = clock.elapsed()
            gaps.append(now - last[0])
            last[0] = now

        collections = SlowCollections()
        timer = QTimer()
        timer.timeout.connect(tick)
        timer.start(10)
        settle(lambda: pane.job is not None or pane.busy, 1)
        settle(lambda: not pane.busy)
        settle(lambda: False, 0.5)  # (and what follows: the first paint of what came)
        elapsed = time.perf_counter() - started
        timer.stop()
        import gc
        gc.callbacks.remove(collections._on_gc)
        tokens = sum(len(view.ids) for view in pane.views if view.isVisible())
        print(f"{label}: {tokens:,} tokens shown in {elapsed:.2f} s; the change itself {changed * 1e3:.0f} ms on "
              f"the GUI thread; then longest GUI stall {max(gaps or [0]):.0f} ms, median tick {sorted(gaps)[len(gaps) // 2] if gaps else 0:.0f} ms (target <= 50 ms)"
              + (f"; slow collections {collections.found}" if collections.found else ""))

    def paste() -> None:  # the editor alone: Qt lays out the pasted text (not the pane's work)
        pane.editor.blockSignals(True)
        pane.editor.set_messages(messages)
        pane.editor.blockSignals(False)

    measure("1 MB pasted into the messages editor, not rendered", paste)
    measure(f"1 MB message rendered ({args.chars:,} chars, {args.tokenizer})", pane.recompute)
    row = pane.editor.rows[1]

    def type_one() -> None:
        cursor = row.content.textCursor()
        cursor.setPosition(len(big) // 2)
        cursor.insertText("x")

    measure("one character typed into it", type_one)
    measure("compare with chatml on", lambda: pane.compare.setCurrentIndex(pane.compare.findData("chatml")))
    measure("one character typed, compared", type_one)
    session.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
