"""`python -m explorer` and the `tokenizer-explorer` script: the window, or a command."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--smoke"]:
        from explorer.smoke import run_smoke

        return run_smoke()
    if not args or args[0].startswith("--") and args[0] not in ("--help", "--version"):
        from explorer.app import run_gui

        return run_gui(args)
    from explorer.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
