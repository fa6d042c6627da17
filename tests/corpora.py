"""Seeded corpora for the tests: English prose, Python-like code and multilingual text of any size.

A fresh clone has no ../shared corpora (only the benchmarks use those), so the parity tests make
their own text here. Words come from Zipf-distributed lexicons (thousands of distinct words, a few
very frequent ones), so BPE meets real ties and real merges; lines carry the edges real text has:
CRLF, tabs, long runs of spaces, digits, contractions, combining marks, emoji, seven scripts.
Only `random.Random.random()` is drawn and only lists are iterated, so the text is the same on
every machine and Python version. A corpus of one size is a prefix of a bigger one.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from itertools import accumulate
from typing import TypeVar

T = TypeVar("T")

KINDS = ("prose", "code", "multi")

# English function words and common words, most frequent first: the head of the Zipf curve.
COMMON = """the of and to a in is that it for was on as with he be by at this not are from or his
have an they which but you had one all were we there their been has will when would who more if no
out so what its can about said into them up only other time some could these two may then do first
any my now such like our over man me even most made after also did many before must through back
years where much your way well down should because each just those people how too little state good
very make world still own see men work long get here between both life being under never day same
another know while last might us great old year off come since against go came right used take three
I she her him don't it's can't I'm you're we'll they've isn't wasn't couldn't let's that's there's""".split()
ONSETS = "b bl br c ch cl cr d dr f fl fr g gl gr h j k l m n p ph pl pr qu r s sc sh sk sl sm sn sp st str t th tr v w wh wr y z".split()
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


HANGUL_INITIALS, HANGUL_VOWELS, HANGUL_FINALS = range(19), range(21), range(28)
DEVANAGARI = _chars(0x915, 0x939)
MATRAS = ["", "", "", "ा", "ि", "ी", "ु", "ू", "े", "ै", "ो", "ौ"]
ARABIC = _chars(0x627, 0x64A, skip="\u063b\u063c\u063d\u063e\u063f\u0640")
THAI = _chars(0xE01, 0xE2E)
HIRAGANA = _chars(0x3041, 0x3093, skip="ぁぃぅぇぉっゃゅょゎ")
KATAKANA = _chars(0x30A1, 0x30F3, skip="ァィゥェォッャュョヮ")


def korean_word(source: Source) -> str:
    def syllable() -> str:
        final = 0 if source.chance(0.5) else source.below(len(HANGUL_FINALS))
        initial, vowel = source.below(len(HANGUL_INITIALS)), source.below(len(HANGUL_VOWELS))
        return chr(0xAC00 + (initial * 21 + vowel) * 28 + final)
    return "".join(syllable() for _ in range(source.between(1, 4)))


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
    return "".join(chr(0x4E00 + source.below(2500)) for _ in range(source.between(1, 3)))


def japanese_word(source: Source) -> str:
    style = source.below(3)
    if style == 0:
        return "".join(chr(0x4E00 + source.below(1500)) for _ in range(source.between(1, 2)))
    if style == 1:
        return "".join(source.pick(HIRAGANA) for _ in range(source.between(2, 4)))
    return "".join(source.pick(KATAKANA) for _ in range(source.between(2, 5))) + ("ー" if source.chance(0.3) else "")


# Prose: paragraphs wrapped at a width of their own, with headings, tables, lists and dialogue.

ACCENTED = ["café", "cafe\u0301", "naïve", "résumé", "Zoë", "façade", "São Paulo", "Ångström", "coöperate"]


def number(source: Source) -> str:
    style = source.below(8)
    n = source.between(0, 10 ** source.between(1, 9))
    return [str(source.between(1500, 2030)), f"{n:,}", f"{n % 1000}.{source.below(100000)}", f"{n % 100}%",
            f"{source.below(24)}:{source.below(60):02}", f"{n % 50 + 1}{source.pick(['st', 'nd', 'rd', 'th'])}",
            f"${n % 10000:,}.{source.below(100):02}", str(n)][style]


