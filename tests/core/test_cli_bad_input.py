"""Bad input on the command line, as a hostile user gives it: each case must end in one clear
line on stderr and a non-zero exit (or success with a warning), never a traceback or a hang,
and must leave every input and every existing output file as it was.

Every command runs as a subprocess with a timeout, so a hang fails instead of blocking.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from explorer.core.formats import own

PROG = "tokenizer-explorer"
TIMEOUT = 60


def run(*args: str | bytes, stdin: bytes | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "explorer", *args], input=stdin or b"", capture_output=True,
                            timeout=TIMEOUT, env=env or dict(os.environ), cwd=cwd)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode("utf-8", "replace"),
                                       result.stderr.decode("utf-8", "replace"))


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a refusal prints, after checking it is one line and no traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def snapshot(*paths: Path) -> dict[Path, tuple[int, int, bytes]]:
    """Size, modification time and (for files under 1 MB) the bytes: the sparse 1 GB files stay unread."""
    return {path: (path.stat().st_size, path.stat().st_mtime_ns,
                   path.read_bytes() if path.stat().st_size < 1 << 20 else b"") for path in paths}


def words_corpus(path: Path, words: int, seed: int = 13) -> Path:
    """Seeded random words: many distinct chunks, so merges go on for a while."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(4, 12))) for _ in range(words)]
    path.write_text("".join(" ".join(vocabulary[i:i + 12]) + "\n" for i in range(0, words, 12)) * 2,
                    encoding="utf-8")
    return path


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("the quick brown fox jumps over the lazy dog\n" * 200, encoding="utf-8")
    return path


@pytest.fixture()
def existing(tmp_path: Path) -> Path:
    """An output file that is already there and must survive a refusal."""
    path = tmp_path / "existing.json"
    path.write_text('{"keep": "me"}', encoding="utf-8")
    return path


def refused(args: tuple[str | bytes, ...], message: str, untouched: list[Path], **kwargs: object) -> str:
    before = snapshot(*untouched)
    result = run(*args, **kwargs)  # type: ignore[arg-type]
    line = one_line(result)
    assert result.returncode != 0
    assert message in line, line
    assert snapshot(*untouched) == before
    return line


# --out: checked before any work


@pytest.mark.parametrize("command", ["train", "export"])
def test_out_that_is_a_folder_or_in_a_missing_folder(tmp_path: Path, corpus: Path, command: str) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    for out, message in [(folder, "is a folder"), (tmp_path / "missing" / "tok.json", "does not exist"),
                         (Path("/dev/null"), "not a regular file")]:
        args = (("train", "--vocab-size", "300", "--out", str(out), str(corpus)) if command == "train" else
                ("export", "--tokenizer", "gpt2", "--format", "hf", "--out", str(out)))
        started = time.monotonic()
        refused(args, message, [corpus])
        assert time.monotonic() - started < 30
    assert list(folder.iterdir()) == [] and not (tmp_path / "missing").exists()


def test_out_in_a_folder_that_cannot_be_written(tmp_path: Path, corpus: Path) -> None:
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
    elif Path("/sys").is_dir():
        folder = Path("/sys")  # root may write anywhere except on a file system that refuses everyone
    else:
        pytest.skip("running as root without /sys: no folder here refuses a write")
    refused(("train", "--vocab-size", "300", "--out", str(folder / "tok.json"), str(corpus)), "cannot write",
            [corpus])


