"""The screenshot command's sweep options (presentation mode, compare lanes, a corpus, the window,
menus, the tour) and what the sweep of issue 12 found wrong in the Corpus pane."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.core.corpora.corpus_sources import Source
from explorer.core.errors import ExplorerError
from explorer.ui.corpus import create_pane
from explorer.ui.corpus.models import NAME, SCRIPTS
from explorer.ui.screenshot import Shooter, Shot, parse_size
from explorer.ui.session import Session
from explorer.ui.theme import PRESENTATION_POINT_SIZE

TIMEOUT = 30_000
TEXTS = {"english": "The garden grows slowly in spring. " * 40,
         "hindi": "बगीचा वसंत में धीरे धीरे बढ़ता है। " * 40,
         "thai": "สวนเติบโตอย่างช้าๆ ในฤดูใบไม้ผลิ " * 40,
         "emoji": "Party 🎉 wave 👋🏽 family 👨‍👩‍👧 " * 40}


def corpus_files(folder: Path) -> list[str]:
    paths = []
    for name, text in TEXTS.items():
        path = folder / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.fixture
def shooter(qapp: object) -> Shooter:
    return Shooter()


def headline_height(shooter: Shooter, out: Path, presentation: bool) -> int:
    """Render the Tokens pane; the pixel height of the font of its counts line, whose headline
    figure ('2 tokens') is x-large in that font."""
    heights: list[int] = []
    picture = shooter._picture

    def spy(session: object, shot: Shot, widget: object, pane: object) -> object:
        image = picture(session, shot, widget, pane)  # type: ignore[arg-type]
        heights.append(pane.lanes[0].counts.fontMetrics().height())  # type: ignore[attr-defined]
        return image

    shooter._picture = spy  # type: ignore[method-assign]
    shooter.render(Shot("tokens", str(out), "r50k_base", "hello world", (1280, 800), presentation=presentation))
    return heights[0]


def test_presentation_makes_the_picture_the_size_asked_and_the_headline_bigger(shooter: Shooter,
                                                                               tmp_path: Path) -> None:
    normal = headline_height(shooter, tmp_path / "normal.png", presentation=False)
    large = headline_height(shooter, tmp_path / "large.png", presentation=True)
    assert large >= normal * 1.5
    for name in ("normal.png", "large.png"):
        image = QImage(str(tmp_path / name))
        assert (image.width(), image.height()) == (1280, 800)
    assert QImage(str(tmp_path / "normal.png")) != QImage(str(tmp_path / "large.png"))


def test_one_shooter_renders_the_window_a_menu_and_the_tour(shooter: Shooter, tmp_path: Path) -> None:
    for name, options in (("window", {"window": True}), ("menu", {"menu": "View"}), ("tour", {"tour": True})):
        out = tmp_path / f"{name}.png"
        shooter.render(Shot("tokens", str(out), size=(1280, 800), theme="dark", **options))  # type: ignore[arg-type]
        image = QImage(str(out))
        assert (image.width(), image.height()) == (1280, 800)
    # The menu is drawn open over the window: the pictures differ under the menu bar.
    window, menu = QImage(str(tmp_path / "window.png")), QImage(str(tmp_path / "menu.png"))
    assert any(window.pixel(x, y) != menu.pixel(x, y) for x in range(40, 200, 7) for y in range(40, 120, 7))


def test_compare_lanes_and_a_corpus(shooter: Shooter, tmp_path: Path) -> None:
    shooter.render(Shot("tokens", str(tmp_path / "c.png"), "o200k_base", "नमस्ते", compare=("r50k_base",)))
    shooter.render(Shot("corpus", str(tmp_path / "corpus.png"), corpus=tuple(corpus_files(tmp_path))))
    assert QImage(str(tmp_path / "c.png")).width() == 1200
    with pytest.raises(ExplorerError, match="tokens pane"):
        shooter.render(Shot("chunks", str(tmp_path / "x.png"), compare=("r50k_base",)))
    with pytest.raises(ExplorerError, match="corpus"):
        shooter.render(Shot("tokens", str(tmp_path / "x.png"), view="efficiency"))


def test_a_corpus_of_records_is_read_from_its_text_field_without_asking(shooter: Shooter, tmp_path: Path) -> None:
    """`screenshot --pane corpus --corpus data.jsonl` waited for ever on the dialog that asks for
    the text field; the Training pane's shot read the file with no field, so no text at all."""
    import json

    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps({"id": n, "text": text}) + "\n" for n, text in enumerate(TEXTS.values())),
                    encoding="utf-8")
    seen: list[object] = []
    picture = shooter._picture

    def spy(session: Session, shot: Shot, widget: object, pane: object) -> object:
        image = picture(session, shot, widget, pane)
        seen.append(pane.sources if shot.pane == "corpus" else session.corpus.sources)  # type: ignore[attr-defined]
        return image

    shooter._picture = spy  # type: ignore[method-assign]
    for pane in ("corpus", "training"):
        shooter.render(Shot(pane, str(tmp_path / f"{pane}.png"), corpus=(str(path),)))
        assert QImage(str(tmp_path / f"{pane}.png")).width() == 1200
    assert [[(source.kind, source.field) for source in sources] for sources in seen] == [[("jsonl", "text")]] * 2

    path.write_text(json.dumps({"id": 1}) + "\n", encoding="utf-8")
    with pytest.raises(ExplorerError, match="no field with text"):
        shooter.render(Shot("corpus", str(tmp_path / "none.png"), corpus=(str(path),)))


