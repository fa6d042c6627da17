"""A chat template is code from the internet: the sandbox stops any step that would build a text or
list past what a chat needs, in one line and at once, before the memory is taken; templates as
models write them render as transformers renders them."""

from __future__ import annotations

import time

import pytest

from explorer.core.chat.hf_template import HFChatTemplate
from explorer.core.chat.messages import Message
from explorer.core.errors import ChatError

BIG = "{% set s = 'x' * 1000000 %}"
TEXT = r"a text longer than 67,108,864 characters was refused"
WIDTH = r"a width or precision over 67,108,864 was refused"


def render(template: str) -> str:
    return HFChatTemplate("t.json", template, {"bos_token": "<s>"}).render_string([Message("user", "hi")], True)


@pytest.mark.parametrize("template, message", [
    # padding to a width (10**10 characters would be 10-40 GB)
    ("{{ 'x'|center(10**10) }}", r"a \|center longer than"),
    ("{{ 'x'.center(10**10) }}", TEXT),
    ("{{ 'x'.ljust(10**10) }}{{ 'x'.rjust(10**10) }}", TEXT),
    ("{{ 'x'.zfill(10**10) }}", TEXT),
    ("{{ ('\t' * 1000).expandtabs(10**8) }}", TEXT),
    ("{{ 'x'|indent(10**10) }}", r"a \|indent longer than"),
    ("{{ messages|tojson(indent=10**9) }}", "an indent of over 1,024 was refused"),
    # widths and precisions in format strings, written or passed
    ("{{ '{:>10000000000}'.format('x') }}", WIDTH),
    ("{{ '{:{w}}'.format('x', w=10**10) }}", WIDTH),
    ("{{ '{w:{w}}'.format_map({'w': 10**10}) }}", WIDTH),
    ("{{ '%10000000000s' % 'x' }}", WIDTH),
    ("{{ '%*s' % (10**10, 'x') }}", WIDTH),
    ("{{ '%.1000000000f' % 1.5 }}", WIDTH),
    ("{{ '%10000000000s'|format('x') }}", WIDTH),
    # doubling, step by step, with each way of joining
    ("{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", TEXT),
    ("{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}", TEXT),
    ("{% set ns = namespace(s=['x']) %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
     r"a list longer than 1,048,576 items"),
    (BIG + "{{ s|replace('x', s) }}", r"a \|replace longer than"),
    (BIG + "{{ s.replace('x', s) }}", TEXT),
    (BIG + "{{ s.replace('', s) }}", TEXT),
    (BIG + "{{ ([s] * 1000)|join }}", r"a \|join longer than"),
    (BIG + "{{ s.join([s] * 1000) }}", TEXT),
    # output, a macro's and a block's, in small steps
    (BIG + "{% for i in range(1000) %}{{ s }}{% endfor %}", TEXT),
    (BIG + "{% macro m() %}{% for i in range(1000) %}{{ s }}{% endfor %}{% endmacro %}{{ m()|length }}", TEXT),
    (BIG + "{% set t %}{% for i in range(1000) %}{{ s }}{% endfor %}{% endset %}{{ t|length }}", TEXT),
    # loops that would run a billion times
    ("{{ [1, 2]|slice(10**9)|list|length }}", r"a \|slice longer than"),
    ("{{ [1, 2]|batch(10**9, 'x')|list|length }}", r"a \|batch longer than"),
])
def test_a_step_that_would_build_too_much_is_refused_at_once(template: str, message: str) -> None:
    started = time.monotonic()
    with pytest.raises(ChatError, match=rf"t.json: the chat_template tried something the sandbox forbids \(.*{message}"):
        render(template)
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("template, expected", [
    ("{{ '%5.2f|%s' % (3.14159, 'x') }}", " 3.14|x"),
    ("{{ '{:>6}|{}'.format('ab', 12345678901234) }}", "    ab|12345678901234"),
    ("{{ 'call 12345678901 now %s' % 'x' }}", "call 12345678901 now x"),
    ("{{ 'a' ~ 'b' ~ 3 }}{{ ['a', 'b']|join(', ') }}{{ ', '.join(['c', 'd']) }}", "ab3a, bc, d"),
    ("{{ 'x'|center(5) }}|{{ 'ab'|replace('a', 'c') }}|{{ 'a\nb'|indent(2) }}|{{ 'ab'.rjust(3, '.') }}",
     "  x  |cb|a\n  b|.ab"),
    ("{% for m in messages %}{{ bos_token + '<|im_start|>' + m.role + '\n' + m.content + '<|im_end|>' }}{% endfor %}",
     "<s><|im_start|>user\nhi<|im_end|>"),
    ("{{ [1, 2] + [3] }}{{ 7 % 3 }}{{ 2 ** 10 }}{{ 'ab' * 3 }}{{ '%(a)s'|format(a=1) }}{{ '{a}'.format_map({'a': 2}) }}",
     "[1, 2, 3]11024ababab12"),
    ("{{ messages|tojson(indent=2) }}", '[\n  {\n    "role": "user",\n    "content": "hi"\n  }\n]'),
    ("{{ [1, 2, 3]|slice(2)|list }}{{ [1, 2, 3]|batch(2, 0)|list }}", "[[1, 2], [3]][[1, 2], [3, 0]]"),
])
def test_templates_as_models_write_them_render_as_before(template: str, expected: str) -> None:
    assert render(template) == expected


def test_a_long_conversation_within_the_limits_renders_whole() -> None:
    """A message of 10 MB, as a user pastes a file, is far inside the limits."""
    content = "word " * 2_000_000
    template = HFChatTemplate("t.json", "{% for m in messages %}{{ '<|im_start|>' + m.role + '\n' + m.content"
                                        " ~ '<|im_end|>' }}{% endfor %}", {})
    text = template.render_string([Message("user", content), Message("assistant", content)], False)
    assert len(text) == 2 * (len(content) + len("<|im_start|>user\n<|im_end|>")) + 5


@pytest.mark.parametrize("template", [
    "{{ messages * 1000000 }}",  # a million references to one message: its text, a million copies
    "{{ 'x' ~ (messages * 1000000) }}",
    "{{ (messages * 1000000)|tojson }}",
    "{{ (messages * 1000000)|string }}",
    "{{ [messages * 1000000]|join }}",
    "{{ (messages * 1000000)|pprint }}",
])
def test_a_list_whose_text_would_be_too_long_is_refused_before_it_is_written(template: str) -> None:
    big = Message("user", "y" * 100_000)
    started = time.monotonic()
    with pytest.raises(ChatError, match=TEXT):
        HFChatTemplate("t.json", template, {}).render_string([big], False)
    assert time.monotonic() - started < 2


def test_lists_and_mappings_as_text_within_the_limits() -> None:
    assert render("{{ messages }}|{{ [1, 'a']|string }}|{{ {'a': [1]}|tojson }}|{{ [] }}{{ none }}") == \
        "[{'role': 'user', 'content': 'hi'}]|[1, 'a']|{\"a\": [1]}|[]None"
