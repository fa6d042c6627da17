"""Pre-tokenization: cut text into chunks with a regex before BPE runs.

Merges happen inside a chunk, never across two. Every chunk remembers which top-level
alternative of the pattern matched it, and text a custom pattern does not match becomes a
"gap" chunk, so the chunks always join back to the original text.

A pattern is read with the Unicode tables of a reference library: tiktoken's for its encodings,
tokenizers' for training and tokenizer.json (see unicode_classes: `regex`'s own are newer).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import difflib
import re

import regex

from explorer.core.errors import PatternError, PatternTimeoutError
from explorer.core.pretokenization.unicode_classes import (
    DifferingFinder, Reference, differing, exact_pattern, is_mark, outside_classes)

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
# Mistral's Tekken (tekken_240911.json's `config.pattern`): o200k's case split, without the
# contractions, single digits.
TEKKEN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*""",
        r"""\p{N}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
NONE = r"""(?s:.+)"""
# What tokenizers' `ByteLevel(use_regex=True)` splits with: GPT-2's pattern without `\s+$`.
BYTE_LEVEL = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# Whose Unicode tables a named pattern follows when nothing else says (the Chunks pane, `chunks`):
# the library of the tokenizers that made it known.
NATURAL_REFERENCES: dict[str, Reference] = {"gpt2": "tiktoken", "cl100k": "tiktoken", "o200k": "tiktoken"}

NAMED_PATTERNS: dict[str, str] = {
    "gpt2": GPT2,
    "cl100k": CL100K,
    "o200k": O200K,
    "llama3": LLAMA3,
    "digits": DIGITS,
    "tekken": TEKKEN,
    "none": NONE,
}
PATTERN_DESCRIPTIONS: dict[str, str] = {
    "gpt2": "GPT-2 / r50k_base",
    "cl100k": "GPT-4 / cl100k_base",
    "o200k": "GPT-4o / o200k_base",
    "llama3": "Llama 3",
    "digits": "GPT-4 style, single digits (seed 000, Qwen2.5)",
    "tekken": "Mistral Tekken",
    "none": "no split: the whole text is one chunk",
}
# Patterns that may be cut into windows (see `Pretokenizer.windowed`); a property test checks each.
WINDOW_SAFE = frozenset([*NAMED_PATTERNS.values(), BYTE_LEVEL])

REGEX_PREFIX = "regex:"  # forces what follows to be read as a regex, even a bare word
_BARE_WORD = regex.compile(r"[A-Za-z0-9_-]+")


def resolve_pattern(pattern: str) -> str:
    """The regex a user's pattern means: a name's regex, the regex after `regex:`, or the text itself.

    A bare word that is not a name ("gpt4", "GPT2") would be a regex that matches only itself,
    which is never what was meant, so it is refused with the names (and the likely one); write
    `regex:gpt4` or `(?:gpt4)` to match that word.

    >>> resolve_pattern("regex:gpt4")
    '(?:gpt4)'
    """
    if pattern in NAMED_PATTERNS:
        return NAMED_PATTERNS[pattern]
    if pattern.startswith(REGEX_PREFIX):
        forced = pattern[len(REGEX_PREFIX):]
        return f"(?:{forced})" if _BARE_WORD.fullmatch(forced) else forced
    if _BARE_WORD.fullmatch(pattern):
        same = [name for name in NAMED_PATTERNS if name.lower() == pattern.lower()]
        close = same or difflib.get_close_matches(pattern.lower(), NAMED_PATTERNS, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}? " if close else ""
        raise PatternError(f"{pattern!r} is not a pattern name; {hint}the names are {', '.join(NAMED_PATTERNS)} "
                           f"(to match the word itself, write {REGEX_PREFIX}{pattern} or (?:{pattern}))", pattern)
    return pattern


GAP = -1
BLOCK = 1 << 13  # characters per window for big texts: small enough that most are pure ASCII
GAP_LABEL = "gap (not matched)"
WINDOW = 1 << 13  # characters; a window is under 2 * WINDOW characters, so at most 64 KB of UTF-8
_FAST_RUN = 256  # characters the ASCII version must be able to read to get a window of their own


# Every ASCII letter, digits, marks, spaces, line breaks, punctuation, symbols, other scripts, an emoji.
_EMPTY_MATCH_PROBE = ("The quick brown fox jumps over THE LAZY DOG, it's 2024: 3.14!\t\r\n\n  e\u0301 नमस्ते 日本語 "
                      "مرحبا ₿ 😀 _-'s ")


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


def natural_reference(pattern: str) -> Reference:
    """tiktoken for the patterns of OpenAI's encodings, tokenizers for any other."""
    return NATURAL_REFERENCES.get(pattern, NATURAL_REFERENCES.get(_name_of(pattern), "tokenizers"))


