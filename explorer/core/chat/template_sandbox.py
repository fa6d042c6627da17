"""The Jinja sandbox a chat template renders in: transformers' immutable sandbox, with limits.

A template is code from the internet. The sandbox keeps it away from Python; these limits keep it
from taking the machine: every loop over `range` stops at the rendering's deadline, and no one
step may build a text or list past a size no chat needs (`"x" * 10**10`, `'x'|center(10**10)`,
a text doubled forty times with `~` or `+`, `2 ** 10**8`). A refusal is a SecurityError, which
the caller reports as a template the sandbox stopped.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jinja2
from jinja2.compiler import CodeGenerator, Frame
from jinja2.filters import FILTERS, make_attrgetter
from jinja2.nodes import Concat, EvalContext
from jinja2.sandbox import ImmutableSandboxedEnvironment, safe_range

RENDER_SECONDS = 5.0  # a rendering still looping after this long is stopped
LONGEST = 1 << 20  # items one list may have, and characters one `*` may build: a million
LONGEST_TEXT = 1 << 26  # characters one text may have (64 million: any chat's, short of the machine's memory)
BIGGEST_POWER = 1 << 16  # bits one `**` may build
# A width or precision in a format string: `%10s`, `%.3f`, `{:>10}`, `{0:.3}` (a `*` or `{w}` takes one from the arguments).
_WIDTH = re.compile(r"(?:%[-#0 +]*|\{[^{}]*:[^{}\d]*)(\d*)(?:\.(\d+))?")


class _Deadline(threading.local):
    """When the rendering on this thread must have ended (renderings of one template may run on
    several threads: the Chat pane's superseded job and its new one)."""

    at = float("inf")
    seconds = RENDER_SECONDS


deadline = _Deadline()


class TimedRange:
    """The sandbox's `range`, whose loops stop at the rendering's deadline: two nested loops of
    100,000 (the sandbox's own limit for one) would otherwise run for hours."""

    def __init__(self, *args: int) -> None:
        self._numbers = safe_range(*args)

    def __iter__(self) -> Iterator[int]:
        for count, number in enumerate(self._numbers):
            if not count & 1023 and time.monotonic() > deadline.at:
                raise jinja2.exceptions.SecurityError(f"it was still looping after {deadline.seconds:g} s")
            yield number

    def __len__(self) -> int:
        return len(self._numbers)

    def __getitem__(self, index: Any) -> Any:
        return self._numbers[index]

    def __reversed__(self) -> Iterator[int]:
        return iter(TimedRange(self._numbers.start + (len(self._numbers) - 1) * self._numbers.step,
                               self._numbers.start - self._numbers.step, -self._numbers.step))


def check_size(size: int, limit: int = LONGEST_TEXT, what: str = "a text longer than {:,} characters") -> None:
    """Refuse to build something of `size` (characters, items, bits) past `limit`: `what` says what."""
    if isinstance(size, int) and size > limit:  # (not an int: the call it checks fails on its own)
        raise jinja2.exceptions.SecurityError(what.format(limit) + " was refused")


def check_as_text(value: Any) -> Any:
    """Refuse a list or dict whose text (`str`, JSON) would be too long: `messages * 1000000`
    holds a million references to a few messages, and their text is a million copies. Counted
    item by item, only until past the limit. Returns `value`, for use as Jinja's `finalize`."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    waiting, size = [value], 0
    while waiting and size <= LONGEST_TEXT:
        item = waiting.pop()
        if isinstance(item, str):
            size += len(item) + 2
        elif isinstance(item, dict):
            size += 2 + 4 * len(item)
            waiting += item.keys()
            waiting += item.values()
        elif isinstance(item, (list, tuple)):
            size += 2 + 2 * len(item)
            waiting += item
        else:
            size += 8
    check_size(size)
    return value


def _check_format(template: object, arguments: Iterable[Any] = ()) -> None:
    """A format string's widths and precisions (`%10000000000s`, `{:>10000000000}`) pad without
    limit; where the string takes them from its arguments, their numbers are checked too."""
    if not isinstance(template, str):
        return
    numbers = [int(number) for match in _WIDTH.findall(template) for number in match if number]
    if "*" in template or ":{" in template:
        values = [item for argument in arguments
                  for item in (argument.values() if isinstance(argument, dict) else
                               argument if isinstance(argument, tuple) else (argument,))]
        numbers += [value for value in values if isinstance(value, int)]
    check_size(max(numbers, default=0), what="a width or precision over {:,}")


def _text_size(text: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """What the str method `method` would build from `text`, where it can be far longer (else 0)."""
    values = list(args) + list(kwargs.values())
    if method in ("center", "ljust", "rjust", "zfill") and values and isinstance(values[0], int):
        return values[0]
    if method == "expandtabs" and values and isinstance(values[0], int):
        return len(text) * max(values[0], 1)
    if method == "replace" and len(values) >= 2 and isinstance(values[0], str) and isinstance(values[1], str):
        old, new = values[0], values[1]
        return len(text) + (text.count(old) + (not old)) * len(new)
    return 0


class _CheckedJoins(CodeGenerator):
    """Compiles `a ~ b` to the sandbox's `joined`, which measures before it joins."""

    def visit_Concat(self, node: Concat, frame: Frame) -> None:
        self.write("environment.joined((")
        for argument in node.nodes:
            self.visit(argument, frame)
            self.write(", ")
        self.write("))")


def joined(parts: Iterable[Any], separator: str = "", what: str = "a text longer than {:,} characters") -> str:
    """`separator.join` of the parts as text (`~`, `str.join`, `|join`), measured first."""
    texts = [part if isinstance(part, str) else str(check_as_text(part)) for part in parts]
    check_size(sum(map(len, texts)) + len(separator) * max(len(texts) - 1, 0), what=what)
    return separator.join(texts)


def _limited(name: str, size: Callable[..., int]) -> Callable[..., Any]:
    """Jinja's filter `name`, refusing what `size(value, *args)` says would be too big. (A filter
    that Jinja passes its context to gets it first, as the original does; `size` does not.)"""
    original = FILTERS[name]
    passed = hasattr(original, "jinja_pass_arg")

    def checked(*args: Any, **kwargs: Any) -> Any:
        check_size(size(*args[passed:], **kwargs), what=f"a |{name} longer than {{:,}}")
        return original(*args, **kwargs)

    checked.__name__ = name
    if passed:
        checked.jinja_pass_arg = original.jinja_pass_arg  # type: ignore[attr-defined]
    return checked


def _checked_as_text(value: Any, *_: Any, **__: Any) -> int:
    """For `_limited`: `check_as_text` has refused `value` already if it was too long."""
    check_as_text(value)
    return 0


@jinja2.pass_eval_context
def _join(context: EvalContext, value: Iterable[Any], d: str = "", attribute: Any = None) -> str:
    """`|join`, measured first: with autoescape off (as here) Jinja's is `d.join` of the items as text."""
    if attribute is not None:
        value = map(make_attrgetter(context.environment, attribute), value)
    return joined(value, str(d), "a |join longer than {:,}")


class Sandbox(ImmutableSandboxedEnvironment):
    """transformers' sandbox, with limits on what one step may build."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})
    code_generator_class = _CheckedJoins

    def __init__(self, **options: Any) -> None:
        super().__init__(finalize=check_as_text, **options)  # (finalize: what each {{ }} outputs)
        self.globals["range"] = TimedRange
        self.filters.update({
            "center": _limited("center", lambda value, width=80: width),
            "indent": _limited("indent", lambda value, width=4, *_, **__: (
                len(str(value)) + (str(value).count("\n") + 1) * (width if isinstance(width, int) else len(width)))),
            "format": _limited("format", lambda value, *args, **kwargs: _check_format(
                value, (*args, kwargs)) or 0),
            "replace": _limited("replace", lambda value, old, new, *_, **__: _text_size(
                str(value), "replace", (str(old), str(new)), {})),
            "batch": _limited("batch", lambda value, linecount, *_, **__: linecount),
            "slice": _limited("slice", lambda value, slices, *_, **__: slices),
            "join": _join,
            "string": _limited("string", _checked_as_text),
            "pprint": _limited("pprint", _checked_as_text),
        })

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        sequences = (str, list, tuple)
        if operator == "*":
            sequence, times = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(sequence, sequences) and isinstance(times, int):
                check_size(len(sequence) * times, LONGEST, "a repetition longer than {:,}")
        elif operator == "+":
            if isinstance(left, sequences) and isinstance(right, sequences):
                if isinstance(left, str):
                    check_size(len(left) + len(right))
                else:
                    check_size(len(left) + len(right), LONGEST, "a list longer than {:,} items")
        elif operator == "%":
            _check_format(left, (right,))
        elif operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
            check_size(abs(left).bit_length() * right, BIGGEST_POWER, "a power of more than {:,} bits")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (as Jinja's)
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, str):
            if __obj.__name__ == "join" and len(args) == 1 and not kwargs:
                return joined(args[0], owner)
            check_size(_text_size(owner, __obj.__name__, args, kwargs))
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """`str.format` and `format_map`, the sandbox's, with their widths checked."""
        formatting = super().wrap_str_format(value)
        if formatting is None:
            return None

        def checked(*args: Any, **kwargs: Any) -> str:
            _check_format(value.__self__, (*args, kwargs))
            return formatting(*args, **kwargs)

        return checked

    joined = staticmethod(joined)

    def concat(self, parts: Iterable[str]) -> str:  # type: ignore[override]
        """The rendering's output, and each macro's and `{% set %}` block's, measured as it comes."""
        texts, size = [], 0
        for text in parts:
            size += len(text)
            check_size(size)
            texts.append(text)
        return "".join(texts)
