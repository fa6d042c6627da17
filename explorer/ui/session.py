"""The Session: the current tokenizer, corpus, training run and shared text, with signals.

Panes receive the session when they are built and talk to each other only through it: a pane
asks for something (`show_token`, `send_text`, `load_tokenizer`) and the session announces what
changed. No pane reaches into another.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFont

from explorer.core.plural import plural
from explorer.core.sources.early_load import loaded_ready
from explorer.core.sources.tokenizer import SpecialMode, Tokenizer
from explorer.ui.settings import Settings
from explorer.ui.theme import BASE_POINT_SIZE, text_font, use_palette
from explorer.ui.workers import Job, Workers, release_frozen, while_alive
from explorer.ui.zoom import apply_zoom

TRAINED_PREFIX = "trained:"


class Session(QObject):
    tokenizer_changed = Signal(object)  # the new current Tokenizer
    tokenizer_failed = Signal(str, str)  # spec, message
    tokenizers_changed = Signal()  # the list the picker shows (a tokenizer was trained or opened)
    corpus_changed = Signal(object)
    training_changed = Signal(object)  # the current training run (or None)
    text_sent = Signal(str, str)  # pane name, text: "show this text there"
    pane_requested = Signal(str)  # pane name
    token_requested = Signal(int)  # a token id to show in the Merges pane
    special_mode_changed = Signal(str)
    font_changed = Signal(QFont)
    theme_changed = Signal(bool)  # dark?
    status_posted = Signal(str)
    error_posted = Signal(str, str)  # title, message

    def __init__(self, settings: Settings | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings or Settings()
        self.workers = Workers(self)
        self.tokenizer: Tokenizer | None = None
        self.tokenizer_spec = ""
        self.trained: dict[str, Tokenizer] = {}  # name -> tokenizer trained in this session
        self.loaded: dict[str, Tokenizer] = {}  # spec -> tokenizer already loaded (for compare views)
        self.unsaved: set[str] = set()  # trained tokenizers not yet saved to a file
        self.corpus: Any = None
        self.training: Any = None
        self.special_mode: SpecialMode = "disallowed"
        self.sent_text: dict[str, str] = {}  # pane name -> the text last sent there (for a pane built later)
        self.point_size = self.settings.font_size or BASE_POINT_SIZE
        self.dark = False
        self.palette = self.settings.palette  # token colours: 'default' or 'colour-blind'
        use_palette(self.palette)

    # Tokenizers

    def load_tokenizer(self, spec: str, early: Future[Tokenizer] | None = None) -> Job | None:
        """Load `spec` (a bundled name, a file, `hf:MODEL`, `trained:NAME`) off the GUI thread; the
        loading job (None for a tokenizer already at hand, set at once). `early` is a load of
        `spec` already under way (start-up begins it before the window's imports): the job waits
        for it instead of loading again.

        A bundled tokenizer picked again is the one loaded before: tiktoken's constructor holds
        the interpreter lock throughout (o200k_base: 130-350 ms), so every load of it, though on
        a worker, stalls the window that long."""
        if spec.startswith(TRAINED_PREFIX) and spec[len(TRAINED_PREFIX):] in self.trained:
            self.set_tokenizer(self.trained[spec[len(TRAINED_PREFIX):]], spec)
            return None
        from explorer.core.sources.load import is_bundled  # (with tiktoken: not at start-up, see early_load)

        if spec in self.loaded and is_bundled(spec):
            self.set_tokenizer(self.loaded[spec], spec)
            return None
        load = early.result if early is not None else lambda: loaded_ready(spec)
        job = self.workers.start_call(f"loading {spec}", load, key="tokenizer")
        job.finished.connect(lambda tokenizer: self.set_tokenizer(tokenizer, spec))
        job.failed.connect(lambda message: self._on_load_failed(spec, message))
        return job

    def fetch_tokenizer(self, spec: str, owner: QObject, on_loaded: Callable[[Tokenizer], None],
                        key: str | None = None, on_failed: Callable[[str], None] | None = None) -> None:
        """Load `spec` off the GUI thread without making it current (compare views); cached by spec.
        A failure is posted as an error, and given to `on_failed` (a pane that shows it in place).
        Neither is called once `owner`, the pane that asked, is deleted: they touch its widgets."""
        if spec.startswith(TRAINED_PREFIX) and spec[len(TRAINED_PREFIX):] in self.trained:
            on_loaded(self.trained[spec[len(TRAINED_PREFIX):]])
            return
        if spec in self.loaded:
            on_loaded(self.loaded[spec])
            return
        from explorer.core.sources.load import load_tokenizer

        job = self.workers.start_call(f"loading {spec}", lambda: load_tokenizer(spec), key=key)
        job.finished.connect(lambda tokenizer: self.loaded.__setitem__(spec, tokenizer))  # (kept for the next pane)
        job.finished.connect(while_alive(owner, on_loaded))
        job.failed.connect(lambda message: self.error_posted.emit("Could not load the tokenizer", message))
        if on_failed is not None:
            job.failed.connect(while_alive(owner, on_failed))

    def _on_load_failed(self, spec: str, message: str) -> None:
        self.tokenizer_failed.emit(spec, message)
        self.error_posted.emit("Could not load the tokenizer", message)

    def set_tokenizer(self, tokenizer: Tokenizer, spec: str) -> None:
        self.tokenizer, self.tokenizer_spec = tokenizer, spec
        self.loaded[spec] = tokenizer
        if not spec.startswith(TRAINED_PREFIX):
            self.settings.last_tokenizer = spec
        self.tokenizer_changed.emit(tokenizer)
        self.status_posted.emit(f"Tokenizer: {tokenizer.name} ({tokenizer.kind}, {plural(tokenizer.vocab_size, 'id')})")

    def add_trained(self, tokenizer: Tokenizer, select: bool = True) -> str:
        """Keep a tokenizer trained in this session; it appears in every pane's picker."""
        name = tokenizer.name
        self.trained[name] = tokenizer
        self.unsaved.add(name)
        self.tokenizers_changed.emit()
        spec = TRAINED_PREFIX + name
        if select:
            self.set_tokenizer(tokenizer, spec)
        return spec

    def mark_saved(self, name: str) -> None:
        self.unsaved.discard(name)

    # Corpus and training (filled by the Corpus and Training panes)

    def set_corpus(self, corpus: Any) -> None:
        self.corpus = corpus
        self.corpus_changed.emit(corpus)

    def set_training(self, training: Any) -> None:
        self.training = training
        self.training_changed.emit(training)

    # Navigation between panes

    def show_pane(self, pane: str) -> None:
        self.pane_requested.emit(pane)

    def show_token(self, token_id: int) -> None:
        """Open `token_id` in the Merges pane."""
        self.token_requested.emit(token_id)
        self.pane_requested.emit("merges")

    def send_text(self, pane: str, text: str) -> None:
        """Carry `text` to another pane (Chunks, Bytes) and show it.

        Panes are built lazily: one built after this call finds the text in `sent_text`.
        """
        self.sent_text[pane] = text
        self.text_sent.emit(pane, text)
        self.pane_requested.emit(pane)

    # Presentation

    def set_special_mode(self, mode: SpecialMode) -> None:
        self.special_mode = mode
        self.special_mode_changed.emit(mode)

    @property
    def font(self) -> QFont:
        return text_font(self.point_size)

    def set_point_size(self, size: int, remember: bool = True) -> None:
        """Zoom every text to `size`; `remember=False` (presentation mode) keeps the saved size the user's own."""
        self.point_size = max(7, min(72, size))
        if remember:
            self.settings.font_size = self.point_size
        apply_zoom(self.point_size)  # every widget's font first, then the views that paint their own
        self.font_changed.emit(self.font)

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self.theme_changed.emit(dark)

    def set_palette(self, palette: str) -> None:
        """Token colours from `palette` ('default' or 'colour-blind'); panes recolour as for a theme change."""
        self.palette = palette
        self.settings.palette = palette
        use_palette(palette)
        self.theme_changed.emit(self.dark)

    def post_error(self, title: str, message: str) -> None:
        self.error_posted.emit(title, message)

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel every job; True if all ended within `timeout_ms` (see Workers.shutdown). What
        was frozen out of collections while the session lived may be collected from here on."""
        ended = self.workers.shutdown(timeout_ms)
        release_frozen()
        return ended
