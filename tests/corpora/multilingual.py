"""Multilingual text for tests: blocks of lines in one language, some with CRLF endings.

Sentences, UI strings, help texts aligned with spaces and tab-separated tables in Korean, Hindi,
Arabic, Japanese, Chinese, Thai and English, with English words, digits and emoji mixed in.
"""

from __future__ import annotations

from collections.abc import Iterator

from tests.corpora.words import (
    COMMON, EMOJI, Source, arabic_word, english_word, hanzi_word, hindi_word, japanese_word, korean_word, lexicon,
    thai_word)

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
            said = [self.sentence(s.pick(["en", "ko", "ja", "hi"])) + "".join(
                s.pick(EMOJI) for _ in range(s.between(1, 4))) for _ in range(s.between(1, 2))]
            return " ".join(said) + s.pick(["", " ㅋㅋㅋ", "!!!"])
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
