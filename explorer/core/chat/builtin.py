"""The chat formats of the models people run, written out from their reference implementations.

Each renderer turns messages into segments exactly as its reference builds the token list:
- `chatml`: Qwen's and OpenAI's `<|im_start|>role\\ncontent<|im_end|>\\n`, tokenized as transformers
  tokenizes a rendered template (the text between control tokens as one string);
- `llama3`, `llama4`: llama-models' `ChatFormat.encode_dialog_prompt` (role, "\\n\\n" and content apart);
- `mistral-v3`, `mistral-tekken`, `mistral-v7`: mistral-common's `encode_chat_completion` (its request
  normalizer, then `InstructTokenizerV3` / `V7`), each message's text encoded apart;
- `harmony`: openai-harmony's `render_conversation` for gpt-oss;
- `plain`: no control tokens at all, `role: content` lines, for a tokenizer without a chat format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from explorer.core.chat.messages import Message
from explorer.core.chat.prompt import Prompt, PromptBuilder
from explorer.core.errors import ChatError

Renderer = Callable[[Sequence[Message], bool], Prompt]


@dataclass(frozen=True)
class ChatTemplate:
    """A named chat format: how to render, and its BOS/EOS (for the "twice" findings).

    `implicit_prompt` says the format has no separate generation prompt: the model answers right
    after the last user message (Mistral's `[/INST]`)."""

    name: str
    description: str
    render: Renderer
    bos: str | None = None
    eos: str | None = None
    implicit_prompt: bool = False


def _roles(messages: Sequence[Message]) -> tuple[str, ...]:
    return tuple(message.role for message in messages)


def render_chatml(messages: Sequence[Message], generation_prompt: bool) -> Prompt:
    """`<|im_start|>{role}\\n{content}<|im_end|>\\n` per message, then `<|im_start|>assistant\\n`."""
    out = PromptBuilder(joined=True)
    for index, message in enumerate(messages):
        out.control("<|im_start|>", index)
        out.text(f"{message.role}\n", index)
        out.text(message.content, index, content=True)
        out.control("<|im_end|>", index)
        out.text("\n", index)
    if generation_prompt:
        out.control("<|im_start|>")
        out.text("assistant\n")
    return out.build("chatml", _roles(messages), whole=True)


def _llama(name: str, start: str, end: str, eot: str, eom: str) -> Renderer:
    def render(messages: Sequence[Message], generation_prompt: bool) -> Prompt:
        out = PromptBuilder()
        out.control("<|begin_of_text|>")

        def header(role: str, index: int | None) -> None:
            out.control(start, index)
            out.text("ipython" if role == "tool" else role, index)
            out.control(end, index)
            out.text("\n\n", index)

        for index, message in enumerate(messages):
            header(message.role, index)
            out.text(message.content, index, content=True)
            # llama4 ends a tool result with end-of-message; llama3 ends every plain message with end-of-turn
            out.control(eom if message.role == "tool" and eom != eot else eot, index)
        if generation_prompt:
            header("assistant", None)
        return out.build(name, _roles(messages))
    return render


render_llama3 = _llama("llama3", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eot_id|>")
render_llama4 = _llama("llama4", "<|header_start|>", "<|header_end|>", "<|eot|>", "<|eom|>")


def _mistral_groups(messages: Sequence[Message]) -> list[tuple[str, list[int]]]:
    """mistral-common's normalizer: runs of messages with the same role become one message."""
    groups: list[tuple[str, list[int]]] = []
    for index, message in enumerate(messages):
        if groups and groups[-1][0] == message.role:
            groups[-1][1].append(index)
        else:
            groups.append((message.role, [index]))
    return groups


def _mistral(name: str, version: int) -> Renderer:
    def render(messages: Sequence[Message], generation_prompt: bool) -> Prompt:
        if any(message.role == "tool" for message in messages):
            raise ChatError(f"{name}: a tool message needs the id of the tool call it answers, which a "
                            "{role, content} message does not carry; leave tool messages out for Mistral formats")
        out = PromptBuilder()
        out.control("<s>")
        groups = _mistral_groups(messages)
        system = [i for i, m in enumerate(messages) if m.role == "system" and m.content]
        if version < 7:  # system prompts are joined and put before the last user message
            groups = [group for group in groups if group[0] != "system"]
        if not groups or (version < 7 and groups[0][0] != "user"):
            groups.insert(0, ("user", []))
        last_user = max((n for n, (role, _) in enumerate(groups) if role == "user"), default=-1)

        def joined(indices: list[int], attach: bool = False) -> None:
            """Messages joined by "\\n\\n" into one piece, as the normalizer joins them (empty ones
            skipped); `attach` continues the piece already open (the system prompt before it)."""
            wrote = False
            for index in indices:
                text = messages[index].content
                if not text:
                    continue
                if wrote:
                    out.text("\n\n", index, join=True)
                out.text(text, index, content=True, join=wrote or attach)
                wrote = True
            if not wrote and not attach:
                out.text("")  # an empty message is still an (empty) piece

        for number, (role, indices) in enumerate(groups):
            owner = indices[0] if indices else None
            if role == "system":  # v7 only: each system message between its own tokens
                for index in indices:
                    out.control("[SYSTEM_PROMPT]", index)
                    out.text(messages[index].content, index, content=True)
                    out.control("[/SYSTEM_PROMPT]", index)
            elif role == "user":
                out.control("[INST]", owner)
                if number == last_user and system and version < 7:
                    joined(system)
                    out.text("\n\n", None, join=True)
                    joined(indices, attach=True)
                else:
                    joined(indices)
                out.control("[/INST]", indices[-1] if indices else None)
            else:  # assistant: its text without trailing spaces, then EOS
                _assistant(out, messages, indices)
                out.control("</s>", indices[-1])
        return out.build(name, _roles(messages))
    return render


def _assistant(out: PromptBuilder, messages: Sequence[Message], indices: list[int]) -> None:
    """mistral-common strips trailing spaces from the joined assistant text (`rstrip(" ")`)."""
    parts = [index for index in indices if messages[index].content]
    wrote = False
    for position, index in enumerate(parts):
        text = messages[index].content
        if position == len(parts) - 1:
            text = text.rstrip(" ")
        if wrote:
            out.text("\n\n", index, join=True)
        out.text(text, index, content=True, join=wrote)
        wrote = True
    if not wrote:
        out.text("")


render_mistral_v3 = _mistral("mistral-v3", 3)
render_mistral_tekken = _mistral("mistral-tekken", 3)
render_mistral_v7 = _mistral("mistral-v7", 7)


def render_harmony(messages: Sequence[Message], generation_prompt: bool) -> Prompt:
    """`<|start|>{author}[<|channel|>final]<|message|>{content}<|end|>`, as openai-harmony renders
    plain text messages (assistant replies in the final channel), then `<|start|>assistant`."""
    out = PromptBuilder(joined=True)
    for index, message in enumerate(messages):
        out.control("<|start|>", index)
        if message.role == "tool":
            if not message.name:
                raise ChatError(f"harmony: message {index} is a tool result without a \"name\"; harmony "
                                "addresses tools by name, e.g. \"name\": \"functions.get_weather\"")
            out.text(message.name, index)
        else:
            out.text(message.role, index)
        if message.role == "assistant":
            out.control("<|channel|>", index)
            out.text("final", index)
        out.control("<|message|>", index)
        out.text(message.content, index, content=True)
        out.control("<|end|>", index)
    if generation_prompt:
        out.control("<|start|>")
        out.text("assistant")
    return out.build("harmony", _roles(messages))


def render_plain(messages: Sequence[Message], generation_prompt: bool) -> Prompt:
    """`{role}: {content}` a line each, then `assistant:`: the conversation as a base model would
    read it, with no control token the vocabulary might lack."""
    out = PromptBuilder(joined=True)
    for index, message in enumerate(messages):
        out.text(f"{message.role}: ", index)
        out.text(message.content, index, content=True)
        out.text("\n", index)
    if generation_prompt:
        out.text("assistant:")
    return out.build("plain", _roles(messages), whole=True)


BUILTIN: dict[str, ChatTemplate] = {template.name: template for template in [
    ChatTemplate("chatml", "ChatML: Qwen, OpenAI (<|im_start|>role ... <|im_end|>)", render_chatml),
    ChatTemplate("llama3", "Llama 3.x (llama-models ChatFormat)", render_llama3,
                 "<|begin_of_text|>", "<|end_of_text|>"),
    ChatTemplate("llama4", "Llama 4 (llama-models ChatFormat)", render_llama4,
                 "<|begin_of_text|>", "<|end_of_text|>"),
    ChatTemplate("mistral-v3", "Mistral instruct v3, SentencePiece (mistral-common)", render_mistral_v3,
                 "<s>", "</s>", implicit_prompt=True),
    ChatTemplate("mistral-v7", "Mistral instruct v7 with [SYSTEM_PROMPT] (mistral-common)", render_mistral_v7,
                 "<s>", "</s>", implicit_prompt=True),
    # the rules of v3, which both bundled Tekken files declare; a Tekken v7 model takes mistral-v7
    ChatTemplate("mistral-tekken", "Mistral instruct v3 on Tekken: Nemo, Pixtral (mistral-common)",
                 render_mistral_tekken, "<s>", "</s>", implicit_prompt=True),
    ChatTemplate("harmony", "gpt-oss harmony (openai-harmony)", render_harmony),
    ChatTemplate("plain", "Plain text, no control tokens (role: content lines)", render_plain),
]}