def sentence(source: Source, words: Zipf, names: Zipf) -> str:
    parts: list[str] = []
    for _ in range(source.between(3, 22)):
        roll = source.random()
        if roll < 0.04:
            word = names.draw(source)
        elif roll < 0.07:
            word = number(source)
        elif roll < 0.09:
            word = words.draw(source) + "'s"
        elif roll < 0.092:
            word = source.pick(ACCENTED)
        else:
            word = words.draw(source)
        if source.chance(0.02):
            word = source.pick(["(", "“", '"', "'"]) + word + source.pick([")", "”", '"', "'"])
        elif source.chance(0.08):
            word += source.pick([",", ",", ",", ";", ":", " —", "..."])
        parts.append(word)
    text = " ".join(parts)
    text = text[0].upper() + text[1:] + source.pick([".", ".", ".", ".", "?", "!", "…", ".)"])
    return text.upper() if source.chance(0.02) else text


def wrap(text: str, width: int) -> list[str]:
    """Lines of at most about `width` characters, cut at single spaces (runs of spaces are kept)."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + len(word) >= width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line]


def paragraph(source: Source, words: Zipf, names: Zipf) -> list[str]:
    roll = source.random()
    if roll < 0.08:
        title = " ".join(words.draw(source).capitalize() for _ in range(source.between(1, 5)))
        return [f"Chapter {source.between(1, 150)}" if source.chance(0.3) else title, source.pick("=-~") * len(title)]
    if roll < 0.15:  # a table aligned with spaces, or separated by tabs
        sep = "\t" if source.chance(0.4) else None
        rows = [(words.draw(source), number(source), names.draw(source)) for _ in range(source.between(2, 8))]
        return [sep.join(row) if sep else f"{row[0]:<{source.between(12, 40)}}{row[1]:>14}  {row[2]}" for row in rows]
    if roll < 0.20:
        bullet = source.pick(["  * ", "  - ", "\t- ", "    • "])
        return [bullet + sentence(source, words, names) for _ in range(source.between(2, 6))]
    if roll < 0.25:
        said = source.pick(["said", "asked", "replied", "whispered"])
        return [f"“{sentence(source, words, names)}” {said} {names.draw(source)}." for _ in range(source.between(1, 4))]
    if roll < 0.27:
        cells = [words.draw(source) for _ in range(source.between(2, 4))]
        rule = "─" * 12
        return ["┌" + "┬".join([rule] * len(cells)) + "┐", "│" + "│".join(f"{c:^12}" for c in cells) + "│",
                "└" + "┴".join([rule] * len(cells)) + "┘"]
    space = "  " if source.chance(0.2) else " "
    text = space.join(sentence(source, words, names) for _ in range(source.between(1, 8)))
    if source.chance(0.05):
        text += " " * source.between(8, 70) + words.draw(source)
    lines = wrap(text, source.between(50, 110))
    if source.chance(0.15):  # verse numbers, as in old books
        lines = [f"  {source.between(1, 40)} {line}" for line in lines]
    elif source.chance(0.1):
        lines = ["    " + line for line in lines]
    return lines


def prose_lines(source: Source) -> Iterator[str]:
    words = lexicon(source, english_word, 6000, COMMON)
    names = lexicon(source, lambda s: english_word(s).capitalize(), 400)
    while True:
        yield from (line + "\n" for line in paragraph(source, words, names))
        yield from ["\n"] * (1 if source.chance(0.9) else 2)


# Code: Python-like modules of imports, constants, functions and classes, nested four levels deep.

NAME_HEAD = "self value name data key path result items text count index size line token node args".split()
IMPORTS = ["import os", "import re", "import sys", "from __future__ import annotations",
           "from collections import defaultdict", "from pathlib import Path", "from typing import Any, Iterator"]
STRANGE = ["μs", "→", "Привет", "naïve", "½", "°C", "日本", "✓", "\\u00e9", "\\t", "\\n", "%s", "{!r}"]


class Code:
    """Python-looking lines from a lexicon of identifier parts and of words for strings and comments."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.parts = lexicon(source, lambda s: english_word(s)[:8], 1500, NAME_HEAD)
        self.words = lexicon(source, english_word, 3000, COMMON)

    def name(self) -> str:
        return "_".join(self.parts.draw(self.source) for _ in range(self.source.pick([1, 1, 2, 2, 3])))

    def string(self) -> str:
        s = self.source
        text = " ".join(self.words.draw(s) if s.chance(0.9) else s.pick(STRANGE) for _ in range(s.between(1, 6)))
        if s.chance(0.2):
            return f'f"{text} {{{self.name()}}}"'
        return f'"{text}"' if "'" in text or s.chance(0.6) else f"'{text}'"

    def expression(self, depth: int = 0) -> str:
        s = self.source
        roll = s.below(12) if depth == 0 or (depth == 1 and s.chance(0.3)) else s.below(4)
        if roll == 0:
            return self.name()
        if roll == 1:
            return f"self.{self.name()}"
        if roll == 2:
            return s.pick([str(s.below(100)), str(s.below(100000)), f"0x{s.below(65536):04X}", f"{s.random():.3f}",
                           "None", "True", "False", "-1", "1 << 13"])
        if roll == 3:
            return self.string()
        if roll in (4, 5):
            args = ", ".join(self.expression(depth + 1) for _ in range(s.below(4)))
            return f"{self.name()}({args})"
        if roll == 6:
            return f"{self.expression(depth + 1)} {s.pick(['+', '-', '*', '//', '%', '==', '!=', '<=', 'and', 'or', 'in'])} {self.expression(depth + 1)}"
        if roll == 7:
            return "[" + ", ".join(self.expression(depth + 1) for _ in range(s.below(5))) + "]"
        if roll == 8:
            return "{" + ", ".join(f"{self.string()}: {self.expression(depth + 1)}" for _ in range(s.below(4))) + "}"
        if roll == 9:
            item = self.name()
            return f"[{item} for {item} in {self.expression(depth + 1)} if {item}]"
        if roll == 10:
            return f"{self.name()}[{s.pick(['0', '-1', '1:', ':-1', 'i', 'key'])}]"
        return f"len({self.expression(depth + 1)})"

    def block(self, depth: int, statements: int) -> list[str]:
        s, lines = self.source, []
        for _ in range(statements):
            roll = s.below(14) if depth < 4 else s.below(6)
            if roll < 3:
                op = "=" if s.chance(0.85) else s.pick(["+=", "-=", "|="])
                lines.append(f"{self.name()} {op} {self.expression()}")
            elif roll == 3:
                lines.append(f"{self.name()}({self.expression()})")
            elif roll == 4:
                lines.append("# " + " ".join(self.words.draw(s) for _ in range(s.between(2, 12))))
            elif roll == 5:
                lines.append(s.pick(["return " + self.expression(), "return", "continue", "pass",
                                     f"raise ValueError({self.string()})"]))
            elif roll < 9:
                head = s.pick([f"if {self.expression()}:", f"for {self.name()} in {self.expression()}:",
                               f"while {self.expression()}:", f"with open({self.name()}, encoding=\"utf-8\") as f:"])
                lines += [head, *self.block(depth + 1, s.between(1, 4))]
                if head.startswith("if") and s.chance(0.3):
                    lines += ["else:", *self.block(depth + 1, s.between(1, 3))]
            elif roll == 9:
                lines += ["try:", *self.block(depth + 1, 2), f"except {s.pick(['KeyError', 'OSError'])} as error:",
                          *self.block(depth + 1, 1)]
            elif roll == 10:
                lines.append(f"{self.name()} = {self.expression()}" + " " * s.between(2, 30) + "# " + self.words.draw(s))
            else:
                lines.append("")
        return ["    " + line if line else "" for line in lines]

    def function(self, method: bool) -> list[str]:
        s = self.source
        params = ["self"] if method else []
        params += [self.name() + s.pick(["", ": int", ": str", " = None", ": list[str]"]) for _ in range(s.below(4))]
        head = [f"@{s.pick(['property', 'staticmethod', 'cache'])}"] if s.chance(0.15) else []
        head.append(f"def {self.name()}({', '.join(params)}){s.pick(['', ' -> None', ' -> bool', ' -> str'])}:")
        doc = '    """' + " ".join(self.words.draw(s) for _ in range(s.between(3, 14))).capitalize() + '."""'
        lines = [*head, doc, *self.block(0, s.between(2, 9))]
        if s.chance(0.03):  # an old file indented with tabs
            lines = [line.replace("    ", "\t") for line in lines]
        return lines

    def module_part(self) -> list[str]:
        s = self.source
        roll = s.random()
        if roll < 0.08:
            return [s.pick(IMPORTS) for _ in range(s.between(1, 4))] + [""]
        if roll < 0.15:
            return [f"{self.name().upper():<{s.between(10, 30)}} = {self.expression()}" for _ in range(s.between(1, 5))] + [""]
        if roll < 0.4:
            bases = "" if s.chance(0.5) else f"({''.join(p.capitalize() for p in self.name().split('_'))})"
            lines = [f"class {''.join(p.capitalize() for p in self.name().split('_'))}{bases}:"]
            for _ in range(s.between(1, 4)):
                lines += ["    " + line if line else "" for line in self.function(True)] + [""]
            return lines + [""]
        return self.function(False) + ["", ""]


