"""A Hugging Face `chat_template` (from a model's tokenizer_config.json) rendered as transformers does.

transformers compiles the template in Jinja2's immutable sandbox with `trim_blocks` and
`lstrip_blocks`, gives it `raise_exception`, `strftime_now` and a `tojson` that keeps non-ASCII,
and passes the messages, `add_generation_prompt` and the special tokens (`bos_token`, ...) from the
config. The sandbox matters: a template is code from the internet, and it must not reach Python.
The rendered string is then cut into segments: each message's span is found by rendering the
conversation one message longer each time, its content inside that span, and the tokenizer's
special-token strings outside contents are control tokens.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2
import jinja2.ext

from explorer.core.algorithms.incremental import special_finder
from explorer.core.chat.messages import Message
from explorer.core.chat.prompt import Prompt, PromptBuilder
from explorer.core.chat.template_sandbox import RENDER_SECONDS, Sandbox, check_as_text, check_size, deadline
from explorer.core.errors import ChatError
from explorer.core.files import UnusableJSON, json_document
from explorer.core.sources.tokenizer import Tokenizer

_MARKER = re.compile("\ue000(\\d+)\ue001")  # a message's content, in a rendering that locates contents
SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token")


class _Generation(jinja2.ext.Extension):
    """transformers' `{% generation %}` block (it marks the assistant's tokens for training masks);
    rendering only needs its body."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller: Any) -> str:
        return str(caller())


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | str | None = None,
            separators: Any = None, sort_keys: bool = False) -> str:
    check_size(len(indent) if isinstance(indent, str) else indent or 0, 1 << 10, "an indent of over {:,}")
    check_as_text(value)
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


