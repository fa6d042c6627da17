"""Which chat template a tokenizer uses, and the one entry point that renders and encodes a chat.

A template is named (`chatml`, `llama3`, ... see `BUILTIN`), or `hf` for the tokenizer's own
tokenizer_config.json `chat_template`, `hf:ORG/NAME` for a model's in the Hugging Face cache, or a
path to a tokenizer_config.json. With no name, the tokenizer's own family is chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.core.analysis.findings import Finding
from explorer.core.chat.builtin import BUILTIN, ChatTemplate
from explorer.core.chat.encode import ChatEncoding, chat_findings, encode_prompt
from explorer.core.chat.hf_template import HFChatTemplate
from explorer.core.chat.messages import Message
from explorer.core.chat.prompt import Prompt
from explorer.core.errors import ChatError
from explorer.core.sources.hf_cache import HF_PREFIX, find_model
from explorer.core.sources.tokenizer import Tokenizer

Template = ChatTemplate | HFChatTemplate

# Bundled tokenizers -> their family's format.
BY_TOKENIZER = {"llama3": "llama3", "llama4": "llama4", "tekken": "mistral-tekken", "tekken_240718": "mistral-tekken",
                "tekken_240911": "mistral-tekken", "o200k_harmony": "harmony", "qwen": "chatml",
                "mistral_v3": "mistral-v3", "mistral_v7": "mistral-v7"}
# Otherwise, the control tokens a vocabulary has say which format it was trained on (checked in order).
BY_SPECIALS = [(("<|start|>", "<|message|>", "<|channel|>"), "harmony"),
               (("<|header_start|>", "<|header_end|>"), "llama4"),
               (("<|start_header_id|>", "<|end_header_id|>"), "llama3"),
               (("[INST]", "[SYSTEM_PROMPT]"), "mistral-v7"),
               (("[INST]", "[/INST]"), "mistral-v3"),
               (("<|im_start|>", "<|im_end|>"), "chatml")]
# A tokenizer with no chat format starts on `plain`; where a sibling vocabulary has one, the note names it.
PLAIN = "plain"
SIBLINGS = {"o200k_base": "gpt-oss uses o200k_harmony",
            "cl100k_base": "ChatGPT added <|im_start|> and <|im_end|> to it for ChatML",
            "r50k_base": "GPT-2 and GPT-3 were base models"}


@dataclass(frozen=True)
class ChatResult:
    template: str
    encoding: ChatEncoding
    findings: tuple[Finding, ...]

    @property
    def prompt(self) -> Prompt:
        return self.encoding.prompt


def template_names() -> list[str]:
    return [*BUILTIN, "hf"]


def own_config(tokenizer: Tokenizer) -> Path | None:
    """The tokenizer_config.json beside a tokenizer.json, if it has a chat_template."""
    source = Path(tokenizer.source) if tokenizer.source else None
    if source is None or source.name != "tokenizer.json":
        return None
    config = source.with_name("tokenizer_config.json")
    try:
        return config if config.is_file() and "chat_template" in config.read_text(encoding="utf-8") else None
    except (OSError, UnicodeDecodeError):
        return None


def default_template(tokenizer: Tokenizer) -> str:
    """The template the tokenizer's model was trained with, as far as its name and vocabulary say."""
    if tokenizer.name in BY_TOKENIZER:
        return BY_TOKENIZER[tokenizer.name]
    if own_config(tokenizer) is not None:
        return "hf"
    if "tekken" in tokenizer.name.lower():  # a Tekken file has [SYSTEM_PROMPT] whatever its version
        return "mistral-tekken"
    specials = tokenizer.special_tokens
    for needed, name in BY_SPECIALS:
        if all(token in specials for token in needed):
            return name
    raise ChatError(f"no chat template is known for {tokenizer.name}; choose one with --template "
                    f"({', '.join(template_names())}, hf:ORG/NAME or a tokenizer_config.json)")


def starting_template(tokenizer: Tokenizer) -> tuple[str, str]:
    """The template to show first, and why when it is not the tokenizer's own: its own if it has
    one, else `plain`, so a first look never shows control tokens the vocabulary lacks.

    >>> from explorer.core.sources.load import load_tokenizer
    >>> starting_template(load_tokenizer("o200k_base"))
    ('plain', 'o200k_base has no chat tokens; gpt-oss uses o200k_harmony')
    """
    try:
        return default_template(tokenizer), ""
    except ChatError:
        sibling = SIBLINGS.get(tokenizer.name)
        reason = f"; {sibling}" if sibling else ": its messages are shown as plain text"
        return PLAIN, f"{tokenizer.name} has no chat tokens{reason}"


def resolve_template(name: str | None, tokenizer: Tokenizer) -> Template:
    name = default_template(tokenizer) if name is None else name
    if name in BUILTIN:
        return BUILTIN[name]
    if name == "hf":
        config = own_config(tokenizer)
        if config is None:
            raise ChatError(f"{tokenizer.name} has no tokenizer_config.json with a chat_template beside it; "
                            f"choose one of {', '.join(BUILTIN)}")
        return HFChatTemplate.from_config(config)
    if name.startswith(HF_PREFIX):
        model = find_model(name)
        if model is None:
            raise ChatError(f"{name}: no such model in the Hugging Face cache")
        config = model.path.with_name("tokenizer_config.json")
        if not config.is_file():
            raise ChatError(f"{name}: the cached model has no tokenizer_config.json")
        return HFChatTemplate.from_config(config)
    if Path(name).is_file():
        return HFChatTemplate.from_config(name)
    raise ChatError(f"unknown chat template {name!r}; choose one of {', '.join(template_names())}, "
                    "hf:ORG/NAME or the path of a tokenizer_config.json")


def render_chat(template: Template, messages: Sequence[Message], tokenizer: Tokenizer,
                generation_prompt: bool = False) -> Prompt:
    if isinstance(template, HFChatTemplate):
        return template.render(messages, generation_prompt, tokenizer)
    return template.render(messages, generation_prompt)


def encode_chat(messages: Sequence[Message], tokenizer: Tokenizer, template: str | None = None,
                generation_prompt: bool = False) -> ChatResult:
    """Render `messages` with `template` (default: the tokenizer's own) and encode them, with findings.

    >>> from explorer.core.sources.load import load_tokenizer
    >>> result = encode_chat([Message("user", "Hi")], load_tokenizer("cl100k_base"), "chatml")
    >>> result.prompt.text
    '<|im_start|>user\\nHi<|im_end|>\\n'
    """
    chosen = resolve_template(template, tokenizer)
    prompt = render_chat(chosen, messages, tokenizer, generation_prompt)
    encoding = encode_prompt(prompt, tokenizer)
    implicit = isinstance(chosen, ChatTemplate) and chosen.implicit_prompt and bool(messages) \
        and messages[-1].role == "user"
    findings = chat_findings(encoding, tokenizer, chosen.bos, chosen.eos, generation_prompt or implicit)
    name = chosen.name if isinstance(chosen, ChatTemplate) else prompt.template
    return ChatResult(name, encoding, tuple(findings))
