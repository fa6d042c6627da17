"""The reference chat formats and tokenizers the chat tests compare with, built from the files the
reference packages ship (llama-models, mistral-common, openai-harmony), so no test needs the network.

Our side of each comparison is one of our own Tokenizer objects built from the same file; the
bundled names (llama3, tekken, ...) come from other branches, so the tests build them here.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from explorer.core.chat.messages import Message
from explorer.core.formats import tiktoken_file
from explorer.core.sources.tiktoken_tokenizer import TiktokenTokenizer

ENCODINGS = Path(__file__).resolve().parents[2] / "resources" / "encodings"


def need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"the reference package {module} is not installed (pip install -e '.[test]')")


def package_file(module: str, *parts: str) -> Path:
    need(module)
    spec = importlib.util.find_spec(module)
    return Path(spec.origin).parent.joinpath(*parts)  # type: ignore[union-attr, arg-type]


# Our tokenizers, from the reference files

def llama_tokenizer(version: str) -> TiktokenTokenizer:
    """`llama3` / `llama4`: llama-models' tokenizer.model with its pattern and special tokens."""
    need("llama_models")
    if version == "llama3":
        from llama_models.llama3.tokenizer import Tokenizer as Reference
    else:
        from llama_models.llama4.tokenizer import Tokenizer as Reference
    path = package_file("llama_models", version, "tokenizer.model")
    reference = Reference(path)
    pattern = reference.model._pat_str
    ranks = tiktoken_file.read_ranks(path)
    return TiktokenTokenizer(ranks, pattern, dict(reference.special_tokens), version, str(path))


HARMONY_SPECIALS = {"<|startoftext|>": 199998, "<|endoftext|>": 199999, "<|return|>": 200002,
                    "<|constrain|>": 200003, "<|channel|>": 200005, "<|start|>": 200006, "<|end|>": 200007,
                    "<|message|>": 200008, "<|call|>": 200012, "<|endofprompt|>": 200018}


def harmony_tokenizer() -> TiktokenTokenizer:
    """tiktoken's o200k_harmony: o200k_base's ranks with the gpt-oss special tokens."""
    path = ENCODINGS / "o200k_base.tiktoken"
    specials = HARMONY_SPECIALS | {f"<|reserved_{i}|>": i for i in (200000, 200001, 200004, 200009, 200010, 200011)}
    specials |= {f"<|reserved_{i}|>": i for i in range(200013, 201088) if i != 200018}
    return TiktokenTokenizer(tiktoken_file.read_ranks(path), "o200k", specials, "o200k_harmony", str(path))


CHATML_SPECIALS = {"<|endoftext|>": 100257, "<|im_start|>": 100264, "<|im_end|>": 100265}


def chatml_tokenizer() -> TiktokenTokenizer:
    """cl100k_base with the ChatML tokens at OpenAI's ids (as in ChatGPT's cl100k_im)."""
    path = ENCODINGS / "cl100k_base.tiktoken"
    return TiktokenTokenizer(tiktoken_file.read_ranks(path), "cl100k", CHATML_SPECIALS, "cl100k_chatml", str(path))


def tekken_tokenizer(file: str = "tekken_240718.json") -> TiktokenTokenizer:
    """A Tekken JSON as a tiktoken encoding: ranks shifted past the special-token block, as
    mistral-common's Tekkenizer shifts them."""
    need("mistral_common")
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = package_file("mistral_common", "data", file)
    reference = Tekkenizer.from_file(path)
    offset = reference.num_special_tokens
    mergeable = reference._model._mergeable_ranks
    ranks = {data: rank + offset for data, rank in mergeable.items()}
    vocab = [b""] * (max(ranks.values()) + 1)
    for data, rank in ranks.items():
        vocab[rank] = data
    specials = {str(token["token_str"]): token["rank"] for token in reference._all_special_tokens}
    rank_file = tiktoken_file.RankFile(ranks, vocab, hashlib.sha256(path.read_bytes()).hexdigest())
    return TiktokenTokenizer(rank_file, reference._model._pat_str, specials, "tekken", str(path))


# The references

def mistral_reference(file: str) -> Any:
    need("mistral_common")
    if file.endswith((".v3", ".v7")):
        need("sentencepiece")
    from mistral_common.protocol.instruct.validator import ValidationMode
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    return MistralTokenizer.from_file(package_file("mistral_common", "data", file), mode=ValidationMode.agnostic)


def mistral_ids(reference: Any, messages: list[Message]) -> list[int]:
    """mistral-common's `encode_chat_completion` on the same conversation."""
    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    request = ChatCompletionRequest(messages=[kinds[m.role](content=m.content) for m in messages])
    return reference.encode_chat_completion(request).tokens