class HFChatTemplate:
    """A tokenizer_config.json's chat template with the special tokens it is rendered with."""

    def __init__(self, source: str, template: str, special: dict[str, str]) -> None:
        self.source = source
        self.special = special
        environment = Sandbox(trim_blocks=True, lstrip_blocks=True, extensions=[_Generation, jinja2.ext.loopcontrols])
        environment.filters["tojson"] = _tojson
        environment.globals["raise_exception"] = _raise_exception
        environment.globals["strftime_now"] = lambda format: datetime.now().strftime(format)
        try:
            self._template = environment.from_string(template)
        except jinja2.TemplateSyntaxError as exc:
            raise ChatError(f"{source}: the chat_template is not valid Jinja (line {exc.lineno}: {exc.message})") \
                from None
        except Exception as exc:  # (Jinja works out constant parts while compiling: {{ 1/0 }})
            raise ChatError(f"{source}: the chat_template cannot be compiled ({type(exc).__name__}: {exc})") from None

    @property
    def bos(self) -> str | None:
        return self.special.get("bos_token") or None

    @property
    def eos(self) -> str | None:
        return self.special.get("eos_token") or None

    @classmethod
    def from_config(cls, path: str | Path) -> HFChatTemplate:
        """The `chat_template` of a tokenizer_config.json (the "default" one of a named list)."""
        try:
            config = json_document(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ChatError(f"{path}: cannot read it as a tokenizer_config.json ({exc})") from None
        except UnusableJSON as exc:
            raise ChatError(f"{path}: {exc}") from None
        template = config.get("chat_template") if isinstance(config, dict) else None
        if isinstance(template, list):  # [{"name": "default", "template": ...}, {"name": "tool_use", ...}]
            named = {item.get("name"): item.get("template") for item in template if isinstance(item, dict)}
            template = named.get("default", next(iter(named.values()), None))
        if not isinstance(template, str):
            raise ChatError(f"{path}: has no chat_template")
        if not template.strip():  # (it would render every conversation as nothing, without a word)
            raise ChatError(f"{path}: its chat_template is empty; give the model's template")
        special = {}
        for key in SPECIAL_KEYS:
            value = config.get(key)
            if isinstance(value, dict):  # an AddedToken written out: {"content": "<s>", ...}
                value = value.get("content")
            if isinstance(value, str):
                special[key] = value
        return cls(str(path), template, special)

    def render_string(self, messages: Sequence[Message], generation_prompt: bool) -> str:
        deadline.at, deadline.seconds = time.monotonic() + RENDER_SECONDS, RENDER_SECONDS
        try:
            return self._template.render(messages=[m.as_dict() for m in messages], tools=None, documents=None,
                                         add_generation_prompt=generation_prompt, **self.special)
        except jinja2.exceptions.SecurityError as exc:
            raise ChatError(f"{self.source}: the chat_template tried something the sandbox forbids ({exc})") \
                from None
        except jinja2.exceptions.UndefinedError as exc:  # a name the template expects and nobody gives
            raise ChatError(f"{self.source}: the chat_template failed on this conversation ({exc})") from None
        except jinja2.exceptions.TemplateError as exc:  # raise_exception("...") in the template
            raise ChatError(f"{self.source}: the chat_template refused this conversation: {exc}") from None
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:  # a template's own bug
            raise ChatError(f"{self.source}: the chat_template failed on this conversation ({exc})") from None
        except (ArithmeticError, RecursionError, MemoryError) as exc:  # {{ x / 0 }}, a macro calling itself
            raise ChatError(f"{self.source}: the chat_template failed on this conversation "
                            f"({type(exc).__name__}: {exc})") from None
        finally:
            deadline.at = float("inf")

    def render(self, messages: Sequence[Message], generation_prompt: bool, tokenizer: Tokenizer) -> Prompt:
        """Segments of the rendered string: message spans, contents, and control tokens."""
        text = self.render_string(messages, generation_prompt)
        spans = self._message_spans(messages, text, generation_prompt)
        finder = special_finder(tokenizer)
        out = PromptBuilder(joined=True)

        def template_text(part: str, owner: int | None) -> None:
            position = 0
            for match in finder.finditer(part) if finder is not None else ():
                out.text(part[position:match.start()], owner)
                out.control(match.group(), owner)
                position = match.end()
            out.text(part[position:], owner)

        contents = self._content_spans(messages, generation_prompt, text)
        position = 0
        for owner, (start, end) in enumerate(spans):
            template_text(text[position:start], None)
            content = contents[owner] if contents is not None else None
            if content is None or not start <= content[0] <= content[1] <= end:
                content = _find_content(text, start, end, messages[owner].content)
            template_text(text[start:content[0]], owner)
            out.text(text[content[0]:content[1]], owner, content=True)
            template_text(text[content[1]:end], owner)
            position = end
        template_text(text[position:], None)
        return out.build(f"hf:{self.source}", tuple(m.role for m in messages), whole=True)

    def _content_spans(self, messages: Sequence[Message], generation_prompt: bool,
                       text: str) -> list[tuple[int, int] | None] | None:
        """Where each message's content is in `text`: rendered again with a marker for each content,
        the markers replaced by the contents (as given, or trimmed, as `| trim` does) must give
        `text` back; then the markers say exactly where each content went. None if they do not
        (a template that looks inside the content), and None for a message it leaves out."""
        marked = [Message(m.role, f"\ue000{i}\ue001", m.name) for i, m in enumerate(messages)]
        try:
            parts = _MARKER.split(self.render_string(marked, generation_prompt))
        except ChatError:
            return None
        for shape in (str, str.strip):
            spans: list[tuple[int, int] | None] = [None] * len(messages)
            rebuilt = [parts[0]]
            length = len(parts[0])
            for number in range(1, len(parts), 2):
                index = int(parts[number])
                content = shape(messages[index].content)
                if spans[index] is None:
                    spans[index] = (length, length + len(content))
                rebuilt += [content, parts[number + 1]]
                length += len(content) + len(parts[number + 1])
            if "".join(rebuilt) == text:
                return spans
        return None

    def _message_spans(self, messages: Sequence[Message], text: str,
                       generation_prompt: bool) -> list[tuple[int, int]]:
        """Where each message's part of `text` is: how much the rendering grows when the conversation
        grows by that message. A template not built message by message (it moves the system prompt,
        or refuses a conversation cut short) falls back to "up to the end of its content"."""
        spans: list[tuple[int, int]] = []
        previous = self._prefix_end([], text) or 0  # what the template writes for no message (a BOS)
        for count in range(1, len(messages) + 1):
            if count == len(messages) and not generation_prompt:
                end: int | None = len(text)
            else:
                end = self._prefix_end(messages[:count], text)
            if end is None or end < previous:
                end = _content_end(text, previous, messages[count - 1].content)
            spans.append((previous, end))
            previous = end
        return spans

    def _prefix_end(self, messages: Sequence[Message], text: str) -> int | None:
        try:
            shorter = self.render_string(messages, False)
        except ChatError:
            return None
        return len(shorter) if text.startswith(shorter) else None


def _find_content(text: str, start: int, end: int, content: str) -> tuple[int, int]:
    """The content inside a message's span: as given, else trimmed (templates often `| trim`)."""
    for candidate in (content, content.strip()):
        if candidate:
            found = text.find(candidate, start, end)
            if found >= 0:
                return found, found + len(candidate)
    return start, start


def _content_end(text: str, start: int, content: str) -> int:
    """Where a message ends when renderings cannot say: just after its content."""
    for candidate in (content, content.strip()):
        found = text.find(candidate, start) if candidate else -1
        if found >= 0:
            return found + len(candidate)
    return start
