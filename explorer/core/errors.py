"""Errors of the core, each with a message written for a person.

The command line prints `str(error)` as one line; the GUI shows it in a dialog.
"""

from __future__ import annotations


class ExplorerError(Exception):
    """Base class: something the user can fix (bad input, missing file, bad setting)."""


class PatternError(ExplorerError):
    """A pre-tokenizer regex that does not compile; `position` is the offending index or None."""

    def __init__(self, message: str, pattern: str, position: int | None = None) -> None:
        self.message = message
        self.pattern = pattern
        self.position = position
        where = f" at position {position}" if position is not None else ""
        super().__init__(f"invalid pattern{where}: {message}")


class PatternTimeoutError(PatternError):
    """A pattern took too long on some text (catastrophic backtracking)."""

    def __init__(self, pattern: str, seconds: float) -> None:
        super().__init__(
            f"matching took longer than {seconds:g} s and was stopped; "
            "simplify the pattern (avoid nested repetition such as (a+)+)",
            pattern,
        )


class SpecialTokenError(ExplorerError):
    """Text contains a special-token string while the special-token mode disallows it."""

    def __init__(self, token: str, position: int) -> None:
        self.token = token
        self.position = position
        super().__init__(
            f"the text contains the special token {token!r} at character {position}; "
            "choose special-token mode 'allowed' to encode it as a control token, "
            "or 'plain' to encode it as ordinary text"
        )


class TrainingError(ExplorerError):
    """Settings that cannot train anything useful (vocabulary too small, empty corpus)."""


class TokenizerFileError(ExplorerError):
    """A tokenizer file that is missing, corrupt or of an unsupported kind."""

    def __init__(self, path: object, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class CorpusError(ExplorerError):
    """A corpus source that cannot be read (missing, binary, not UTF-8)."""


class OutputFileError(ExplorerError):
    """A file to write that cannot be written where asked (a folder, a missing folder, an input)."""


class ChatError(ExplorerError):
    """A conversation or chat template that cannot be rendered (bad messages file, unknown template)."""
