"""Python-like code for tests: imports, constants, functions and classes nested up to four blocks deep."""

from __future__ import annotations

from collections.abc import Iterator

from tests.corpora.words import COMMON, Source, english_word, lexicon

NAME_HEAD = "self value name data key path result items text count index size line token node args".split()
IMPORTS = ["import os", "import re", "import sys", "from __future__ import annotations",
           "from collections import defaultdict", "from pathlib import Path", "from typing import Any, Iterator"]
OPERATORS = ["+", "-", "*", "//", "%", "==", "!=", "<=", "and", "or", "in"]
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
            left, operator = self.expression(depth + 1), s.pick(OPERATORS)
            return f"{left} {operator} {self.expression(depth + 1)}"
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
                statement = f"{self.name()} = {self.expression()}"
                lines.append(statement + " " * s.between(2, 30) + "# " + self.words.draw(s))
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
            width = s.between(10, 30)
            return [f"{self.name().upper():<{width}} = {self.expression()}" for _ in range(s.between(1, 5))] + [""]
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
