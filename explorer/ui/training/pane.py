"""The Training pane: settings, controls, the merges table and live plots of one training run.

Left: the settings, the corpus it will train on, and the result (save, export). Right: Train,
Pause, Step, Play (with a speed in merges per second) and Cancel over a progress bar and a status
line in plain words; below, the merges as they are learned and the plots. The trainer runs in a
child process (see run.py), so the window stays responsive on megabytes of text.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QShortcut, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QComboBox, QDoubleSpinBox, QGroupBox, QHeaderView,
    QLabel, QPushButton, QScrollArea, QSizePolicy, QSplitter, QVBoxLayout, QWidget)

from explorer.core.plural import human_bytes
from explorer import __version__
from explorer.core.algorithms.bpe import BPE
from explorer.core.corpora.corpus_sources import (Corpus, Source, is_toy_sample,
                                                   sample_sources)
from explorer.core.algorithms.demo_sentence import (
    first_sentence, read_quickly, source_sentence)
from explorer.core.errors import ExplorerError
from explorer.core.algorithms.train import Merge
from explorer.core.algorithms.training_run import TrainingSettings, build_tokenizer
from explorer.ui.combo import TextWideCombo
from explorer.ui.flow import FlowLayout
from explorer.ui.pane import PAINT_BANDS, Pane, WrappingLabel
from explorer.ui.pinned import PinnedColumnTable
from explorer.ui.session import Session
from explorer.ui.side_column import SideColumn, fit_side
from explorer.ui.timers import NEXT_FRAME_MS, call_later
from explorer.ui.training.merges_table import FittedColumns
from explorer.ui.training.naming import default_name
from explorer.ui.training.model import (
    APPLIED_COUNT_HELP, COLUMNS, COUNT, ID, LEFT, NEW, PAIR_COUNT_HELP, RANK, RIGHT, TIE, MergesModel)
from explorer.ui.training.demo import LiveSentence
from explorer.ui.training.plots import PLOT_PARTS, SWEEP_SIZES, PlotsPanel, TrainingPlots, vocab_size_after
from explorer.ui.progress import ProgressBar
from explorer.ui.training.result_box import ResultBox
from explorer.ui.training.compare_view import RulesCompareView
from explorer.ui.training.run import ENDED, FAILED, FINISHED, IDLE, PAUSED, TrainingRun
from explorer.ui.training.settings_form import SettingsForm
from explorer.ui.training.status import escape, progress_shown, status_html
from explorer.ui.training.tie_details import TieDetails
from explorer.ui.workers import Job

QWIDGETSIZE_MAX = (1 << 24) - 1  # Qt's largest widget size
UI_REFRESH_MS = 50  # new rows, status line, progress bar and scrolling, at most this often
PUBLISH_HOLD_MS = 250  # new background jobs wait this long after a trained tokenizer is published
SETTLE_WAITS = 10  # view ticks the final plots wait at most for the table's refit to settle
PLOT_EVERY = 6  # plots on every sixth refresh (300 ms): repainting them is the costliest thing here
POUR_CYCLE = 6  # view ticks of a Hugging Face run's pour in which the table follows once (see _pour_tick)
SPEEDS = (0.5, 1, 2, 5, 10, 20, 50, 100, 1000)
TOY_RULES_NOTE = ("Toy samples train with minbpe rules, as the tutorials do: the text is one sequence and a tie "
                  "goes to the pair counted first, so the merges are the tutorials' own.")


PART_CHARS = 5  # room for a merge's left and right parts: the new token (both together) takes the rest
NEW_CHARS = 9  # the new token's least room, in characters
SIDE_WIDTH = 380  # pixels: the settings column at normal size (wider when its fields need it)
PLOTS_WIDTH = 420  # pixels the sentence and plots keep when the merges table widens to its columns
PLOTS_LEAST = 330  # ... and when it widens to show the new token whole


class TrainingPane(Pane):
    name = "training"
    title = "Training"

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self.run: TrainingRun | None = None
        self.tokenizer: BPE | None = None  # the last run's result
        self._build()
        for _ in range(PLOT_PARTS):  # a part of the plots per turn (they are half the cost of the pane)
            self.defer(self.plots_panel.build_part, later=True)
        # Batches arrive every ~40 ms; the view catches up on a timer instead, so a fast run costs
        # a few repaints a second, not one per batch.
        self.ui_timer = QTimer(self)
        self.ui_timer.setInterval(UI_REFRESH_MS)
        self.ui_timer.timeout.connect(self._on_ui_timer_timeout)
        self._ticks = 0
        self._status_dirty = self._scroll_pending = False
        self._pending: list[Merge] = []  # merges received, not yet in the table
        self._largest_rank = 100_000  # the merge number the table's first column has room for
        session.corpus_changed.connect(self._on_session_corpus_changed)
        session.font_changed.connect(self._on_session_font_changed)
        session.theme_changed.connect(self._on_session_theme_changed)
        self._on_session_font_changed(session.font)
        self._on_session_theme_changed(session.dark)
        self._on_session_corpus_changed(session.corpus)
        self._update_controls()
        self.set_content(self.content)

    @property
    def plots(self) -> TrainingPlots:
        return self.plots_panel.plots

    # Building

    def _build(self) -> None:
        self.content = QSplitter(Qt.Orientation.Horizontal)
        self.side = self._build_side()
        self.content.addWidget(self.side)
        main = QWidget()
        layout = QVBoxLayout(main)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(self._build_controls())
        self.progress = ProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        layout.addWidget(self.progress)
        self.status = WrappingLabel()  # a merge of a long token must not widen the pane
        self.status.setObjectName("trainingStatus")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Horizontal)
        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        self.follow = QCheckBox("Follow the newest merge")
        self.follow.setChecked(True)
        table_layout.addWidget(self.follow)
        self.model = MergesModel(self)
        self.table = PinnedColumnTable()  # wider than its room, it scrolls sideways: the merge number stays
        self.table.setModel(self.model)
        self.table.setObjectName("mergesTable")
        self.table.pinned.setObjectName("mergesTablePinned")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = self.table.horizontalHeader()
        for column in range(len(COLUMNS)):
            # the new token is the two parts together: it gets the room left (FittedColumns), the parts a quarter each
            mode = {LEFT: QHeaderView.ResizeMode.Interactive,
                    RIGHT: QHeaderView.ResizeMode.Interactive}.get(column, QHeaderView.ResizeMode.Fixed)
            header.setSectionResizeMode(column, mode)
        self.columns = FittedColumns(self.table, NEW, parts=(LEFT, RIGHT))
        self.columns.widened.connect(self._fit_body)  # (longer tokens came into view)
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)
        self._table_at_end = True  # the table shows its last row (see _on_table_range_changed)
        rows_bar = self.table.verticalScrollBar()
        rows_bar.valueChanged.connect(self._on_table_scrolled)
        rows_bar.rangeChanged.connect(self._on_table_range_changed)
        table_layout.addWidget(self.table, 1)
        self.details = TieDetails()
        details_scroll = QScrollArea()
        details_scroll.setWidget(self.details)
        details_scroll.setWidgetResizable(True)
        details_scroll.setMaximumHeight(150)
        table_layout.addWidget(details_scroll)
        split.addWidget(table_box)
        # Beside the table: the live sentence over the plots (or, before any merge, what they will show).
        plots_box = QWidget()
        plots_layout = QVBoxLayout(plots_box)
        plots_layout.setContentsMargins(0, 0, 0, 0)
        self.demo = LiveSentence(self.model)
        plots_layout.addWidget(self.demo)
        self.plots_panel = PlotsPanel()
        plots_layout.addWidget(self.plots_panel, 1)
        split.addWidget(plots_box)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([560, 440])
        self.body_split = split
        layout.addWidget(split, 1)
        self.content.addWidget(main)
        self.content.setStretchFactor(0, 0)
        self.content.setStretchFactor(1, 1)
        self.content.setSizes([SIDE_WIDTH, 900])

    def _build_side(self) -> QWidget:
        side = QWidget()
        layout = QVBoxLayout(side)
        settings_box = QGroupBox("Settings")
        self.form = SettingsForm()
        box_layout = QVBoxLayout(settings_box)
        box_layout.addWidget(self.form)
        layout.addWidget(settings_box)
        self.form.changed.connect(self._on_form_changed)

        corpus_box = QGroupBox("Corpus")
        corpus_layout = QVBoxLayout(corpus_box)
        self.corpus_label = QLabel()
        self.corpus_label.setWordWrap(True)
        corpus_layout.addWidget(self.corpus_label)
        row = FlowLayout()  # (the button goes under the samples when the column is narrow)
        self.sample_combo = TextWideCombo()  # (whole: the button beside it goes under it when it must)
        self.sample_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.sample_combo.setMinimumContentsLength(14)
        self.sample_combo.addItem("Quick start: train on a sample...", None)
        for source in sample_sources():
            self.sample_combo.addItem(source.name, source)
        self.sample_combo.activated.connect(self._on_sample_combo_activated)
        self.sample_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        row.addWidget(self.sample_combo)
        open_corpus = QPushButton("Corpus pane")
        open_corpus.setToolTip("Add files, folders, pasted text and a held-out text")
        open_corpus.clicked.connect(lambda: self.session.show_pane("corpus"))
        row.addWidget(open_corpus)
        corpus_layout.addLayout(row)
        layout.addWidget(corpus_box)

        self.result_box = ResultBox(self.session)
        layout.addWidget(self.result_box)
        layout.addStretch(1)
        return SideColumn(side, least=340)

    def _build_controls(self) -> FlowLayout:
        row = FlowLayout()  # (flows onto a second line beside the settings at presentation mode's font)
        self.start_button = QPushButton("Train")
        self.start_button.setToolTip("Train at full speed (Ctrl+Return)")
        self.start_button.clicked.connect(self._on_start_clicked)
        self.pause_button = QPushButton("Pause")
        self.pause_button.clicked.connect(lambda: self.run and self.run.pause())
        self.step_button = QPushButton("Step")
        self.step_button.setToolTip("Learn one merge, then wait (F9 or Ctrl+Right)")
        self.step_button.clicked.connect(self._on_step_clicked)
        self.play_button = QPushButton("Play")
        self.play_button.setToolTip("Learn merges at the chosen speed, for talks (F8 plays and pauses)")
        self.play_button.clicked.connect(self._on_play_clicked)
        self.speed = QDoubleSpinBox()
        self.speed.setRange(0.2, 5000)
        self.speed.setDecimals(1)
        self.speed.setValue(2)
        self.speed.setSuffix(" merges/s")
        self.speed.setToolTip("Play speed")
        self.speed.valueChanged.connect(self._on_speed_value_changed)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop; the tokenizer keeps the merges learned so far")
        self.cancel_button.clicked.connect(lambda: self.run and self.run.cancel())
        self.sweep_button = QPushButton("Sweep 1K-32K")
        self.sweep_button.setToolTip("Train to a vocabulary of 32,768 and plot held-out compression at "
                                     "1K, 2K, 4K, 8K, 16K and 32K: smaller vocabularies are prefixes of the merges")
        self.sweep_button.clicked.connect(self._on_sweep_clicked)
        self.compare_button = QPushButton("Compare rules")
        self.compare_button.setToolTip("Train the corpus with hf and with minbpe rules and show where their merges "
                                       "part ways, and how many tokens both learned")
        self.compare_button.clicked.connect(self._on_compare_clicked)
        self.compare_view: RulesCompareView | None = None
        for widget in (self.start_button, self.pause_button, self.step_button, self.play_button, self.speed,
                       self.cancel_button):
            row.addWidget(widget)
        row.add_stretch()
        row.add_together(self.compare_button, self.sweep_button)
        # Ctrl+Return trains; the stepping keys every pane shares: F8 play/pause, F9 one merge.
        for keys, slot in (("Ctrl+Return", self._on_start_clicked), ("Ctrl+Right", self._on_step_clicked),
                           ("F9", self._on_step_clicked), ("F8", self._on_play_pause_key)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        return row

    # Starting and controlling

    def start(self, step: bool = False, rate: float | None = None, thread: bool = False) -> bool:
        """Start a run with the current settings; False (and a message) if they cannot train.

        (`thread` is for the benchmark only: see TrainingRun.start.)
        """
        corpus = self.session.corpus
        try:
            settings = self.form.settings()
        except ExplorerError as exc:
            self._refuse("These settings cannot train", str(exc))
            return False
        if not isinstance(corpus, Corpus) or corpus.is_empty:
            self._refuse("No corpus", "The corpus is empty: add files, folders, pasted text or a sample in the "
                         "Corpus pane, or pick a sample under Quick start.")
            return False
        if settings.engine == "hf" and (step or rate is not None):
            self._refuse("Not with this engine", "Hugging Face tokenizers shows its merges only when it is done: "
                         "choose the built-in engine to step or play.")
            return False
        self.model.clear()
        self._largest_rank = settings.target_merges
        self._fit_number_columns()
        self.details.show_merge(None, self.model.vocab, settings.rules)
        self._pending = []
        self.model.count_help = APPLIED_COUNT_HELP if settings.engine == "hf" else PAIR_COUNT_HELP
        self.plots.reset()
        self.plots_panel.show_plots(False)
        self.demo.restart(settings.pattern)
        self.tokenizer = None
        name = self._unique_name(self.form.name_edit.text().strip() or self.default_name(settings=settings))
        metadata = {"created_by": f"tokenizer-explorer {__version__} (Training pane)",
                    "corpus": [source.name for source in corpus.sources],
                    "held_out": corpus.held_out.name if corpus.held_out else None,
                    "vocab_size": settings.vocab_size, "engine": settings.engine, "rules": settings.rules}
        self.run = TrainingRun(corpus, settings, name, metadata, self)
        self.run.merges_added.connect(self._on_run_merges_added)
        self.run.progressed.connect(self._on_run_progressed)
        self.run.state_changed.connect(self._on_run_state_changed)
        self.run.ended.connect(self._on_run_ended)
        self._plots_started = False
        self.run.start(self.session.workers, step=step, rate=rate, thread=thread)
        self.session.set_training(self.run)
        self.ui_timer.start()
        self._update_controls()
        self._update_status()
        return True

    def _refuse(self, title: str, message: str) -> None:
        self.status.setText(f"<b>{title}.</b> {message}")
        self.session.post_error(title, message)

    def _on_start_clicked(self) -> None:
        if self.run is not None and self.run.is_running:
            self.run.resume()
        else:
            self.start()

    def _on_step_clicked(self) -> None:
        if self.run is not None and self.run.is_running:
            self.run.step()
        else:
            self.start(step=True)

    def _on_play_clicked(self) -> None:
        if self.run is not None and self.run.is_running:
            self.run.play(self.speed.value())
        else:
            self.start(rate=self.speed.value())

    def _on_play_pause_key(self) -> None:
        if self.run is not None and self.run.is_running and self.run.state != PAUSED:
            self.run.pause()
        else:
            self._on_play_clicked()

    def _on_speed_value_changed(self, value: float) -> None:
        if self.run is not None and self.run.is_running:
            self.run.set_rate(value)

    def _on_compare_clicked(self) -> None:
        corpus = self.session.corpus
        try:
            settings = self.form.settings()
        except ExplorerError as exc:
            self._refuse("These settings cannot train", str(exc))
            return
        if not isinstance(corpus, Corpus) or corpus.is_empty:
            self._refuse("No corpus", "Add text in the Corpus pane, or pick a sample under Quick start, to compare "
                         "the rules on it.")
            return
        if self.compare_view is None:
            self.compare_view = RulesCompareView(self)
        self.compare_view.show()
        self.compare_view.raise_()
        self.compare_view.start(self.session.workers, corpus, settings)

    def _on_sweep_clicked(self) -> None:
        self.form.set_vocab_size(max(SWEEP_SIZES) + len(self.form.special_tokens()))
        self.start()

    # Run signals

    def _on_run_merges_added(self, merges: list[Merge]) -> None:
        run = self.run
        if run is None:
            return
        stage = run.stage
        if not self._plots_started and stage is not None:
            self._plots_started = True
            self.plots.reset(1.0, held_out=stage.held_out_tokens > 0,
                             target=stage.target_merges)
            if self._hf_run():  # (shown with their curves when the run ends, and the columns fitted then)
                self.columns.hold()
            else:
                self.plots_panel.show_plots(True)
        first = len(run.merges) - len(merges)
        ranks = [m.rank for m in merges]
        counts = [m.count for m in merges]
        train_bpt: list[float] = []
        if stage is not None:
            train_bpt = [stage.corpus_tokens / m.total_tokens for m in merges]
        held_out_bpt: list[float] = []
        if stage is not None and stage.held_out_tokens > 0:
            held_out_bpt = [stage.held_out_tokens / t for t in run.held_out_tokens[first:]]
        specials = len(run.settings.special_tokens)
        vocab_sizes = [vocab_size_after(m.rank, specials) for m in merges]
        self.plots.add(ranks, counts, train_bpt, held_out_bpt, vocab_sizes)
        self._pending.extend(merges)
        if self._slow_run():  # stepping or playing for an audience: show each merge at once
            self._on_ui_timer_timeout(plots=True)

    def _flush_merges(self) -> None:
        """Rows go into the table on the view's timer, one insertion per flush: a fast run repaints
        the table ten times a second, not once per batch from the trainer."""
        if self._pending:
            self.model.append(self._pending)
            self._pending = []
            self._scroll_pending = True

    def _slow_run(self) -> bool:
        run = self.run
        return run is not None and (run.state == PAUSED or (run.rate is not None and run.rate <= 20))

    def _on_run_progressed(self) -> None:
        self._status_dirty = True
        if self._slow_run():
            self._update_status()

    def _on_ui_timer_timeout(self, plots: bool = False) -> None:
        self._ticks += 1
        if not plots and self._ticks % PLOT_EVERY == 0 and not self._hf_run():
            # The plots' turn: alone, so their repaint and the table's fall in different frames
            # (together they made the longest pause of the window during a run).
            self.plots.refresh()
            return
        if self._hf_run() and self.run is not None and self.run.is_running:
            self._pour_tick(self.run)
            return
        self._take_rows(status=self._status_dirty)
        self.demo.catch_up()  # the sentence once per tick, with every merge that reached the table
        if plots:
            self.plots.refresh()

    def _take_rows(self, status: bool = True) -> None:
        """The merges that came since into the table, the status with them (it names the newest
        merge's tokens), and the table at its newest row if it follows."""
        self._flush_merges()
        if status:
            self._status_dirty = False
            self._update_status()
        if self._scroll_pending and self.follow.isChecked():
            self.table.scrollToBottom()
        self._scroll_pending = False

    def _pour_tick(self, run: TrainingRun) -> None:
        """Hugging Face's merges pour in for a second or two, 30,000 a second. The table's repaint
        as it takes them (15-25 ms: rows added at its end scroll it, see _on_table_range_changed),
        the sentence's redraw and a slice of the records each take a frame of their own: any two
        together made the window's longest pauses. So the rows go in once a cycle, with the status
        (which names the newest merge's tokens: it flushes them), and the run takes no records
        from the tick before to the tick after; the sentence is redrawn on a tick of its own."""
        phase = self._ticks % POUR_CYCLE
        following = self.follow.isChecked() and self.table.isVisible()  # (else rows go in unseen)
        if phase == 0:
            run.hold_intake(bool(self._pending) and following)
        elif phase == 1 and (run.held or not (self._pending and following)):  # (rows since: next cycle)
            self._take_rows()
        elif phase == 2:
            run.hold_intake(False)
        elif phase == POUR_CYCLE - 2:
            self.demo.catch_up()

    def _on_run_state_changed(self, state: str) -> None:
        if state in ENDED:  # (_on_run_ended, in the same turn, does both once the last rows are in)
            return
        self._update_controls()
        self._update_status()

    def _hf_run(self) -> bool:
        """Hugging Face's merges all arrive at once when it is done: their curves are drawn once, at
        the end (redrawn while tens of thousands of merges poured in, the plots' paint, the
        costliest of the window, made its longest pauses)."""
        return self.run is not None and self.run.settings.engine == "hf"

    def _on_run_ended(self, state: str) -> None:
        self.ui_timer.stop()
        hf = self._hf_run()
        self._status_dirty = False  # (the status is laid out once, below, with the last rows in the table)
        if hf:  # the last rows now; the sentence and the controls (their repaints) in the next frame
            self._take_rows(status=False)
        else:
            self._on_ui_timer_timeout(plots=True)
        self.columns.refit()  # (the last rows, not the longest that streamed past: the new token beside them)
        run = self.run
        if run is None:
            return
        if hf:  # the plots in a frame of their own, after the table's
            call_later(self, lambda: self._after_the_last_rows(run), UI_REFRESH_MS)  # (not once the pane is gone)
            call_later(self, lambda: self._draw_final_plots(run), 2 * UI_REFRESH_MS)
        else:
            self.plots.fit_x(len(run.merges))  # a run that stopped early or was cancelled ends before the target
            self._update_controls()
        if state == FAILED:
            self.session.post_error("Training failed", run.error)
        elif run.merges and not hf:  # (Hugging Face: once its plots are drawn)
            self._build_tokenizer(run)
        self._update_status()

    def _after_the_last_rows(self, run: TrainingRun) -> None:
        """The end of a Hugging Face run, a frame after its last rows: the sentence with every merge,
        and the buttons for a run that has ended (with the table's repaint, one frame of 45-50 ms)."""
        if run is self.run:
            self.demo.catch_up()
            self._update_controls()

    def _draw_final_plots(self, run: TrainingRun, waited: int = 0) -> None:
        """After the table's refit has settled, in frames of its own (together they made the longest
        pause of a 400 MB run, issue 16), unless that takes over SETTLE_WAITS frames (a window being
        resized all along). Then the tokenizer is built: on a pool thread, it would hold the
        interpreter lock in the frame where the plots paint tens of thousands of points."""
        if run is not self.run:
            return
        if waited < SETTLE_WAITS and self.columns.settling(UI_REFRESH_MS / 1000):
            call_later(self, lambda: self._draw_final_plots(run, waited + 1), UI_REFRESH_MS)
        else:
            self.plots.fit_x(len(run.merges))
            self.plots.refresh()  # (hidden until painted: its curves and labels, then their paint)
            call_later(self, lambda: self._paint_final_plots(run, 0), NEXT_FRAME_MS)

    def _paint_final_plots(self, run: TrainingRun, band: int) -> None:
        """Their first paint off-screen, a band a turn, then shown. Twice over: an axis widens to
        its labels in its first paint, and draws them again at its new width."""
        if run is not self.run:
            return
        if band < 2 * PAINT_BANDS:
            self.plots_panel.paint_hidden(band % PAINT_BANDS)
            call_later(self, lambda: self._paint_final_plots(run, band + 1), NEXT_FRAME_MS)
        else:
            self._show_final_plots(run)

    def _show_final_plots(self, run: TrainingRun) -> None:
        if run is self.run:
            self.plots_panel.show_plots(self._plots_started)
            if run.state != FAILED and run.merges:
                call_later(self, lambda: self._build_tokenizer(run), NEXT_FRAME_MS)

    def _build_tokenizer(self, run: TrainingRun) -> None:
        """Make the tokenizer from the merges on a pool thread, then publish it.

        Building is Python code that yields the interpreter lock every few milliseconds, so the
        window keeps painting; receiving a finished tokenizer from the child instead would mean
        unpickling it in one piece, which holds the lock for tens of milliseconds at once.
        """
        run.metadata.update(seconds=round(run.elapsed, 2), complete=run.state == FINISHED)
        merges, settings, name, metadata = list(run.merges), run.settings, run.name, run.metadata
        job = self.session.workers.start_call("building the tokenizer",
                                         lambda: build_tokenizer(merges, settings, name, metadata),
                                         key="training-result")
        job.on("finished", self._on_tokenizer_built, run)
        job.failed.connect(lambda message: self.session.post_error("Could not build the tokenizer", message))

    def _on_tokenizer_built(self, _job: Job, run: TrainingRun, tokenizer: BPE) -> None:
        """Published in three event-loop turns, each its own frame: the pickers list it, then the
        shown pane takes it up (the hidden ones later, a pane a turn: Pane.take_up_tokenizer), then
        this pane shows the result (in one turn: 70-90 ms of GUI thread)."""
        if run is not self.run:
            return
        # What the panes start for the new tokenizer (its vocabulary table, the chat, the forest) waits
        # until the window has shown it: on pool threads, it would hold the lock that painting needs.
        self.session.workers.hold(PUBLISH_HOLD_MS)
        spec = self.session.add_trained(tokenizer, select=False)
        call_later(self, lambda: self._select_built(run, tokenizer, spec), NEXT_FRAME_MS)

    def _select_built(self, run: TrainingRun, tokenizer: BPE, spec: str) -> None:
        if run is not self.run:
            return
        self.tokenizer = tokenizer
        self.session.workers.hold(PUBLISH_HOLD_MS)
        self.session.set_tokenizer(tokenizer, spec)
        call_later(self, lambda: self._show_built(run), NEXT_FRAME_MS)

    def _show_built(self, run: TrainingRun) -> None:
        if run is self.run:
            self._update_result()
            self._update_controls()
            self._update_status()

    def default_name(self, settings: TrainingSettings | None = None) -> str:
        vocab = settings.vocab_size if settings else self.form.vocab_size()
        pattern = settings.pattern if settings else self.form.pattern()
        return default_name(self.session.corpus, vocab, pattern)

    def _unique_name(self, name: str) -> str:
        candidate, number = name, 2
        while candidate in self.session.trained:
            candidate, number = f"{name}-{number}", number + 1
        return candidate

    def _update_result(self) -> None:
        building = self.tokenizer is None and self.run is not None and bool(self.run.merges)
        self.result_box.show_tokenizer(self.tokenizer, building)

    # State shown

    def _update_controls(self) -> None:
        run = self.run
        running = run is not None and run.is_running
        state = run.state if run is not None else IDLE
        streaming = self.form.engine() == "builtin" if not running else run.settings.engine == "builtin"  # type: ignore[union-attr]
        self.form.set_editable(not running)
        self.sample_combo.setEnabled(not running)
        self.start_button.setText("Continue" if state == PAUSED else "Train")
        self.start_button.setEnabled(not running or state == PAUSED or (run is not None and run.rate is not None))
        self.pause_button.setEnabled(running and streaming and state != PAUSED)
        self.step_button.setEnabled(streaming)
        self.play_button.setEnabled(streaming and (not running or state == PAUSED or run.rate is None))  # type: ignore[union-attr]
        self.cancel_button.setEnabled(running)
        self.sweep_button.setEnabled(not running)

    def _fit_status(self) -> None:
        """Two lines while a run goes on: a status line that changes height re-lays out the plots
        below it, and laying out pyqtgraph is the slowest thing a repaint can do. Otherwise as tall
        as its text (how a run ended, at presentation mode's font, took four lines: two were cut)."""
        running = self.run is not None and self.run.is_running
        if running and self.status.maximumHeight() != self._status_lines:
            self.status.setFixedHeight(self._status_lines)
        elif not running:
            # (0: WrappingLabel's own least height, its text's, wrapped)
            self.status.setMinimumHeight(self._status_height_once_built())
            self.status.setMaximumHeight(QWIDGETSIZE_MAX)

    def _status_height_once_built(self) -> int:
        """While an ended run's tokenizer is built: the height of the status once it names the
        tokenizer, kept from now on. Growing by a line as the result was shown, it laid the plots
        out again, and their repaint made that turn's 45-60 ms of GUI thread (10 MB, issue 16)."""
        run = self.run
        width = self.status.width()
        if run is None or self.tokenizer is not None or not run.merges or run.state == FAILED or width <= 0:
            return 0
        document = QTextDocument()
        document.setDefaultFont(self.status.font())
        document.setDocumentMargin(0)
        document.setHtml(status_html(run, self.model.vocab, run.name))
        document.setTextWidth(width)
        return math.ceil(document.size().height())

    def _update_status(self) -> None:
        self._flush_merges()  # the status names the newest merge's tokens: the table must know them
        self._fit_status()
        run = self.run
        if run is None:
            self.progress.setValue(0)
            self.progress.setFormat("")
            problem = self.form.problem()
            self.status.setText(problem or "Press <b>Train</b> to learn merges from the corpus, or <b>Step</b> to "
                                "watch them one at a time.")
            return
        shown = progress_shown(run)
        self.progress.setRange(0, shown.maximum)
        if shown.maximum:
            self.progress.setValue(shown.value)
        self.progress.setFormat(shown.text)
        self.status.setText(status_html(run, self.model.vocab, self.tokenizer.name if self.tokenizer else None))

    # Session signals

    def _on_form_changed(self) -> None:
        self.form.name_edit.setPlaceholderText(self.default_name())  # follows the vocabulary size and pattern
        self._update_controls()

    def _on_session_corpus_changed(self, corpus: object) -> None:
        if isinstance(corpus, Corpus) and not corpus.is_empty:
            if any(source.kind == "folder" for source in corpus.sources):
                # the files a folder will read: a walk that opens each (seconds for 30,000 files)
                self._show_corpus(corpus, None)
                job = self.session.workers.start_process_call("sizing the corpus", corpus.total_bytes,
                                                              key="training:corpus size")
                job.on("finished", self._on_corpus_sized, corpus)
            else:
                self._show_corpus(corpus, corpus.reader().total_bytes)
        else:
            self.corpus_label.setText("No corpus yet: pick a sample below, or add text in the Corpus pane.")
        self.form.name_edit.setPlaceholderText(self.default_name())
        self._choose_rules(corpus)
        if not self.demo.edited:
            self._show_corpus_sentence(corpus)
        if self.run is None:
            self._update_status()

    def _show_corpus_sentence(self, corpus: object) -> None:
        """The live demo's sentence, from the corpus's first file or pasted text (a folder is not
        walked for it): read in a child process unless that is quick for sure."""
        source = (next((s for s in corpus.sources if s.kind != "folder"), None) if isinstance(corpus, Corpus)
                  else None)
        if source is None:
            self.demo.set_sentence(first_sentence([]))
        elif read_quickly(source):
            self.demo.set_sentence(source_sentence(source))
        else:
            job = self.session.workers.start_process_call("finding a sentence for the live demo", source_sentence,
                                                          (source,), key="training:corpus sentence")
            job.on("finished", self._on_corpus_sentence, corpus)

    def _on_corpus_sentence(self, _job: object, corpus: Corpus, sentence: str) -> None:
        if corpus is self.session.corpus and not self.demo.edited:
            self.demo.set_sentence(sentence)

    def _show_corpus(self, corpus: Corpus, size: int | None) -> None:
        names = ", ".join(s.name for s in corpus.sources[:3]) + (" ..." if len(corpus.sources) > 3 else "")
        held = (f"<br>Held-out: {corpus.held_out.name}" if corpus.held_out is not None else
                "<br>No held-out text: compression is measured on the training text only.")
        self.corpus_label.setText(f"{len(corpus.sources)} source{'s' if len(corpus.sources) != 1 else ''}"
                                  f" ({'sizing...' if size is None else human_bytes(size)}): {escape(names)}{held}")

    def _on_corpus_sized(self, _job: object, corpus: Corpus, size: int) -> None:
        if corpus is self.session.corpus:  # (not one the user has since changed)
            self._show_corpus(corpus, size)

    def _choose_rules(self, corpus: object) -> None:
        """Toy samples open with the tutorials' rules, saying so; other corpora go back to the
        default unless the user chose the rules."""
        toy = isinstance(corpus, Corpus) and not corpus.is_empty and all(map(is_toy_sample, corpus.sources))
        if toy:
            self.form.set_rules("minbpe", TOY_RULES_NOTE)
            if self.form.engine() != "builtin":
                self.form.engine_combo.setCurrentIndex(self.form.engine_combo.findData("builtin"))
        elif self.form.rules_note.text():  # chosen for a toy sample, not by the user
            self.form.set_rules("hf")

    def _on_sample_combo_activated(self, index: int) -> None:
        source = self.sample_combo.itemData(index)
        self.sample_combo.setCurrentIndex(0)
        if source is None:
            return
        held_out = None
        corpus = self.session.corpus
        if isinstance(corpus, Corpus):
            held_out = corpus.held_out
        self.session.set_corpus(Corpus((source,), held_out=held_out))

    def _on_session_font_changed(self, font: QFont) -> None:
        self.model.set_text_font(font)
        self._fit_number_columns()
        metrics_height = max(font.pointSize() * 2, 20)
        self.table.verticalHeader().setDefaultSectionSize(metrics_height + 4)  # (first: the rows in view are measured)
        letters = QFontMetrics(font).horizontalAdvance("0")
        self.columns.set_minimum(letters * NEW_CHARS + 12, letters * PART_CHARS + 12)  # (narrower: it scrolls sideways)
        status_font = QFont(self.font().family(), max(font.pointSize(), 10))
        self.status.setFont(status_font)
        self._status_lines = QFontMetrics(status_font).lineSpacing() * 2 + 6
        self._fit_status()
        self.plots_panel.set_font_size(font.pointSize())
        self.demo.set_text_font(font)
        call_later(self, self._fit_side)  # once Qt has handed the font to the fields

    def _fit_number_columns(self) -> None:
        """The number columns as wide as the run's largest numbers: the merge number for its
        vocabulary ("768" needs 3 digits, not the 7 of "100,000": at 1280x800 in presentation mode
        those 4 digits pushed the new token under the cut-column cover), ids, counts, ties."""
        digits = QFontMetrics(self.table.font()).horizontalAdvance("0") + 1
        header = self.table.horizontalHeader()
        for column, width in ((RANK, len(f"{self._largest_rank:,}")), (ID, 6), (COUNT, 8), (TIE, 5)):
            header.resizeSection(column, digits * max(width, 3) + 12)  # ids to 200000, counts to 1,000,000

    def _fit_side(self) -> None:
        """The settings column as wide as its fields need at the current font (SideColumn), and
        the merges table beside it (_fit_body)."""
        fit_side(self.content, self.side, SIDE_WIDTH)
        self._fit_body()

    def _fit_body(self) -> None:
        """The merges table as wide as all its columns need, if the plots keep PLOTS_WIDTH beside
        it (at 1920x1080 in presentation mode they do); else as wide as all its columns need at
        their least, if the plots keep PLOTS_LEAST (at 1280x800 the Tie column, which says which
        merges won a tie, was cut off by 30 pixels); else as wide as the merge number, its parts
        and the new token need, if the plots keep the room their titles need (at 1280x800 in
        presentation mode the new token sat under the cut-column cover, 8 px short, while the
        plots kept 45 px more than that); past that, the table scrolls sideways."""
        body = self.body_split.sizes()
        if len(body) != 2 or sum(body) <= 0:
            return
        header, extra = self.table.horizontalHeader(), (self.table.verticalScrollBar().sizeHint().width()
                                                        + 2 * self.table.frameWidth())
        new_token = max(self.columns.minimum, self.columns.content.get(NEW, 0))
        through_new = sum(header.sectionSize(column) for column in (RANK, LEFT, RIGHT)) + new_token + extra
        plots = self.plots_panel.built_plots
        titled = PLOTS_LEAST if plots is None else (  # the plots with their titles whole
            plots.least_width() + self.body_split.widget(1).width() - plots.width())
        least = max(PLOTS_LEAST, titled)
        whole = self.columns.content_width() + extra  # every column, the parts at their least
        for needed, keep in ((self.columns.least_width() + extra, max(PLOTS_WIDTH, least)), (whole, least),
                             (through_new, titled)):
            if needed <= sum(body) - keep:
                if body[0] < needed:
                    self.body_split.setSizes([needed, sum(body) - needed])
                return

    def _on_session_theme_changed(self, dark: bool) -> None:
        self.model.set_highlight(QColor("#6b5800" if dark else "#ffe680"))
        self.demo.set_dark(dark, self.session.palette)
        self.plots_panel.set_dark(dark)
        self.table.viewport().update()

    def _on_table_current_row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        row = current.row()
        merge = self.model.merges[row] if 0 <= row < len(self.model.merges) else None
        rules = self.run.settings.rules if self.run is not None else self.form.rules()
        self.details.show_merge(merge, self.model.vocab, rules)

    def _on_table_scrolled(self, value: int) -> None:
        self._table_at_end = value >= self.table.verticalScrollBar().maximum()

    def _on_table_range_changed(self, _minimum: int, maximum: int) -> None:
        """Following the newest merge, a table that showed it keeps it in view when it gets shorter:
        the status above it takes three more lines when the run ends, and the last merges went
        out of sight below."""
        if self._table_at_end and self.follow.isChecked():
            self.table.verticalScrollBar().setValue(maximum)

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        if self.tokenizer is not None and self.session.tokenizer is self.tokenizer:
            merge = self.model.merges[index.row()]
            self.session.show_token(merge.new_id)

    # Screenshots (the `screenshot` command)

    def prepare_screenshot(self, text: str | None = None) -> None:
        """Train so the picture shows merges and curves: on `text` if given, else on the English
        sample with the bakery replies (English the story never saw) as held-out text."""
        if text:
            self.session.set_corpus(Corpus((Source.pasted(text),)))
        elif not isinstance(self.session.corpus, Corpus) or self.session.corpus.is_empty:
            samples = {source.path.rsplit("/", 1)[-1]: source for source in sample_sources()}
            self.session.set_corpus(Corpus((samples["english.txt"],), held_out=samples["bakery_replies.txt"]))
        if self.run is None:
            self.start()


