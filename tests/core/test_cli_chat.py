"""`tokenizer-explorer chat`, run as a user would: the contract of its flags and of its JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from explorer.cli import token_json
from explorer.core.chat import Message, encode_chat
from explorer.core.errors import ExplorerError
from explorer.core.sources.load import load_tokenizer
from tests.core.test_chat_hf import QWEN25, fake_model
from tests.core.test_cli import run

MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "What is <|im_end|>?  "}]


@pytest.fixture
def cache(tmp_path: Path) -> dict[str, str]:
    fake_model(tmp_path / "hub", QWEN25)
    return {"HF_HUB_CACHE": str(tmp_path / "hub")}


def write(tmp_path: Path, document: object, name: str = "chat.json") -> str:
    path = tmp_path / name
    if isinstance(document, bytes):
        path.write_bytes(document)
    else:
        path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    return str(path)


def test_json_is_text_ids_and_tokens_marked_control(tmp_path: Path, cache: dict[str, str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    messages = write(tmp_path, MESSAGES)
    done = run("chat", "--tokenizer", "hf:acme/tiny", "--messages", messages, "--generation-prompt", "--json",
               env=cache)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    monkeypatch.setenv("HF_HUB_CACHE", cache["HF_HUB_CACHE"])
    tokenizer = load_tokenizer("hf:acme/tiny")
    result = encode_chat([Message(**m) for m in MESSAGES], tokenizer, generation_prompt=True)
    assert document["text"] == result.prompt.text
    assert document["text"].endswith("<|im_start|>assistant\n")
    assert document["ids"] == result.encoding.ids == [t["id"] for t in document["tokens"]]
    for token, ours in zip(document["tokens"], result.encoding.tokens):
        expected = token_json(ours.id, ours.bytes, ours.start, ours.end)  # the objects of encode --json
        assert {key: token[key] for key in expected} == expected
        assert token["control"] is ours.control
    controls = [t["text"] for t in document["tokens"] if t["control"]]
    assert controls == ["<|im_start|>", "<|im_end|>"] * 2 + ["<|im_start|>"]  # the typed one is text
    assert {t["message"] for t in document["tokens"]} == {0, 1, None}
    assert [f["kind"] for f in document["findings"]] == ["Special-token string", "Trailing whitespace"]


def test_plain_output_is_ids_with_findings_on_stderr(tmp_path: Path, cache: dict[str, str]) -> None:
    messages = write(tmp_path, MESSAGES)
    plain = run("chat", "--tokenizer", "hf:acme/tiny", "--messages", messages, "--template", "chatml",
                "--generation-prompt", env=cache)
    as_json = run("chat", "--tokenizer", "hf:acme/tiny", "--messages", messages, "--template", "chatml",
                  "--generation-prompt", "--json", env=cache)
    assert plain.returncode == 0
    assert plain.stdout.split() == [str(i) for i in json.loads(as_json.stdout)["ids"]]
    lines = plain.stderr.splitlines()
    assert lines == ["tokenizer-explorer: Special-token string: <|im_end|> typed in message 1 (user)",
                     "tokenizer-explorer: Trailing whitespace: trailing whitespace '  ' before the generation prompt"]
    without = run("chat", "--tokenizer", "hf:acme/tiny", "--messages", messages, "--template", "chatml", env=cache)
    assert len(without.stdout.split()) < len(plain.stdout.split()) and "Trailing" not in without.stderr


@pytest.mark.parametrize(("document", "message"), [
    ('{"role": "user"}', 'expected a JSON list of {"role", "content"} objects, found an object'),
    ("[]", "the list is empty"),
    ('[{"role": "bot", "content": "x"}]', "message 0: role 'bot' is not one of system, user, assistant, tool"),
    ('[{"role": "user", "content": 3}]', 'message 0: "content" must be a string, found a number'),
    ('[{"role": "user", "content": "x", "extra": 1}]', "message 0: unknown key 'extra'"),
    ('["hi"]', 'message 0: expected an object with "role" and "content", found a string'),
    ('[{"role": "user", "content": "x"}', "not valid JSON (line 1"),
    (b'[{"role": "user", "content": "\xff"}]', "not UTF-8 text (byte 30)"),
    ('[{"content": "x"}]', 'message 0: no "role"; give one of system, user'),
    ('[{"role": "user", "content": "x", "n": ' + "9" * 5000 + "}]", "holds a number of over 4,300 digits"),
    ('[{"role": "user", "content": "x\\ud800"}]', r"holds \ud800, half of a character"),
    ('[{"role": "user", "content": "x\\udc00\\ud83d"}]', r"holds \udc00, half of a character"),
])
def test_a_bad_messages_file_is_one_line(tmp_path: Path, document: str | bytes, message: str) -> None:
    done = run("chat", "--tokenizer", "cl100k_base", "--messages", write(tmp_path, document), "--template", "chatml")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr


def test_a_character_escaped_as_two_halves_is_read(tmp_path: Path) -> None:
    """Where a writer escapes non-ASCII (`ensure_ascii`), an emoji is two escapes: that is text."""
    done = run("chat", "--tokenizer", "cl100k_base", "--messages",
               write(tmp_path, '[{"role": "user", "content": "hi \\ud83d\\ude00"}]'), "--template", "chatml", "--json")
    assert done.returncode == 0, done.stderr
    assert "hi \U0001f600" in json.loads(done.stdout)["text"]


@pytest.mark.parametrize(("config", "message"), [
    ('{"chat_template": "{{ messages[0].content }}", "x": ' + "9" * 5000 + "}", "over 4,300 digits"),
    ('{"chat_template": " "}', "its chat_template is empty"),  # (it rendered every conversation as nothing)
])
def test_a_bad_template_config_is_one_line(tmp_path: Path, config: str, message: str) -> None:
    path = tmp_path / "tokenizer_config.json"
    path.write_text(config, encoding="utf-8")
    done = run("chat", "--tokenizer", "cl100k_base", "--messages", write(tmp_path, '[{"role": "user", "content": "x"}]'),
               "--template", str(path))
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and message in done.stderr


def test_a_fifo_as_messages_file_is_refused_unread(tmp_path: Path) -> None:
    fifo = tmp_path / "messages.json"
    os.mkfifo(fifo)  # reading it would wait for a writer for ever
    refused = run("chat", "--tokenizer", "cl100k_base", "--messages", str(fifo))
    assert refused.returncode == 1 and "messages.json: not a regular file" in refused.stderr


def test_missing_file_unknown_template_and_no_default(tmp_path: Path) -> None:
    missing = run("chat", "--tokenizer", "cl100k_base", "--messages", str(tmp_path / "nope.json"))
    assert missing.returncode == 1 and "nope.json: no such file" in missing.stderr
    messages = write(tmp_path, [{"role": "user", "content": "hi"}])
    unknown = run("chat", "--tokenizer", "cl100k_base", "--messages", messages, "--template", "vicuna")
    assert unknown.returncode == 1 and "unknown chat template 'vicuna'; choose one of chatml" in unknown.stderr
    default = run("chat", "--tokenizer", "cl100k_base", "--messages", messages)
    assert default.returncode == 1 and "no chat template is known for cl100k_base" in default.stderr
    assert run("chat", "--help").returncode == 0


@pytest.mark.parametrize(("name", "template"), [("llama3", "llama3"), ("llama4", "llama4"),
                                                ("tekken", "mistral-tekken"), ("o200k_harmony", "harmony"),
                                                ("qwen", "chatml")])
def test_bundled_tokenizers_choose_their_template(tmp_path: Path, name: str, template: str) -> None:
    try:
        load_tokenizer(name)
    except ExplorerError as exc:
        pytest.skip(f"needs the bundled {name} tokenizer (t14-bundle): {exc}")
    messages = write(tmp_path, [{"role": "user", "content": "hi"}])
    document = json.loads(run("chat", "--tokenizer", name, "--messages", messages, "--json").stdout)
    assert document["template"] == template
    assert any(token["control"] for token in document["tokens"])


def test_compare_two_templates_and_two_tokenizers(tmp_path: Path) -> None:
    messages = write(tmp_path, [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "Hi there, how are you?"}])
    done = run("chat", "--tokenizer", "cl100k_base", "--template", "chatml", "--messages", messages,
               "--compare-template", "llama3", "--generation-prompt")
    lines = done.stdout.splitlines()
    assert lines[0] == "message\trole\tcl100k_base / chatml\tcl100k_base / llama3"
    # same tokenizer: the contents cost the same, the templates do not (cl100k has neither's control
    # tokens, so both are spelled out as text, and said so)
    assert lines[1:] == ["0\tsystem\t18 (3+15)\t26 (3+23)", "1\tuser\t22 (7+15)\t30 (7+23)",
                         "-\ttemplate\t8 (0+8)\t23 (0+23)", "total\t\t48\t79"]
    assert "tokenizer-explorer: cl100k_base / llama3: Template of another tokenizer" in done.stderr
    document = json.loads(run("chat", "--tokenizer", "cl100k_base", "--template", "chatml", "--messages", messages,
                              "--compare-tokenizer", "o200k_base", "--json").stdout)
    alone = json.loads(run("chat", "--tokenizer", "o200k_base", "--template", "chatml", "--messages", messages,
                           "--json").stdout)
    assert document["compare"] == alone
    assert document["text"] == alone["text"] and document["ids"] != alone["ids"]


def test_a_byte_order_mark_is_not_an_error(tmp_path: Path) -> None:
    messages = write(tmp_path, '\ufeff[{"role": "user", "content": "hi"}]')
    done = run("chat", "--tokenizer", "cl100k_base", "--messages", messages, "--template", "chatml", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"].startswith("<|im_start|>user\nhi")
