"""The command line's reports: `compare` (token counts and where tokenizers cut differently),
`audit` (tokens a model will rarely or never see) and `screenshot` (a pane as a PNG)."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable

from explorer.cli_io import PROG, Progress, corpus_files, drain, load, print_json, read_input, utf8_argument
from explorer.core.algorithms.incremental import TokenizedText
from explorer.core.analysis.audit import audit_vocabulary, seen_flags
from explorer.core.analysis.compare import compare
from explorer.core.analysis.occurrences import count_occurrences
from explorer.core.errors import ExplorerError
from explorer.core.files import check_output, check_png_output, display_path
from explorer.core.sources.tokenizer import Tokenizer
from explorer.core.text.render import shown_text, token_text


def _pieces(tokens: TokenizedText, start: int, end: int, shown: Callable[[int], str]) -> list[str]:
    """How one tokenizer cuts the characters start..end: the tokens that touch them (found by
    bisection: a scan of all tokens for each span took 6.5 minutes on 1 MB of prose), each as
    `shown` gives its id."""
    found = tokens.tokens_in(start, end)
    return list(map(shown, tokens.ids[found.start:found.stop].tolist()))


def _shown_by_id(tokenizer: Tokenizer, show: Callable[[bytes], str]) -> Callable[[int], str]:
    """A token id as the token view shows its bytes (`·` for a space, `<E0 A4>` for part of a
    character), worked out once an id: the same tokens recur in thousands of differences, and
    making and rendering each piece again took most of `compare --json`'s time."""
    return functools.cache(lambda token_id: show(tokenizer.token_bytes(token_id)))


def cmd_compare(args: argparse.Namespace) -> int:
    if len(args.tokenizer) < 2:
        raise ExplorerError("compare needs at least two --tokenizer options")
    tokenizers = [load(args, spec) for spec in args.tokenizer]
    text = read_input(args)
    readings, spans = compare(text, tokenizers, args.special)
    rows = [{"spec": spec, "name": r.tokenizer.name, "kind": r.tokenizer.kind, "tokens": r.counts.tokens,
             "bytes_per_token": round(r.counts.bytes_per_token, 4),
             "chars_per_token": round(r.counts.chars / r.counts.tokens, 4) if r.counts.tokens else 0.0}
            for spec, r in zip(args.tokenizer, readings)]
    if args.json:
        shown = [_shown_by_id(r.tokenizer, token_text) for r in readings]
        differences = ({"start": start, "end": end, "text": text[start:end],
                        "pieces": [_pieces(r.tokens, start, end, each) for r, each in zip(readings, shown)]}
                       for start, end in spans)
        print_json({"chars": len(text), "bytes": len(text.encode("utf-8", errors="surrogatepass")),
                    "tokenizers": rows}, "differences", differences)
        return 0
    width = max(len(row["spec"]) for row in rows)  # type: ignore[arg-type]
    print(f"{'tokenizer':<{width}}  {'tokens':>8}  {'bytes/token':>11}  {'chars/token':>11}")
    for row in rows:
        print(f"{row['spec']:<{width}}  {row['tokens']:>8,}  {row['bytes_per_token']:>11.2f}  "
              f"{row['chars_per_token']:>11.2f}")
    print(f"token boundaries differ in {len(spans):,} place{'s' if len(spans) != 1 else ''}")
    shown = [_shown_by_id(r.tokenizer, shown_text) for r in readings]
    for start, end in spans[: args.limit]:  # one row each: `↵` for a newline, never a line break
        cuts = "   ".join("|".join(_pieces(r.tokens, start, end, each)) for r, each in zip(readings, shown))
        print(f"  {start}-{end} {text[start:end]!r}: {cuts}")
    if len(spans) > args.limit:
        print(f"  ... and {len(spans) - args.limit:,} more (--limit, or --json for all)")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    corpus = corpus_files(args.corpus) if args.corpus else None  # a missing file: say so first
    tokenizer = load(args)
    progress = Progress()
    audit = drain(audit_vocabulary(tokenizer), progress, "auditing the vocabulary")
    groups: dict[str, set[int]] = {
        "unreachable": audit.unreachable, "undecodable_alone": audit.undecodable,  # type: ignore[attr-defined]
        "impossible_bytes": audit.impossible, "special": audit.special,  # type: ignore[attr-defined]
    }
    corpus_summary: dict[str, object] | None = None
    if corpus is not None:
        counts = drain(count_occurrences(tokenizer, corpus), progress, "encoding the corpus")
        never, rare = seen_flags(counts, audit.special, args.rare)  # type: ignore[arg-type, attr-defined]
        never = {i for i in never if _exists(tokenizer, i)}
        groups.update(never_seen=never, rare=rare)
        corpus_summary = {"files": [str(p) for p in corpus.files], "tokens": int(counts.sum()),  # type: ignore
                          "rare_below": args.rare}
    if args.json:
        document: dict[str, object] = {
            "tokenizer": {"spec": args.tokenizer, "name": tokenizer.name, "kind": tokenizer.kind,
                          "vocab_size": tokenizer.vocab_size},
            "unreachable_checked": audit.unreachable_checked,  # type: ignore[attr-defined]
            **{key: [_token_record(tokenizer, i) for i in sorted(ids)] for key, ids in groups.items()},
        }
        if corpus_summary is not None:
            document["corpus"] = corpus_summary
        print(json.dumps(document, ensure_ascii=False))
        return 0
    print(f"{tokenizer.name} ({tokenizer.kind}, {tokenizer.vocab_size:,} ids)")
    if not audit.unreachable_checked:  # type: ignore[attr-defined]
        print("  unreachable: not checked (no merges to replay)")
    for key, ids in groups.items():
        if key == "unreachable" and not audit.unreachable_checked:  # type: ignore[attr-defined]
            continue
        examples = ", ".join(_shown(tokenizer, i) for i in sorted(ids)[: args.limit])
        more = f", ... ({len(ids) - args.limit:,} more)" if len(ids) > args.limit else ""
        print(f"  {key.replace('_', ' ')}: {len(ids):,}" + (f": {examples}{more}" if ids else ""))
    return 0


