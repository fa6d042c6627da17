"""The messages of a conversation, as a chat API takes them: a role and a text content.

A messages file is a JSON list of `{"role": ..., "content": ...}` objects (an optional `"name"` names a
tool, as gpt-oss's harmony format needs). Every problem is one line that says which message and what to fix.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from explorer.core.corpora.corpus import read_text_file
from explorer.core.errors import ChatError, CorpusError
from explorer.core.files import UnusableJSON, json_document

ROLES = ("system", "user", "assistant", "tool")


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: str
    name: str | None = None  # the tool's name, for formats that address tools by name

    def as_dict(self) -> dict[str, str]:
        """The message as chat templates and APIs take it."""
        message = {"role": self.role, "content": self.content}
        if self.name is not None:
            message["name"] = self.name
        return message


def parse_messages(document: Any, source: str = "messages") -> list[Message]:
    """Check a decoded JSON document and return its messages.

    >>> parse_messages([{"role": "user", "content": "Hi"}])
    [Message(role='user', content='Hi', name=None)]
    """
    if not isinstance(document, list):
        raise ChatError(f"{source}: expected a JSON list of {{\"role\", \"content\"}} objects, "
                        f"found {_json_kind(document)}")
    messages = []
    for index, item in enumerate(document):
        where = f"{source}: message {index}"
        if not isinstance(item, dict):
            raise ChatError(f"{where}: expected an object with \"role\" and \"content\", found {_json_kind(item)}")
        unknown = sorted(set(item) - {"role", "content", "name"})
        if unknown:
            raise ChatError(f"{where}: unknown key {unknown[0]!r}; a message has \"role\", \"content\" "
                            "and, for a tool, \"name\"")
        role, content, name = item.get("role"), item.get("content"), item.get("name")
        if role is None:
            raise ChatError(f"{where}: no \"role\"; give one of {', '.join(ROLES)}")
        if role not in ROLES:
            raise ChatError(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
        if not isinstance(content, str):
            raise ChatError(f"{where}: \"content\" must be a string, found {_json_kind(content)}")
        if name is not None and not isinstance(name, str):
            raise ChatError(f"{where}: \"name\" must be a string, found {_json_kind(name)}")
        messages.append(Message(role, content, name))
    if not messages:
        raise ChatError(f"{source}: the list is empty; give at least one message")
    return messages


def load_messages(path: str | os.PathLike[str]) -> list[Message]:
    """The messages in a JSON file; a missing, non-UTF-8 or broken file is one clear ChatError."""
    try:  # refuses a FIFO or device unread, a NUL byte or invalid UTF-8 with its offset
        text = read_text_file(path).removeprefix("\ufeff")  # a BOM from a Windows editor is not JSON
    except CorpusError as exc:
        raise ChatError(str(exc)) from None
    try:
        document = json_document(text)
    except json.JSONDecodeError as exc:
        raise ChatError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except UnusableJSON as exc:
        raise ChatError(f"{path}: {exc}") from None
    return parse_messages(document, str(path))


def _json_kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number")
