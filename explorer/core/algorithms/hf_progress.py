"""What Hugging Face tokenizers' trainer says about its progress, read from its own progress bars.

Its trainer is one long call with no progress callback; it draws progress bars (`show_progress`)
on stderr only when stderr is a terminal. While it trains in the Training pane's child process,
`HfProgress` puts a pseudo-terminal on file descriptor 2, reads the bars on a thread and keeps
the newest stage and position ("Compute merges", 12,345 of 32,512). Whatever else is written to
stderr meanwhile is passed on. Where there are no pseudo-terminals (Windows), it reports nothing
and the trainer draws nothing.
"""

from __future__ import annotations

import os
import re
import threading
from types import TracebackType

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BAR = re.compile(r"^\[[\d:]+\] (?P<stage>[A-Za-z][\w -]*?)(?: \([^)]*\))?\s{2,}.*?"
                 r"(?:(?P<step>\d+)\s*/\s*(?P<steps>\d+)|(?P<percent>\d+)%)?\s*$")


class HfProgress:
    """Context manager: while open, `stage`, `step` and `steps` follow the trainer's bars."""

    def __init__(self) -> None:
        self.stage = ""
        self.step = self.steps = 0
        self.available = hasattr(os, "openpty")
        self._saved: int | None = None
        self._term: str | None = None  # TERM before `__enter__`, put back by `__exit__`
        self._thread: threading.Thread | None = None

    def __enter__(self) -> HfProgress:
        if not self.available:
            return self
        try:
            master, slave = os.openpty()
        except OSError:
            self.available = False
            return self
        self._term = os.environ.get("TERM")
        if (self._term or "dumb") == "dumb":  # unset when started from a desktop: HF would draw nothing
            os.environ["TERM"] = "xterm"
        self._saved = os.dup(2)
        os.dup2(slave, 2)
        os.close(slave)
        self._thread = threading.Thread(target=self._read, args=(master, self._saved), daemon=True,
                                        name="explorer-hf-progress")
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._saved is None:
            return
        if kind is GeneratorExit:
            # The run was abandoned (Cancel) while the trainer's threads go on, drawing their bars
            # until the process ends (right after a cancel): on a terminal, they showed there.
            # They keep going to the pseudo-terminal, whose reader passes on only the rest.
            return
        os.dup2(self._saved, 2)  # the terminal's last writer is gone: the reader sees its end
        if self._thread is not None:
            self._thread.join(1.0)
        os.close(self._saved)
        self._saved = None
        if self._term is None:  # the environment as it was
            os.environ.pop("TERM", None)
        else:
            os.environ["TERM"] = self._term

    def feed(self, text: str) -> str:
        """Take the bars out of `text` (what the trainer wrote); returns the rest."""
        rest: list[str] = []
        for line in re.split(r"[\r\n]+", ANSI.sub("", text)):
            match = BAR.match(line.strip())
            if match is None:
                if line.strip():
                    rest.append(line + "\n")
                continue
            self.stage = match["stage"].strip()
            if match["steps"] is not None:
                self.step, self.steps = int(match["step"]), int(match["steps"])
            elif match["percent"] is not None:
                self.step, self.steps = int(match["percent"]), 100
        return "".join(rest)

    def _read(self, master: int, saved: int) -> None:
        try:
            while True:
                try:
                    data = os.read(master, 1 << 16)
                except OSError:  # EIO: every writer has closed the terminal
                    return
                if not data:
                    return
                rest = self.feed(data.decode("utf-8", "replace"))
                if rest:
                    try:
                        os.write(saved, rest.encode("utf-8"))
                    except OSError:  # closed as training ended
                        return
        finally:
            os.close(master)
