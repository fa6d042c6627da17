"""Hugging Face chat templates from the local cache, rendered in Jinja2's sandbox as transformers
renders them, and the chat findings."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from explorer.core.chat import Message, default_template, encode_chat
from explorer.core.chat.encode import FOREIGN_TEMPLATE, SPECIAL_STRING, TRAILING_SPACE, TWICE
from explorer.core.errors import ChatError
from explorer.core.sources.load import load_tokenizer
from tests.core import chat_references as ref

M = Message
# Qwen2.5's chat_template (Qwen/Qwen2.5-7B-Instruct tokenizer_config.json), its part without tools.
QWEN25 = """{%- if messages[0]['role'] == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
{%- else %}
    {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CONVERSATION = [M("system", "You are terse."), M("user", "What is 2+2?"), M("assistant", "4"),
                M("user", "Weather?"), M("tool", '{"temp": 21}'), M("user", "Thanks  ")]


def tiny_tokenizer_json(path: Path) -> None:
    """A byte-level BPE with the ChatML control tokens, trained on seeded text."""
    rng = random.Random(14)
    words = ["what", "is", "the", "weather", "you", "are", "terse", "system", "user", "assistant", "tool", "thanks"]
    lines = [" ".join(rng.choice(words) for _ in range(12)) + rng.choice(["?", ".", "\n", " 42"]) for _ in range(400)]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(lines, trainer)
    tokenizer.save(str(path))


def fake_model(hub: Path, template: str, name: str = "models--acme--tiny", **config: object) -> Path:
    snapshot = hub / name / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    tiny_tokenizer_json(snapshot / "tokenizer.json")
    document = {"chat_template": template, "bos_token": None, "eos_token": "<|im_end|>", **config}
    (snapshot / "tokenizer_config.json").write_text(json.dumps(document), encoding="utf-8")
    return snapshot


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "hub"


def transformers_render(template: str, messages: list[Message], generation_prompt: bool, **special: str) -> str:
    """What transformers' apply_chat_template(tokenize=False) renders, written out from
    transformers/utils/chat_template_utils.py: the immutable sandbox, trim_blocks, lstrip_blocks."""
    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    return environment.from_string(template).render(messages=[m.as_dict() for m in messages],
                                                    add_generation_prompt=generation_prompt, **special)


@pytest.mark.parametrize("generation_prompt", [False, True])
def test_cached_models_chat_template_is_the_default_and_renders_as_transformers(
        hub: Path, generation_prompt: bool) -> None:
    fake_model(hub, QWEN25)
    tokenizer = load_tokenizer("hf:acme/tiny")
    assert default_template(tokenizer) == "hf"
    result = encode_chat(CONVERSATION, tokenizer, generation_prompt=generation_prompt)
    text = transformers_render(QWEN25, CONVERSATION, generation_prompt, eos_token="<|im_end|>")
    assert result.prompt.text == text
    # transformers tokenizes the rendered string; with no control string typed in a message it is the same
    assert result.encoding.ids == tokenizer.encode(text, special="allowed")
    # the built-in chatml agrees with Qwen's own template when the conversation has a system message
    no_tool = [m for m in CONVERSATION if m.role != "tool"]
    assert encode_chat(no_tool, tokenizer, "chatml", generation_prompt).encoding.ids == \
        encode_chat(no_tool, tokenizer, "hf", generation_prompt).encoding.ids


def test_hf_segments_label_each_message_and_mark_control_tokens(hub: Path) -> None:
    fake_model(hub, QWEN25)
    tokenizer = load_tokenizer("hf:acme/tiny")
    result = encode_chat(CONVERSATION, tokenizer, generation_prompt=True)
    prompt = result.prompt
    contents = {segment.message: segment.text for segment in prompt.segments if segment.content}
    assert contents == {index: m.content for index, m in enumerate(CONVERSATION)}
    controls = [token for token in result.encoding.tokens if token.control]
    assert [prompt.text[t.start:t.end] for t in controls] == ["<|im_start|>", "<|im_end|>"] * 6 + ["<|im_start|>"]
    assert all(t.id == tokenizer.special_tokens[prompt.text[t.start:t.end]] for t in controls)
    # the tool result is inside the user turn Qwen makes for it, labelled as message 4
    tool = next(segment for segment in prompt.segments if segment.message == 4 and not segment.content
                and not segment.control)
    assert "<tool_response>" in tool.text
    assert prompt.segments[-1].message is None and prompt.segments[-1].text == "assistant\n"


def test_named_templates_and_other_models_template(hub: Path, tmp_path: Path) -> None:
    fake_model(hub, [{"name": "default", "template": "{% for m in messages %}[{{ m.role }}]{{ m.content }}"
                                                   "{% endfor %}"}, {"name": "tool_use", "template": "x"}])
    fake_model(hub, QWEN25, name="models--acme--other")
    tokenizer = load_tokenizer("hf:acme/tiny")
    assert encode_chat([M("user", "hi")], tokenizer).prompt.text == "[user]hi"
    assert encode_chat([M("user", "hi")], tokenizer, "hf:acme/other").prompt.text.startswith("<|im_start|>system")
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"chat_template": "<{{ messages[0].content }}>"}), encoding="utf-8")
    assert encode_chat([M("user", "hi")], tokenizer, str(config)).prompt.text == "<hi>"


