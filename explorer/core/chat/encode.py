"""A rendered prompt as token ids: control tokens by their special ids, text as plain text.

Text typed in a message is never read as a control token, even when it spells one (`<|im_end|>` in
a user message): it is encoded as text, and a finding shows both readings. A control token the
tokenizer does not have (a template of another family) is encoded as text too, and said so.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

import numpy as np

from explorer.core.algorithms.incremental import SPECIAL, encode_stream, special_finder
from explorer.core.analysis.findings import SPECIAL_STRING, TRAILING_SPACE, Finding, ids_text
from explorer.core.chat.prompt import Prompt, Segment
from explorer.core.chat.tokens import ChatToken, ChatTokens
from explorer.core.sources.tokenizer import SpecialMode, Tokenizer

TWICE = "BOS or EOS twice"
FOREIGN_TEMPLATE = "Template of another tokenizer"
CHAT_KINDS = (SPECIAL_STRING, TWICE, FOREIGN_TEMPLATE, TRAILING_SPACE)


@dataclass(frozen=True)
class ChatEncoding:
    prompt: Prompt
    tokens: ChatTokens  # a sequence of ChatToken
    missing: tuple[str, ...] = ()  # control tokens the tokenizer lacks, encoded as text

    @property
    def ids(self) -> list[int]:
        return self.tokens.ids.tolist()

    def message_of(self, token: ChatToken) -> int | None:
        return self.prompt.segments[token.segment].message


def encode_prompt(prompt: Prompt, tokenizer: Tokenizer) -> ChatEncoding:
    """Encode `prompt` as the template's reference does: each piece on its own, or (`whole`) the
    rendered string in one go when that reads the same control tokens; a control string typed in a
    message, or a control token the tokenizer lacks, makes it piece by piece, as text.

    >>> from explorer.core.chat.builtin import render_chatml
    >>> from explorer.core.chat.messages import Message
    >>> from explorer.core.sources.load import load_tokenizer
    >>> encoding = encode_prompt(render_chatml([Message("user", "Hi")], False), load_tokenizer("cl100k_base"))
    >>> encoding.missing  # cl100k_base has no ChatML tokens: they are spelled out as text
    ('<|im_start|>', '<|im_end|>')
    """
    specials = tokenizer.special_tokens
    starts = prompt.starts
    missing = tuple(dict.fromkeys(s.text for s in prompt.segments if s.control and s.text not in specials))
    if prompt.whole and not missing and not _typed(prompt, tokenizer):
        return ChatEncoding(prompt, _encode_whole(prompt, tokenizer, starts), ())
    parts: list[ChatTokens] = []
    numbered = list(enumerate(prompt.segments))
    for _, group in groupby(numbered, key=lambda item: (item[1].piece, item[1].control)):
        run = list(group)
        first, segment = run[0]
        if segment.control and segment.text in specials:
            parts.append(ChatTokens(np.asarray([specials[segment.text]]), np.asarray([starts[first]]),
                                    np.asarray([starts[first] + len(segment.text)]), np.asarray([True]),
                                    np.asarray([first]), tokenizer.token_bytes))
        else:  # text, or a control token this tokenizer lacks
            parts.append(_encode_text(tokenizer, run, starts))
    return ChatEncoding(prompt, ChatTokens.joined(parts, tokenizer.token_bytes), missing)


def _typed(prompt: Prompt, tokenizer: Tokenizer) -> bool:
    """Whether a special-token string is typed in the prompt's text (not put there as a control token)."""
    finder = special_finder(tokenizer)
    return finder is not None and any(finder.search(s.text) for s in prompt.segments if not s.control)


def _columns(tokenizer: Tokenizer, text: str, special: SpecialMode) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                           np.ndarray]:
    """Ids, character starts and ends, and special flags of `text`'s tokens, as `encode_tokens`
    gives them, but in columns (`encode_stream` is the core's column form of `encode_tokens`).
    A tokenizer that does not spell the text (a SentencePiece tokenizer.json) may read text beside
    a special token differently from text alone, so there the rendered string keeps `encode_tokens`."""
    if special != "plain" and not tokenizer.spells_text:
        tokens = tokenizer.encode_tokens(text, special)
        return (np.fromiter((t.id for t in tokens), np.int64, len(tokens)),
                np.fromiter((t.start for t in tokens), np.int64, len(tokens)),
                np.fromiter((t.end for t in tokens), np.int64, len(tokens)),
                np.fromiter((t.special for t in tokens), bool, len(tokens)))
    batches = list(encode_stream(tokenizer, text, special))
    if not batches:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
    ids, starts, ends, flags = (np.concatenate([getattr(batch, name) for batch in batches])
                                for name in ("ids", "starts", "ends", "flags"))
    return ids, starts, ends, (flags & SPECIAL) != 0


def _encode_whole(prompt: Prompt, tokenizer: Tokenizer, starts: list[int]) -> ChatTokens:
    """The rendered string in one go, control strings read as control tokens (as transformers does)."""
    ids, token_starts, token_ends, special = _columns(tokenizer, prompt.text, "allowed")
    # each token goes to the segment its first character is in (segments are never empty)
    segments = np.maximum(np.searchsorted(np.asarray(starts, np.int64), token_starts, side="right") - 1, 0)
    return ChatTokens(ids, token_starts, token_ends, special, segments, tokenizer.token_bytes)


