"""Chat templates: the ids of a rendered conversation equal each format's reference implementation.

References: llama-models' ChatFormat (Llama 3; Llama 4 written out, its module needs torch),
mistral-common's encode_chat_completion (Tekken, SentencePiece v3/v7), openai-harmony (gpt-oss),
and Qwen's published ChatML. Our side uses our own Tokenizer objects built from the same files.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from explorer.core.chat import Message, default_template, encode_chat
from explorer.core.chat.builtin import BUILTIN
from explorer.core.errors import ChatError, ExplorerError
from explorer.core.sources.load import load_tokenizer
from tests.core import chat_references as ref

M = Message
CONVERSATIONS = {
    "one user": [M("user", "Hello, how are you?")],
    "system and turns": [M("system", "You are terse."), M("user", "What is 2+2?"), M("assistant", "4"),
                         M("user", "And 3+3?")],
    "multilingual": [M("user", "  नमस्ते 👋\n\nline two  "), M("assistant", " Sure thing.  "),
                     M("user", "日本語のテキスト, 안녕하세요, مرحبا ok?")],
    "newlines first": [M("user", "\n\nstarts with newlines\n"), M("assistant", "\tcode:\n    x = 1\n")],
    "same roles in a row": [M("system", "Rule A."), M("system", "Rule B."), M("user", "u1"), M("user", "u2"),
                            M("assistant", "a1"), M("assistant", "a2  "), M("user", "u3")],
    "ends with assistant": [M("user", "Say hi"), M("assistant", "Hi!")],
    "only a system message": [M("system", "Rules.")],
    "assistant first": [M("system", "Rules."), M("assistant", "Hello, I am here."), M("user", "ok")],
    "empty and spaces": [M("user", ""), M("assistant", "   "), M("user", "x "), M("user", "")],
}
WITH_TOOL = [M("user", "Weather in Paris?"), M("assistant", "Calling the tool."),
             M("tool", '{"temp": 21}', name="functions.get_weather"), M("user", "Thanks")]
CASES = [(name, prompt) for name in CONVERSATIONS for prompt in (False, True)]


@cache
def tokenizer(name: str):  # type: ignore[no-untyped-def]
    builders = {"llama3": lambda: ref.llama_tokenizer("llama3"), "llama4": lambda: ref.llama_tokenizer("llama4"),
                "tekken": ref.tekken_tokenizer, "tekken_240911": lambda: ref.tekken_tokenizer("tekken_240911.json"),
                "o200k_harmony": ref.harmony_tokenizer, "chatml": ref.chatml_tokenizer}
    return builders[name]()


def bundled(name: str, reason: str = ""):  # type: ignore[no-untyped-def]
    """A bundled tokenizer, or a skip that says why it cannot be loaded here."""
    try:
        return load_tokenizer(name)
    except ExplorerError as exc:
        pytest.skip(reason or f"needs the bundled {name} tokenizer (t14-bundle): {exc}")


@pytest.mark.parametrize("name", ["llama3", "llama4", "o200k_harmony", "tekken"])
def test_bundled_tokenizers_give_the_references_ids(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names --tokenizer takes, with their default templates, on every conversation."""
    ours = bundled(name)
    reference = ref.mistral_reference("tekken_240911.json") if name == "tekken" else None
    for messages in CONVERSATIONS.values():
        result = encode_chat(messages, ours, generation_prompt=True)
        expected = {"llama3": lambda: ref.llama3_reference_ids(messages, True),
                    "llama4": lambda: ref.llama4_reference_ids(messages, True),
                    "o200k_harmony": lambda: ref.harmony_reference_ids(messages, True, monkeypatch),
                    "tekken": lambda: ref.mistral_ids(reference, messages)}[name]()
        assert result.encoding.ids == expected, messages


@pytest.mark.parametrize(("conversation", "generation_prompt"), CASES)
def test_chatml_is_qwens_published_format(conversation: str, generation_prompt: bool) -> None:
    ours = tokenizer("chatml")
    messages = CONVERSATIONS[conversation]
    result = encode_chat(messages, ours, "chatml", generation_prompt)
    text, ids = ref.qwen_chatml_ids(lambda t: ours._encoding.encode(t, allowed_special="all"), messages,
                                    generation_prompt)
    assert result.prompt.text == text
    assert result.encoding.ids == ids


