"""Where a big text may be cut for `tokenizers` so that the windows encode as the whole text does.

Before its pre-tokenizer runs, tokenizers takes the added tokens out of the text (those marked
`"normalized": false` first, the others after normalizing), normalizes each piece between them
on its own and pre-tokenizes each piece on its own. Windows follow the same pieces: they are cut
in the normalized text, right after an added token or where `Pretokenizer.windows` cuts a piece.
"""

from __future__ import annotations

from typing import Any

from explorer.core.algorithms.bpe import SpecialTokens
from explorer.core.pretokenization.pretokenize import WINDOW, Pretokenizer
from explorer.core.sources.tokenizer import SpecialMode


class AddedTokenPieces:
    """A tokenizer.json's added tokens, and how they cut a text into the pieces tokenizers treats
    on its own. Each finder is a pair: for "allowed"/"disallowed" mode, and for "plain" mode,
    where tokenizers reads special tokens as text."""

    def __init__(self, added: list[dict[str, Any]]) -> None:
        def finders(tokens: list[dict[str, Any]]) -> tuple[SpecialTokens, SpecialTokens]:
            return (SpecialTokens({t["content"]: t["id"] for t in tokens}),
                    SpecialTokens({t["content"]: t["id"] for t in tokens if not t.get("special")}))

        self.taken_out = finders(added)
        self.before_normalizing = finders([t for t in added if not t.get("normalized", not t.get("special"))])
        # Tokens that strip the spaces beside them or match whole words only: not mimicked here.
        self.mimicked = not any(t.get(option) for t in added for option in ("lstrip", "rstrip", "single_word"))

    def normalized(self, text: str, special: SpecialMode, normalizer: Any) -> str | None:
        """`text` as the pre-tokenizer sees it: each piece between the added tokens matched before
        normalization is normalized on its own (empty pieces stay empty, as in tokenizers).

        None where a copy of the tokenizer without its normalizer could not find the same added
        tokens in the result (normalizing made a new one), or where they are not `mimicked`.
        """
        if normalizer is None:
            return text
        if not self.mimicked:
            return None
        finder = self.before_normalizing[special == "plain"]
        parts: list[str] = []
        expected: list[tuple[int, int, str]] = []  # where the tokens must be found in the result
        position = length = 0
        for start, end, token in [*finder.find(text), (len(text), len(text), "")]:
            parts.append(normalizer.normalize_str(text[position:start]) if start > position else "")
            length += len(parts[-1])
            if token:
                expected.append((length, length + len(token), token))
                parts.append(token)
                length += len(token)
            position = end
        normalized = "".join(parts)
        return normalized if finder.find(normalized) == expected else None

    def windows(self, text: str, special: SpecialMode, pretokenizer: Pretokenizer) -> list[str]:
        """Windows of `text` (normalized already) of WINDOW characters or more, cut only where
        tokenizers' chunks are the same on both sides: our chunks of the whole text run across
        added tokens ("<|endoftext|>'t" gives `|>'`, `t`, tokenizers `'t`)."""
        if not self.mimicked:
            return [text]
        cuts: list[int] = []  # where a window may end
        position = 0
        for start, end, _ in [*self.taken_out[special == "plain"].find(text), (len(text), len(text), "")]:
            for window in pretokenizer.windows(text[position:start]):
                position += len(window)
                cuts.append(position)
            position = end
            cuts.append(end)
        windows: list[str] = []
        start = 0
        for cut in cuts:
            if cut - start >= WINDOW or cut == len(text) > start:
                windows.append(text[start:cut])
                start = cut
        return windows or [text]