def test_out_that_is_an_input(tmp_path: Path, corpus: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to(corpus)
    folder = tmp_path / "texts"
    folder.mkdir()
    inside = folder / "a.txt"
    inside.write_text("hello there\n", encoding="utf-8")
    for out, inputs in [(corpus, [corpus]), (link, [corpus]), (corpus, [link]), (inside, [folder])]:
        refused(("train", "--vocab-size", "300", "--out", str(out), *map(str, inputs)), "is also an input",
                [corpus, inside])
    tokenizer = tmp_path / "tok.json"
    assert run("train", "--vocab-size", "260", "--out", str(tokenizer), str(corpus)).returncode == 0
    refused(("export", "--tokenizer", str(tokenizer), "--format", "hf", "--out", str(tokenizer)), "is also an input",
            [tokenizer])


def test_out_with_a_name_that_is_not_utf8(tmp_path: Path, corpus: Path) -> None:
    out = os.fsencode(tmp_path) + b"/tok\xff.json"
    result = run("train", "--vocab-size", "270", "--out", out, str(corpus))
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert own.load(os.fsdecode(out)).name == "tok\ufffd"


def test_out_worth_more_than_the_run_is_refused_before_training(tmp_path: Path, corpus: Path) -> None:
    bigger = tmp_path / "big.json"
    assert run("train", "--vocab-size", "300", "--out", str(bigger), str(corpus)).returncode == 0
    learned = len(own.load(bigger).merges)
    notes = tmp_path / "notes.json"
    notes.write_text('{"my": "notes"}', encoding="utf-8")
    refused(("train", "--vocab-size", "270", "--out", str(bigger), str(corpus)),
            f"holds {learned:,} merges, more than the 14 this run can learn", [bigger])
    refused(("train", "--vocab-size", "270", "--out", str(notes), str(corpus)), "is not a tokenizer saved by",
            [notes])
    again = run("train", "--vocab-size", "300", "--out", str(bigger), str(corpus))  # as many merges: replaced
    assert again.returncode == 0 and f"saved {bigger}" in again.stderr, again.stderr
    empty = tmp_path / "empty.json"
    empty.touch()
    assert run("train", "--vocab-size", "270", "--out", str(empty), str(corpus)).returncode == 0
    assert len(own.load(empty).merges) == 14


def test_a_run_that_learns_fewer_than_the_out_file_saves_beside_it(tmp_path: Path, corpus: Path) -> None:
    out = tmp_path / "tok.json"
    assert run("train", "--vocab-size", "2000", "--out", str(out), str(words_corpus(tmp_path / "w.txt", 600))
               ).returncode == 0
    before = snapshot(out)
    kept = len(own.load(out).merges)
    result = run("train", "--vocab-size", "2000", "--out", str(out), str(corpus))  # runs out of pairs sooner
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert snapshot(out) == before
    beside = tmp_path / "tok-2.json"
    assert f"kept {out} ({kept:,} merges)" in result.stderr and f"saved to {beside}" in result.stderr
    assert 0 < len(own.load(beside).merges) < kept


# Ctrl-C, and a save that fails after training


def _train_until_merging(args: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-m", "explorer", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=cwd)
    assert process.stderr is not None
    seen = b""
    deadline = time.monotonic() + TIMEOUT
    while b"merge " not in seen:  # the progress bar has moved on from counting to merging
        chunk = os.read(process.stderr.fileno(), 4096)
        if not chunk or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"training never reached the merges: {seen[-500:]!r}")
        seen += chunk
    return process


def _finish(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    return process.returncode, err.decode("utf-8", "replace")


def test_ctrl_c_keeps_an_existing_out_with_more_merges(tmp_path: Path) -> None:
    corpus = words_corpus(tmp_path / "words.txt", 60_000)
    out = tmp_path / "tok.json"
    assert run("train", "--vocab-size", "20000", "--out", str(out), str(corpus)).returncode == 0
    before = snapshot(out)
    kept = len(own.load(out).merges)
    process = _train_until_merging(["train", "--vocab-size", "400000", "--out", str(out), str(corpus)], tmp_path)
    process.send_signal(signal.SIGINT)
    code, err = _finish(process)
    assert code != 0 and "Traceback" not in err, err
    assert snapshot(out) == before
    partial = tmp_path / "tok.partial.json"
    learned = len(own.load(partial).merges)
    assert 0 < learned < kept
    assert f"kept {out} ({kept:,} merges)" in err and str(partial) in err


def test_a_save_that_fails_after_training_is_saved_elsewhere(tmp_path: Path) -> None:
    corpus = words_corpus(tmp_path / "words.txt", 60_000)
    folder = tmp_path / "out"
    folder.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    process = _train_until_merging(["train", "--vocab-size", "400000", "--out", str(folder / "tok.json"),
                                    str(corpus)], work)
    folder.rmdir()  # the folder vanishes while training runs
    process.send_signal(signal.SIGINT)
    code, err = _finish(process)
    assert code != 0 and "Traceback" not in err, err
    rescued = work / "tok.json"
    assert f"saved to {rescued} instead" in err
    assert own.load(rescued).merges


# Files that are not text files


@pytest.mark.parametrize("command", ["encode", "train"])
def test_devices_fifos_and_binary_files(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sparse = tmp_path / "zeros.bin"
    with sparse.open("wb") as handle:
        os.truncate(handle.fileno(), 1 << 30)  # 1 GB of NUL bytes that take no room on disk
    late = tmp_path / "late.txt"
    late.write_bytes(b"plain text here\n" * 512)  # 8 KB of text, then NUL bytes to 1 GB
    os.truncate(late, 1 << 30)
    cases = [(fifo, "not a regular file"), (Path("/dev/null"), "not a regular file"),
             (Path("/dev/zero"), "not a regular file"), (Path("/dev/urandom"), "not a regular file"),
             (sparse, "NUL byte at byte 0"), (late, "NUL byte at byte 8,192")]
    for path, message in cases:
        args = (("encode", "--tokenizer", "o200k_base", "--file", str(path)) if command == "encode" else
                ("train", "--vocab-size", "300", "--out", str(tmp_path / "tok.json"), str(path)))
        started = time.monotonic()
        refused(args, message, [sparse, late])
        assert time.monotonic() - started < 30
    assert not (tmp_path / "tok.json").exists()


def test_a_fifo_or_device_as_tokenizer_file_is_refused_unread(tmp_path: Path) -> None:
    """Reading a tokenizer file whole waited for ever on a FIFO (no writer) and on /dev/zero."""
    fifo = tmp_path / "tok.json"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        started = time.monotonic()
        line = refused(("encode", "--tokenizer", str(path), "--text", "hi"), "not a regular file", [])
        assert "give a tokenizer file" in line
        assert time.monotonic() - started < 30


def test_a_line_too_long_to_be_a_line(tmp_path: Path) -> None:
    corpus = tmp_path / "one-line.txt"
    corpus.write_bytes(b"word " * (17 << 18))  # 17 MB without a line break
    refused(("train", "--vocab-size", "300", "--out", str(tmp_path / "tok.json"), str(corpus)),
            "line 1 (at byte 0) is longer than 16 MB", [corpus])


def test_invalid_utf8_in_text_and_stdin_for_every_tokenizer(tmp_path: Path, corpus: Path) -> None:
    tokenizer = tmp_path / "tok.json"
    assert run("train", "--vocab-size", "260", "--out", str(tokenizer), str(corpus)).returncode == 0
    for spec in ("o200k_base", str(tokenizer)):
        line = refused(("encode", "--tokenizer", spec, "--text", b"caf\xe9!"), "--text is not valid UTF-8", [])
        assert "byte 3" in line
        line = refused(("encode", "--tokenizer", spec), "stdin: not UTF-8 text (byte 3)", [], stdin=b"caf\xe9!")
        assert "iconv" in line


@pytest.mark.parametrize(("option", "value"), [("--pattern", b"\\w+|\xff"), ("--special", b"<|\xff|>"),
                                             ("--name", b"caf\xe9")])
def test_invalid_utf8_in_a_text_option_is_refused_before_training(tmp_path: Path, corpus: Path, option: str,
                                                                   value: bytes) -> None:
    """Such bytes reach Python as lone surrogates: the pattern or the special token trained, then failed
    to be saved with a traceback (the training lost)."""
    out = tmp_path / "tok.json"
    result = run("train", "--vocab-size", "300", option, value, "--out", str(out), str(corpus))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"argument {option}: is not valid UTF-8" in result.stderr.strip().splitlines()[-1]
    assert not out.exists() and "learned" not in result.stderr  # refused before any work
    result = run("chunks", "--pattern", b"a\xff", "--text", "hi")
    assert result.returncode == 2 and "argument --pattern: is not valid UTF-8 (byte 1)" in result.stderr


# Terminal behaviour and messages


def test_encode_says_it_reads_a_terminal(tmp_path: Path) -> None:
    primary, secondary = os.openpty()
    process = subprocess.Popen([sys.executable, "-m", "explorer", "encode", "--tokenizer", "o200k_base"],
                               stdin=secondary, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(secondary)
    try:
        assert process.stderr is not None
        seen = os.read(process.stderr.fileno(), 4096)  # blocks until it speaks: the timeout below ends a silence
        os.write(primary, b"hello world\n\x04")
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        process.kill()
        os.close(primary)
    assert b"reading the text from stdin" in seen and b"Ctrl-D" in seen
    assert out.split() == [b"24912", b"2375", b"198"] and process.returncode == 0  # the line ends in "\n"
    piped = run("encode", "--tokenizer", "o200k_base", stdin=b"hello world")
    assert piped.stderr == "" and piped.stdout.split() == ["24912", "2375"]


@pytest.fixture(autouse=True)
def _no_hang(request: pytest.FixtureRequest) -> None:
    """The terminal test reads stderr without a timeout: end the whole test after TIMEOUT seconds."""
    if request.node.name != "test_encode_says_it_reads_a_terminal":
        return

    def stop(*_: object) -> None:
        raise TimeoutError("encode said nothing about reading the terminal")

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(TIMEOUT)
    request.addfinalizer(lambda: signal.alarm(0))


def test_audit_checks_the_corpus_before_the_vocabulary() -> None:
    refused(("audit", "--tokenizer", "cl100k_base", "--corpus", "/no/such/corpus.txt"), "no such file or folder", [])


def test_train_that_stops_short_says_so(corpus: Path, tmp_path: Path) -> None:
    result = run("train", "--vocab-size", "5000", "--out", str(tmp_path / "tok.json"), str(corpus))
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "stopped after 32 of 4,744 merges: no pair of tokens is left to merge" in result.stderr
    assert "the vocabulary has 288 tokens, not 5,000" in result.stderr


def test_compare_prints_one_escaped_row_per_difference() -> None:
    text = "x\U0001f468 and\n\nnew lines\n"
    result = run("compare", "--tokenizer", "gpt2", "--tokenizer", "cl100k_base", "--text", text)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    count = int(lines[3].split()[-2])
    rows = lines[4:]
    assert count >= 2 and len(rows) == count, result.stdout
    assert rows[0].startswith("  1-2 '\U0001f468': ")  # the emoji, not an empty span
    assert any("'\\n\\n'" in row and "\u21b5" in row for row in rows)
    assert all(row.split(": ", 1)[1].strip() for row in rows)


def test_the_window_without_a_display() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    if sys.platform in ("win32", "darwin"):
        pytest.skip("Windows and macOS always have a display")
    result = run(env=env)
    assert result.returncode == 1
    line = one_line(result)
    assert "no display" in line and "tokenizer-explorer encode" in line


def test_the_window_on_a_display_that_does_not_answer() -> None:
    """A DISPLAY left over from a closed ssh -X session: Qt would abort (exit 134) with its xcb advice."""
    if sys.platform in ("win32", "darwin"):
        pytest.skip("Windows and macOS have no X display to miss")
    number = next(n for n in range(4242, 4300) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = run(env={**env, "DISPLAY": f":{number}"})
    assert result.returncode == 1
    line = one_line(result)
    assert f"the display ':{number}' (DISPLAY) does not answer" in line and "tokenizer-explorer encode" in line


def test_screenshot_prints_only_its_own_lines(tmp_path: Path) -> None:
    out = tmp_path / "tokens.png"
    result = run("screenshot", "--pane", "tokens", "--out", str(out), "--text", "hello",
                 env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0
    assert result.stderr.splitlines() == [f"{PROG}: wrote {out}"]
    assert out.read_bytes().startswith(b"\x89PNG")


def test_screenshot_to_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    out = os.fsencode(tmp_path) + b"/shot\xff.png"
    result = run("screenshot", "--pane", "chunks", "--out", out, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0 and one_line(result) == f"{PROG}: wrote {tmp_path}/shot\ufffd.png"
    assert [p.name for p in tmp_path.iterdir()] == [os.fsdecode(b"shot\xff.png")]  # that name, not U+FFFD's bytes


def test_screenshot_never_replaces_its_inputs_or_a_file_that_is_not_a_png(tmp_path: Path, corpus: Path) -> None:
    """screenshot wrote its PNG over whatever --out named, its own --file, --tokenizer or --corpus
    among them, and wrote PNG bytes under any name (shot.jpg). Its own earlier picture is replaced."""
    offscreen = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("hello", encoding="utf-8")
    trained = tmp_path / "trained.json"
    assert run("train", "--vocab-size", "260", "--out", str(trained), str(corpus)).returncode == 0
    notes = tmp_path / "notes.png"
    notes.write_text("not a picture", encoding="utf-8")
    inputs = [prompt, trained, corpus, notes]
    for args, message in ((("--pane", "tokens", "--file", str(prompt), "--out", str(prompt)), "is also an input"),
                          (("--pane", "tokens", "--tokenizer", str(trained), "--out", str(trained)), "is also an input"),
                          (("--pane", "corpus", "--corpus", str(corpus), "--out", str(corpus)), "is also an input"),
                          (("--pane", "tokens", "--out", str(notes)), "exists and is not a PNG picture"),
                          (("--pane", "tokens", "--out", str(tmp_path / "shot.jpg")), "name a file ending in .png")):
        refused(("screenshot", *args), message, inputs, env=offscreen)
    assert not (tmp_path / "shot.jpg").exists()
    shot = tmp_path / "shot.png"
    for _ in range(2):
        assert run("screenshot", "--pane", "chunks", "--out", str(shot), env=offscreen).returncode == 0


def test_export_never_replaces_a_bigger_tokenizer_and_its_ranks_load_under_any_name(tmp_path: Path,
                                                                                      corpus: Path) -> None:
    """Exporting a 260-id tokenizer over gpt2.tokenizer.json replaced GPT-2's 50,257 ids without a
    word (train refuses that); and ranks exported as tiktoken under a .json name never loaded again,
    read as broken JSON."""
    trained = tmp_path / "trained.json"
    assert run("train", "--vocab-size", "260", "--out", str(trained), str(corpus)).returncode == 0
    gpt2 = tmp_path / "gpt2.tokenizer.json"
    assert run("export", "--tokenizer", "gpt2", "--format", "hf", "--out", str(gpt2)).returncode == 0
    refused(("export", "--tokenizer", str(trained), "--format", "hf", "--out", str(gpt2)),
            "holds 50,257 ids, more than the 260 of trained", [gpt2, trained])
    ranks = tmp_path / "ranks.json"
    assert run("export", "--tokenizer", str(trained), "--format", "tiktoken", "--out", str(ranks)).returncode == 0
    ours = run("encode", "--tokenizer", str(trained), "--text", "the corpus")
    theirs = run("encode", "--tokenizer", str(ranks), "--pattern", "cl100k", "--text", "the corpus")
    assert ours.returncode == theirs.returncode == 0 and theirs.stdout == ours.stdout, theirs.stderr


def test_a_pattern_is_never_ignored_without_a_word(tmp_path: Path, corpus: Path) -> None:
    """--pattern, even an invalid one, was ignored for every tokenizer but a .tiktoken file;
    `chunks --pattern ""` showed cl100k's chunks; and export told a tokenizer with its own regex
    to be loaded with '--pattern custom', which is no pattern."""
    trained = tmp_path / "trained.json"
    assert run("train", "--vocab-size", "260", "--pattern", r"[a-z]+|[\s\S]", "--out", str(trained),
               str(corpus)).returncode == 0
    for spec in ("cl100k_base", str(trained)):
        refused(("encode", "--tokenizer", spec, "--pattern", "(", "--text", "hi"),
                "has its own pattern; a pattern is given only with a .tiktoken rank file", [trained])
    refused(("chunks", "--pattern", "", "--text", "hi"), "the pattern is empty", [])
    ranks = tmp_path / "trained.tiktoken"
    result = run("export", "--tokenizer", str(trained), "--format", "tiktoken", "--out", str(ranks))
    assert result.returncode == 0 and result.stderr.splitlines()[-1].endswith(r"--pattern '[a-z]+|[\s\S]'")
    ours = run("encode", "--tokenizer", str(trained), "--text", "the corpus")
    theirs = run("encode", "--tokenizer", str(ranks), "--pattern", r"[a-z]+|[\s\S]", "--text", "the corpus")
    assert theirs.returncode == 0 and theirs.stdout == ours.stdout, theirs.stderr


def test_counts_below_one_are_refused_and_names_cannot_send_escape_sequences(tmp_path: Path, corpus: Path) -> None:
    """--limit -3 said "(16 more)" of 3, and --limit 0 printed ': , ... (128 more)'; a tokenizer
    named in a file with an escape sequence coloured the terminal through an error message."""
    trained = tmp_path / "trained.json"
    assert run("train", "--vocab-size", "260", "--name", "evil\x1b[31mred", "--out", str(trained),
               str(corpus)).returncode == 0
    for args in (("audit", "--tokenizer", str(trained), "--limit", "-3"), ("audit", "--tokenizer", str(trained),
                 "--rare", "0"), ("compare", "--tokenizer", "gpt2", "--text", "hi", "--limit", "0")):
        result = run(*args)
        assert result.returncode == 2 and "is not a whole number of at least 1" in result.stderr
    line = refused(("decode", "--tokenizer", str(trained), "99999"), "unknown token id 99999", [trained])
    assert "\x1b" not in line and "evil\\x1b[31mred" in line


def test_ids_are_digits_0_to_9_and_file_dash_is_stdin() -> None:
    """int() took '١٢٣' (Arabic-Indic digits) and '1_000' as ids, and echoed a 5,000-digit id
    whole; `--file -` was read as a file named '-'."""
    for bad in ("١٢٣", "1_000", " 12", "9" * 5000):
        result = run("decode", "--tokenizer", "cl100k_base", "15339", bad)
        assert result.returncode == 2 and "token id" in result.stderr and len(result.stderr) < 400, bad[:20]
    assert run("decode", "--tokenizer", "cl100k_base", "15339", "1917").stdout.rstrip("\n") == "hello world"
    result = run("encode", "--tokenizer", "cl100k_base", "--file", "-", stdin=b"hello world")
    assert result.returncode == 0 and result.stdout.split() == ["15339", "1917"]


def test_a_vocabulary_size_is_digits_0_to_9(tmp_path: Path, corpus: Path) -> None:
    """int() trained '٣٠٠' and '1_000' into 300 and 1,000 tokens, where every other number is 0-9."""
    out = tmp_path / "tok.json"
    for bad in ("٣٠٠", "1_000", " 300", "9" * 5000):
        result = run("train", "--vocab-size", bad, "--out", str(out), str(corpus))
        assert result.returncode == 2 and "--vocab-size" in result.stderr and len(result.stderr) < 600, bad[:20]
        assert not out.exists()
    assert run("train", "--vocab-size", "300", "--out", str(out), str(corpus)).returncode == 0


def test_decoding_part_of_a_character_says_so() -> None:
    """cl100k_base's 9468 is the first three bytes of 😀 (F0 9F 98): printed as U+FFFD without a word."""
    part = run("decode", "--tokenizer", "cl100k_base", "9468")
    assert part.returncode == 0 and part.stdout == "\ufffd\n" and "part of a character" in part.stderr
    whole = run("decode", "--tokenizer", "cl100k_base", "76460", "222")
    assert whole.stdout == "\U0001f600\n" and whole.stderr == ""
    typed = run("decode", "--tokenizer", "cl100k_base", *run("encode", "--tokenizer", "cl100k_base", "--text",
                                                             "a \ufffd b").stdout.split())
    assert typed.stdout == "a \ufffd b\n" and typed.stderr == ""  # a U+FFFD of the text itself is no part


def test_a_corpus_of_binary_files_only_is_refused_saying_what_was_skipped(tmp_path: Path, corpus: Path) -> None:
    """audit --corpus on a folder of binary files said nothing of them and reported every token
    as never seen, as if a corpus had been read; train said so only after counting nothing."""
    folder = tmp_path / "binaries"
    folder.mkdir()
    (folder / "image.dat").write_bytes(bytes(range(256)))
    (folder / "late.txt").write_bytes(b"text\x00more")
    trained = tmp_path / "trained.json"
    assert run("train", "--vocab-size", "260", "--out", str(trained), str(corpus)).returncode == 0
    for args in (("audit", "--tokenizer", str(trained), "--corpus", str(folder)),
                 ("train", "--vocab-size", "260", "--out", str(tmp_path / "none.json"), str(folder))):
        result = run(*args)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.splitlines() == [f"{PROG}: {folder / 'image.dat'}: binary file, skipped",
                                              f"{PROG}: {folder / 'late.txt'}: binary file, skipped",
                                              f"{PROG}: error: {folder}: no text file to read (binary files are skipped)"]


def test_export_never_replaces_a_file_that_is_not_a_tokenizer(tmp_path: Path, corpus: Path) -> None:
    """A mistyped --out (the corpus, notes.json) is refused before any work; an earlier export of
    any format is a tokenizer file and is replaced, as re-running the command expects."""
    notes = tmp_path / "notes.json"
    notes.write_text('{"todo": ["check the digits"]}', encoding="utf-8")
    ranks = tmp_path / "broken.tiktoken"
    ranks.write_text("not ranks at all\n", encoding="utf-8")
    for out in (corpus, notes, ranks):
        refused(("export", "--tokenizer", "gpt2", "--format", "hf", "--out", str(out)),
                "exists and is not a tokenizer file", [corpus, notes, ranks])
    trained = tmp_path / "trained.json"
    assert run("train", "--vocab-size", "260", "--out", str(trained), str(corpus)).returncode == 0
    for format, name in (("hf", "tok.json"), ("tiktoken", "tok.tiktoken"), ("minbpe", "tok.model")):
        out = tmp_path / name
        for _ in range(2):  # the second run replaces the first one's file
            result = run("export", "--tokenizer", str(trained), "--format", format, "--out", str(out))
            assert result.returncode == 0, result.stderr
    empty = tmp_path / "empty.json"
    empty.touch()
    assert run("export", "--tokenizer", str(trained), "--format", "hf", "--out", str(empty)).returncode == 0


def test_export_never_replaces_a_tokenizer_file_it_cannot_load(tmp_path: Path, corpus: Path) -> None:
    """Its size cannot be compared, and it may be the bigger one (the library may load what we refuse)."""
    trained = tmp_path / "trained.json"
    assert run("train", "--vocab-size", "260", "--out", str(trained), str(corpus)).returncode == 0
    bigger = tmp_path / "bigger.json"
    assert run("export", "--tokenizer", "gpt2", "--format", "hf", "--out", str(bigger)).returncode == 0
    document = json.loads(bigger.read_text(encoding="utf-8"))
    document["added_tokens"].append({"id": 50257, "content": "", "single_word": False, "lstrip": False,
                                     "rstrip": False, "normalized": False, "special": True})
    bigger.write_text(json.dumps(document), encoding="utf-8")
    refused(("export", "--tokenizer", str(trained), "--format", "hf", "--out", str(bigger)),
            "is a tokenizer file this app cannot load", [bigger])