def test_chatml_with_the_bundled_qwen_tokenizer() -> None:
    qwen = bundled("qwen")
    messages = CONVERSATIONS["system and turns"]
    text, ids = ref.qwen_chatml_ids(lambda t: qwen.encode(t, special="allowed"), messages, True)
    result = encode_chat(messages, qwen, generation_prompt=True)  # chatml is qwen's default
    assert (result.template, result.prompt.text, result.encoding.ids) == ("chatml", text, ids)


@pytest.mark.parametrize(("conversation", "generation_prompt"), CASES)
def test_llama3_is_llama_models_chat_format(conversation: str, generation_prompt: bool) -> None:
    messages = CONVERSATIONS[conversation]
    result = encode_chat(messages, tokenizer("llama3"), "llama3", generation_prompt)
    assert result.encoding.ids == ref.llama3_reference_ids(messages, generation_prompt)
    assert tokenizer("llama3").decode(result.encoding.ids) == result.prompt.text


@pytest.mark.parametrize("generation_prompt", [False, True])
def test_llama_tool_messages(generation_prompt: bool) -> None:
    result = encode_chat(WITH_TOOL, tokenizer("llama3"), "llama3", generation_prompt)
    assert result.encoding.ids == ref.llama3_reference_ids(WITH_TOOL, generation_prompt)
    assert "<|start_header_id|>ipython<|end_header_id|>" in result.prompt.text
    result = encode_chat(WITH_TOOL, tokenizer("llama4"), "llama4", generation_prompt)
    assert result.encoding.ids == ref.llama4_reference_ids(WITH_TOOL, generation_prompt)
    assert '<|header_start|>ipython<|header_end|>\n\n{"temp": 21}<|eom|>' in result.prompt.text


@pytest.mark.parametrize(("conversation", "generation_prompt"), CASES)
def test_llama4_is_llama_models_chat_format(conversation: str, generation_prompt: bool) -> None:
    messages = CONVERSATIONS[conversation]
    result = encode_chat(messages, tokenizer("llama4"), "llama4", generation_prompt)
    assert result.encoding.ids == ref.llama4_reference_ids(messages, generation_prompt)


