"""`tokenizer-explorer --smoke`: open the main window headless, tokenize a sample with each
bundled encoding, and exit 0 only if all of it worked. Used to check a frozen bundle."""

from __future__ import annotations

import os
import sys
import time

SAMPLE = "Hello, world! नमस्ते 안녕하세요 👋 <|endoftext|>"


def run_smoke() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    started = time.perf_counter()
    from PySide6.QtWidgets import QApplication

    from explorer.core.formats.sentencepiece_model import BUNDLED_MODELS
    from explorer.core.formats.tiktoken_file import BUNDLED
    from explorer.core.sources.load import load_tokenizer
    from explorer.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow()
    window.show()
    app.processEvents()
    print(f"window: {window.windowTitle()!r}, {window.tabs.count()} panes, "
          f"{time.perf_counter() - started:.2f} s")
    failures = 0
    for name in [*BUNDLED, *BUNDLED_MODELS]:
        encoding = BUNDLED.get(name)
        if encoding is not None and not encoding.shipped:  # Llama: read from its package, which a bundle lacks
            print(f"{name}: {'from its package' if encoding.available else 'not installed (not shipped)'}")
            continue
        try:
            tokenizer = load_tokenizer(name)
            ids = tokenizer.encode(SAMPLE, special="allowed")
            ok = tokenizer.decode(ids) == SAMPLE
        except Exception as exc:  # report every encoding, then fail
            print(f"{name}: FAILED {exc}")
            failures += 1
            continue
        print(f"{name}: {len(ids)} tokens, round trip {'ok' if ok else 'WRONG'}")
        failures += not ok
    window.session.unsaved.clear()
    window.close()
    print("smoke: ok" if not failures else f"smoke: {failures} failure(s)")
    return 1 if failures else 0
