"""The examples in the core's docstrings (`>>> ...`) are run: an example that no longer holds is a
docstring that lies to its reader."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import explorer.core

MODULES = sorted(["explorer.cli", "explorer.cli_io", "explorer.cli_reports"] +
                 [info.name for info in pkgutil.walk_packages(explorer.core.__path__, "explorer.core.")])


def test_the_core_has_examples() -> None:
    finder = doctest.DocTestFinder()
    examples = sum(len(test.examples) for name in MODULES for test in finder.find(importlib.import_module(name)))
    assert examples >= 100


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples in {name} failed (printed above)"
