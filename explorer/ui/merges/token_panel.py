"""The selected token: its description, its merge tree, and the tokens built on it ("used by").

The panel only shows; the pane decides which token is current. Clicking a box in the tree or a
row of "used by" emits `token_activated`; the arrows emit `back_requested`/`forward_requested`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QListView, QSplitter, QStackedWidget, QToolButton, \
    QVBoxLayout, QWidget

from explorer.core.plural import plural
from explorer.core.text.bidi import isolated
from explorer.core.errors import ExplorerError
from explorer.core.algorithms.merges import MergeForest
from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.text.render import shown_text
from explorer.core.analysis.vocab_filter import VocabTable
from explorer.ui.merges.model import TOKEN_ID_ROLE, ChildrenModel
from explorer.ui.pane import WrappingLabel
from explorer.ui.merges.tree_view import DEPTH_COLORS, MergeTreeView, depth_color, text_color_on

TREE_MIN_HEIGHT = 200
TREE_HELP = "Wheel zooms, drag pans, click a box to go to its token"


@dataclass
class TokenContext:
    """What the panel reads to describe a token (any part may be missing while loading)."""

    tokenizer: Tokenizer | None = None
    table: VocabTable | None = None
    forest: MergeForest | None = None

    def label(self, token_id: int) -> str:
        """The token as shown everywhere in the pane: `·the`, `<E0 A4>`."""
        table = self.table
        if table is not None and token_id in table.row_of:
            return table.visible[table.row_of[token_id]]
        if self.tokenizer is not None:
            try:
                return shown_text(self.tokenizer.token_bytes(token_id))
            except ExplorerError:
                pass
        return f"#{token_id}"


class TokenPanel(QSplitter):
    token_activated = Signal(int)
    back_requested = Signal()
    forward_requested = Signal()
    message_posted = Signal(str)  # for the status bar

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.context = TokenContext()
        self.current: int | None = None
        self.font_, self.dark = QFont(), False
        self.back_button = _tool_button("\u2190", "Back to the previous token (Alt+Left)", self.back_requested.emit)
        self.forward_button = _tool_button("\u2192", "Forward (Alt+Right)", self.forward_requested.emit)
        self.title_label = WrappingLabel()
        self.title_label.setTextFormat(Qt.TextFormat.RichText)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tree_view = MergeTreeView()
        # The token's title has a line of its own: beside seven buttons it kept ~30 px at 20 pt
        # and wrapped a letter per line, taller than the window (the pane grew to 1055 px).
        bar = QHBoxLayout()
        bar.addWidget(self.back_button)
        bar.addWidget(self.forward_button)
        bar.addStretch(1)
        for text, tip, slot in (
            ("\u2212", "Zoom out (wheel, or - with the tree focused)", lambda: self.tree_view.zoom(1 / 1.2)),
            ("+", "Zoom in (wheel, or + with the tree focused)", lambda: self.tree_view.zoom(1.2)),
            ("Fit", "Show the whole tree (F with the tree focused)", self.tree_view.fit),
            ("PNG...", "Save the tree as a PNG image", lambda: self.export_png()),
            ("SVG...", "Save the tree as an SVG drawing", lambda: self.export_svg()),
        ):
            bar.addWidget(_tool_button(text, tip, slot))
        self.info_label = WrappingLabel()
        self.info_label.setTextFormat(Qt.TextFormat.RichText)
        self.info_label.setWordWrap(True)
        self.info_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tree_message = QLabel()
        self.tree_message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.tree_message.setWordWrap(True)
        self.tree_stack = QStackedWidget()
        self.tree_stack.addWidget(self.tree_message)
        self.tree_stack.addWidget(self.tree_view)
        self.tree_stack.setMinimumHeight(TREE_MIN_HEIGHT)  # a tree to read, whatever the trace below wants
        self.legend = WrappingLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        # How to use the tree goes in tooltips: as a third legend line it took the tree's room at 20 pt.
        self.tree_view.setToolTip(TREE_HELP)
        tree_panel = QWidget()
        tree_layout = QVBoxLayout(tree_panel)
        tree_layout.setContentsMargins(4, 0, 4, 0)
        tree_layout.addLayout(bar)
        tree_layout.addWidget(self.title_label)
        tree_layout.addWidget(self.info_label)
        tree_layout.addWidget(self.tree_stack, 1)
        tree_layout.addWidget(self.legend)

        self.children_model = ChildrenModel(self)
        self.children_view = QListView()
        self.children_view.setModel(self.children_model)
        self.children_view.setUniformItemSizes(True)
        self.children_view.setToolTip("Tokens made by a merge that uses this token; click one to go there")
        self.children_label = WrappingLabel("<b>Used by</b>")
        self.children_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # "·inter…   #12345": the id stays whole
        used_by = QWidget()
        self.used_by = used_by
        used_layout = QVBoxLayout(used_by)
        used_layout.setContentsMargins(4, 0, 0, 0)
        used_layout.addWidget(self.children_label)
        used_layout.addWidget(self.children_view, 1)

        self.addWidget(tree_panel)
        self.addWidget(used_by)
        self.setStretchFactor(0, 4)
        self.setStretchFactor(1, 1)
        self.setSizes([720, 250])
        self.children_view.clicked.connect(self._on_children_view_clicked)
        self.children_view.activated.connect(self._on_children_view_clicked)
        self.tree_view.node_clicked.connect(self.token_activated)
        self.update_legend()

    # What to show

    def set_look(self, font: QFont, dark: bool) -> None:
        self.font_, self.dark = font, dark
        self.children_model.font = font
        # Room for a short token and a six-digit id at this zoom (elided in the middle beyond).
        self.used_by.setMinimumWidth(max(190, QFontMetrics(font).horizontalAdvance("·Theatre…  #123456") + 40))
        self.update_legend()
        self.draw_tree()

    def set_history(self, can_go_back: bool, can_go_forward: bool) -> None:
        self.back_button.setEnabled(can_go_back)
        self.forward_button.setEnabled(can_go_forward)

    def clear(self, message: str) -> None:
        self.current = None
        self.context = TokenContext()
        self.children_model.set_token(None, None, None)
        self.tree_view.clear_tree()
        self.title_label.setText("")
        self.info_label.setText("")
        self.show_message(message)

    def show_message(self, html: str) -> None:
        """Text in place of the tree (loading, or why there is none)."""
        self.tree_message.setText(html)
        self.tree_stack.setCurrentWidget(self.tree_message)

    def show_token(self, context: TokenContext, token_id: int) -> None:
        self.context, self.current = context, token_id
        self._show_info(token_id)
        self.children_model.set_token(context.table, context.forest, token_id)
        count = self.children_model.rowCount()
        if context.forest is None:
            self.children_label.setText("<b>Used by</b>")
        else:
            self.children_label.setText(f"<b>Used by</b> {plural(count, 'token')}")
        # An empty list gives its room to the tree (it kept ~330 px at 20 pt); the info line says it.
        self.used_by.setVisible(context.forest is None or count > 0)
        self.draw_tree()

    def refresh_info(self, context: TokenContext) -> None:
        """New facts about the same token (flags, corpus counts): update the text, keep the tree."""
        self.context = context
        if self.current is not None:
            self._show_info(self.current)

    def draw_tree(self) -> None:
        forest, token_id = self.context.forest, self.current
        if forest is None or token_id is None:
            return
        self.update_legend()  # bytes or characters at the bottom
        self.tree_view.show_tree(forest, token_id, self.context.label, self.font_, self.dark, self.describe)
        self.tree_stack.setCurrentWidget(self.tree_view)

    def update_legend(self) -> None:
        cells = []
        leaf = self.context.forest.leaf if self.context.forest is not None else "byte"
        for height in range(len(DEPTH_COLORS) + 1):
            fill = depth_color(height, self.dark)
            text = text_color_on(fill)
            label = leaf if height == 0 else (str(height) if height < len(DEPTH_COLORS) else f"{height}+")
            cells.append(f"<span style='background:{fill.name()}; color:{text.name()}'>&nbsp;{label}&nbsp;</span>")
        # Short, so that it stays one or two lines at 20 pt: the long form is its tooltip.
        self.legend.setText(f"Depth (merges down to a {leaf}): " + "".join(cells) + "&nbsp;&nbsp; #n = rank")
        self.legend.setToolTip(f"A box's colour is its depth: how many merges stack it up from single {leaf}s; "
                               f"#n under a token is the rank of the merge that made it. {TREE_HELP}.")

    # Describing a token

    def describe(self, token_id: int) -> str:
        """A box's tooltip."""
        table, forest = self.context.table, self.context.forest
        lines = [f"{isolated(self.context.label(token_id))}   id {token_id}"]
        if table is not None and token_id in table.row_of:
            row = table.row_of[token_id]
            lines.append("bytes " + table.data[row].hex(" ").upper())
            flags = table.row_flags(row)
            if flags:
                lines.append("flags: " + ", ".join(flags))
        if forest is not None:
            rank = forest.rank(token_id)
            if rank is not None:
                count = forest.count(token_id)
                lines.append(f"merge #{rank:,}" + (f", seen {count:,} times in training" if count else ""))
        lines.append("Click to go to this token")
        return "\n".join(lines)

    def _show_info(self, token_id: int) -> None:
        table, forest, label = self.context.table, self.context.forest, self.context.label
        if table is None:
            return
        row = table.row_of[token_id]
        data = table.data[row]
        # (The mark first: a rich-text line that starts with an Arabic token would read from the right.)
        self.title_label.setText(f"\u200e<span style='font-size:large'><b>{_html(label(token_id))}</b></span>"
                                 f"&nbsp;&nbsp;id {token_id} · {len(data)} byte{'s' if len(data) != 1 else ''}")
        parts: list[str] = []
        if forest is not None:
            rank, pair = forest.rank(token_id), forest.parents(token_id)
            if pair is not None:
                parts.append(f"merge #{rank:,}: <code>{_html(label(pair[0]))}</code> + "
                             f"<code>{_html(label(pair[1]))}</code>, depth {forest.depth(token_id)}")
                count = forest.count(token_id)
                if count is not None:
                    parts.append(f"pair seen {count:,} times in training")
            elif token_id in table.special_ids:
                parts.append("a special token: added whole, never made by a merge")
            elif len(data) == 1:
                parts.append(f"a single byte (0x{data[0]:02X}): the bottom of every tree")
            if forest.rank(token_id) is not None and not forest.children(token_id):
                parts.append("no merge builds on it")
        if table.seen is not None:
            parts.append(f"seen {int(table.seen[row]):,} times in the corpus")
        flags = table.row_flags(row)
        if flags:
            parts.append("<b>flags:</b> " + ", ".join(flags))
        explanation = self._unreachable_note(data) if "unreachable" in flags else ""
        self.info_label.setText(" · ".join(parts) + explanation)

    def _unreachable_note(self, data: bytes) -> str:
        tokenizer = self.context.tokenizer
        if tokenizer is None:
            return ""
        try:
            alone = tokenizer.encode(data.decode("utf-8"), "plain")
        except (UnicodeDecodeError, ExplorerError):
            return ""
        pieces = " + ".join(f"<code>{_html(self.context.label(i))}</code>" for i in alone)
        return (f"<br>Unreachable: encoding its own text gives {pieces}, never this token. "
                "A longer merge or the pre-tokenizer takes its bytes first, so a model rarely if ever sees it.")

    def _on_children_view_clicked(self, index: QModelIndex) -> None:
        token_id = index.data(TOKEN_ID_ROLE)
        if token_id is not None:
            self.token_activated.emit(int(token_id))

    # Export

    def export_png(self, path: str | None = None) -> bool:
        return self._export(path, "PNG image (*.png)", "png", self.tree_view.export_png)

    def export_svg(self, path: str | None = None) -> bool:
        return self._export(path, "SVG drawing (*.svg)", "svg",
                            lambda target: self.tree_view.export_svg(target, f"Merge tree of token {self.current}"))

    def _export(self, path: str | None, file_filter: str, suffix: str, save: Callable[[str], bool]) -> bool:
        if self.tree_view.tree is None:
            self.message_posted.emit("Select a token with a merge tree first")
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the merge tree", f"token-{self.current}.{suffix}",
                                                  file_filter)
            if not path:
                return False
        if not save(path):
            self.message_posted.emit(f"Could not save the tree: {path} could not be written")
            return False
        self.message_posted.emit(f"Saved the tree to {path}")
        return True


def _tool_button(text: str, tip: str, slot: Callable[[], object]) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.clicked.connect(lambda: slot())
    return button


def _html(text: str) -> str:
    """A token's label in a rich-text sentence (isolated, so an Arabic token keeps its place)."""
    return isolated(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