def _exists(tokenizer: Tokenizer, token_id: int) -> bool:
    try:
        return bool(tokenizer.token_bytes(token_id))
    except ExplorerError:
        return False  # a hole in the id space is not a token that was never seen


def _token_record(tokenizer: Tokenizer, token_id: int) -> dict[str, object]:
    data = tokenizer.token_bytes(token_id)
    return {"id": token_id, "bytes": data.hex(), "text": data.decode("utf-8", errors="replace")}


def _shown(tokenizer: Tokenizer, token_id: int) -> str:
    return f"{token_id} {shown_text(tokenizer.token_bytes(token_id))}"  # on one line: `↵//`, not `↵` + newline


def _cmd_screenshot(args: argparse.Namespace) -> int:
    from explorer.ui.screenshot import parse_size, render_pane  # Qt only for this command

    check_output(args.out, [path for path in (args.file, args.tokenizer, *args.compare, *args.corpus) if path])
    check_png_output(args.out)
    text = read_input(args) if args.text is not None or args.file is not None else None
    path = render_pane(args.pane, args.out, args.tokenizer, text, parse_size(args.size), args.theme,
                       presentation=args.presentation, compare=tuple(args.compare), corpus=tuple(args.corpus),
                       view=args.view, window=args.window, menu=args.menu, tour=args.tour)
    print(f"{PROG}: wrote {display_path(path)}", file=sys.stderr)
    return 0


def add_screenshot_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    shot = commands.add_parser("screenshot", help="render a pane offscreen to a PNG")
    shot.add_argument("--pane", required=True,
                      choices=["corpus", "training", "tokens", "merges", "chunks", "bytes", "chat"])
    shot.add_argument("--out", required=True, help="PNG file to write")
    shot.add_argument("--tokenizer", help="a tokenizer file or name (default: none)")
    given = shot.add_mutually_exclusive_group()
    given.add_argument("--text", type=utf8_argument, help="text for the pane to show")
    given.add_argument("--file", help="read that text from this UTF-8 file")
    shot.add_argument("--size", default="1200x800", help="WIDTHxHEIGHT in pixels (default 1200x800)")
    shot.add_argument("--theme", choices=["light", "dark"], default="light")
    shot.add_argument("--presentation", action="store_true", help="presentation mode (F5) on before the shot")
    shot.add_argument("--compare", action="append", default=[], metavar="TOKENIZER",
                      help="tokens pane: add a lane comparing with this tokenizer (repeat for more)")
    shot.add_argument("--corpus", action="append", default=[], metavar="PATH",
                      help="corpus and training panes: a file or folder to add to the corpus (repeat for more)")
    shot.add_argument("--view", choices=["efficiency", "findings"],
                      help="efficiency: the Corpus pane's Efficiency tab, computed; findings: the Tokens pane "
                           "with its first finding selected")
    shot.add_argument("--window", action="store_true", help="the whole main window (menus, toolbar, tabs)")
    shot.add_argument("--menu", choices=["File", "Edit", "View", "Help"], help="the window with this menu open")
    shot.add_argument("--tour", action="store_true", help="the window with the first-run tour's card for this pane")
    shot.set_defaults(run=_cmd_screenshot)