def code_lines(source: Source) -> Iterator[str]:
    code = Code(source)
    while True:
        yield from (line + "\n" for line in code.module_part())


# Multilingual: blocks of lines in one language (some with CRLF endings), sentences, UI strings,
# help texts aligned with spaces, tab-separated tables, English words, digits and emoji mixed in.

HEADS = {
    "ko": "이 수 있습니다 없습니다 합니다 파일 설정 저장 열기 선택 사용자 이름 문서 보기 도움말 그리고 또는".split(),
    "hi": "है के में की और को से का नहीं यह करें फ़ाइल सेटिंग्स चुनें उपयोगकर्ता".split(),
    "ar": "في من على إلى أن هذا ملف حفظ فتح الملف الإعدادات المستخدم لا".split(),
    "ja": "ファイル 設定 保存 開く 表示 情報 この その ユーザー 選択 文書".split(),
    "zh": "的 是 在 文件 设置 保存 打开 用户 选择 显示 不 了 和 这个".split(),
    "th": "ที่ และ ไฟล์ การตั้งค่า บันทึก เปิด ผู้ใช้ ไม่ ของ ใน".split(),
}
MAKERS = {"ko": korean_word, "hi": hindi_word, "ar": arabic_word, "ja": japanese_word, "zh": hanzi_word,
          "th": thai_word}
