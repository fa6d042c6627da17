"""English prose for tests: paragraphs wrapped at a width of their own, headings, tables, lists, dialogue."""

from __future__ import annotations

from collections.abc import Iterator

from tests.corpora.words import COMMON, Source, Zipf, english_word, lexicon

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