def test_the_command_line_takes_the_new_flags(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-m", "explorer", "screenshot", "--pane", "tokens", "--out", str(out),
                             "--text", "hello", "--tokenizer", "r50k_base", "--size", "1280x800", "--presentation",
                             "--compare", "cl100k_base", "--view", "findings", "--theme", "dark"],
                            capture_output=True, text=True, env=env, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert QImage(str(out)).width() == 1280  # (its height: three lanes at 20 pt ask for 819 px, see the report)


# What the sweep found in the Corpus pane


@pytest.fixture
def corpus_pane(qtbot: QtBot, session: Session, tmp_path: Path) -> object:
    pane = create_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1280, 800)
    pane.show()
    pane.add_sources([Source.for_path(path) for path in corpus_files(tmp_path)])
    qtbot.waitUntil(lambda: not pane.model.scanning, timeout=TIMEOUT)
    return pane


def test_the_sources_table_follows_the_ui_font_not_the_text_font(session: Session, corpus_pane: object) -> None:
    """Presentation mode gave the table the editor's monospaced 20 pt font: rows larger than their
    headers, and the Scripts cells elided."""
    session.set_point_size(PRESENTATION_POINT_SIZE, remember=False)
    table = corpus_pane.table  # type: ignore[attr-defined]
    assert table.font().family() == QApplication.font().family()
    assert table.font().pointSizeF() == QApplication.font().pointSizeF()


@pytest.mark.parametrize("presentation", [False, True])
def test_the_scripts_column_gets_the_room_the_names_leave(qtbot: QtBot, session: Session, corpus_pane: object,
                                                          presentation: bool) -> None:
    """Source and Scripts both stretched, so short names kept half the spare width while the
    Scripts cells were elided."""
    if presentation:
        session.set_point_size(PRESENTATION_POINT_SIZE, remember=False)
        qtbot.wait(50)
    table = corpus_pane.table  # type: ignore[attr-defined]
    header = table.horizontalHeader()
    assert table.sizeHintForColumn(NAME) <= header.sectionSize(NAME) <= table.viewport().width() // 3 + 1
    model = table.model()
    delegate = table.itemDelegateForColumn(SCRIPTS)
    widest_row = max(delegate.sizeHint(_option(table), model.index(row, SCRIPTS)).width()
                     for row in range(model.rowCount() - 1))
    assert header.sectionSize(SCRIPTS) >= widest_row  # every source's scripts in full (the Total may elide)
    assert header.length() <= table.viewport().width()  # and no sideways scrolling


def _option(table: object) -> object:
    from PySide6.QtWidgets import QStyleOptionViewItem

    option = QStyleOptionViewItem()
    option.initFrom(table)  # type: ignore[arg-type]
    option.font = table.font()  # type: ignore[attr-defined]
    return option


# What the sweep found in the Tokens compare view


def test_compared_lanes_never_widen_the_pane_in_presentation_mode(shooter: Shooter, tmp_path: Path) -> None:
    """A compared lane's figures ('... 8.07 tokens/word · +352.0% tokens vs o200k_base') were one
    label that would not wrap: at 20 pt it asked for 1,307 px and the pane grew past 1280."""
    out = tmp_path / "compare.png"
    shooter.render(Shot("tokens", str(out), "o200k_base", "नमस्ते दुनिया! आज मौसम बहुत अच्छा है। मावा केक शनिवार के लिए",
                        (1280, 800), presentation=True, compare=("r50k_base", "cl100k_base")))
    assert QImage(str(out)).width() == 1280  # (its height: three lanes at 20 pt ask for 819 px, see the report)