SPACED = {"ko", "hi", "ar", "en"}  # the others write words without spaces between them
ENDINGS = {"ko": ["습니다.", "하세요.", "합니다?", "니다!"], "hi": [" है।", "।", " करें।", "?"],
           "ar": [".", "؟", "!", " ."], "ja": ["です。", "ます。", "した。", "か？"], "zh": ["。", "！", "？", "了。"],
           "th": ["", " ครับ", " ค่ะ", "?"], "en": [".", "?", "!", "..."]}
COMMAS = {"ko": ",", "hi": ",", "ar": "،", "ja": "、", "zh": "，", "th": " ", "en": ","}
PARTICLES = {"ko": ["은", "는", "이", "가", "을", "를", "에", "의", "로", "에서", "도"],
             "ja": ["は", "が", "を", "に", "で", "の", "と", "も", "へ"]}
DIGITS = {"hi": 0x966, "ar": 0x660, "th": 0xE50, "ja": 0xFF10, "zh": 0xFF10}
TECH = ["Python", "URL", "API", "HTTP", "UTF-8", "OK", "ID", "Wi-Fi", "PDF", "v2.0", "e-mail", "Ctrl+S", "you're"]
LANGUAGES = ["ko", "ko", "ko", "ar", "ar", "hi", "hi", "ja", "ja", "zh", "zh", "th", "th", "en", "chat"]