@pytest.mark.parametrize(("template", "message"), [
    ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "sandbox forbids"),
    ("{% set x = messages.append(1) %}", "sandbox forbids"),
    ("{{ raise_exception('Only user and assistant roles are supported!') }}", "refused this conversation: Only"),
    ("{% for m in messages %}", "not valid Jinja"),
    ("{{ messages[0].content.upper_case() }}", "failed on this conversation"),
    # A template is code from a file: its arithmetic, recursion and size fail in one line too.
    ("{% for i in range(10**9) %}x{% endfor %}", r"failed on this conversation \(OverflowError: Range too big"),
    ("{{ messages|length / 0 }}", r"\(ZeroDivisionError: division by zero\)"),
    ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", r"\(RecursionError: maximum recursion depth"),
    ("{{ 'x' * 10**9 }}", "sandbox forbids .a repetition longer than 1,048,576 was refused"),
    ("{{ [messages] * 10**9 }}", "a repetition longer than"),
    ("{{ 2 ** 100000 }}", "a power of more than 65,536 bits was refused"),
])
def test_hf_templates_run_sandboxed_and_fail_with_one_line(hub: Path, template: str, message: str) -> None:
    fake_model(hub, template)
    with pytest.raises(ChatError, match=message):
        encode_chat([M("user", "hi")], load_tokenizer("hf:acme/tiny"))


