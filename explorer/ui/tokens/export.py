"""Exports of the token view: ids as JSON, the coloured tokens as HTML or PNG, tokens as CSV."""

from __future__ import annotations

import csv
import html
import io
import json

from PySide6.QtGui import QColor, QFont, QImage, QPainter, QTextDocument

from explorer.core.algorithms.incremental import TokenizedText
from explorer.core.text.render import token_text
from explorer.ui.theme import BASE, TEXT, token_color

PNG_TOKEN_LIMIT = 20_000  # a slide never needs more; keeps the image a sane size


def ids_json(state: TokenizedText) -> str:
    return json.dumps(state.ids.tolist())


def tokens_html(state: TokenizedText, dark: bool, show_ids: bool = False, limit: int | None = None,
                palette: str = "default") -> str:
    """A self-contained HTML fragment: one coloured span per token, titled with its id.

    A span depends only on its token's id, so each distinct id is rendered once (a 1 MB prompt
    has 356,000 tokens but a few thousand distinct ids).
    """
    background, foreground = BASE[dark], TEXT[dark]
    border = "rgba(255,255,255,0.35)" if dark else "rgba(0,0,0,0.3)"
    spans: dict[int, str] = {}

    def span(token_id: int) -> str:
        data = state.tokenizer.token_bytes(token_id)
        shown = f"{token_id}" if show_ids else token_text(data)
        newline = shown.endswith("\n") or (show_ids and b"\n" in data)
        shown = shown.rstrip("\n")
        spans[token_id] = piece = (
            f'<span title="{token_id}" style="background:{token_color(token_id, dark, palette).name()};'
            f'border-left:1px solid {border}">{html.escape(shown)}</span>' + ("\n" if newline else " " if show_ids else ""))
        return piece

    count = len(state) if limit is None else min(limit, len(state))
    parts = [f'<pre style="font-family:monospace;white-space:pre-wrap;background:{background};'
             f'color:{foreground};padding:8px;line-height:1.5">']
    parts.extend(spans.get(token_id) or span(token_id) for token_id in state.ids[:count].tolist())
    parts.append("</pre>")
    return "".join(parts)


def tokens_csv(state: TokenizedText) -> str:
    """One row per token: index, id, character and byte spans, the bytes in hex, the text."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["index", "id", "start", "end", "byte_start", "byte_end", "bytes_hex", "text"])
    described: dict[int, tuple[int, str, str]] = {}  # id -> (byte length, hex, text): once per distinct id
    for index, (token_id, start, end, byte_start) in enumerate(zip(
            state.ids.tolist(), state.starts.tolist(), state.ends.tolist(), state.byte_starts.tolist())):
        about = described.get(token_id)
        if about is None:
            data = state.tokenizer.token_bytes(token_id)
            about = described[token_id] = (len(data), data.hex(" ").upper(), token_text(data).rstrip("\n"))
        writer.writerow([index, token_id, start, end, byte_start, byte_start + about[0], about[1], about[2]])
    return out.getvalue()


def tokens_image(state: TokenizedText, dark: bool, font: QFont, width: int = 1200, show_ids: bool = False,
                 palette: str = "default") -> QImage:
    """The coloured tokens laid out at `width` pixels, as an image for slides."""
    document = QTextDocument()
    document.setDefaultFont(font)
    document.setDocumentMargin(16)
    document.setHtml(tokens_html(state, dark, show_ids, PNG_TOKEN_LIMIT, palette))
    document.setTextWidth(width)
    size = document.size().toSize()
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(QColor("#17181a") if dark else QColor("#ffffff"))
    painter = QPainter(image)
    document.drawContents(painter)
    painter.end()
    return image

