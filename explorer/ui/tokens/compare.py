"""The Tokens pane's compared lanes: up to three more tokenizers on the same text, each with its
choice of tokenizer and a Remove button, its summary counted against the first lane's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, QTimer
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QStyle, QStyleOptionComboBox, QToolButton, QWidget

from explorer.core.sources.tokenizer import Tokenizer
from explorer.ui.picker import BUNDLED
from explorer.ui.session import TRAINED_PREFIX
from explorer.ui.tokens.lane import Lane

if TYPE_CHECKING:
    from explorer.ui.session import Session

MAX_LANES = 4


class CurrentWidthCombo(QComboBox):
    """A combo box as wide as its current choice, not its longest one (a compared lane's title
    row: the summary beside it gets the rest of the row, one line more often than two)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.currentIndexChanged.connect(lambda _: self.updateGeometry())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        text = QSize(self.fontMetrics().horizontalAdvance(self.currentText()) + 4, self.fontMetrics().height())
        size = self.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, option, text, self)
        return QSize(size.width(), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (the whole name: an id cut off is a wrong id)
        return self.sizeHint()


class CompareLanes:
    """The Tokens pane's part that adds, fills and removes the compared lanes (a mixin: the pane
    has the lanes, the session, the legend and the idle timer)."""

    lanes: list[Lane]
    main_lane: Lane
    session: Session
    compare_button: QPushButton
    _idle: QTimer

    if TYPE_CHECKING:
        def text(self) -> str: ...
        def _new_lane(self) -> Lane: ...
        def _show_legend(self) -> None: ...

    def _show_references(self) -> None:
        """Each compared lane's token count against the first lane's (the compare summary)."""
        main = self.main_lane
        reference = len(main.state) if main.state is not None and main.complete and len(self.lanes) > 1 else None
        name = main.tokenizer.name if main.tokenizer is not None else ""
        for lane in self.lanes[1:]:
            lane.set_reference(reference, name)

    def add_compare(self, spec: str | None = None) -> Lane | None:
        if len(self.lanes) >= MAX_LANES:
            self.session.status_posted.emit(f"At most {MAX_LANES} tokenizers can be compared")
            return None
        lane = self._new_lane()
        lane.mode = self.session.special_mode
        choice = CurrentWidthCombo(lane)
        choice.setObjectName("compareChoice")
        choice.setAccessibleName("Tokenizer to compare with")
        remove = QToolButton(lane)  # (a cross, not a word: room for the summary beside it)
        remove.setText("\u2715")
        remove.setAccessibleName("Remove this comparison")
        remove.setToolTip("Remove this comparison")
        label = QLabel("Compare with:", lane)
        label.setBuddy(choice)  # (on Linux a screen reader names a combo box by its label)
        header = lane.header_layout  # (the summary between the choice and the button: one row)
        header.insertWidget(0, label)
        header.insertWidget(1, choice)
        header.addWidget(remove)
        lane.choice = choice  # type: ignore[attr-defined]
        self._fill_choices(choice)
        choice.activated.connect(lambda _: self._load_compare(lane, choice.currentData()))
        remove.clicked.connect(lambda: self.remove_compare(lane))
        lane.text = self.text()
        if spec is None:
            spec = next((s for s, _ in self._choices() if s != self.session.tokenizer_spec), "")
        if spec:
            index = choice.findData(spec)
            if index >= 0:
                choice.setCurrentIndex(index)
            self._load_compare(lane, spec)
        self.compare_button.setEnabled(len(self.lanes) < MAX_LANES)
        return lane

    def remove_compare(self, lane: Lane) -> None:
        if lane is self.main_lane:
            return
        self.lanes.remove(lane)
        lane.setParent(None)
        lane.deleteLater()
        self.compare_button.setEnabled(True)
        if len(self.lanes) < 2:
            self.main_lane.view.set_diff(None)
        self._show_legend()
        self._show_references()
        self._idle.start()

    def _choices(self) -> list[tuple[str, str]]:
        choices = list(BUNDLED)
        choices += [(TRAINED_PREFIX + name, f"{name} (trained here)") for name in self.session.trained]
        choices += [(path, path.rsplit("/", 1)[-1]) for path in self.session.settings.recent_files]
        return choices

    def _fill_choices(self, box: QComboBox) -> None:
        current = box.currentData()
        box.clear()
        for spec, label in self._choices():
            box.addItem(label, spec)
        if current is not None and box.findData(current) >= 0:
            box.setCurrentIndex(box.findData(current))

    def _refill_compare_choices(self) -> None:
        for lane in self.lanes[1:]:
            self._fill_choices(lane.choice)  # type: ignore[attr-defined]

    def _load_compare(self, lane: Lane, spec: str) -> None:
        def loaded(tokenizer: Tokenizer) -> None:
            if lane in self.lanes:
                lane.text = self.text()
                lane.set_tokenizer(tokenizer)

        self.session.fetch_tokenizer(spec, self, loaded, key=f"compare:{id(lane)}")

