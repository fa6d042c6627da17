"""Chat prompts: messages rendered by a chat template into text and control tokens, then encoded.

`encode_chat(messages, tokenizer, template)` is the entry point; the formats are in builtin.py, a
Hugging Face `chat_template` in hf_template.py, the encoding and the findings in encode.py.
"""

from __future__ import annotations

from explorer.core.chat.builtin import BUILTIN, ChatTemplate
from explorer.core.chat.encode import CHAT_KINDS, ChatEncoding, ChatToken, encode_prompt
from explorer.core.chat.messages import ROLES, Message, load_messages, parse_messages
from explorer.core.chat.prompt import Prompt, Segment
from explorer.core.chat.templates import (ChatResult, default_template, encode_chat, resolve_template,
                                         starting_template)

__all__ = ["BUILTIN", "CHAT_KINDS", "ROLES", "ChatEncoding", "ChatResult", "ChatTemplate", "ChatToken", "Message",
           "Prompt", "Segment", "default_template", "encode_chat", "encode_prompt", "load_messages",
           "parse_messages", "resolve_template", "starting_template"]