class Multi:
    """Lines in Korean, Hindi, Arabic, Japanese, Chinese, Thai and English, and chat with emoji."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.lexicons = {lang: lexicon(source, make, 2500, HEADS[lang]) for lang, make in MAKERS.items()}
        self.lexicons["en"] = lexicon(source, english_word, 2500, COMMON)
        self.names = lexicon(source, lambda s: english_word(s).capitalize(), 200)

    def digits(self, lang: str) -> str:
        s, n = self.source, str(self.source.below(10 ** self.source.between(1, 6)))
        if lang in DIGITS and s.chance(0.5):
            return "".join(chr(DIGITS[lang] + int(d)) for d in n)
        if lang in ("ja", "zh") and s.chance(0.3):
            return f"{s.between(1990, 2030)}年{s.between(1, 12)}月{s.between(1, 28)}日"
        return n + (s.pick(["년", "개", "%", ""]) if lang == "ko" else "")

    def sentence(self, lang: str) -> str:
        s, words = self.source, self.lexicons[lang]
        parts = []
        for _ in range(s.between(2, 14)):
            roll = s.random()
            word = (s.pick(TECH) if roll < 0.06 else self.digits(lang) if roll < 0.1
                    else s.pick(EMOJI) if roll < 0.12 else words.draw(s))
            if lang in PARTICLES and s.chance(0.5):
                word += s.pick(PARTICLES[lang])
            if s.chance(0.07):
                word += COMMAS[lang]
            parts.append(word)
        return (" " if lang in SPACED else "" if s.chance(0.6) else " ").join(parts) + s.pick(ENDINGS[lang])

    def line(self, lang: str) -> str:
        s = self.source
        if lang == "chat":
            return " ".join(self.sentence(s.pick(["en", "ko", "ja", "hi"])) + "".join(
                s.pick(EMOJI) for _ in range(s.between(1, 4))) for _ in range(s.between(1, 2))) + s.pick(["", " ㅋㅋㅋ", "!!!"])
        roll = s.random()
        if roll < 0.5:
            return " ".join(self.sentence(lang) for _ in range(s.between(1, 3)))
        if roll < 0.62:
            key = ".".join(self.lexicons["en"].draw(s) for _ in range(s.between(1, 3)))
            return f"{key}={self.sentence(lang)[:s.between(4, 30)]}" + s.pick(["", "(&S)", "...", ":"])
        if roll < 0.77:  # a command's help, aligned in columns
            flag = self.lexicons["en"].draw(s)
            option = f"  -{flag[0]} --{flag}" + s.pick(["", "=<file>", "=<n>", " <path>"])
            return f"{option:<{s.between(24, 36)}}{self.sentence(lang)}"
        if roll < 0.87:
            return "\t".join([self.lexicons["en"].draw(s), self.sentence(lang)[:20], self.digits(lang)])
        if roll < 0.95:
            return self.names.draw(s) + ": " + self.sentence(lang) + " " + self.sentence("en")
        if roll < 0.955:
            return "progress 50%\rprogress 100%"
        return ""

    def block(self) -> list[str]:
        s = self.source
        lang, ending = s.pick(LANGUAGES), "\r\n" if s.chance(0.15) else "\n"
        lines = [self.line(lang) + ending for _ in range(s.between(3, 15))]
        if s.chance(0.1):
            lines.append(" " * s.between(8, 60) + self.sentence("en" if lang == "chat" else lang) + ending)
        return [*lines, ending]


def multi_lines(source: Source) -> Iterator[str]:
    multi = Multi(source)
    while True:
        yield from multi.block()


GENERATORS: dict[str, Callable[[Source], Iterator[str]]] = {"prose": prose_lines, "code": code_lines,
                                                             "multi": multi_lines}


@cache
def corpus_lines(kind: str, size: int, seed: int = 0) -> list[str]:
    """Lines (each with its ending) of a `kind` corpus, as many as fit in `size` bytes of UTF-8.

    >>> len("".join(corpus_lines("multi", 10_000)).encode()) <= 10_000
    True
    """
    lines, total = [], 0
    for line in GENERATORS[kind](Source(seed)):
        total += len(line.encode())
        if total > size:
            return lines
        lines.append(line)
    raise AssertionError("the generators never end")


def corpus_text(kind: str, size: int, seed: int = 0) -> str:
    """One text of about `size` bytes: long enough to be encoded in several windows."""
    return "".join(corpus_lines(kind, size, seed))
