"""Unicode classes as the reference libraries see them, for patterns run by the `regex` module.

`regex` ships newer Unicode tables than tiktoken (Rust's regex crate) and tokenizers
(Oniguruma): about 17,000 code points are `\\p{L}` in `regex` only (new CJK blocks, U+0558...),
U+0295 is `Lo` there and `Ll` in both references. A pattern must classify every code point as
the library that defines the tokenizer does, or chunks (and so ids and merges) differ.

The classes are measured on the installed library itself: tiktoken keeps only the text a
pattern matches, and tokenizers' `Split(..., "removed")` drops it, so running a class over
every assigned code point gives its members. What we keep is the difference from `regex`'s
own class (`extra`: `regex` only, `missing`: the reference only), a few ranges per class. The
table for the library versions the app is built with ships in resources/unicode/ (written by
packaging/unicode_tables.py); other versions are measured once and kept in the user's cache.

tiktoken and tokenizers agree on every general category at the versions measured (tiktoken
0.14, tokenizers 0.23, both Unicode 15.0); they differ in `\\w`: the Rust regex crate counts
U+200C/U+200D (ZWNJ, ZWJ) as word characters, Oniguruma does not.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal, NamedTuple

import regex

from explorer.core.cache import cache_dir
from explorer.core.files import write_atomic

Reference = Literal["tiktoken", "tokenizers", "regex"]
REFERENCES: tuple[Reference, ...] = ("tiktoken", "tokenizers")
# Every class a pattern may use that we map: the general categories except C (which holds the
# unassigned code points) and the shorthand classes. Anything else (\p{Han}, \b, ...) keeps
# `regex`'s tables.
CATEGORIES = ("L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So "
              "Z Zs Zl Zp Cc Cf").split()
CLASSES: tuple[str, ...] = (*(rf"\p{{{name}}}" for name in CATEGORIES), r"\s", r"\d", r"\w")
_FORMAT = 1  # bump when the measurement or the layout changes

Ranges = list[tuple[int, int]]


def library_version(reference: Reference) -> str:
    """The installed version (`__version__`: importlib.metadata takes 50 ms to find it)."""
    import importlib

    version = getattr(importlib.import_module(reference), "__version__", None)
    if isinstance(version, str):
        return version
    from importlib import metadata

    return metadata.version(reference)


def _everything() -> str:
    """Every code point but the surrogates, in order: decoded from UTF-32 in one call, in 35 ms
    (1.1 million `chr` calls took 0.15 s, on the first start's way to its first tokens)."""
    code_points = array("I", range(0xD800))
    code_points.extend(range(0xE000, 0x110000))
    return code_points.tobytes().decode(f"utf-32-{'le' if sys.byteorder == 'little' else 'be'}")


def _domain() -> str:
    """Every code point `regex` knows as assigned, private use excepted. A code point unassigned
    in newer Unicode is unassigned in older (assignments are never undone) and private use has
    not moved since Unicode 2.0, so the references can only differ from `regex` here."""
    return "".join(regex.findall(r"[^\p{Cn}\p{Co}]+", _everything()))


@lru_cache(maxsize=1)
def regex_tables() -> str:
    """Which Unicode tables `regex` has, as the number of code points they assign: it grows with
    every Unicode version, while most `regex` releases keep the tables. Counting takes ~80 ms, so
    it is kept in the cache per release."""
    path = cache_dir() / f"unicode-regex-{regex.__version__}.txt"
    try:
        known = path.read_text("utf-8").strip()
        if known.startswith("assigned-") and known[9:].isdigit():
            return known
    except OSError:
        pass
    assigned = sum(map(len, regex.findall(r"\P{Cn}+", _everything())))
    known = f"assigned-{assigned}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, known)
    except OSError:
        pass
    return known


def measure(reference: Reference, classes: Iterable[str], domain: str | None = None) -> dict[str, str]:
    """The members of each class in `domain` according to the installed library, as a string."""
    domain = _domain() if domain is None else domain
    if reference == "tiktoken":
        import tiktoken

        ranks = {bytes([b]): b for b in range(256)}
        out = {}
        for name in classes:
            encoding = tiktoken.Encoding("probe", pat_str=name + "+", mergeable_ranks=ranks, special_tokens={})
            out[name] = encoding.decode(encoding.encode_ordinary(domain))
        return out
    if reference == "tokenizers":
        from tokenizers import Regex, pre_tokenizers

        def members(name: str) -> str:
            split = pre_tokenizers.Split(Regex(f"[^{name}]+"), "removed")
            return "".join(piece for piece, _ in split.pre_tokenize_str(domain))

        return {name: members(name) for name in classes}
    return {name: "".join(regex.findall(name + "+", domain)) for name in classes}


def _ranges(code_points: Iterable[int]) -> Ranges:
    out: list[list[int]] = []
    for c in sorted(code_points):
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return [(a, b) for a, b in out]


def differences(reference: Reference, classes: Iterable[str]) -> dict[str, dict[str, Ranges]]:
    """For each class, the ranges `regex` has and the reference lacks (`extra`), and the reverse."""
    classes = list(classes)
    domain = _domain()
    theirs, ours = measure(reference, classes, domain), measure("regex", classes, domain)
    out = {}
    for name in classes:
        a, b = set(map(ord, ours[name])), set(map(ord, theirs[name]))
        out[name] = {"extra": _ranges(a - b), "missing": _ranges(b - a)}
    return out


def _key(reference: Reference) -> str:
    return f"{reference}-{library_version(reference)}"


def shipped_path(reference: Reference) -> str:
    return f"unicode/{reference}.json"


def _read(text: str, reference: Reference) -> dict[str, dict[str, Ranges]] | None:
    """The tables in a shipped or cached file, or None if they are for other versions or damaged."""
    try:
        data = json.loads(text)
        if data.get("format") != _FORMAT or data.get("key") != _key(reference):
            return None
        if data.get("regex") != regex.__version__ and data.get("regex_tables") != regex_tables():
            return None  # measured against other Unicode tables of `regex`
        return {name: {side: [(int(a), int(b)) for a, b in entry[side]] for side in ("extra", "missing")}
                for name, entry in data["classes"].items()}
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def document(reference: Reference, classes: dict[str, dict[str, Ranges]]) -> str:
    """JSON with one class a line, so an upgrade's diff shows which classes moved."""
    lines = [f"  {json.dumps(name)}: {json.dumps(entry, separators=(',', ':'))}" for name, entry in classes.items()]
    head = json.dumps({"format": _FORMAT, "key": _key(reference), "regex": regex.__version__,
                       "regex_tables": regex_tables()})[:-1]
    return head + ', "classes": {\n' + ",\n".join(lines) + "\n}}"


@lru_cache(maxsize=None)
def table(reference: Reference) -> dict[str, dict[str, Ranges]]:
    """Every mapped class's differences for `reference`: shipped, cached, or measured now
    (one to three seconds for tokenizers, once per version of the library and of `regex`'s
    tables; a `regex` release with the same tables costs a count, once)."""
    if reference == "regex":
        return {name: {"extra": [], "missing": []} for name in CLASSES}
    from importlib import resources

    try:
        found = _read(resources.files("explorer.resources").joinpath(shipped_path(reference)).read_text("utf-8"),
                      reference)
    except OSError:
        found = None
    cached = cache_dir() / f"unicode-{_key(reference)}-regex-{regex.__version__}.json"
    if found is None:
        try:
            found = _read(cached.read_text("utf-8"), reference)
        except OSError:
            found = None
    if found is None or set(found) != set(CLASSES):
        found = differences(reference, CLASSES)
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(cached, document(reference, found).encode("utf-8"))
        except OSError:
            pass  # a read-only home folder: measure again next time
    return found


def _set_items(ranges: Sequence[tuple[int, int]]) -> str:
    return "".join(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges)


def exact_set(name: str, reference: Reference, negated: bool = False) -> str | None:
    """A V1 `regex` set with exactly the reference's members of class `name` (`\\p{L}`, `\\s`...),
    or None where `regex` already agrees. Set operations keep `regex`'s fast property lookup."""
    entry = table(reference).get(name)
    if entry is None or not (entry["extra"] or entry["missing"]):
        return None
    members = f"[{name}--[{_set_items(entry['extra'])}]]" if entry["extra"] else name
    if entry["missing"]:
        members += f"[{_set_items(entry['missing'])}]"
    return f"[{'^' if negated else ''}{members}]"


# Where the punctuation and symbols of prose and code live (Latin-1, General Punctuation to the
# arrows, box drawing and dingbats, CJK and full-width punctuation): `outside_classes` keeps the
# ones no class holds. All in the Basic Multilingual Plane, where a class of `re` is a bitmap.
_COMMON_BLOCKS = ((0x80, 0xFF), (0x2000, 0x2BFF), (0x3000, 0x303F), (0xFE30, 0xFE4F), (0xFF00, 0xFF65))


@lru_cache(maxsize=64)
def outside_classes(reference: Reference, classes: frozenset[str]) -> str:
    """The common non-ASCII characters (quotes, dashes, box drawing, emoji...) that the reference
    puts in none of `classes`: to a pattern over those classes they are all alike, so text
    made of ASCII and these can use the pattern's ASCII version (see pretokenize)."""
    candidates = "".join(chr(c) for a, b in _COMMON_BLOCKS for c in range(a, b + 1))
    sets = [exact_set(name, reference) or name for name in sorted(classes)]
    if not sets:
        return candidates
    return regex.sub("|".join(sets), "", candidates, flags=regex.V1)


@lru_cache(maxsize=64)
def differing(reference: Reference, classes: frozenset[str]) -> Ranges:
    """The code points on which `regex` and the reference disagree for any of `classes`."""
    entries = [table(reference)[name] for name in classes if name in CLASSES]
    return sorted({r for entry in entries for side in ("extra", "missing") for r in entry[side]})


@lru_cache(maxsize=16)
def _chars_of(ranges: tuple[tuple[int, int], ...]) -> frozenset[str]:
    """Shared by every finder of the same ranges: each new tokenizer's pretokenizer built this set
    of ~17,500 characters again on its first text (3-10 ms, on the GUI thread when a trained
    tokenizer is first shown, and when a training run starts its live sentence)."""
    return frozenset(chr(c) for a, b in ranges for c in range(a, b + 1))


class DifferingFinder:
    """Tells whether a text holds a code point `regex` classifies unlike the reference.

    Such text is rare (characters new in Unicode 15.1-17), so the exact pattern, about twice
    as slow, runs only on it. A lookup table in numpy checks 1 MB in about a millisecond, a
    Python set in ten to twenty; numpy is used once something else has imported it (the GUI,
    training), since importing it for this would cost a CLI call more than it saves.
    """

    def __init__(self, ranges: Ranges) -> None:
        self.ranges = ranges
        self._table: object = None

    def __bool__(self) -> bool:
        return bool(self.ranges)

    @cached_property
    def _chars(self) -> frozenset[str]:
        return _chars_of(tuple(self.ranges))

    def found_in(self, text: str) -> bool:
        if not self.ranges or text.isascii():
            return False
        np = sys.modules.get("numpy")
        if np is None or len(text) < 4096:
            return not self._chars.isdisjoint(text)
        if self._table is None:
            table = np.zeros(0x110000, np.bool_)
            for a, b in self.ranges:
                table[a:b + 1] = True
            self._table = table
        code_points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
        return bool(self._table.take(code_points).any())  # type: ignore[attr-defined]


_SHORTHANDS = {"s": (r"\s", False), "S": (r"\s", True), "d": (r"\d", False), "D": (r"\d", True),
               "w": (r"\w", False), "W": (r"\w", True)}
_V1_OPERATORS = "&|~-"  # doubled inside a V1 set they are operators; in a V0 set, literals


def _class_token(pattern: str, i: int) -> tuple[str, str | None, bool]:
    """The escape at `pattern[i]` (a backslash): (its text, the class it names or None, negated)."""
    kind = pattern[i + 1:i + 2]
    if kind in ("p", "P"):
        if pattern[i + 2:i + 3] == "{":
            end = pattern.find("}", i)
            if end < 0:
                return pattern[i:i + 2], None, False
            name = pattern[i + 3:end]
            negated = kind == "P"
            if name.startswith("^"):
                name, negated = name[1:], not negated
            return pattern[i:end + 1], rf"\p{{{name}}}", negated
        return pattern[i:i + 3], rf"\p{{{pattern[i + 2:i + 3]}}}", kind == "P"
    if kind in _SHORTHANDS:
        name, negated = _SHORTHANDS[kind]
        return pattern[i:i + 2], name, negated
    return pattern[i:i + 2], None, False


class Rewrite(NamedTuple):
    source: str | None  # for `regex.compile(source, regex.V1)`; None: `regex` agrees already
    classes: frozenset[str]  # the mapped classes the pattern uses


def exact_pattern(pattern: str, reference: Reference) -> Rewrite:
    """`pattern` with each mapped class replaced by the reference's exact set, and the classes
    the pattern uses.

    Set operations need `regex`'s version 1 syntax, so what V1 reads differently inside a set
    (a literal `[`, doubled `&|~-`) is escaped and full case folding is turned off: on text
    without a differing code point the result matches exactly what `pattern` matches.
    """
    out, used, changed = ["(?-f)"], set(), False
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            token, name, negated = _class_token(pattern, i)
            i += len(token)
            exact = exact_set(name, reference, negated) if name in CLASSES else None
            if name in CLASSES:
                used.add(name)
            changed |= exact is not None
            out.append(exact if exact is not None else token)
            continue
        if in_class:
            posix = regex.match(r"\[:\^?[a-z]+:\]", pattern[i:i + 20]) if c == "[" else None
            if posix:  # [:alpha:] means the same in V0 and V1
                out.append(posix.group())
                i += posix.end()
                continue
            if c == "]":
                in_class = False
            elif c == "[":
                c = "\\["
            elif c in _V1_OPERATORS and pattern[i + 1:i + 2] == c:
                out.append(c + "\\" + c)
                i += 2
                continue
        elif c == "[":
            in_class = True
            j = i + 1  # a `]` right after `[` or `[^` is a literal
            if pattern[j:j + 1] == "^":
                j += 1
            if pattern[j:j + 1] == "]":
                j += 1
            out.append(pattern[i:j])
            i = j
            continue
        out.append(c)
        i += 1
    return Rewrite("".join(out) if changed else None, frozenset(used))


_MARK = regex.compile(r"\p{M}")


def is_mark(char: str) -> bool:
    """A combining mark, where no window may start. `regex`'s marks hold every reference's
    (a mark stays a mark in later Unicode; a test checks it for the installed libraries)."""
    return _MARK.match(char) is not None


def member(char: str, name: str, reference: Reference) -> bool:
    """Whether the reference counts `char` in class `name` (one of CLASSES)."""
    code_point = ord(char)
    entry = table(reference)[name]
    if any(a <= code_point <= b for a, b in entry["missing"]):
        return True
    return regex.match(name, char) is not None and not any(a <= code_point <= b for a, b in entry["extra"])


@dataclass(frozen=True)
class Disagreement:
    """A character that tiktoken and tokenizers put in different classes of a pattern."""

    char: str
    tiktoken: tuple[str, ...]  # the classes tiktoken counts it in
    tokenizers: tuple[str, ...]

    def describe(self) -> str:
        """`U+200D ZERO WIDTH JOINER — tiktoken: \\w; tokenizers: not \\w`."""
        name = unicodedata.name(self.char, "(unnamed in Python's tables)")
        named = sorted({*self.tiktoken, *self.tokenizers})
        places = [f"{reference}: {' '.join(c if c in classes else 'not ' + c for c in named)}"
                  for reference, classes in (("tiktoken", self.tiktoken), ("tokenizers", self.tokenizers))]
        return f"U+{ord(self.char):04X} {name} — {'; '.join(places)}"


def disagreements(text: str, classes: Iterable[str]) -> list[Disagreement]:
    """The characters of `text` that tiktoken and tokenizers put in different `classes`, in order
    of first appearance. Both read every general category alike at the versions measured, so
    this is rare: `\\w` and U+200C/U+200D, or a later release of one library."""
    classes = sorted(name for name in classes if name in CLASSES)
    suspects = frozenset().union(*(_split_ranges(name) for name in classes))
    out = []
    for char in dict.fromkeys(c for c in text if ord(c) in suspects):
        placed = [tuple(name for name in classes if member(char, name, reference)) for reference in REFERENCES]
        if placed[0] != placed[1]:
            out.append(Disagreement(char, *placed))
    return out


@lru_cache(maxsize=None)
def _split_ranges(name: str) -> frozenset[int]:
    """Code points that some reference classifies unlike `regex` for class `name`."""
    return frozenset(c for reference in REFERENCES for side in ("extra", "missing")
                     for a, b in table(reference)[name][side] for c in range(a, b + 1))
