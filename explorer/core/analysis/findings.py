"""What is odd about a prompt: the findings list of the token view.

Each finding has a kind, a character span to jump to, a one-line title and a detail that says
why it matters. `iter_findings` is a generator (a worker runs it for big texts); every kind is
capped so a 1 MB paste gives a readable list, with a last entry saying how many more there were.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import regex

from explorer.core.algorithms.incremental import TokenizedText, special_finder
from explorer.core.plural import plural
from explorer.core.sources.tokenizer import SpecialMode, Tokenizer
from explorer.core.text.render import INVISIBLE_NAMES, standalone_text, token_text

TRAILING_SPACE = "Trailing whitespace"
SPECIAL_STRING = "Special-token string"
WORD_FORMS = "Word forms"
NUMBER_SPLIT = "Number split"
INVISIBLE = "Invisible character"
NORMALIZATION = "NFC vs NFD"
AUDIT = "Flagged token"
KINDS = (TRAILING_SPACE, SPECIAL_STRING, WORD_FORMS, NUMBER_SPLIT, INVISIBLE, NORMALIZATION, AUDIT)
LIMIT = 100  # findings per kind

_TRAILING = regex.compile(r"\s+\Z")
_WORD = regex.compile(r"( ?)([\p{L}\p{M}]+)")
_NUMBER = regex.compile(r"\p{N}+(?:[.,]\p{N}+)*")
_INVISIBLES = regex.compile("[" + "".join(c for c in INVISIBLE_NAMES if c not in "\u2028\u2029") + "]+")
# A ZWJ between two pictographs (the one before may carry a skin tone or U+FE0F) joins an emoji
# sequence (👨‍👩‍👧, 🏳️‍🌈): it is how the emoji is spelled, not a hidden character.
_EMOJI_ZWJ = regex.compile(r"(?<=\p{Extended_Pictographic}[\U0001F3FB-\U0001F3FF\uFE0F]?)\u200d(?=\p{Extended_Pictographic})")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    start: int
    end: int
    title: str
    detail: str = ""
    token_ids: tuple[int, ...] = field(default=())


def ids_text(tokenizer: Tokenizer, ids: list[int] | tuple[int, ...]) -> str:
    """'[15339 "·egg"]' style: ids with their visible text, for details."""
    return "[" + ", ".join(f'{i} "{standalone_text(tokenizer.token_bytes(i))}"' for i in ids) + "]"


def _tokens(count: int) -> str:
    return plural(count, "token")


def iter_findings(state: TokenizedText, requested_mode: SpecialMode | None = None,
                  flagged: Callable[[int], str | None] | None = None) -> Iterator[Finding]:
    """Every finding for the text and tokens in `state`, kind by kind.

    `flagged(id)` returns why the vocabulary audit flags a token (unreachable, rare), or None.
    """
    text, tokenizer = state.text, state.tokenizer
    mode = requested_mode or state.requested_mode
    yield from _trailing(state)
    yield from _capped(_special_strings(text, tokenizer, mode))
    yield from _capped(_word_forms(text, tokenizer))
    yield from _capped(_numbers(state))
    yield from _capped(_invisibles(state))
    yield from _capped(_normalization(text, tokenizer))
    if flagged is not None:
        yield from _capped(_audited(state, flagged))


def _capped(findings: Iterator[Finding]) -> Iterator[Finding]:
    more = 0
    for count, finding in enumerate(findings):
        if count < LIMIT:
            yield finding
        else:
            more += 1
            last = finding
    if more:
        yield Finding(last.kind, last.start, last.end, f"... and {more:,} more of this kind", "Only the first "
                      f"{LIMIT} are listed.")


def _trailing(state: TokenizedText) -> Iterator[Finding]:
    match = _TRAILING.search(state.text)
    if match is None:
        return
    ids = tuple(int(state.ids[i]) for i in state.tokens_in(match.start(), match.end()))
    yield Finding(TRAILING_SPACE, match.start(), match.end(),
                  f"The text ends with whitespace {token_text(match.group().encode())!s}",
                  "In training text a space usually starts the next word (' egg' is one token), so a prompt "
                  "that ends in a space leaves the model an unusual token to continue from. Tokens here: "
                  + ids_text(state.tokenizer, ids), ids)


def _special_strings(text: str, tokenizer: Tokenizer, mode: SpecialMode) -> Iterator[Finding]:
    finder = special_finder(tokenizer)
    if finder is None:
        return
    for match in finder.finditer(text):
        control = tokenizer.special_tokens[match.group()]
        plain = tokenizer.encode(match.group(), "plain")
        uses = {"allowed": f"the control token {control}",
                "plain": "the plain-text reading",
                "disallowed": "neither: 'disallowed' refuses this text (shown here in the plain reading); "
                              "choose 'allowed' or 'plain'"}[mode]
        yield Finding(SPECIAL_STRING, match.start(), match.end(), f"{match.group()} can be a control token",
                      f"As a control token: [{control}]. As plain text: {ids_text(tokenizer, plain)}. "
                      f"The current mode ({mode}) uses {uses}.", (control, *plain))


def _word_forms(text: str, tokenizer: Tokenizer) -> Iterator[Finding]:
    """Words that occur in several forms (' egg', 'egg', 'Egg') and get different tokens in each."""
    forms: dict[str, dict[str, int]] = {}  # casefolded word -> form -> first position
    for match in _WORD.finditer(text):
        if len(forms) > 5000:
            break
        forms.setdefault(match.group(2).casefold(), {}).setdefault(match.group(), match.start())
    for word, group in forms.items():
        if len(group) < 2 or len(word) < 2:  # "a" / "A" / " a": every text has them, nothing to learn
            continue
        encoded = {form: tuple(tokenizer.encode(form, "plain")) for form in group}
        if len(set(encoded.values())) < 2:
            continue
        ordered = sorted(group, key=group.get)  # type: ignore[arg-type]
        second = ordered[1]
        start = group[second]
        readings = "; ".join(f'"{token_text(form.encode())}" → {ids_text(tokenizer, encoded[form])}' for form in ordered)
        counts = sorted({len(ids) for ids in encoded.values()})
        title = (f'"{ordered[0].strip()}" appears as ' + ", ".join(f'"{token_text(f.encode())}"' for f in ordered))
        more = f" ({' vs '.join(map(str, counts))} tokens)" if len(counts) > 1 else ""
        yield Finding(WORD_FORMS, start, start + len(second), title + more,
                      "The model sees unrelated ids for each form: " + readings,
                      tuple(i for ids in encoded.values() for i in ids))


def _numbers(state: TokenizedText) -> Iterator[Finding]:
    for match in _NUMBER.finditer(state.text):
        indices = state.tokens_in(match.start(), match.end())
        if len(indices) < 2:
            continue
        pieces = [token_text(state.token(i).bytes) for i in indices]
        ids = tuple(int(state.ids[i]) for i in indices)
        yield Finding(NUMBER_SPLIT, match.start(), match.end(),
                      f"{match.group()} is split into {plural(len(indices), 'token')}: {' | '.join(pieces)}",
                      "Digits grouped by the tokenizer, not by place value, make arithmetic and copying numbers "
                      "harder. Tokens: " + ids_text(state.tokenizer, ids), ids)


def _invisibles(state: TokenizedText) -> Iterator[Finding]:
    text = state.text
    joined = {match.start() for match in _EMOJI_ZWJ.finditer(text)} if "\u200d" in text else set()
    for match in _INVISIBLES.finditer(text):
        if match.group() == "\u200d" and match.start() in joined:
            continue
        names = ", ".join(dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, INVISIBLE_NAMES[c])}" for c in match.group()))
        ids = tuple(int(state.ids[i]) for i in state.tokens_in(match.start(), match.end()))
        yield Finding(INVISIBLE, match.start(), match.end(),
                      f"{plural(len(match.group()), 'Invisible character', with_count=False)}: {names}",
                      "It looks like nothing (or like a space) but changes the tokens. Tokens here: "
                      + ids_text(state.tokenizer, ids), ids)


def _normalization(text: str, tokenizer: Tokenizer) -> Iterator[Finding]:
    """Words whose composed (NFC) and decomposed (NFD) spellings give different tokens."""
    seen: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group()
        if word in seen or len(seen) > 5000:
            continue
        seen.add(word)
        nfc, nfd = unicodedata.normalize("NFC", word), unicodedata.normalize("NFD", word)
        if nfc == nfd:
            continue
        nfc_ids, nfd_ids = tokenizer.encode(nfc, "plain"), tokenizer.encode(nfd, "plain")
        if nfc_ids == nfd_ids:
            continue
        form = "NFC" if word == nfc else "NFD" if word == nfd else "neither NFC nor NFD"
        yield Finding(NORMALIZATION, match.start(), match.end(),
                      f'"{word.strip()}" is {_tokens(len(nfc_ids))} in NFC, {_tokens(len(nfd_ids))} in NFD (the text uses {form})',
                      f"NFC (composed): {ids_text(tokenizer, nfc_ids)}. NFD (decomposed): {ids_text(tokenizer, nfd_ids)}. "
                      "Text copied from different sources (macOS file names, PDFs) may use either.",
                      tuple(nfc_ids) + tuple(nfd_ids))


def _audited(state: TokenizedText, flagged: Callable[[int], str | None]) -> Iterator[Finding]:
    reasons: dict[int, str | None] = {}
    for index, token_id in enumerate(state.ids.tolist()):
        if token_id not in reasons:
            reasons[token_id] = flagged(token_id)
        reason = reasons[token_id]
        if reason:
            token = state.token(index)
            yield Finding(AUDIT, token.start, token.end, f'Token {token_id} "{token_text(token.bytes)}" is {reason}',
                          "The vocabulary audit flags this token: the model saw it rarely or never in training, "
                          "so its embedding is poorly trained (like SolidGoldMagikarp).", (token_id,))


def audit_check(tokenizer: Tokenizer) -> Callable[[int], str | None]:
    """The vocabulary audit's verdict for single ids (explorer.core.analysis.audit's rules, applied only to
    the tokens of a prompt instead of the whole vocabulary): 'unreachable' or 'impossible in UTF-8'."""
    from explorer.core.text.utf8 import impossible_in_utf8, is_complete

    forest = tokenizer.forest
    encode_alone = getattr(tokenizer, "encode_alone", None)  # SentencePiece: without the `▁` put in front
    if encode_alone is None:
        def encode_alone(data: bytes) -> list[int]:
            return tokenizer.encode(data.decode("utf-8"), "plain")

    def verdict(token_id: int) -> str | None:
        if token_id in tokenizer.special_tokens.values():
            return None
        data = tokenizer.token_bytes(token_id)
        if any(map(impossible_in_utf8, data)):
            return "impossible in UTF-8"
        if forest is not None and forest.rank(token_id) is not None and is_complete(data):
            if encode_alone(data) != [token_id]:
                return "unreachable (encoding its own text gives other tokens)"
        return None

    return verdict
