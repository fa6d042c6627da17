"""The Corpus pane: what the tokenizer will learn from, and how tokenizers fare on it.

Add files, folders (recursive, filtered), JSON Lines or CSV with a chosen field, pasted text,
the built-in samples or Python's standard library; drop them on the pane too. Each source's
statistics (size, lines, words, distinct chunks under the chosen pattern, scripts) are counted in
a child process with progress; files that cannot be read are listed with the reason, and a file
that is not UTF-8 can be read with a chosen encoding or with replacement. The pane hands a
`Corpus` to the session: the Training pane trains on it. A held-out text measures compression on
text the tokenizer never saw; the Efficiency tab compares tokenizers on every source.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QInputDialog,
    QLabel, QLineEdit, QListWidget, QMenu, QPlainTextEdit, QPushButton, QSplitter, QTabWidget,
    QToolButton, QVBoxLayout, QWidget)

from explorer.core.plural import human_bytes, plural
from explorer.core.analysis.corpus_stats import SourceStats, scan_sources
from explorer.core.corpora.corpus_sources import (
    DEFAULT_FILTER, ENCODINGS, RECORD_SUFFIXES, Corpus, CorpusReader, Source, preferred_field, record_fields,
    sample_sources, stdlib_source)
from explorer.core.errors import CorpusError
from explorer.core.files import missing_reason
from explorer.core.pretokenization.pretokenize import PATTERN_DESCRIPTIONS
from explorer.ui.corpus.delegates import ScriptsDelegate, StatusDelegate
from explorer.ui.corpus.efficiency_panel import EfficiencyPanel
from explorer.ui.corpus.sources_table import SourcesTable
from explorer.ui.corpus.models import SCRIPTS, STATUS, SourceRole, SourcesModel
from explorer.ui.pane import Pane
from explorer.ui.session import Session
from explorer.ui.workers import ProcessJob

MAX_HELD_OUT_CHARS = 5_000_000


class CorpusPane(Pane):
    name = "corpus"
    title = "Corpus"

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self.sources: list[Source] = []
        self.held_out: Source | None = None
        self._folder_sizes: dict[Source, int | None] = {}  # held-out folders sized (None: in a child process now)
        self._cleared: list[Source] | None = None  # what Clear removed, until Undo or another change
        self.scan_job: ProcessJob | None = None
        self._published: Corpus | None = None
        self.setAcceptDrops(True)
        self._build()
        session.corpus_changed.connect(self._on_session_corpus_changed)
        session.theme_changed.connect(self._on_session_theme_changed)  # the script bars' palette
        self._on_session_corpus_changed(session.corpus)
        self._update_view()
        self.set_content(self.content)

    # Building

    def _build(self) -> None:
        self.content = QWidget()
        layout = QVBoxLayout(self.content)
        layout.addLayout(self._build_toolbar())
        self.banner = QLabel()
        self.banner.setObjectName("corpusProblems")
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.RichText)
        self.banner.linkActivated.connect(self._on_banner_link_activated)
        self.banner.hide()
        layout.addWidget(self.banner)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_sources_tab(), "Sources")
        self.efficiency = EfficiencyPanel(self.session)
        self.tabs.addTab(self.efficiency, "Efficiency")
        layout.addWidget(self.tabs, 1)

    def _build_toolbar(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.add_files_button = add_files = QPushButton("Add files...")
        add_files.setToolTip("Text, Markdown, code; JSON Lines and CSV ask which field holds the text")
        add_files.clicked.connect(self._on_add_files_clicked)
        add_folder = QPushButton("Add folder...")
        add_folder.setToolTip("Every file under the folder that matches the filter")
        add_folder.clicked.connect(self._on_add_folder_clicked)
        self.filter_edit = QLineEdit(DEFAULT_FILTER)
        self.filter_edit.setToolTip("Which files a folder contributes, e.g. *.txt;*.md;*.py")
        self.filter_edit.setMaximumWidth(170)
        paste = QPushButton("Paste text...")
        paste.clicked.connect(self._on_paste_clicked)
        samples = QToolButton()
        samples.setText("Samples")
        samples.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(samples)
        every = sample_sources()
        menu.addAction("The story in four languages (parallel)",
                       lambda: self.add_sources([s for s in every if s.name.startswith("Sample:")][:4]))
        menu.addSeparator()
        for source in every:
            menu.addAction(source.name, lambda s=source: self.add_sources([s]))
        stdlib = stdlib_source()
        if stdlib is not None:
            menu.addSeparator()
            action = QAction(f"{stdlib.name} (code)", menu)
            action.triggered.connect(lambda: self.add_sources([stdlib]))
            menu.addAction(action)
        samples.setMenu(menu)
        remove = QPushButton("Remove")
        remove.setToolTip("Remove the selected sources")
        remove.clicked.connect(self._on_remove_clicked)
        self.clear_button = clear = QPushButton("Clear")
        clear.setToolTip("Remove every source (the button then offers to undo it)")
        clear.clicked.connect(self._on_clear_clicked)
        self.pattern_combo = QComboBox()
        for name, description in PATTERN_DESCRIPTIONS.items():
            self.pattern_combo.addItem(name, name)
            self.pattern_combo.setItemData(self.pattern_combo.count() - 1, description, Qt.ItemDataRole.ToolTipRole)
        self.pattern_combo.setCurrentIndex(self.pattern_combo.findData("cl100k"))
        self.pattern_combo.setToolTip("Distinct chunks are counted under this pre-tokenizer pattern")
        self.pattern_combo.currentIndexChanged.connect(self._on_pattern_changed)
        for widget in (add_files, add_folder, QLabel("filter"), self.filter_edit, paste, samples, remove, clear):
            row.addWidget(widget)
        row.addStretch(1)
        row.addWidget(QLabel("Chunks by"))
        row.addWidget(self.pattern_combo)
        return row

    def _build_sources_tab(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        split = QSplitter(Qt.Orientation.Vertical)
        self.model = SourcesModel(self)
        self.table = SourcesTable()
        self.table.setObjectName("sourcesTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().hide()
        self.table.setAlternatingRowColors(True)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._on_table_context_menu)
        self.table.setItemDelegateForColumn(SCRIPTS, ScriptsDelegate(self.table))
        self.table.setItemDelegateForColumn(STATUS, StatusDelegate(self.table))
        split.addWidget(self.table)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        held = QHBoxLayout()
        self.held_out_label = QLabel()
        self.held_out_label.setWordWrap(True)
        held.addWidget(self.held_out_label, 1)
        held_file = QPushButton("Held-out file...")
        held_file.clicked.connect(self._on_held_out_file_clicked)
        held_paste = QPushButton("Paste held-out...")
        held_paste.clicked.connect(self._on_held_out_paste_clicked)
        self.held_from_selection = QPushButton("Use selected as held-out")
        self.held_from_selection.setToolTip("Move the selected source out of training, to measure on it")
        self.held_from_selection.clicked.connect(self._on_held_from_selection_clicked)
        held_clear = QPushButton("No held-out")
        held_clear.clicked.connect(lambda: self.set_held_out(None))
        for widget in (held_file, held_paste, self.held_from_selection, held_clear):
            held.addWidget(widget)
        lower_layout.addLayout(held)
        self.skipped_label = QLabel("Skipped files")
        lower_layout.addWidget(self.skipped_label)
        self.skipped_list = QListWidget()
        self.skipped_list.setObjectName("skippedFiles")
        lower_layout.addWidget(self.skipped_list)
        lower_layout.addStretch(1)
        split.addWidget(lower)
        split.setSizes([520, 160])
        layout.addWidget(split)
        return tab

    # Sources

    def add_paths(self, paths: list[str]) -> list[Source]:
        """Add files and folders; JSON Lines and CSV ask for their text field (see `choose_field`)."""
        added = []
        for path in paths:
            target = Path(path)
            if not target.exists():
                self.session.post_error("Not found", f"{path}: {missing_reason(target)}")
                continue
            if target.is_file() and target.suffix.lower() in RECORD_SUFFIXES:
                try:
                    fields = record_fields(target)
                except (CorpusError, OSError) as exc:
                    self.session.post_error("Cannot read", str(exc))
                    continue
                field = self.choose_field(target, fields)
                if not field:
                    continue
                added.append(Source.for_path(target, field=field))
            else:
                added.append(Source.for_path(target, include=self.filter_edit.text().strip() or DEFAULT_FILTER))
        self.add_sources(added)
        return added

    def choose_field(self, path: Path, fields: list[str]) -> str:
        """Ask which field or column holds the text (tests replace this)."""
        if not fields:
            self.session.post_error("No text field", f"{path.name}: found no field with text in the first records")
            return ""
        default = fields.index(preferred_field(fields))
        field, ok = QInputDialog.getItem(self, "Which field holds the text?", f"{path.name}: field or column",
                                         fields, default, False)
        return field if ok else ""

    def choose_encoding(self, source: Source) -> tuple[str, str] | None:
        """Ask for an encoding, or replacement (tests replace this); None to leave it."""
        choices = [f"read as {name}" for name in ENCODINGS if name != "utf-8"]
        choices.insert(0, "read as UTF-8, replacing invalid bytes with �")
        choice, ok = QInputDialog.getItem(self, "Not UTF-8", f"{source.name} is not valid UTF-8. How to read it?",
                                          choices, 0, False)
        if not ok:
            return None
        if choice.startswith("read as UTF-8"):
            return "utf-8", "replace"
        return choice.removeprefix("read as "), "strict"

    def add_sources(self, sources: list[Source]) -> None:
        new = [s for s in sources if s not in self.sources]
        if new:
            self.set_sources(self.sources + new)

    def set_sources(self, sources: list[Source]) -> None:
        if self._cleared is not None:  # any change after Clear makes it final
            self._cleared = None
            self.clear_button.setText("Clear")
        self.sources = list(sources)
        if self.held_out in self.sources:
            self.sources.remove(self.held_out)
        self.model.set_sources(self.sources)
        self._publish()
        self._scan()

    def replace_source(self, old: Source, new: Source) -> None:
        self.set_sources([new if s == old else s for s in self.sources])

    def set_held_out(self, source: Source | None) -> None:
        self.held_out = source
        if source is not None and source in self.sources:
            self.sources.remove(source)
            self.model.set_sources(self.sources)
        self._publish()
        self._update_view()

    def _publish(self) -> None:
        """Give the session the corpus; the Training pane trains on it."""
        self._published = Corpus(tuple(self.sources), held_out=self.held_out)
        self.session.set_corpus(self._published)
        self.efficiency.set_sources(self.sources)

    # Counting

    def _scan(self) -> None:
        """Count every source not counted yet, in a child process (latest request wins)."""
        todo = [s for s in self.sources if s not in self.model.stats or not self.model.stats[s].done]
        self._update_view()
        if not todo:
            return
        pattern = str(self.pattern_combo.currentData())
        self.scan_job = self.session.workers.start_process("counting the corpus", scan_sources, (todo, pattern),
                                                           key="corpus-stats")
        self.scan_job.batch_ready.connect(self._on_scan_batch_ready)
        # (bound methods, not lambdas: Qt drops them with the pane, so a job that ends after the
        # pane is gone does not reach it)
        self.scan_job.finished.connect(self._on_scan_job_finished)
        self.scan_job.failed.connect(self._on_scan_job_failed)

    def _on_scan_job_finished(self, _result: object) -> None:
        self._update_view()

    def _on_scan_job_failed(self, message: str) -> None:
        self.session.post_error("Could not count the corpus", message)

    def _on_session_theme_changed(self, _dark: bool) -> None:
        self.table.viewport().update()

    def _on_scan_batch_ready(self, items: list[object]) -> None:
        latest: dict[Source, SourceStats] = {}
        for item in items:
            if isinstance(item, SourceStats):
                latest[item.source] = item
        self.model.update_stats(list(latest.values()))
        if any(stats.done for stats in latest.values()):
            self._update_view()

    def _on_pattern_changed(self) -> None:
        self.model.clear_stats()
        self._scan()

    # State shown

    def _update_view(self) -> None:
        if self.held_out is None:
            self.held_out_label.setText("Held-out text: none (compression is then measured on the training text).")
        else:
            self.held_out_label.setText(f"Held-out text: <b>{html.escape(self.held_out.name)}</b> ({self._size(self.held_out)}), "
                                        "not trained on; the Training pane measures bytes per token on it.")
        skipped = self.model.skipped()
        self.skipped_list.clear()
        self.skipped_list.addItems(skipped)
        self.skipped_list.setVisible(bool(skipped))
        self.skipped_label.setText(f"Skipped files ({len(skipped)})" if skipped else "Skipped files: none")
        problems = self.model.problems()
        if problems:
            links = " ".join(f"<a href='fix:{index}'>Choose how to read {html.escape(source.name)}...</a>"
                             for index, (source, _) in enumerate(problems))
            self.banner.setText(f"<b>{len(problems)} source{'s' if len(problems) > 1 else ''} could not be read "
                                f"completely.</b> {html.escape(problems[0][1])} {links}")
            self.banner.show()
        else:
            self.banner.hide()

    def _size(self, source: Source) -> str:
        if source.kind == "text":
            return plural(len(source.text), "character")
        if not Path(source.path).exists():
            return "missing"
        if source.kind != "folder":
            return human_bytes(CorpusReader([source]).total_bytes)
        if source not in self._folder_sizes:  # the files it will read: a walk that opens each, off this thread
            self._folder_sizes[source] = None
            job = self.session.workers.start_process_call("sizing the held-out folder", Corpus((source,)).total_bytes)
            job.on("finished", self._on_folder_sized, source)
        size = self._folder_sizes[source]
        return "sizing..." if size is None else human_bytes(size)

    def _on_folder_sized(self, _job: object, source: Source, size: int) -> None:
        self._folder_sizes[source] = size
        self._update_view()

    def _on_banner_link_activated(self, link: str) -> None:
        index = int(link.split(":", 1)[1])
        problems = self.model.problems()
        if index < len(problems):
            self.fix_encoding(problems[index][0])

    def fix_encoding(self, source: Source) -> bool:
        choice = self.choose_encoding(source)
        if choice is None:
            return False
        try:
            fixed = source.with_encoding(*choice)  # type: ignore[arg-type]
        except LookupError:
            self.session.post_error("Unknown encoding", f"Python does not know the encoding {choice[0]!r}")
            return False
        self.replace_source(source, fixed)
        return True

    # User actions

    def _selected_sources(self) -> list[Source]:
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        return [self.model.index(row, 0).data(SourceRole) for row in sorted(rows)
                if self.model.index(row, 0).data(SourceRole) is not None]

    def _on_clear_clicked(self) -> None:
        """Clear, or undo the Clear just done: a click must not lose a corpus put together by hand."""
        if self._cleared is not None:
            self.set_sources(self._cleared)
            return
        if not self.sources:
            return
        removed = list(self.sources)
        self.set_sources([])
        self._cleared = removed
        self.clear_button.setText("Undo clear")
        self.session.status_posted.emit(f"Removed {len(removed)} source{'s' if len(removed) != 1 else ''}; "
                                        "Undo clear brings them back.")

    def ask_for_files(self) -> None:
        self._on_add_files_clicked()

    def _on_add_files_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Add files to the corpus", "",
                                                "Text (*.txt *.md *.py *.jsonl *.ndjson *.csv *.tsv);;All files (*)")
        self.add_paths(paths)

    def _on_add_folder_clicked(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Add a folder to the corpus")
        if path:
            self.add_paths([path])

    def _on_paste_clicked(self) -> None:
        text = self._ask_text("Paste text", "Text to add to the corpus:")
        if text:
            self.add_sources([Source.pasted(text)])

    def _ask_text(self, title: str, label: str) -> str:
        dialog = QDialog(self)
        dialog.setWindowTitle(title)
        layout = QVBoxLayout(dialog)
        layout.addWidget(QLabel(label))
        editor = QPlainTextEdit()
        editor.setFont(self.session.font)
        layout.addWidget(editor)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        layout.addWidget(buttons)
        dialog.resize(640, 420)
        return editor.toPlainText() if dialog.exec() == QDialog.DialogCode.Accepted else ""

    def _on_remove_clicked(self) -> None:
        selected = self._selected_sources()
        if selected:
            self.set_sources([s for s in self.sources if s not in selected])

    def _on_held_out_file_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Held-out text", "", "Text (*.txt *.md *.py);;All files (*)")
        if path:
            self.set_held_out(Source.for_path(path))

    def _on_held_out_paste_clicked(self) -> None:
        text = self._ask_text("Held-out text", "Text to measure on (not trained on):")
        if text:
            self.set_held_out(Source.pasted(text[:MAX_HELD_OUT_CHARS], name="pasted held-out text"))

    def _on_held_from_selection_clicked(self) -> None:
        selected = self._selected_sources()
        if selected:
            self.set_held_out(selected[0])

    def _on_table_context_menu(self, position: object) -> None:
        index = self.table.indexAt(position)  # type: ignore[arg-type]
        source = index.data(SourceRole) if index.isValid() else None
        if source is None:
            return
        menu = QMenu(self)
        menu.addAction("Read with another encoding...", lambda: self.fix_encoding(source))
        menu.addAction("Use as held-out text", lambda: self.set_held_out(source))
        menu.addAction("Remove", lambda: self.set_sources([s for s in self.sources if s != source]))
        menu.exec(self.table.viewport().mapToGlobal(position))  # type: ignore[arg-type]

    # Drag and drop: files, folders or text

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt override)
        if event.mimeData().hasUrls() or event.mimeData().hasText():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        data = event.mimeData()
        paths = [url.toLocalFile() for url in data.urls() if url.isLocalFile()]
        if paths:
            self.add_paths(paths)
        elif data.hasText() and data.text().strip():
            self.add_sources([Source.pasted(data.text())])
        event.acceptProposedAction()

    # Session

    def _on_session_corpus_changed(self, corpus: object) -> None:
        if corpus is self._published or not isinstance(corpus, Corpus):
            return
        self.held_out = corpus.held_out  # set elsewhere (the Training pane's quick start): show it here
        self.set_sources(list(corpus.sources))

    # Screenshots

    def prepare_screenshot(self, text: str | None = None) -> None:
        """The four parallel samples and the Python sample, counted, with the efficiency table."""
        samples = sample_sources()
        self.add_sources(samples[:5] if not text else [Source.pasted(text)])
