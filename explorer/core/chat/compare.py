"""The same conversation under two templates or two tokenizers, side by side.

What differs is mostly where the tokens go: a template's own tokens (headers, control tokens)
cost on every turn, a tokenizer's text cost shows in each message. So the comparison counts, for
each message, the tokens of its content and of the template around it, in each rendering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.core.chat.messages import Message
from explorer.core.chat.templates import ChatResult, default_template, encode_chat
from explorer.core.errors import ChatError
from explorer.core.sources.tokenizer import Tokenizer


@dataclass(frozen=True, slots=True)
class MessageCost:
    """Tokens one message takes in one rendering: of its own text, of the template's around it."""

    content: int
    template: int
    control: int  # of the template's: control tokens

    @property
    def total(self) -> int:
        return self.content + self.template


@dataclass(frozen=True)
class ChatComparison:
    results: tuple[ChatResult, ...]
    labels: tuple[str, ...]  # "tokenizer / template" of each result

    def costs(self, result: ChatResult, messages: int) -> list[MessageCost]:
        """Per message, then a last entry for what belongs to no message (BOS, generation prompt)."""
        tokens, segments = result.encoding.tokens, result.prompt.segments
        owner = np.asarray([messages if s.message is None else s.message for s in segments], np.int64)[tokens.segments]
        content = np.asarray([s.content for s in segments], bool)[tokens.segments] & ~tokens.control
        rows = messages + 1
        counts = np.bincount(owner[content], minlength=rows)
        template = np.bincount(owner[~content], minlength=rows)
        control = np.bincount(owner[tokens.control], minlength=rows)
        return [MessageCost(*row) for row in zip(counts.tolist(), template.tolist(), control.tolist())]

    def table(self, messages: int) -> list[tuple[str, list[MessageCost]]]:
        return [(label, self.costs(result, messages)) for label, result in zip(self.labels, self.results)]


def compare_chats(messages: Sequence[Message], sides: Sequence[tuple[Tokenizer, str | None]],
                  generation_prompt: bool = False) -> ChatComparison:
    """Render and encode `messages` once per (tokenizer, template) side (None: its own template)."""
    results = tuple(encode_chat(messages, tokenizer, template, generation_prompt) for tokenizer, template in sides)
    labels = tuple(f"{tokenizer.name} / {result.template}" for (tokenizer, _), result in zip(sides, results))
    return ChatComparison(results, labels)


def compared_template(template: str | None, other: Tokenizer | None, first: str | None,
                      tokenizer: Tokenizer) -> str | None:
    """The compared side's template: the one asked for; else another tokenizer's own (or, if it
    has none, the first side's); else the first side's (`first`, None for `tokenizer`'s own)."""
    if template is not None:
        return template
    if other is not None:
        try:
            return default_template(other)
        except ChatError:
            pass
    return first if first is not None or other is None else default_template(tokenizer)
