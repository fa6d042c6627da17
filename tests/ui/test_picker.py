"""The toolbar picker: bundled encodings grouped by family, each with its one-line description."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import about_text
from explorer.ui.picker import TokenizerPicker
from explorer.ui.session import Session


def rows(picker: TokenizerPicker) -> list[tuple[str, str | None, bool]]:
    """(text, spec, selectable) of every row, headers included."""
    model = picker.model()
    return [(model.item(row).text().strip(), model.item(row).data(Qt.ItemDataRole.UserRole),
             bool(model.item(row).flags() & Qt.ItemFlag.ItemIsSelectable)) for row in range(model.rowCount())]


def test_bundled_encodings_are_grouped_by_family(qtbot: QtBot, session: Session) -> None:
    picker = TokenizerPicker(session)
    qtbot.addWidget(picker)
    shown = rows(picker)
    headers = [text for text, spec, selectable in shown if not selectable]
    assert headers[:4] == ["OpenAI (bundled)", "Meta Llama (bundled)", "Qwen (bundled)", "Mistral (bundled)"]
    specs = [spec for _, spec, _ in shown]
    for name in ["o200k_harmony", "llama3", "llama4", "qwen", "tekken"]:
        assert name in specs
    labels = {spec: text for text, spec, _ in shown}
    assert labels["llama3"] == "Llama 3, 3.1, 3.2, 3.3 (llama3)"
    assert labels["tekken"] == "Mistral NeMo, Pixtral (tekken)"
    # each entry sits under its family's header
    assert specs.index("llama4") < specs.index("llama3") < shown.index(("Qwen (bundled)", None, False))


def test_choosing_llama3_loads_it(qtbot: QtBot, session: Session) -> None:
    picker = TokenizerPicker(session)
    qtbot.addWidget(picker)
    row = [spec for _, spec, _ in rows(picker)].index("llama3")
    with qtbot.waitSignal(session.tokenizer_changed, timeout=30_000):
        picker.activated.emit(row)
    assert session.tokenizer is not None and session.tokenizer.name == "llama3"
    assert session.tokenizer.encode("<|begin_of_text|>Hi", "allowed") == [128000, 13347]
    assert picker.currentIndex() == row


def test_about_shows_the_attributions_the_licences_ask_for(qapp: object) -> None:
    text = about_text()
    assert "Built with Meta Llama 3" in text and "Built with Llama." in text
    assert "Llama 4 is licensed under the Llama 4 Community License" in text

def test_the_box_shows_a_long_name_whole(qtbot: QtBot, session: Session) -> None:
    """The closed box held 26 characters: "gpt-oss, harmony format (o200k_h" was cut in the toolbar."""
    picker = TokenizerPicker(session)
    qtbot.addWidget(picker)
    label = "gpt-oss, harmony format (o200k_harmony)"
    assert picker.sizeHint().width() > picker.fontMetrics().horizontalAdvance(label) + 30  # the arrow's room
    picker._select("o200k_harmony")
    assert label in picker.toolTip()


def test_a_tokenizer_loaded_from_elsewhere_is_shown_not_a_header(qtbot: QtBot, session: Session,
                                                                 tmp_path: object) -> None:
    """`screenshot --tokenizer FILE` loads a file the list has never seen: the box showed the first
    row, the header "OpenAI (bundled)", as if that were the tokenizer."""
    from pathlib import Path

    from explorer.core.algorithms.bpe import BPE
    from explorer.core.formats import own

    path = Path(str(tmp_path)) / "mine.json"
    own.save(BPE([(97, 97, 256)], "gpt2", name="mine"), path)
    picker = TokenizerPicker(session)
    qtbot.addWidget(picker)
    with qtbot.waitSignal(session.tokenizer_changed, timeout=30_000):
        session.load_tokenizer(str(path))
    assert picker.currentText().strip() == "mine.json" and picker.currentData() == str(path)
    assert ("Loaded", None, False) in rows(picker)
    with qtbot.waitSignal(session.tokenizer_changed, timeout=30_000):
        session.load_tokenizer("r50k_base")
    assert picker.currentData() == "r50k_base"
    assert ("Loaded", None, False) not in rows(picker)  # gone once that tokenizer is no longer in use


def test_a_bundled_tokenizer_picked_again_is_the_one_loaded_before(qtbot: QtBot, session: Session,
                                                                   tmp_path: object) -> None:
    """Each load of o200k_base ran tiktoken's constructor, which holds the interpreter lock for
    130-350 ms: switching back and forth between two encodings stalled the window every time. A
    file is read again, since it may have changed on disk."""
    from pathlib import Path

    from explorer.core.algorithms.bpe import BPE
    from explorer.core.formats import own

    with qtbot.waitSignal(session.tokenizer_changed, timeout=30_000):
        session.load_tokenizer("r50k_base")
    first = session.tokenizer
    path = Path(str(tmp_path)) / "mine.json"
    own.save(BPE([(97, 97, 256)], "gpt2", name="mine"), path)
    with qtbot.waitSignal(session.tokenizer_changed, timeout=30_000):
        session.load_tokenizer(str(path))
    with qtbot.waitSignal(session.tokenizer_changed, timeout=1_000) as changed:
        assert session.load_tokenizer("r50k_base") is None  # no job: set at once
    assert changed.args == [first] and session.tokenizer is first and session.tokenizer_spec == "r50k_base"

    own.save(BPE([(97, 97, 256), (256, 97, 257)], "gpt2", name="mine"), path)  # changed on disk
    with qtbot.waitSignal(session.tokenizer_changed, timeout=30_000):
        assert session.load_tokenizer(str(path)) is not None
    assert session.tokenizer.vocab_size == 258
