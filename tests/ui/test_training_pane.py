"""The Training pane driven like a user: train, step, pause, play, cancel; merges equal the core's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from explorer.core.algorithms.train import Merge, train
from explorer.core.corpora.corpus_sources import Corpus, Source, sample_sources
from explorer.ui.training import create_pane
from explorer.ui.training.model import COUNT, LEFT, NEW, RANK, RIGHT, MergeRole, MergesModel
from explorer.ui.training.pane import TrainingPane
from explorer.ui.training.run import CANCELLED, FINISHED, PAUSED

SAMPLES = {Path(s.path).name: s for s in sample_sources()}
TIMEOUT = 30_000


@pytest.fixture
def pane(qtbot, session) -> TrainingPane:  # type: ignore[no-untyped-def]
    widget = create_pane(session)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    return widget


def use(session, *names: str, held_out: str | None = None) -> Corpus:  # type: ignore[no-untyped-def]
    corpus = Corpus(tuple(SAMPLES[n] for n in names), held_out=SAMPLES[held_out] if held_out else None)
    session.set_corpus(corpus)
    return corpus


def shown(model: MergesModel, row: int, column: int) -> str:
    return model.data(model.index(row, column))


def wait_ended(qtbot, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: pane.run is not None and pane.run.state in (FINISHED, CANCELLED), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: pane.tokenizer is not None, timeout=TIMEOUT)
    # (the result is shown a frame after the tokenizer is published: under load the test read the
    # Save button in between)
    qtbot.waitUntil(lambda: pane.tokenizer.name in pane.result_box.label.text(), timeout=TIMEOUT)


def test_train_to_the_end_shows_the_cores_merges(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    corpus = use(session, "english.txt", "garden_notebook.py", held_out="bakery_replies.txt")
    pane.form.set_vocab_size(700)
    pane.form.specials_edit.setText("<|endoftext|>")
    pane.form.name_edit.setText("garden")
    qtbot.mouseClick(pane.start_button, Qt.MouseButton.LeftButton)
    wait_ended(qtbot, pane)
    expected = list(train(corpus.reader(), 700, "cl100k", ["<|endoftext|>"]))
    assert pane.model.merges == expected
    assert pane.model.rowCount() == len(expected) == 443
    last = len(expected) - 1
    assert shown(pane.model, 0, RANK) == "1" and shown(pane.model, last, RANK) == f"{last + 1}"
    assert shown(pane.model, 0, NEW) == pane.model.data(pane.model.index(0, NEW)) != ""
    assert shown(pane.model, last, COUNT) == f"{expected[-1].count:,}"
    assert pane.model.data(pane.model.index(last, 0), Qt.ItemDataRole.BackgroundRole) is not None  # newest
    assert pane.model.data(pane.model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert "merge 443 of 443" in pane.status.text() and "garden" in pane.status.text()
    assert session.tokenizer is pane.tokenizer and "garden" in session.trained and "garden" in session.unsaved
    assert pane.tokenizer.vocab_size == 700 and pane.tokenizer.special_tokens == {"<|endoftext|>": 699}
    # The plots got one point per merge (plus the start), and the held-out curve ends where encoding says.
    assert pane.plots.train.size == pane.plots.held_out.size == 444
    bakery = "".join(Corpus((SAMPLES["bakery_replies.txt"],)).reader())
    held_out_bpt = len(bakery.encode()) / len(pane.tokenizer.encode(bakery))
    assert pane.plots.held_out.y[-1] == pytest.approx(held_out_bpt)


def test_visible_whitespace_in_the_table(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    use(session, "cat_mat.txt")
    pane.form.set_rules("hf")  # a toy sample opens with minbpe rules; these are Hugging Face's merges
    pane.form.set_pattern("gpt2")
    pane.form.set_vocab_size(262)
    pane.start()
    wait_ended(qtbot, pane)
    assert [shown(pane.model, r, NEW) for r in range(6)] == ["at", "he", "the", "·the", "cat", "·cat"]
    assert (shown(pane.model, 3, LEFT), shown(pane.model, 3, RIGHT)) == ("·", "the")


def test_step_pause_play_and_cancel_drive_the_real_trainer(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    corpus = use(session, "english.txt")
    pane.form.set_vocab_size(2000)
    qtbot.mouseClick(pane.step_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.model.rowCount() == 1, timeout=TIMEOUT)
    qtbot.wait(300)
    assert pane.model.rowCount() == 1 and pane.run.state == PAUSED
    expected = list(train(corpus.reader(), 2000, "cl100k"))
    assert "merge 1 of 1,744" in pane.status.text() and "paused" in pane.status.text()
    assert f"(seen {expected[0].count:,} times)" in pane.status.text()
    for _ in range(3):
        qtbot.mouseClick(pane.step_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.model.rowCount() == 4)
    assert pane.model.merges == expected[:4]
    pane.speed.setValue(20)
    qtbot.mouseClick(pane.play_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.model.rowCount() >= 10, timeout=TIMEOUT)
    qtbot.mouseClick(pane.pause_button, Qt.MouseButton.LeftButton)
    qtbot.wait(400)
    paused_at = pane.model.rowCount()
    qtbot.wait(400)
    assert pane.model.rowCount() == paused_at < 40  # paced at 20/s: nowhere near done
    assert pane.start_button.text() == "Continue"
    qtbot.mouseClick(pane.cancel_button, Qt.MouseButton.LeftButton)
    wait_ended(qtbot, pane)
    assert pane.run.state == CANCELLED
    assert pane.model.merges == expected[:paused_at]
    assert len(pane.tokenizer.merges) == paused_at  # kept what was learned
    assert f"Cancelled at {paused_at} merges" in pane.status.text()
    assert pane.tokenizer.name in session.trained


def test_bad_settings_are_refused_with_a_message(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    errors = []
    session.error_posted.connect(lambda title, message: errors.append(message))
    pane.form.set_vocab_size(1000)
    assert not pane.start()
    assert "corpus is empty" in errors[-1] and pane.run is None
    use(session, "english.txt")
    pane.form.specials_edit.setText("<|a|> <|b|>")
    pane.form.set_vocab_size(257)
    assert not pane.start()
    assert "at least 258" in errors[-1] and "at least 258" in pane.status.text()
    pane.form.set_vocab_size(300)
    pane.form.set_pattern("(unclosed")
    assert "position" in pane.form.pattern_error.text()
    assert not pane.start() and "invalid pattern" in errors[-1]


def test_pattern_error_shows_the_position(qtbot, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    pane.form.set_pattern(r"\p{L}+|[a-")
    text = pane.form.pattern_error.text()
    assert "✗" in text and "at position" in text
    pane.form.pattern_edit.setText(r"\p{L}+|\s+")
    assert "✓ valid pattern" in pane.form.pattern_error.text()
    assert pane.form.pattern() == r"\p{L}+|\s+"


def test_a_mistyped_pattern_name_is_refused_as_on_the_command_line(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    errors = []
    session.error_posted.connect(lambda title, message: errors.append(message))
    use(session, "english.txt")
    pane.form.set_pattern("GPT2")
    assert "✗" in pane.form.pattern_error.text() and "did you mean gpt2?" in pane.form.pattern_error.text()
    assert not pane.start() and "not a pattern name" in errors[-1]
    pane.form.pattern_edit.setText("regex:gpt2")
    assert "✓ valid pattern" in pane.form.pattern_error.text()


def test_save_and_export(qtbot, session, pane: TrainingPane, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    use(session, "bakery_replies.txt")
    pane.form.set_pattern("none")
    pane.form.set_vocab_size(286)
    pane.form.name_edit.setText("bakery")
    pane.start()
    wait_ended(qtbot, pane)
    assert pane.result_box.save_button.isEnabled() and pane.result_box.export_button.isEnabled()
    with qtbot.waitSignal(pane.result_box.save(str(tmp_path / "bakery.json")).finished):  # written on a worker
        pass
    assert "bakery" not in session.unsaved
    document = json.loads((tmp_path / "bakery.json").read_text())
    assert document["name"] == "bakery" and len(document["merges"]) == 30
    with qtbot.waitSignal(pane.result_box.export_hf(str(tmp_path / "tokenizer.json")).finished):
        pass
    with qtbot.waitSignal(session.error_posted) as failed:
        pane.result_box.save(str(tmp_path / "no-folder" / "bakery.json"))
    assert failed.args[1] == f"{tmp_path / 'no-folder' / 'bakery.json'}: No such file or directory"  # not the temporary file
    from tokenizers import Tokenizer

    hf = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    text = "Your eggless cake is out for delivery."
    assert hf.encode(text).ids == pane.tokenizer.encode(text)
    assert "saved" in pane.result_box.label.text()


def test_hf_engine_shows_the_same_merges_when_done(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    corpus = use(session, "english.txt", "hindi.txt")
    pane.form.set_vocab_size(800)
    pane.form.engine_combo.setCurrentIndex(pane.form.engine_combo.findData("hf"))
    assert not pane.step_button.isEnabled() and not pane.play_button.isEnabled()
    pane.start()
    wait_ended(qtbot, pane)
    built_in = list(train(corpus.reader(), 800, "cl100k"))
    assert [m.token for m in pane.model.merges] == [m.token for m in built_in]
    assert shown(pane.model, 0, COUNT) == f"{built_in[0].count:,}"  # measured after training
    assert pane.model.merges[-1].total_tokens == built_in[-1].total_tokens
    assert "Hugging Face" in pane.model.headerData(COUNT, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)


def test_names_are_unique_and_the_model_passes_the_tester(qtbot, qtmodeltester, session, pane) -> None:  # type: ignore[no-untyped-def]
    use(session, "aaabdaaabac.txt")
    pane.form.set_pattern("none")
    pane.form.set_vocab_size(259)
    assert pane.form.name_edit.placeholderText() == "aaabdaaabac-none-259"  # follows the settings
    for _ in range(2):
        pane.start()
        wait_ended(qtbot, pane)
    assert sorted(session.trained) == ["aaabdaaabac-none-259", "aaabdaaabac-none-259-2"]
    assert [m.token for m in pane.model.merges] == [b"aa", b"aaa", b"aaab"]  # a toy sample: minbpe rules, seed 001
    assert pane.model.data(pane.model.index(2, 0), MergeRole).total_tokens == 5
    qtmodeltester.check(pane.model)


def test_model_stays_fast_at_100k_rows(qtbot, qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    import time

    model = MergesModel()
    batch = [Merge(i, 97, 98, 256 + i, b"ab", 1000 - i % 1000, 10**6 - i) for i in range(100_000)]
    start = time.perf_counter()
    for i in range(0, len(batch), 2000):
        model.append(batch[i:i + 2000])
    assert time.perf_counter() - start < 1.0
    assert model.rowCount() == 100_000 and model.data(model.index(99_999, NEW)) == "ab"
    qtmodeltester.check(model)


def test_the_models_vocabulary_follows_merges_in_order_or_not() -> None:
    """New ids in order (every trainer's) are taken in one step; ids out of order or with gaps
    (special tokens set aside, a replayed file) one by one; either way each id shows its token."""
    model = MergesModel()
    model.append([Merge(0, 97, 98, 256, b"ab", 9, 90), Merge(1, 256, 99, 257, b"abc", 8, 80)])
    model.append([Merge(2, 97, 97, 260, b"aa", 7, 70), Merge(3, 257, 257, 258, b"abcabc", 6, 60)])
    model.append([Merge(4, 98, 98, 261, b"bb", 5, 50)])
    assert model.vocab[256:] == [b"ab", b"abc", b"abcabc", b"", b"aa", b"bb"]
    assert [shown(model, row, NEW) for row in range(5)] == ["ab", "abc", "aa", "abcabc", "bb"]


def test_pasted_source_trains(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    session.set_corpus(Corpus((Source.pasted("low lower lowest " * 20),)))
    pane.form.set_vocab_size(260)
    pane.start()
    wait_ended(qtbot, pane)
    assert pane.model.rowCount() == 4



def press(pane: TrainingPane, keys: str) -> None:
    """Activate the pane's shortcut for `keys` (offscreen windows get no real key focus)."""
    from PySide6.QtGui import QShortcut

    (shortcut,) = [s for s in pane.findChildren(QShortcut) if s.key().toString() == keys]
    assert shortcut.context() == Qt.ShortcutContext.WidgetWithChildrenShortcut  # only while this pane shows
    shortcut.activated.emit()


def test_f9_steps_and_f8_plays_and_pauses(qtbot, session, pane: TrainingPane) -> None:  # type: ignore[no-untyped-def]
    use(session, "english.txt")
    pane.form.set_vocab_size(2000)
    press(pane, "F9")
    qtbot.waitUntil(lambda: pane.model.rowCount() == 1, timeout=TIMEOUT)
    qtbot.wait(300)
    assert pane.model.rowCount() == 1 and pane.run.state == PAUSED
    pane.speed.setValue(20)
    press(pane, "F8")
    qtbot.waitUntil(lambda: pane.model.rowCount() >= 5, timeout=TIMEOUT)
    press(pane, "F8")
    qtbot.waitUntil(lambda: pane.run.state == PAUSED, timeout=TIMEOUT)
    pane.run.cancel()
    wait_ended(qtbot, pane)


def test_hf_engine_shows_time_left_and_cancels_within_a_second(qtbot, session, pane, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """While HF reads a corpus the bar gives the time left for the whole run; Cancel ends the
    child (inside HF's one long call) and leaves the pane idle within a second."""
    import time

    from tests.corpora import corpus_lines

    path = tmp_path / "multi.txt"
    path.write_text("".join(corpus_lines("multi", 400_000, seed=9)) * 40, encoding="utf-8")  # 16 MB
    session.set_corpus(Corpus((Source.for_path(path),)))
    pane.form.set_vocab_size(20_000)
    pane.form.engine_combo.setCurrentIndex(pane.form.engine_combo.findData("hf"))
    pane.start()
    qtbot.waitUntil(lambda: pane.run.seconds_left is not None and pane.run.counting.bytes_read > 0, timeout=TIMEOUT)
    pane._update_status()
    assert " left" in pane.progress.format() and 0 < pane.progress.value() < pane.progress.maximum()
    assert 0 < pane.run.fraction_done < 1
    process = pane.run.job._process
    clicked = time.monotonic()
    qtbot.mouseClick(pane.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.run.state == CANCELLED and pane.start_button.isEnabled() and not process.is_alive(),
                    timeout=5000)
    assert time.monotonic() - clicked < 1.0
    assert pane.progress.format().startswith("cancelled before the first merge")


def test_cancel_while_counting_on_several_cores_ends_the_helpers(qtbot, session, pane, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The built-in engine counts a big corpus of plain files in helper processes too (issue 16):
    Cancel ends them with the run, and the run's process leaves none behind."""
    from explorer.core.algorithms.parallel_count import processes_available
    from tests.corpora import corpus_lines

    if processes_available() < 2 or not Path("/proc/self/task").exists():
        pytest.skip("counts in helpers on a machine with two CPUs or more; lists processes in /proc")
    path = tmp_path / "prose.txt"
    path.write_text("".join(corpus_lines("prose", 400_000, seed=9)) * 40, encoding="utf-8")  # 16 MB
    session.set_corpus(Corpus((Source.for_path(path),)))
    pane.form.set_vocab_size(20_000)
    pane.start()
    qtbot.waitUntil(lambda: pane.run.counting is not None and pane.run.counting.bytes_read > 0, timeout=TIMEOUT)
    process = pane.run.job._process
    helpers = [int(pid) for task in Path(f"/proc/{process.pid}/task").iterdir()
               for pid in (task / "children").read_text().split()]
    assert helpers
    qtbot.mouseClick(pane.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.run.state == CANCELLED and not process.is_alive()
                    and not any(map(_running, helpers)), timeout=5000)
    assert pane.progress.format().startswith("cancelled before the first merge")


def _running(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
