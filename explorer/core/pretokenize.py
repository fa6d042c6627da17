"""Pre-tokenization: cut text into chunks with a regex before BPE runs.

Merges happen inside a chunk, never across two. Every chunk remembers which top-level
alternative of the pattern matched it, and text a custom pattern does not match becomes a
"gap" chunk, so the chunks always join back to the original text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import regex

from explorer.core.errors import PatternError, PatternTimeoutError

# The patterns of real tokenizers, verbatim, so chunking equals theirs.
GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
LLAMA3 = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# Seed 000's pattern: GPT-4's, with single digits (also Qwen2.5's).
DIGITS = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
NONE = r"""(?s:.+)"""

NAMED_PATTERNS: dict[str, str] = {
    "gpt2": GPT2,
    "cl100k": CL100K,
    "o200k": O200K,
    "llama3": LLAMA3,
    "digits": DIGITS,
    "none": NONE,
}
PATTERN_DESCRIPTIONS: dict[str, str] = {
    "gpt2": "GPT-2 / r50k_base",
    "cl100k": "GPT-4 / cl100k_base",
    "o200k": "GPT-4o / o200k_base",
    "llama3": "Llama 3",
    "digits": "GPT-4 style, single digits (seed 000, Qwen2.5)",
    "none": "no split: the whole text is one chunk",
}
GAP = -1
GAP_LABEL = "gap (not matched)"


def _timeout_for(text: str) -> float:
    """Seconds a pattern may spend on `text`: generous for honest patterns, finite for bad ones."""
    return 2.0 + len(text) / 200_000


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of pre-tokenized text: its characters, span and the alternative that matched it."""

    text: str
    start: int
    end: int
    alternative: int  # index of the top-level alternative, or GAP
    label: str

    @property
    def is_gap(self) -> bool:
        return self.alternative == GAP


def split_alternatives(pattern: str) -> tuple[str, list[str]]:
    """Split a regex at its top-level `|`: returns (leading global flags, alternatives).

    Walks the pattern once, skipping escapes, character classes and groups.
    """
    flags = ""
    lead = regex.match(r"\(\?[a-zA-Z]+\)", pattern)
    if lead:
        flags, pattern = lead.group(), pattern[lead.end():]
    alternatives, depth, in_class, start, i = [], 0, False, 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            # A `]` right after `[` or `[^` is a literal, not the end of the class.
            j = i + 1
            if pattern[j:j + 1] == "^":
                j += 1
            if pattern[j:j + 1] == "]":
                j += 1
            i = j
            continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            alternatives.append(pattern[start:i])
            start = i + 1
        i += 1
    alternatives.append(pattern[start:])
    return flags, alternatives


def describe_alternative(source: str) -> str:
    """A short human name for what an alternative matches ("letters", "digits", ...)."""
    if source == NONE:
        return "whole text"
    if "'" in source and ("ll" in source or "re" in source) and "\\p{L" not in source:
        return "contraction"
    if "[^\\s\\p{L}\\p{N}]" in source:
        return "punctuation"
    if "\\p{Lu}" in source:  # o200k splits words by case
        return "letters, lower-case end" if "]*[" in source else "letters, upper-case"
    if "\\p{L" in source:
        return "letters"
    if "\\p{N}" in source:
        return "digits"
    if "[\\r\\n" in source:
        return "newlines"
    if "(?!\\S)" in source:
        return "spaces before a word"
    if source.endswith("$"):
        return "trailing whitespace"
    if source.startswith("\\s"):
        return "whitespace"
    return source if len(source) <= 24 else source[:21] + "..."


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile with the `regex` module (\\p{L} etc.), turning its error into PatternError."""
    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise PatternError(exc.msg, pattern, exc.pos) from None
    except (ValueError, OverflowError, RecursionError) as exc:
        raise PatternError(str(exc), pattern) from None


class Pretokenizer:
    """Cuts text into chunks with a named pattern (`gpt2`, `cl100k`, ...) or any custom regex.

    >>> Pretokenizer("gpt2").pieces("Hello world!")
    ['Hello', ' world', '!']
    """

    def __init__(self, pattern: str = "cl100k") -> None:
        self.name = pattern if pattern in NAMED_PATTERNS else "custom"
        self.regex = NAMED_PATTERNS.get(pattern, pattern)
        if not self.regex:
            raise PatternError("the pattern is empty", self.regex, 0)
        self._compiled = compile_pattern(self.regex)
        # Named patterns match every character and never match empty text, so their
        # findall output needs no gap check; custom patterns are checked.
        self._trusted = self.name != "custom"

    def __repr__(self) -> str:
        return f"Pretokenizer({self.name if self._trusted else self.regex!r})"

    @cached_property
    def alternatives(self) -> list[str]:
        return split_alternatives(self.regex)[1]

    @cached_property
    def labels(self) -> list[str]:
        return [describe_alternative(a) for a in self.alternatives]

    @cached_property
    def _labelled(self) -> tuple[regex.Pattern[str], dict[int, int]]:
        """The pattern with each top-level alternative wrapped in a group, and group -> alternative."""
        flags, alternatives = split_alternatives(self.regex)
        group_to_alt, group, parts = {}, 1, []
        for index, alternative in enumerate(alternatives):
            group_to_alt[group] = index
            parts.append(f"({alternative})")
            group += 1 + compile_pattern(alternative).groups
        return compile_pattern(flags + "|".join(parts)), group_to_alt

    def pieces(self, text: str) -> list[str]:
        """The chunk texts only, as fast as the regex engine allows (used by training and encoding)."""
        try:
            if self._compiled.groups == 0:
                pieces = self._compiled.findall(text, timeout=_timeout_for(text))
            else:
                pieces = [m.group() for m in self._compiled.finditer(text, timeout=_timeout_for(text))]
        except TimeoutError:
            raise PatternTimeoutError(self.regex, _timeout_for(text)) from None
        if self._trusted:
            return pieces
        if "" in pieces or sum(map(len, pieces)) != len(text):
            return [chunk.text for chunk in self.chunks(text)]
        return pieces

    def chunks(self, text: str) -> list[Chunk]:
        """Every chunk with span and alternative; unmatched text becomes gap chunks."""
        compiled, group_to_alt = self._labelled
        labels = self.labels
        out: list[Chunk] = []
        position = 0
        try:
            for match in compiled.finditer(text, timeout=_timeout_for(text)):
                start, end = match.span()
                if start == end:
                    continue
                if start > position:
                    out.append(Chunk(text[position:start], position, start, GAP, GAP_LABEL))
                alternative = group_to_alt.get(match.lastindex or 0, GAP)
                label = labels[alternative] if alternative != GAP else "match"
                out.append(Chunk(match.group(), start, end, alternative, label))
                position = end
        except TimeoutError:
            raise PatternTimeoutError(self.regex, _timeout_for(text)) from None
        if position < len(text):
            out.append(Chunk(text[position:], position, len(text), GAP, GAP_LABEL))
        return out


def hf_compatible(pattern: str) -> str:
    """The same pattern for Hugging Face tokenizers' Oniguruma engine.

    Oniguruma reads cl100k's possessive `\\p{N}{1,3}+` as `(\\p{N}{1,3})+`; plain `{1,3}` means
    the same in every engine there, because nothing follows it in its alternative.
    """
    return pattern.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