def test_a_template_still_looping_is_stopped(hub: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two nested loops of the sandbox's longest range would run for hours (in the CLI, or in a
    Chat pane worker that then never ends): the rendering stops at its deadline."""
    from explorer.core.chat import hf_template

    monkeypatch.setattr(hf_template, "RENDER_SECONDS", 0.2)
    fake_model(hub, "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}")
    started = time.monotonic()
    with pytest.raises(ChatError, match="sandbox forbids .it was still looping after 0.2 s"):
        encode_chat([M("user", "hi")], load_tokenizer("hf:acme/tiny"))
    assert time.monotonic() - started < 5
    fake_model(hub, "{% for i in range(3)|reverse %}{{ i }}{{ loop.length }}{% endfor %}{{ range(4)|length }}"
                    "{{ range(10)[2] }}{{ 7 in range(9) }}{{ 'ab' * 3 }}{{ 2 ** 10 }}", "models--acme--other")
    assert encode_chat([M("user", "hi")], load_tokenizer("hf:acme/other")).prompt.text == "23130342Trueababab1024"


def test_typed_control_string_is_text_with_both_readings(hub: Path) -> None:
    fake_model(hub, QWEN25)
    tokenizer = load_tokenizer("hf:acme/tiny")
    result = encode_chat([M("system", "s"), M("user", "end it <|im_end|> here")], tokenizer, generation_prompt=True)
    typed = [f for f in result.findings if f.kind == SPECIAL_STRING]
    assert [(f.title, f.token_ids) for f in typed] == [("<|im_end|> typed in message 1 (user)",
                                                         (tokenizer.special_tokens["<|im_end|>"],))]
    start = result.prompt.text.index("end it ") + len("end it ")
    assert (typed[0].start, typed[0].end) == (start, start + len("<|im_end|>"))
    inside = [t for t in result.encoding.tokens if start <= t.start < start + len("<|im_end|>")]
    assert inside and not any(t.control for t in inside)  # encoded as text...
    assert tokenizer.decode([t.id for t in inside]) == "<|im_end|>"
    as_text = tokenizer.encode("<|im_end|>", special="plain")
    assert str(as_text[0]) in typed[0].detail and "id " + str(typed[0].token_ids[0]) in typed[0].detail


def test_bos_twice_eos_twice_and_trailing_whitespace(hub: Path) -> None:
    fake_model(hub, "{{ bos_token }}{% for m in messages %}{{ bos_token }}{{ m.content }}{{ eos_token }}"
                    "{% if m.role == 'assistant' %}{{ eos_token }}{% endif %}{% endfor %}",
               bos_token={"content": "<|endoftext|>"})
    tokenizer = load_tokenizer("hf:acme/tiny")
    result = encode_chat([M("user", "q"), M("assistant", "a"), M("user", "why?\n ")], tokenizer,
                         generation_prompt=True)
    titles = [(f.kind, f.title) for f in result.findings]
    assert (TWICE, "a second BOS <|endoftext|>") in titles
    assert (TWICE, "EOS <|im_end|> twice in a row") in titles
    assert (TRAILING_SPACE, "trailing whitespace '\\n ' before the generation prompt") in titles
    assert sum(kind == TWICE for kind, _ in titles) == 4  # three more BOS, one EOS pair
    quiet = encode_chat([M("user", "why?\n ")], tokenizer, generation_prompt=False)
    assert not [f for f in quiet.findings if f.kind == TRAILING_SPACE]


def test_template_of_another_tokenizer(hub: Path) -> None:
    fake_model(hub, QWEN25)
    tokenizer = load_tokenizer("hf:acme/tiny")
    result = encode_chat([M("user", "hi")], tokenizer, "llama3", True)
    foreign = [f for f in result.findings if f.kind == FOREIGN_TEMPLATE]
    assert len(foreign) == 1 and "<|begin_of_text|>" in foreign[0].detail
    assert result.encoding.missing == ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")
    assert not any(token.control for token in result.encoding.tokens)
    assert tokenizer.decode(result.encoding.ids) == result.prompt.text
    assert not [f for f in encode_chat([M("user", "hi")], tokenizer, "chatml").findings if f.kind == FOREIGN_TEMPLATE]


def test_no_template_for_a_plain_encoding() -> None:
    with pytest.raises(ChatError, match="no chat template is known for r50k_base; choose one with --template"):
        encode_chat([M("user", "hi")], load_tokenizer("gpt2"))


def test_sentencepiece_style_tokenizer_json_reads_the_rendered_string_as_transformers(hub: Path) -> None:
    """Metaspace with prepend_scheme "first" puts ▁ before the first split of the string only, so the
    rendered prompt must be tokenized in one go (as transformers does), not run by run."""
    snapshot = hub / "models--acme--sp" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    rng = random.Random(7)
    words = ["hello", "there", "what", "is", "up", "fine", "thanks", "more", "words", "here"]
    lines = [" ".join(rng.choice(words) for _ in range(10)) for _ in range(300)]
    library = Tokenizer(models.BPE())
    library.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    library.decoder = decoders.Metaspace(prepend_scheme="first")
    library.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=300, show_progress=False,
                                                           special_tokens=["<s>", "</s>", "[INST]", "[/INST]"]))
    library.save(str(snapshot / "tokenizer.json"))
    template = ("{{ bos_token }}{% for m in messages %}{% if m.role == 'user' %}[INST] {{ m.content }} [/INST]"
                "{% else %}{{ m.content }}{{ eos_token }}{% endif %}{% endfor %}")
    (snapshot / "tokenizer_config.json").write_text(json.dumps(
        {"chat_template": template, "bos_token": "<s>", "eos_token": "</s>"}), encoding="utf-8")
    tokenizer = load_tokenizer("hf:acme/sp")
    messages = [M("user", "hello there"), M("assistant", "fine thanks"), M("user", "what is up")]
    result = encode_chat(messages, tokenizer)
    assert result.prompt.text == "<s>[INST] hello there [/INST]fine thanks</s>[INST] what is up [/INST]"
    assert result.encoding.ids == library.encode(result.prompt.text, add_special_tokens=False).ids
    assert [t.control for t in result.encoding.tokens if t.id in (0, 1, 2, 3)] == [True] * 6
    assert {result.encoding.message_of(t) for t in result.encoding.tokens} == {None, 0, 1, 2}


def test_contents_are_located_where_the_template_put_them(hub: Path) -> None:
    """A content that also appears in the template's text ("user", "a", "end") is found where the
    template put the content, not in the header or in a control token."""
    fake_model(hub, QWEN25)
    tokenizer = load_tokenizer("hf:acme/tiny")
    messages = [M("system", "system"), M("user", "user"), M("assistant", "a"), M("user", "end")]
    prompt = encode_chat(messages, tokenizer, generation_prompt=True).prompt
    starts = prompt.starts
    located = {s.message: (starts[i], s.text) for i, s in enumerate(prompt.segments) if s.content}
    text = prompt.text
    assert located == {0: (text.index("system\nsystem") + 7, "system"), 1: (text.index("user\nuser") + 5, "user"),
                       2: (text.index("assistant\na") + 10, "a"), 3: (text.rindex("user\nend") + 5, "end")}
    trimmed = "{% for m in messages %}<{{ m.role }}>{{ m.content | trim }}</{{ m.role }}>{% endfor %}"
    fake_model(hub, trimmed, name="models--acme--trim")
    prompt = encode_chat([M("user", "  user  ")], load_tokenizer("hf:acme/trim"), "hf").prompt
    assert [(s.text, s.content) for s in prompt.segments] == [("<user>", False), ("user", True), ("</user>", False)]


def test_the_compared_sides_template() -> None:
    from explorer.core.chat.compare import compared_template

    cl100k = load_tokenizer("cl100k_base")
    assert compared_template("llama3", None, "chatml", cl100k) == "llama3"  # asked for
    assert compared_template(None, None, "chatml", cl100k) == "chatml"  # same tokenizer: the first side's
    assert compared_template(None, load_tokenizer("o200k_base"), "chatml", cl100k) == "chatml"  # it has none
    with pytest.raises(ChatError, match="no chat template is known for cl100k_base"):
        compared_template(None, load_tokenizer("o200k_base"), None, cl100k)
    assert compared_template(None, ref.harmony_tokenizer(), "chatml", cl100k) == "harmony"  # its own


def test_a_tokenizer_config_nested_too_deeply_is_refused_in_plain_words(tmp_path: Path) -> None:
    from explorer.core.chat.hf_template import HFChatTemplate

    path = tmp_path / "tokenizer_config.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(ChatError, match="nests lists or objects too deeply") as caught:
        HFChatTemplate.from_config(path)
    assert "recursion" not in str(caught.value)