def mistral_piece_ids(reference: Any, prompt: Any) -> list[int]:
    """Our segments encoded by mistral-common's own text tokenizer, piece by piece: equal to its
    `encode_chat_completion` exactly when the segments are cut where mistral-common cuts."""
    raw = reference.instruct_tokenizer.tokenizer
    return _piece_ids(prompt, lambda text: raw.encode(text, bos=False, eos=False), raw.get_special_token)


def _piece_ids(prompt: Any, encode_text: Any, control_id: Any) -> list[int]:
    from itertools import groupby
    ids: list[int] = []
    for (_, control), run in groupby(prompt.segments, key=lambda s: (s.piece, s.control)):
        text = "".join(segment.text for segment in run)
        ids.extend([control_id(text)] if control else encode_text(text))
    return ids


def llama3_reference_ids(messages: list[Message], generation_prompt: bool) -> list[int]:
    """llama-models' llama3 `ChatFormat`: `encode_dialog_prompt` (which always ends with the
    assistant header), or BOS and `encode_message` of each message without it."""
    need("llama_models")
    from llama_models.datatypes import RawMessage, ToolPromptFormat
    from llama_models.llama3.chat_format import ChatFormat
    from llama_models.llama3.tokenizer import Tokenizer

    chat = ChatFormat(Tokenizer(package_file("llama_models", "llama3", "tokenizer.model")))
    raw = [RawMessage(role=m.role, content=m.content) for m in messages]
    if generation_prompt:
        return chat.encode_dialog_prompt(raw).tokens
    ids = [chat.tokenizer.special_tokens["<|begin_of_text|>"]]
    for message in raw:
        ids += chat.encode_message(message, ToolPromptFormat.json)[0]
    return ids


def llama4_reference_ids(messages: list[Message], generation_prompt: bool) -> list[int]:
    """llama-models' llama4 `ChatFormat`, written out from llama_models/llama4/chat_format.py (the
    module imports torch for images, which the tests do not install): BOS; per message
    `<|header_start|>` role (tool -> ipython) `<|header_end|>` "\\n\\n" content, then `<|eom|>` for a
    tool message (and an assistant one ending a tool call), else `<|eot|>`; the assistant header last."""
    need("llama_models")
    from llama_models.llama4.tokenizer import Tokenizer

    tokenizer = Tokenizer(package_file("llama_models", "llama4", "tokenizer.model"))
    special = tokenizer.special_tokens

    def header(role: str) -> list[int]:
        return [special["<|header_start|>"], *tokenizer.encode("ipython" if role == "tool" else role, bos=False,
                                                                eos=False),
                special["<|header_end|>"], *tokenizer.encode("\n\n", bos=False, eos=False)]

    ids = [special["<|begin_of_text|>"]]
    for message in messages:
        ids += header(message.role) + tokenizer.encode(message.content, bos=False, eos=False)
        ids.append(special["<|eom|>" if message.role == "tool" else "<|eot|>"])
    return ids + (header("assistant") if generation_prompt else [])


def harmony_reference_ids(messages: list[Message], generation_prompt: bool, monkeypatch: Any) -> list[int]:
    """openai-harmony's renderer, reading o200k_base from our bundled copy instead of the network."""
    need("openai_harmony")
    monkeypatch.setenv("TIKTOKEN_ENCODINGS_BASE", str(ENCODINGS))
    import openai_harmony as h

    encoding = h.load_harmony_encoding(h.HarmonyEncodingName.HARMONY_GPT_OSS)
    converted = []
    for message in messages:
        if message.role == "tool":
            converted.append(h.Message.from_author_and_content(h.Author.new(h.Role.TOOL, message.name),
                                                               message.content))
        else:
            item = h.Message.from_role_and_content(h.Role(message.role), message.content)
            converted.append(item.with_channel("final") if message.role == "assistant" else item)
    conversation = h.Conversation.from_messages(converted)
    if generation_prompt:
        return list(encoding.render_conversation_for_completion(conversation, h.Role.ASSISTANT))
    return list(encoding.render_conversation(conversation))


def qwen_chatml_ids(encode: Any, messages: list[Message], generation_prompt: bool) -> tuple[str, list[int]]:
    """Qwen's published ChatML (Qwen docs, "chat format"), written out: each message is
    `<|im_start|>{role}\\n{content}<|im_end|>\\n`, the prompt for an answer `<|im_start|>assistant\\n`;
    transformers then tokenizes the rendered string with the control tokens read as such."""
    text = "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages)
    text += "<|im_start|>assistant\n" if generation_prompt else ""
    return text, encode(text)
