"""The details of one token: id, bytes, escaped text, merge rank, parents, span, split characters."""

from __future__ import annotations

import html

from explorer.core.algorithms.incremental import TokenizedText
from explorer.core.algorithms.merges import MergeForest
from explorer.core.plural import plural
from explorer.core.text.render import describe_char, escaped, hex_bytes, standalone_text


def token_details(state: TokenizedText, index: int, forest: MergeForest | None, forest_note: str = "") -> str:
    """Rich text for the details panel."""
    token = state.token(index)
    tokenizer = state.tokenizer
    rows = [("Token", f"<b>{token.id}</b> of {html.escape(tokenizer.name)}" + (" (special, control token)" if token.special else "")),
            ("Text", f"<code>{html.escape(standalone_text(token.bytes))}</code>"),
            ("Escaped", f"<code>{html.escape(escaped(token.bytes))}</code>"),
            ("Bytes", f"<code>{hex_bytes(token.bytes)}</code> ({plural(len(token.bytes), 'byte')})"),
            ("Span", f"characters {token.start}-{token.end}, bytes {token.byte_start}-{token.byte_end}, "
                     f"token {index + 1} of {len(state):,}")]
    if forest is not None:
        rank = forest.rank(token.id)
        parents = forest.parents(token.id)
        rows.append(("Merge rank", f"{rank:,}" if rank is not None else _no_merge(state, token.id, token.bytes)))
        if parents is not None:
            rows.append(("Parents", " + ".join(f"{p} <code>{html.escape(standalone_text(tokenizer.token_bytes(p)))}</code>"
                                               for p in parents)))
    else:
        rows.append(("Merge rank", html.escape(forest_note or "not available for this tokenizer")))
    if token.cuts_start or token.cuts_end:
        rows.append(("Split character", html.escape(_split_note(state, index))))
    body = "".join(f"<tr><td style='padding-right:10px'><i>{name}</i></td><td>{value}</td></tr>" for name, value in rows)
    return f"<table>{body}</table><p><small>Click the token to open it in the Merges pane.</small></p>"


def _no_merge(state: TokenizedText, token_id: int, data: bytes) -> str:
    """Why a token has no merge: a special token, a byte, or (SentencePiece) a character merging starts from."""
    if token_id in state.tokenizer.special_tokens.values():
        return "none (special or added token)"
    if token_id < 256 or len(data) == 1:
        return "a byte (no merge)"
    if len(data.decode("utf-8", errors="replace")) == 1:
        return "a character (no merge)"
    return "none (special or added token)"


def _split_note(state: TokenizedText, index: int) -> str:
    token = state.token(index)
    notes = []
    if token.cuts_start and token.start < len(state.text):
        char = state.text[token.start]
        notes.append(f"starts inside {char} ({describe_char(char)}), begun by token {index}")
    if token.cuts_end and token.end - 1 < len(state.text):
        char = state.text[token.end - 1]
        notes.append(f"ends inside {char} ({describe_char(char)}), finished by token {index + 2}")
    return "; ".join(notes) + ": its bytes are shown in hex, the character is split across tokens."
