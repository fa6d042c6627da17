"""A rendered chat prompt: text pieces and the control tokens a template puts between them.

A template does not produce one string to tokenize: the reference implementations encode it piece by
piece (llama-models encodes the role, "\\n\\n" and the content apart; mistral-common encodes each
message apart, which matters for SentencePiece's dummy prefix), or, as transformers does, encode
the text between two control tokens as one string. So a prompt is a list of segments, each saying
which encoding unit (`piece`) it belongs to and which message it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Segment:
    """One part of a rendered prompt.

    `control` is a token the template inserts by its special id (its `text` is the token's string);
    otherwise the text is encoded as plain text, together with the segments of the same `piece`.
    `message` is the index of the message it belongs to (None for what the template adds on its own:
    the BOS, the generation prompt); `content` says the text is the message's own, not the template's.
    """

    text: str
    control: bool = False
    message: int | None = None
    content: bool = False
    piece: int = 0


@dataclass(frozen=True)
class Prompt:
    """The segments of one conversation rendered by one template."""

    template: str
    segments: tuple[Segment, ...]
    roles: tuple[str, ...] = field(default=())  # the role of each message, by index
    # The reference tokenizes the rendered string in one go, control strings read as control tokens
    # (transformers' apply_chat_template): with a SentencePiece-style tokenizer.json ("prepend ▁ to
    # the first split only") that differs from encoding each run between control tokens apart.
    whole: bool = False

    @property
    def starts(self) -> list[int]:
        """The character offset of each segment in `text`."""
        starts, offset = [], 0
        for segment in self.segments:
            starts.append(offset)
            offset += len(segment.text)
        return starts

    @property
    def text(self) -> str:
        """The prompt as one string, control tokens written as their strings."""
        return "".join(segment.text for segment in self.segments)

    def role(self, segment: Segment) -> str | None:
        return self.roles[segment.message] if segment.message is not None else None


class PromptBuilder:
    """Collects segments; `joined` puts all text between two control tokens into one piece (as
    transformers tokenizes a rendered template), otherwise each `text` call starts a new piece unless
    it says `join=True`."""

    def __init__(self, joined: bool = False) -> None:
        self.joined = joined
        self.segments: list[Segment] = []
        self._piece = 0
        self._open = False  # the last segment is text that the next text may join

    def control(self, token: str, message: int | None = None) -> None:
        self._piece += 1
        self.segments.append(Segment(token, True, message, False, self._piece))
        self._open = False

    def text(self, text: str, message: int | None = None, content: bool = False, join: bool = False) -> None:
        if not (self._open and (join or self.joined)):
            self._piece += 1
        self._open = True
        if text:
            self.segments.append(Segment(text, False, message, content, self._piece))

    def build(self, template: str, roles: tuple[str, ...], whole: bool = False) -> Prompt:
        return Prompt(template, tuple(self.segments), roles, whole)