@pytest.mark.parametrize(("conversation", "generation_prompt"), CASES)
def test_harmony_is_openai_harmony(conversation: str, generation_prompt: bool,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    messages = CONVERSATIONS[conversation]
    result = encode_chat(messages, tokenizer("o200k_harmony"), "harmony", generation_prompt)
    assert result.encoding.ids == ref.harmony_reference_ids(messages, generation_prompt, monkeypatch)
    assert tokenizer("o200k_harmony").decode(result.encoding.ids) == result.prompt.text


def test_harmony_tool_message_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    result = encode_chat(WITH_TOOL, tokenizer("o200k_harmony"), "harmony", True)
    assert result.encoding.ids == ref.harmony_reference_ids(WITH_TOOL, True, monkeypatch)
    with pytest.raises(ChatError, match="name"):
        encode_chat([M("tool", "42")], tokenizer("o200k_harmony"), "harmony")


@pytest.mark.parametrize("file", ["tekken_240718.json", "tekken_240911.json"])
@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_mistral_tekken_is_mistral_common(file: str, conversation: str) -> None:
    messages = CONVERSATIONS[conversation]
    reference = ref.mistral_reference(file)
    ours = tokenizer("tekken" if file == "tekken_240718.json" else "tekken_240911")
    for generation_prompt in (False, True):  # Mistral's prompt is the [/INST] itself: no difference
        result = encode_chat(messages, ours, "mistral-tekken", generation_prompt)
        assert result.encoding.ids == ref.mistral_ids(reference, messages)
    assert ref.mistral_piece_ids(reference, result.prompt) == result.encoding.ids


@pytest.mark.parametrize(("template", "file"), [("mistral-v3", "mistral_instruct_tokenizer_240323.model.v3"),
                                                ("mistral-v7", "mistral_instruct_tokenizer_241114.model.v7")])
@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_mistral_sentencepiece_pieces_are_mistral_common(template: str, file: str, conversation: str) -> None:
    """Our segments, each piece encoded by mistral-common's SentencePiece tokenizer, give exactly
    its encode_chat_completion: the pieces are cut where mistral-common cuts (each gets the dummy prefix)."""
    messages = CONVERSATIONS[conversation]
    reference = ref.mistral_reference(file)
    prompt = BUILTIN[template].render(messages, False)
    assert ref.mistral_piece_ids(reference, prompt) == ref.mistral_ids(reference, messages)


@pytest.mark.parametrize(("template", "name", "file"), [
    ("mistral-v3", "mistral_v3", "mistral_instruct_tokenizer_240323.model.v3"),
    ("mistral-v7", "mistral_v7", "mistral_instruct_tokenizer_241114.model.v7")])
def test_mistral_sentencepiece_ids(template: str, name: str, file: str) -> None:
    ours = bundled(name, "needs the SentencePiece tokenizer (t14-sp)")
    reference = ref.mistral_reference(file)
    for messages in CONVERSATIONS.values():
        result = encode_chat(messages, ours, generation_prompt=True)
        assert result.template == template
        assert result.encoding.ids == ref.mistral_ids(reference, messages)


def test_mistral_v3_puts_the_system_prompt_before_the_last_user_message() -> None:
    prompt = BUILTIN["mistral-v3"].render(CONVERSATIONS["system and turns"], True)
    assert prompt.text == "<s>[INST]What is 2+2?[/INST]4</s>[INST]You are terse.\n\nAnd 3+3?[/INST]"
    v7 = BUILTIN["mistral-v7"].render(CONVERSATIONS["system and turns"], True)
    assert v7.text == ("<s>[SYSTEM_PROMPT]You are terse.[/SYSTEM_PROMPT][INST]What is 2+2?[/INST]4</s>"
                       "[INST]And 3+3?[/INST]")


@pytest.mark.parametrize(("name", "expected"), [("llama3", "llama3"), ("llama4", "llama4"),
                                                ("tekken", "mistral-tekken"), ("o200k_harmony", "harmony"),
                                                ("chatml", "chatml")])
def test_default_templates_follow_the_tokenizer(name: str, expected: str) -> None:
    ours = tokenizer(name)
    bundled = ours.name
    try:
        for ours.name in (bundled, f"my-{bundled}"):  # renamed: its control tokens (or "tekken") decide
            assert default_template(ours) == expected
    finally:
        ours.name = bundled


def test_plain_template_has_no_control_tokens() -> None:
    messages = [Message("system", "Be brief."), Message("user", "Hi")]
    result = encode_chat(messages, load_tokenizer("o200k_base"), "plain", True)
    assert result.prompt.text == "system: Be brief.\nuser: Hi\nassistant:"
    assert not any(token.control for token in result.encoding.tokens)
    assert result.encoding.ids == load_tokenizer("o200k_base").encode(result.prompt.text)
    assert result.findings == ()


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base", "r50k_base", "llama3", "o200k_harmony", "qwen"])
def test_the_starting_template_belongs_to_the_tokenizer(name: str) -> None:
    """A first look never shows a "does not belong" finding: a tokenizer without a chat format of
    its own starts on `plain`, with a note saying why."""
    from explorer.core.chat import starting_template
    from explorer.core.chat.encode import FOREIGN_TEMPLATE
    tokenizer = load_tokenizer(name)
    template, why = starting_template(tokenizer)
    result = encode_chat([Message("system", "Be brief."), Message("user", "Hi")], tokenizer, template, True)
    assert FOREIGN_TEMPLATE not in [finding.kind for finding in result.findings]
    try:
        own = default_template(tokenizer)
    except ChatError:
        assert template == "plain" and why.startswith(f"{name} has no chat tokens")
    else:
        assert (template, why) == (own, "")
    if name == "o200k_base":
        assert why == "o200k_base has no chat tokens; gpt-oss uses o200k_harmony"


def test_messages_nested_too_deeply_are_refused_in_one_line(tmp_path: Path) -> None:
    from explorer.core.chat.messages import load_messages

    path = tmp_path / "messages.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(ChatError, match="too deeply"):
        load_messages(path)
