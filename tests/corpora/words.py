"""Word makers for the test corpora: a seeded draw source, Zipf lexicons, made-up words in seven scripts.

Only `random.Random.random()` is drawn and only lists are iterated (never a set), so every word is
the same on every machine and Python version. Scripts use letters assigned before Unicode 5, which
every reference (regex, tokenizers, tiktoken) classifies alike.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import TypeVar

T = TypeVar("T")

# English function words and common words, most frequent first: the head of the Zipf curve.
COMMON = """the of and to a in is that it for was on as with he be by at this not are from or his
have an they which but you had one all were we there their been has will when would who more if no
out so what its can about said into them up only other time some could these two may then do first
any my now such like our over man me even most made after also did many before must through back
years where much your way well down should because each just those people how too little state good
very make world still own see men work long get here between both life being under never day same
another know while last might us great old year off come since against go came right used take three
I she her him don't it's can't I'm you're we'll they've isn't wasn't couldn't let's that's there's""".split()
ONSETS = ("b bl br c ch cl cr d dr f fl fr g gl gr h j k l m n p ph pl pr qu r s sc sh sk sl sm sn sp st str t th tr "
          "v w wh wr y z").split()
VOWELS = "a e i o u a e i o ai ea ee oo ou ie oa y".split()
CODAS = ["", "", "", "b", "ck", "d", "ft", "g", "k", "l", "ld", "lt", "m", "mp", "n", "nd", "ng", "nk", "nt", "p",
         "r", "rd", "rk", "rn", "rt", "s", "sh", "sk", "st", "t", "th", "x"]
SUFFIXES = ["", "", "", "", "s", "s", "ed", "ing", "er", "ly", "tion", "ness", "ment", "able", "ist", "ous"]
EMOJI = ["😀", "😂", "🎉", "🚀", "❤️", "👍🏽", "👨‍👩‍👧‍👦", "🇯🇵", "🇮🇳", "✅", "⭐", "1️⃣", "🙏", "🔥", "🤖", "☕"]


class Source:
    """One seeded stream of draws; everything random below goes through `random()` here."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def random(self) -> float:
        return self._random.random()

    def below(self, n: int) -> int:
        return min(n - 1, int(self._random.random() * n))

    def between(self, low: int, high: int) -> int:
        return low + self.below(high - low + 1)

    def chance(self, p: float) -> bool:
        return self._random.random() < p

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]


class Zipf:
    """Words drawn with weight 1 / (rank + 2.7): the first words are everywhere, most are rare."""

    def __init__(self, words: Sequence[str]) -> None:
        self.words = list(words)
        self._cumulative = list(accumulate(1.0 / (rank + 2.7) for rank in range(len(self.words))))

    def draw(self, source: Source) -> str:
        index = bisect_right(self._cumulative, source.random() * self._cumulative[-1])
        return self.words[min(index, len(self.words) - 1)]


def lexicon(source: Source, make_word: Callable[[Source], str], count: int, head: Sequence[str] = ()) -> Zipf:
    """`head` then `count` distinct made-up words, in the order they were first made (never a set)."""
    words = dict.fromkeys(head)
    while len(words) < len(head) + count:
        words.setdefault(make_word(source))
    return Zipf(list(words))


def english_word(source: Source) -> str:
    syllables = "".join(source.pick(ONSETS) + source.pick(VOWELS) for _ in range(source.pick([1, 1, 1, 2, 2, 3])))
    return syllables + source.pick(CODAS) + source.pick(SUFFIXES)


def _chars(first: int, last: int, skip: str = "") -> list[str]:
    return [chr(c) for c in range(first, last + 1) if chr(c) not in skip]


def _ranked(chars: list[str], keep: int, seed: int) -> Zipf:
    """`keep` of `chars` in a seeded order of frequency: a text uses a few thousand of them, unevenly."""
    source, chars = Source(seed), list(chars)
    for i in range(len(chars) - 1, 0, -1):  # Fisher-Yates over our own draws, not random.shuffle
        j = source.below(i + 1)
        chars[i], chars[j] = chars[j], chars[i]
    return Zipf(chars[:keep])


HANGUL = _ranked(_chars(0xAC00, 0xD7A3), 1500, seed=1)  # syllables, all assigned since Unicode 2.0
HANZI = _ranked(_chars(0x4E00, 0x9FA5), 3000, seed=2)  # CJK ideographs of Unicode 1.1
DEVANAGARI = _chars(0x915, 0x939)
MATRAS = ["", "", "", "ा", "ि", "ी", "ु", "ू", "े", "ै", "ो", "ौ"]
ARABIC = _chars(0x627, 0x64A, skip="\u063b\u063c\u063d\u063e\u063f\u0640")
THAI = _chars(0xE01, 0xE2E)
HIRAGANA = _chars(0x3041, 0x3093, skip="ぁぃぅぇぉっゃゅょゎ")
KATAKANA = _chars(0x30A1, 0x30F3, skip="ァィゥェォッャュョヮ")


def korean_word(source: Source) -> str:
    return "".join(HANGUL.draw(source) for _ in range(source.between(1, 4)))


def hindi_word(source: Source) -> str:
    def syllable() -> str:
        conjunct = "्" + source.pick(DEVANAGARI) if source.chance(0.12) else ""
        nasal = source.pick(["ं", "ँ"]) if source.chance(0.08) else ""
        return source.pick(DEVANAGARI) + conjunct + source.pick(MATRAS) + nasal
    return "".join(syllable() for _ in range(source.between(1, 4)))


def arabic_word(source: Source) -> str:
    word = "".join(source.pick(ARABIC) for _ in range(source.between(2, 6)))
    return ("ال" if source.chance(0.3) else "") + word + ("َ" if source.chance(0.05) else "")


def thai_word(source: Source) -> str:
    def syllable() -> str:
        lead = source.pick(["", "", "", "เ", "แ", "โ", "ไ"])
        vowel = source.pick(["", "า", "ิ", "ี", "ุ", "ู", "ั", "ื", "ะ", "ำ"])
        tone = source.pick(["", "", "", "่", "้", "๊"])
        return lead + source.pick(THAI) + vowel + tone + (source.pick(THAI) if source.chance(0.4) else "")
    return "".join(syllable() for _ in range(source.between(1, 3)))


def hanzi_word(source: Source) -> str:
    return "".join(HANZI.draw(source) for _ in range(source.between(1, 3)))


def japanese_word(source: Source) -> str:
    style = source.below(3)
    if style == 0:
        return "".join(HANZI.draw(source) for _ in range(source.between(1, 2)))
    if style == 1:
        return "".join(source.pick(HIRAGANA) for _ in range(source.between(2, 4)))
    return "".join(source.pick(KATAKANA) for _ in range(source.between(2, 5))) + ("ー" if source.chance(0.3) else "")
