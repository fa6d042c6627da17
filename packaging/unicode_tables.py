"""Measure how tiktoken and tokenizers classify code points and ship it as resources/unicode/.

The app compares the installed libraries' Unicode classes with the `regex` module's (see
explorer/core/pretokenization/unicode_classes.py). Measuring takes a few seconds, so the result for the library
versions the app is built with ships with it; other versions are measured once into the user's
cache. Run this after upgrading tiktoken, tokenizers or regex; tests/core/test_unicode_classes.py
checks that the shipped tables equal what the installed libraries say.

Usage: ``python packaging/unicode_tables.py [--out DIR]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.core.pretokenization.unicode_classes import CLASSES, REFERENCES, differences, document, shipped_path

RESOURCES = Path(__file__).resolve().parents[1] / "resources"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESOURCES, help="the resources folder (default: the repository's)")
    args = parser.parse_args()
    for reference in REFERENCES:
        path = args.out / shipped_path(reference)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(document(reference, differences(reference, CLASSES)) + "\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