# What the sweep found in the Tokens pane's findings


@pytest.fixture
def tokens_pane(qtbot: QtBot, session: Session) -> object:
    from explorer.core.algorithms.train import train
    from explorer.core.formats.own import from_merges
    from explorer.ui.tokens import create_pane as create_tokens_pane

    small = from_merges(list(train([TEXTS["english"], TEXTS["hindi"]], 300, "cl100k", ["<|endoftext|>"])), "cl100k",
                        ["<|endoftext|>"], name="small")
    session.set_tokenizer(small, "trained:small")
    pane = create_tokens_pane(session)
    qtbot.addWidget(pane)
    pane.resize(1280, 800)
    pane.show()
    with qtbot.waitSignal(pane.findings_panel.looked, timeout=TIMEOUT):
        pane.set_text("The garden <|endoftext|> grows 1234567 and grows, Garden garden. ")
    return pane


def test_presentation_mode_gives_the_findings_their_new_height(shooter: Shooter, tmp_path: Path) -> None:
    """The lanes/findings share was measured once, at the normal size: after F5 the findings kept
    that room in pixels and showed two and a half rows at 20 pt, below an empty token lane, and
    the token details scrolled."""
    seen: dict[str, int] = {}
    picture = shooter._picture

    def spy(session: object, shot: Shot, widget: object, pane: object) -> object:
        image = picture(session, shot, widget, pane)  # type: ignore[arg-type]
        panel, details = pane.findings_panel, pane.details  # type: ignore[attr-defined]
        seen["bottom"] = pane.splitter.sizes()[2]  # type: ignore[attr-defined]
        seen["findings"] = panel.wanted_height(min(panel.model.rowCount(), 3))
        seen["rows"] = panel.model.rowCount()
        seen["details"] = int(details.document().size().height()) + 2 * details.frameWidth()
        return image

    shooter._picture = spy  # type: ignore[method-assign]
    text = "Hello नमस्ते 👋🏽\ndef f(x):\n    return x ** 2  # 1234567 <|endoftext|> "
    shooter.render(Shot("tokens", str(tmp_path / "f.png"), "o200k_base", text, (1280, 800), presentation=True))
    assert seen["rows"] >= 3
    assert seen["bottom"] >= seen["findings"]
    # The details were measured before the merge forest added their last rows: near, not exact.
    assert seen["bottom"] >= seen["details"] * 0.9


def test_finding_kinds_are_never_cut(qtbot: QtBot, session: Session, tokens_pane: object) -> None:
    """Kind had a fixed 170 px: 'Special-token string' showed as 'Special-token ...' at 20 pt."""
    table = tokens_pane.findings_panel.table  # type: ignore[attr-defined]
    for size in (None, PRESENTATION_POINT_SIZE, 11):  # as the findings arrive, then after zooms
        if size is not None:
            session.set_point_size(size, remember=False)
        qtbot.wait(50)  # (the header sizes its sections in the next pass of the event loop)
        for column in (0, 1):
            assert table.columnWidth(column) >= table.sizeHintForColumn(column)


# What the sweep found in the Merges pane


def test_the_token_title_keeps_a_line_of_its_own_in_presentation_mode(shooter: Shooter, tmp_path: Path) -> None:
    """Beside the seven tree buttons the title kept ~30 px at 20 pt: 'こんにちは' stood one letter per
    line and the pane grew to 1055 px high."""
    seen: dict[str, int] = {}
    picture = shooter._picture

    def spy(session: object, shot: Shot, widget: object, pane: object) -> object:
        image = picture(session, shot, widget, pane)  # type: ignore[arg-type]
        title = pane.token_panel.title_label  # type: ignore[attr-defined]
        seen["height"], seen["line"] = title.height(), title.fontMetrics().height()
        return image

    shooter._picture = spy  # type: ignore[method-assign]
    shooter.render(Shot("merges", str(tmp_path / "m.png"), "o200k_base", "こんにちは世界。", (1280, 800),
                        presentation=True))
    assert seen["height"] <= 3 * seen["line"]  # one line of a large-font title, not five


# What the sweep found in the Chunks pane