def _name_of(pattern: str) -> str:
    return next((name for name, known in NAMED_PATTERNS.items() if known == pattern), "custom")


def compile_pattern(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """Compile with the `regex` module (\\p{L} etc.), turning its error into PatternError."""
    try:
        pattern.encode("utf-8")  # (a file or an argument can carry a lone surrogate; no tokenizer file can hold it)
    except UnicodeEncodeError as exc:
        raise PatternError(f"it holds a lone surrogate (U+{ord(pattern[exc.start]):04X}), which UTF-8 cannot hold; "
                           "remove it", pattern, exc.start) from None
    try:
        return regex.compile(pattern, flags)
    except regex.error as exc:
        raise PatternError(exc.msg, pattern, exc.pos) from None
    except (ValueError, OverflowError, RecursionError) as exc:
        raise PatternError(str(exc), pattern) from None


class Pretokenizer:
    """Cuts text into chunks with a named pattern (`gpt2`, `cl100k`, ...) or any custom regex.

    `reference` is the library whose Unicode tables decide what `\\p{L}`, `\\s`... match:
    "tokenizers" (training, tokenizer.json), "tiktoken" (its encodings and .tiktoken files), or
    "regex" for the `regex` module's own (minbpe). Text holding a code point on which `regex`
    and the reference differ runs through an exact pattern; other text through the fast one.

    >>> Pretokenizer("gpt2").pieces("Hello world!")
    ['Hello', ' world', '!']
    >>> Pretokenizer("llama3", "tokenizers").pieces("\\U0003EA9D's")  # unassigned in Unicode 15
    ["\\U0003ea9d'", 's']
    """

    def __init__(self, pattern: str = "cl100k", reference: Reference = "tokenizers") -> None:
        self.regex = resolve_pattern(pattern)
        self.name = _name_of(self.regex)
        self.reference = reference
        if not self.regex:
            raise PatternError("the pattern is empty", self.regex, 0)
        self._compiled = compile_pattern(self.regex)
        self._ascii: re.Pattern[str] | None = None
        if self.name != "custom":
            self._compiled = compile_pattern(_without_possessives(self.regex))
            self._ascii = re.compile(_ascii_version(self.regex))  # (possessives: 8% quicker in `re`)
        # Named patterns match every character, never match empty text and cannot backtrack
        # catastrophically: they skip the gap check and the timeout, which halves their speed.
        self._trusted = self.name != "custom"
        exact = exact_pattern(_without_possessives(self.regex) if self._trusted else self.regex, reference)
        self._exact_source = exact.source
        self.classes = exact.classes  # the Unicode classes the pattern uses (`\\p{L}`, `\\s`...)
        self._differing = DifferingFinder(differing(reference, exact.classes) if exact.source else [])

    def __repr__(self) -> str:
        return f"Pretokenizer({self.name if self._trusted else self.regex!r}, {self.reference!r})"

    @cached_property
    def _exact(self) -> regex.Pattern[str]:
        """The pattern with the reference's classes (compiled on first use: few texts need it).
        A custom pattern that `regex`'s V1 syntax cannot read keeps `regex`'s own tables."""
        if self._exact_source is None:
            return self._compiled
        try:
            return compile_pattern(self._exact_source, regex.V1)
        except PatternError:
            return self._compiled

    @cached_property
    def _readable(self) -> str:
        """The characters the ASCII version reads as the pattern does, as the inside of a class:
        ASCII, and the common characters that are in none of the pattern's classes."""
        return "\\x00-\\x7f" + re.escape(outside_classes(self.reference, self.classes))

    @cached_property
    def _beyond_ascii(self) -> re.Pattern[str]:
        """Finds a character the ASCII version cannot read."""
        return re.compile(f"[^{self._readable}]")

    @cached_property
    def _ascii_resumes(self) -> re.Pattern[str]:
        """Finds the last character the ASCII version cannot read before a long run it can."""
        return re.compile(f"[^{self._readable}][{self._readable}]{{{_FAST_RUN}}}")

    def _ascii_reads(self, text: str) -> bool:
        """Whether the ASCII version gives this text's chunks: every character is ASCII or in
        none of the pattern's classes (curly quotes, dashes, box drawing: most of prose's
        non-ASCII), which every class of the ASCII version leaves out too."""
        return text.isascii() or self._beyond_ascii.search(text) is None

    def _regex_for(self, text: str) -> regex.Pattern[str]:
        return self._exact if self._differing.found_in(text) else self._compiled

    @cached_property
    def alternatives(self) -> list[str]:
        return split_alternatives(self.regex)[1]

    @cached_property
    def labels(self) -> list[str]:
        return [describe_alternative(a) for a in self.alternatives]

    @cached_property
    def _alternatives_compiled(self) -> list[regex.Pattern[str] | None]:
        """Each top-level alternative on its own (None if it cannot stand alone, e.g. it refers
        to a group of another alternative)."""
        return self._compile_alternatives(exact=False)

    @cached_property
    def _alternatives_exact(self) -> list[regex.Pattern[str] | None]:
        return self._compile_alternatives(exact=True)

    def _compile_alternatives(self, exact: bool) -> list[regex.Pattern[str] | None]:
        flags, alternatives = split_alternatives(self.regex)
        compiled: list[regex.Pattern[str] | None] = []
        for alternative in alternatives:
            rewritten = exact_pattern(flags + alternative, self.reference).source if exact else None
            try:
                compiled.append(regex.compile(rewritten, regex.V1) if rewritten else regex.compile(flags + alternative))
            except regex.error:
                compiled.append(None)
        return compiled

    def _alternative_at(self, text: str, start: int, end: int,
                        alternatives: list[regex.Pattern[str] | None]) -> int:
        """Which alternative produced the match `text[start:end]`: the first one that matches
        there with the same end, since a top-level alternation takes the first that matches.
        Trying them one by one (rather than wrapping each in a group) keeps numbered
        backreferences in custom patterns working."""
        for index, alternative in enumerate(alternatives):
            if alternative is not None:
                match = alternative.match(text, start, timeout=_timeout_for(text))
                if match is not None and match.end() == end:
                    return index
        return GAP

    def pieces(self, text: str) -> list[str]:
        """The chunk texts only, as fast as the regex engine allows (used by training and encoding)."""
        if self._trusted:
            if self._ascii is not None and self._ascii_reads(text):
                return self._ascii.findall(text)
            return self._regex_for(text).findall(text)
        compiled = self._regex_for(text)
        try:
            if compiled.groups == 0:
                pieces = compiled.findall(text, timeout=_timeout_for(text))
            else:
                pieces = [m.group() for m in compiled.finditer(text, timeout=_timeout_for(text))]
        except TimeoutError:
            raise PatternTimeoutError(self.regex, _timeout_for(text)) from None
        if "" in pieces or sum(map(len, pieces)) != len(text):
            return [chunk.text for chunk in self.chunks(text)]
        return pieces

    def covers(self, text: str) -> bool:
        """Whether the matches leave no character of `text` unmatched: one pass of the pattern,
        where looking for a gap chunk in `chunks` also labels every chunk with its alternative
        (2 s for 1 MB, against tiktoken's 0.07 s to encode it)."""
        if self._trusted:
            return True  # (the named patterns match every character)
        try:
            matches = self._regex_for(text).finditer(text, timeout=_timeout_for(text))
            return sum(match.end() - match.start() for match in matches) == len(text)
        except TimeoutError:
            raise PatternTimeoutError(self.regex, _timeout_for(text)) from None

    @cached_property
    def matches_empty(self) -> bool:
        """Whether the pattern can match empty text (`x*`, `a|(?=b)`), tried on a sample of every
        kind of character. This app skips empty matches and keeps the text between them as gap
        chunks; tokenizers and minbpe split such text otherwise, and tiktoken panics, so a
        tokenizer with such a pattern cannot be written for them with the same ids."""
        if self._trusted:
            return False  # (the named patterns never do)
        matches = self._compiled.finditer(_EMPTY_MATCH_PROBE, timeout=_timeout_for(_EMPTY_MATCH_PROBE))
        try:
            return any(match.start() == match.end() for match in matches)
        except TimeoutError:
            return False

    @cached_property
    def windowed(self) -> bool:
        """Whether big texts are matched window by window (`iter_pieces`, `windows`, edits).

        Only for the patterns in WINDOW_SAFE, whose matches look ahead at most through
        `(?!\\S)` or `$`, so that only the last two pieces of a window can depend on where it
        ends. A custom pattern can look arbitrarily far: with `[a-z]+(?=[0-9])|[a-z]` every
        letter of a run depends on what ends the run, and even without look-around
        `abcdef|a|b` matches `a` in `ab...` only if `cdef` does not follow. Custom patterns
        are therefore matched in one pass over the whole text.
        """
        return self.name != "custom" or self.regex in WINDOW_SAFE

    def iter_pieces(self, text: str, block: int = BLOCK) -> Iterator[list[str]]:
        """`pieces(text)` in lists covering about `block` characters each (one list for a
        pattern that is not `windowed`).

        Each window's last two pieces may be cut by the window's end, so they are matched
        again in the next window: the concatenation equals `pieces(text)` exactly. Small
        windows keep memory flat and never hold the interpreter lock for long.
        """
        if not self.windowed:
            yield self.pieces(text)
            return
        position, size = 0, len(text)
        while size - position > block:
            end = self._window_end(text, position, block)
            pieces = self.pieces(text[position:end])
            while len(pieces) <= 2 and end < size:  # a chunk longer than the window (a long run of spaces)
                end = min(size, 2 * end - position)
                pieces = self.pieces(text[position:end])
            if end == size:
                yield pieces
                return
            position = end - len(pieces[-1]) - len(pieces[-2])  # pieces always cover their text
            del pieces[-2:]
            yield pieces
        yield self.pieces(text[position:])

    def _window_end(self, text: str, position: int, block: int) -> int:
        """Where the window at `position` ends: `block` characters on, or where the ASCII
        version stops or resumes reading the text, so that a rare letter (an `é`, a no-break
        space) sends only the text around it to the slower Unicode pattern."""
        end = position + block
        if self._ascii is None or text[position:end].isascii():
            return end
        unread = self._beyond_ascii.search(text, position, end)
        if unread is None:
            return end
        if unread.start() - position >= _FAST_RUN:
            return unread.start()  # the ASCII version reads up to it
        # The window starts at unread text: end it where a long readable run begins, unless the
        # text goes on in another script (over 1.5 bytes a character), which has no such runs.
        ahead = text[unread.start():unread.start() + _FAST_RUN]
        if len(ahead.encode("utf-8", "surrogatepass")) > 1.5 * len(ahead):
            return end
        resumes = self._ascii_resumes.search(text, unread.start(), end)
        return end if resumes is None else resumes.start() + _FAST_RUN // 2

    def windows(self, text: str, size: int = WINDOW) -> Iterator[str]:
        """Consecutive slices of `text` of about `size` to `2 * size` characters, cut between chunks.

        For encoders that must not see a big text at once (a library call that holds the
        interpreter lock, a GUI that wants progress). Encoding each window gives the same ids
        as encoding the whole text, because a window ends only where the chunks on both sides
        are the same whether or not the text goes on (`can_cut`). A pattern that is not
        `windowed` gets the whole text as one window.
        """
        if len(text) <= 2 * size or not self.windowed:
            yield text
            return
        start = filled = 0  # the window being built starts at `start` and has `filled` characters
        for pieces in self.iter_pieces(text, block=size):
            filled += sum(map(len, pieces))
            if filled < size:
                continue
            cut = start + filled
            for index in range(len(pieces) - 1, 0, -1):
                cut -= len(pieces[index])
                if self.can_cut(pieces, index):
                    yield text[start:cut]
                    filled -= cut - start
                    start = cut
                    break
        if start < len(text):
            yield text[start:]

    def can_cut(self, pieces: Sequence[str], index: int) -> bool:
        """Whether `pieces`, consecutive chunks of a text, may be cut before `pieces[index]` into
        two texts whose chunks are the same as in the whole.

        The chunk after the cut must start with neither whitespace (`" cat"` would lose its
        space) nor a combining mark (which Unicode normalization could join to the character
        before). The chunk before it may end in anything but whitespace: only a run of
        whitespace looks ahead (through `(?!\\S)` or `$`), so only such a run can split
        otherwise at the end of a text (GPT-2 reads `.\\n\\nThe` as `.`, `\\n`, `\\n`, `The` but
        `.\\n\\n` as `.`, `\\n\\n`). The chunks ending in whitespace before the cut may end a text
        where they split alone as they do here: a list of words, one a line, has no other cut.
        """
        if not 0 < index < len(pieces) or pieces[index][0].isspace() or is_mark(pieces[index][0]):
            return False
        if not pieces[index - 1][-1].isspace():
            return True
        start = index - 1  # the chunks after the last one that ends in something else
        while start > 0 and pieces[start - 1][-1].isspace():
            start -= 1
        if start == 0 or not self.windowed:  # (a custom pattern may look further ahead, or behind)
            return False
        tail = list(pieces[start:index])
        return self.pieces("".join(tail)) == tail

    def chunks(self, text: str) -> list[Chunk]:
        """Every chunk with span and alternative; unmatched text becomes gap chunks."""
        labels = self.labels
        out: list[Chunk] = []
        position = 0
        exact = self._differing.found_in(text)
        compiled = self._exact if exact else self._compiled
        alternatives = self._alternatives_exact if exact else self._alternatives_compiled
        try:
            for match in compiled.finditer(text, timeout=_timeout_for(text)):
                start, end = match.span()
                if start == end:
                    continue
                if start > position:
                    out.append(Chunk(text[position:start], position, start, GAP, GAP_LABEL))
                alternative = self._alternative_at(text, start, end, alternatives)
                label = labels[alternative] if alternative != GAP else "match"
                out.append(Chunk(match.group(), start, end, alternative, label))
                position = end
        except TimeoutError:
            raise PatternTimeoutError(self.regex, _timeout_for(text)) from None
        if position < len(text):
            out.append(Chunk(text[position:], position, len(text), GAP, GAP_LABEL))
        return out


def _without_possessives(pattern: str) -> str:
    """The named patterns with plain quantifiers: the same chunks, about 25% faster in `regex`.

    Safe for these patterns only: in each alternative the possessive part is followed by
    nothing, or by a class disjoint from it, or (`\\s++$`) by an anchor that a shorter run of
    whitespace cannot satisfy either, so backtracking never finds another match.
    A property test checks the equivalence on arbitrary text.
    """
    return pattern.replace("++", "+").replace("?+", "?").replace("*+", "*").replace("{1,3}+", "{1,3}")


# What each Unicode class means on ASCII text, for the `regex` module's tables.
_ASCII_CLASSES = {
    r"\p{L}": "a-zA-Z", r"\p{Lu}": "A-Z", r"\p{Ll}": "a-z", r"\p{Lt}": "", r"\p{Lm}": "", r"\p{Lo}": "",
    r"\p{M}": "", r"\p{N}": "0-9", r"\s": r" \t\n\x0b\x0c\r",
}


def _ascii_version(pattern: str) -> str:
    """A named pattern for pure-ASCII text, for the standard `re` module (about twice as fast).

    `re` has no `\\p{..}` classes, so each becomes its ASCII members; `\\s` is spelled out
    because `re` also counts U+001C-U+001F as space and `regex` does not. A property test
    checks that both give the same chunks on every ASCII text.
    """
    out, i, in_class = [], 0, False
    while i < len(pattern):
        if pattern[i] == "\\":
            token = pattern[i:pattern.index("}", i) + 1] if pattern[i + 1] == "p" else pattern[i:i + 2]
            i += len(token)
            if token == r"\S":
                out.append("[^" + _ASCII_CLASSES[r"\s"] + "]")
            elif token in _ASCII_CLASSES:
                members = _ASCII_CLASSES[token]
                out.append(members if in_class else f"[{members}]")
            else:
                out.append(token)
            continue
        if pattern[i] == "[" and not in_class:
            in_class = True
        elif pattern[i] == "]" and in_class:
            in_class = False
        out.append(pattern[i])
        i += 1
    return "".join(out)


def hf_compatible(pattern: str) -> str:
    """The same pattern for Hugging Face tokenizers' Oniguruma engine.

    Oniguruma reads cl100k's possessive `\\p{N}{1,3}+` as `(\\p{N}{1,3})+`; plain `{1,3}` means
    the same in every engine there, because nothing follows it in its alternative.
    """
    return pattern.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
