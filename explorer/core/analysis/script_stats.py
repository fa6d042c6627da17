"""Which writing systems a text is in: characters per script, for the corpus statistics.

(Token classes by script, for the vocabulary view, are in `scripts.py`.)

A linguist wants to see what a tokenizer will learn from: "Latin 62%, Devanagari 30%, Hangul 8%".
Only letters (and the marks that belong to them) have a script; digits, spaces, punctuation and
emoji are "neutral" and counted apart. Pure-ASCII text, most of English and code, takes a fast
path in C; other text is matched in runs of one script.
"""

from __future__ import annotations

from collections import Counter

import regex

from explorer.core.text.scripts import CJK_SCRIPTS, OTHER_SCRIPT, SCRIPTS

# (name shown, Unicode scripts it covers): the scripts the vocabulary filter names, with CJK as one
# group, since Chinese and Japanese share Han and a linguist compares the texts, not the kana.
SCRIPT_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    *((name, (name,)) for name in SCRIPTS if name not in CJK_SCRIPTS), ("CJK", CJK_SCRIPTS))
OTHER = OTHER_SCRIPT
NEUTRAL = "Neutral"  # digits, whitespace, punctuation, symbols, emoji
SCRIPT_NAMES: tuple[str, ...] = (*(name for name, _ in SCRIPT_GROUPS), OTHER)


def _runs_pattern() -> str:
    """One alternative per group, matching a run of its scripts; then a run of any other letters.

    Combining marks shared by many scripts (Script=Inherited, such as Arabic tanwin) count for
    the script of the letter they sit on. The other letters' run starts at a letter and stops at
    a letter of a named script: it ran on over them ("タワーに行きましょう" from the Common ー on
    was "Other script", 22% of a Japanese text), and a lone mark (the VS16 of ❤️) is no letter.
    Letters of any script that the kana extend to (ー, Script=Common) count as CJK.
    """
    alternatives, every = [], []
    for index, (_, scripts) in enumerate(SCRIPT_GROUPS):
        members = "".join("\\p{Script=%s}" % script for script in scripts)
        if "Hiragana" in scripts:
            members += r"[[\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}]&&\p{L}]"
        every.append(members)
        alternatives.append(f"(?P<g{index}>[{members}][{members}\\p{{Script=Inherited}}]*)")
    named = "".join(every)
    return "|".join(alternatives) + rf"|(?P<other>[\p{{L}}--[{named}]][[\p{{L}}\p{{M}}]--[{named}]]*)"


_RUNS = regex.compile(_runs_pattern(), regex.V1)
_GROUP_NAMES = {f"g{index}": name for index, (name, _) in enumerate(SCRIPT_GROUPS)} | {"other": OTHER}
_NOT_ASCII_LETTERS = bytes(b for b in range(128) if not chr(b).isalpha())


def count_scripts(text: str, counts: Counter[str]) -> None:
    """Add the characters of `text` per script (and NEUTRAL for the rest) to `counts`.

    >>> counts = Counter(); count_scripts("Hi नमस्ते 42", counts); dict(counts)
    {'Latin': 2, 'Devanagari': 6, 'Neutral': 4}
    """
    if text.isascii():
        letters = len(text.encode("ascii").translate(None, _NOT_ASCII_LETTERS))
        if letters:
            counts["Latin"] += letters
        if len(text) > letters:
            counts[NEUTRAL] += len(text) - letters
        return
    scripted = 0
    for match in _RUNS.finditer(text):
        length = match.end() - match.start()
        counts[_GROUP_NAMES[match.lastgroup or "other"]] += length
        scripted += length
    if len(text) > scripted:
        counts[NEUTRAL] += len(text) - scripted


def script_shares(counts: Counter[str] | dict[str, int]) -> list[tuple[str, float]]:
    """Each script's share of the letters, largest first (neutral characters left out).

    >>> script_shares({"Latin": 30, "Hangul": 10, "Neutral": 60})
    [('Latin', 0.75), ('Hangul', 0.25)]
    """
    letters = {name: n for name, n in counts.items() if name != NEUTRAL and n > 0}
    total = sum(letters.values())
    if not total:
        return []
    return sorted(((name, n / total) for name, n in letters.items()), key=lambda item: -item[1])


def describe_shares(counts: Counter[str] | dict[str, int], limit: int = 3, figures: bool = True) -> str:
    """'Latin 75% · Hangul 25%' (the largest `limit` scripts; tiny shares as '<1%', and a share
    beside them as '>99%', never a '100%' that is not all); without `figures`, the names alone
    (for a cell too narrow for them: a share cut short, 'Devanagari 10…', reads as a wrong one).

    >>> describe_shares({"Latin": 998, "Hangul": 2})
    'Latin >99% · Hangul <1%'
    >>> describe_shares({"Latin": 998, "Hangul": 2}, limit=1, figures=False)
    'Latin · +1 more'
    """
    shares = script_shares(counts)
    if not shares:
        return "no letters"
    parts = [f"{name} {_percent(share, alone=len(shares) == 1)}" if figures else name
             for name, share in shares[:limit]]
    if len(shares) > limit:
        parts.append(f"+{len(shares) - limit} more")
    return " · ".join(parts)


def _percent(share: float, alone: bool) -> str:
    if share < 0.005:
        return "<1%"
    if share >= 0.995 and not alone:
        return ">99%"
    return f"{share:.0%}"