def _encode_text(tokenizer: Tokenizer, run: list[tuple[int, Segment]], starts: list[int]) -> ChatTokens:
    """One piece encoded as plain text; each token goes to the segment its first character is in."""
    text = "".join(segment.text for _, segment in run)
    base = starts[run[0][0]]
    ends = np.asarray([starts[index] - base + len(segment.text) for index, segment in run], np.int64)
    ids, token_starts, token_ends, _ = _columns(tokenizer, text, "plain") if text else (np.zeros(0, np.int64),) * 4
    at = np.minimum(np.searchsorted(ends, token_starts, side="right"), len(run) - 1)
    owners = np.asarray([index for index, _ in run], np.int64)[at]
    return ChatTokens(ids, token_starts + base, token_ends + base, np.zeros(len(ids), bool), owners,
                      tokenizer.token_bytes)


def chat_findings(encoding: ChatEncoding, tokenizer: Tokenizer, bos: str | None = None, eos: str | None = None,
                  generation_prompt: bool = False) -> list[Finding]:
    """What is odd about this prompt: a control string typed in a message (both readings), a BOS
    twice or an EOS twice in a row, control tokens the tokenizer lacks, trailing whitespace where
    the model starts to answer."""
    prompt = encoding.prompt
    findings = _typed_specials(encoding, tokenizer)
    findings += _twice(encoding, tokenizer, bos, eos)
    if encoding.missing:
        shown = ", ".join(encoding.missing[:8]) + (" ..." if len(encoding.missing) > 8 else "")
        findings.append(Finding(FOREIGN_TEMPLATE, 0, len(prompt.text),
                                f"{prompt.template} does not belong to {tokenizer.name}",
                                f"{tokenizer.name} has no control token {shown}: they are encoded as plain text, "
                                "so the model would not see the turns; choose the tokenizer's own template"))
    if generation_prompt:
        findings += _trailing(encoding)
    return findings


def _typed_specials(encoding: ChatEncoding, tokenizer: Tokenizer) -> list[Finding]:
    finder = special_finder(tokenizer)
    if finder is None:
        return []
    prompt, found = encoding.prompt, []
    for segment, start in zip(prompt.segments, prompt.starts):
        if segment.control:
            continue
        for match in finder.finditer(segment.text):
            token = match.group()
            as_text = tokenizer.encode(token, special="plain")
            where = f"message {segment.message} ({prompt.role(segment)})" if segment.message is not None \
                else "the template's text"
            found.append(Finding(SPECIAL_STRING, start + match.start(), start + match.end(),
                                 f"{token} typed in {where}",
                                 f"encoded here as text, {ids_text(tokenizer, as_text)}; read as a control "
                                 f"token it is id {tokenizer.special_tokens[token]}, which is what a tokenizer "
                                 "given the rendered string (transformers' apply_chat_template) does",
                                 (tokenizer.special_tokens[token],)))
    return found


def _twice(encoding: ChatEncoding, tokenizer: Tokenizer, bos: str | None, eos: str | None) -> list[Finding]:
    found = []
    tokens = encoding.tokens
    bos_id = tokenizer.special_tokens.get(bos) if bos else None
    eos_id = tokenizer.special_tokens.get(eos) if eos else None
    if bos_id is not None:
        seen = np.flatnonzero(tokens.ids == bos_id).tolist()
        for index in seen[1:]:
            token = tokens[index]
            found.append(Finding(TWICE, token.start, token.end, f"a second BOS {bos}",
                                 f"{bos} (id {bos_id}) appears {len(seen)} times; the model was trained with one, "
                                 "at the start (a template that writes it and a tokenizer that adds it give two)",
                                 (bos_id,)))
    if eos_id is not None:
        for index in (np.flatnonzero((tokens.ids[1:] == eos_id) & (tokens.ids[:-1] == eos_id)) + 1).tolist():
            token = tokens[index]
            found.append(Finding(TWICE, token.start, token.end, f"EOS {eos} twice in a row",
                                 f"{eos} (id {eos_id}) follows itself: the template and the message both end "
                                 "the turn", (eos_id,)))
    return found


def _trailing(encoding: ChatEncoding) -> list[Finding]:
    """Whitespace at the end of the last message, just before the model starts its answer: models
    rarely saw it there, and a BPE tokenizer would have joined it to the next word."""
    prompt = encoding.prompt
    content = [(segment, start) for segment, start in zip(prompt.segments, prompt.starts)
               if segment.content]
    if not content:
        return []
    segment, start = content[-1]
    stripped = segment.text.rstrip()
    if stripped == segment.text:
        return []
    return [Finding(TRAILING_SPACE, start + len(stripped), start + len(segment.text),
                    f"trailing whitespace {segment.text[len(stripped):]!r} before the generation prompt",
                    f"message {segment.message} ({prompt.role(segment)}) ends with whitespace right before the "
                    "model answers; the answer's first token usually carries that space itself")]