def test_chunks_show_the_plain_reading_of_a_special_token_string(shooter: Shooter, tmp_path: Path) -> None:
    """In 'disallowed' mode a text with '<|endoftext|>' got no tokens, and the error in their place
    (with '<|endoftext|>' eaten as a tag) widened the pane to 1,651 px at 1280."""
    seen: dict[str, object] = {}
    picture = shooter._picture

    def spy(session: object, shot: Shot, widget: object, pane: object) -> object:
        image = picture(session, shot, widget, pane)  # type: ignore[arg-type]
        seen["tokens"], seen["summary"] = pane.tokens, pane.summary.text()  # type: ignore[attr-defined]
        return image

    shooter._picture = spy  # type: ignore[method-assign]
    out = tmp_path / "chunks.png"
    shooter.render(Shot("chunks", str(out), "o200k_base", "Hello नमस्ते  # 1234567 <|endoftext|> ", (1280, 800),
                        presentation=True))
    assert seen["tokens"] is not None
    assert "Tokens:" not in str(seen["summary"])
    assert QImage(str(out)).width() == 1280


# What the sweep found in the tour


def test_the_tour_card_shows_its_whole_text_in_presentation_mode(shooter: Shooter, tmp_path: Path) -> None:
    """A 420-460 px body at 20 pt wrapped to more lines than the card was tall: cut mid-sentence."""
    seen: dict[str, int] = {}
    picture = shooter._picture

    def spy(session: object, shot: Shot, widget: object, pane: object) -> object:
        image = picture(session, shot, widget, pane)  # type: ignore[arg-type]
        from explorer.ui.tour import Tour

        body = widget.findChild(Tour).body  # type: ignore[attr-defined]
        seen["height"], seen["needed"] = body.height(), body.heightForWidth(body.width())
        return image

    shooter._picture = spy  # type: ignore[method-assign]
    shooter.render(Shot("bytes", str(tmp_path / "tour.png"), size=(1280, 800), presentation=True, tour=True))
    assert seen["height"] >= seen["needed"]


def test_a_window_shot_of_a_training_run_closes_without_asking_to_save(shooter: Shooter, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The run the shot trains is unsaved; the window's close asked to save it, in a modal box
    that no one answers, and `screenshot --window --pane training --corpus ...` never ended."""
    from explorer.ui.main_window import MainWindow

    asked: list[bool] = []
    monkeypatch.setattr(MainWindow, "_ask_about_unsaved", lambda window: asked.append(True) or True)
    trained: list[set[str]] = []
    picture = shooter._picture

    def spy(session: Session, shot: Shot, widget: object, pane: object) -> object:
        image = picture(session, shot, widget, pane)  # type: ignore[arg-type]
        trained.append(set(session.unsaved))
        return image

    shooter._picture = spy  # type: ignore[method-assign]
    out = tmp_path / "training.png"
    shooter.render(Shot("training", str(out), size=(1280, 800), corpus=tuple(corpus_files(tmp_path)), window=True))
    assert trained and trained[0], "the shot trained nothing: the test would prove nothing"
    assert not asked
    assert QImage(str(out)).width() == 1280


def test_an_alias_is_shot_by_the_name_the_pickers_list(shooter: Shooter, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`--tokenizer gpt2 --compare gpt2` showed "gpt2" in the main picker and GPT-4o, the first
    entry, in the lane's: neither picker lists the alias."""
    built: list[tuple[str, tuple[str, ...]]] = []
    build = shooter._build

    def recording(session: Session, shot: Shot) -> object:
        built.append((session.tokenizer_spec, shot.compare))
        return build(session, shot)

    monkeypatch.setattr(shooter, "_build", recording)
    shooter.render(Shot("tokens", str(tmp_path / "alias.png"), "gpt2", "hello", compare=("gpt2",)))
    assert built == [("r50k_base", ("r50k_base",))]


@pytest.mark.parametrize("size", ["١٢٠٠x٨٠٠", "1_200x800", " 1200x800", "1200x800x600", "x800", "1200X", "+1200x800"])
def test_a_size_is_digits_0_to_9_on_both_sides_of_an_x(size: str) -> None:
    with pytest.raises(ExplorerError, match="WIDTHxHEIGHT"):
        parse_size(size)


def test_a_size_in_range_is_read_either_case() -> None:
    assert parse_size("1280x800") == (1280, 800)
    assert parse_size("1920X1080") == (1920, 1080)
    with pytest.raises(ExplorerError, match="between 200x150 and 8000x8000"):
        parse_size("100x800")
