"""The command line: train, encode, decode, chunks, export, list, compare and audit over the core.

Errors are one clear line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from explorer import __version__
from explorer.core.audit import audit_vocabulary, seen_flags
from explorer.core.compare import compare
from explorer.core.corpus import CorpusFiles, expand_paths
from explorer.core.errors import ExplorerError
from explorer.core.export import EXPORT_FORMATS, export
from explorer.core.formats import own
from explorer.core.load import list_tokenizers, load_tokenizer
from explorer.core.occurrences import count_occurrences
from explorer.core.pretokenize import NAMED_PATTERNS, Pretokenizer
from explorer.core.render import token_text
from explorer.core.tokenizer import SPECIAL_MODES, Token, Tokenizer, UnsupportedView
from explorer.core.train import BpeTrainer, Merge

PROG = "tokenizer-explorer"


class Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.stream, self.width, self._last = stream, width, 0.0

    def show(self, fraction: float, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        fraction = min(max(fraction, 0.0), 1.0)
        filled = int(fraction * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r[{bar}] {fraction:6.1%} {text}\x1b[K")
        self.stream.flush()

    def done(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def _read_input(args: argparse.Namespace) -> str:
    if args.text is not None:
        return str(args.text)
    if args.file is not None:
        try:
            with open(args.file, encoding="utf-8", newline="") as handle:
                return handle.read()
        except FileNotFoundError:
            raise ExplorerError(f"{args.file}: no such file") from None
        except UnicodeDecodeError as exc:
            raise ExplorerError(f"{args.file}: not UTF-8 text (byte {exc.start}); convert it to UTF-8 first") from None
        except OSError as exc:
            raise ExplorerError(f"{args.file}: {exc.strerror}") from None
    return sys.stdin.read()


def _add_input_arguments(parser: argparse.ArgumentParser, stdin: bool = True) -> None:
    group = parser.add_mutually_exclusive_group(required=not stdin)
    group.add_argument("--text", help="the text itself")
    group.add_argument("--file", help="read the text from this UTF-8 file" + (" (default: stdin)" if stdin else ""))


def _cmd_train(args: argparse.Namespace) -> int:
    skipped: list[str] = []
    corpus = CorpusFiles(expand_paths(args.corpus, skipped))
    for message in skipped:
        print(f"{PROG}: {message}", file=sys.stderr)
    trainer = BpeTrainer(args.vocab_size, args.pattern, args.special)
    progress = Progress()
    started = time.monotonic()
    total_mb = corpus.total_bytes / 1e6
    for _ in trainer.add_texts(corpus, every=1 << 18):
        progress.show(corpus.bytes_read / max(corpus.total_bytes, 1),
                      f"counting {corpus.bytes_read / 1e6:.1f}/{total_mb:.1f} MB")
    progress.show(1.0, f"counted {trainer.texts:,} lines, {len(trainer.chunk_counts):,} distinct chunks", force=True)
    progress.done()
    target = args.vocab_size - len(trainer.special_tokens) - 256
    merges: list[Merge] = []
    try:
        for merge in trainer.merges():
            merges.append(merge)
            if merge.rank % 64 == 0:
                progress.show(len(merges) / max(target, 1), f"merge {len(merges):,}/{target:,} {merge.token!r}")
    except KeyboardInterrupt:
        progress.done()
        print(f"{PROG}: cancelled after {len(merges):,} merges; saving what was learned", file=sys.stderr)
    else:
        progress.show(1.0, f"learned {len(merges):,} merges", force=True)
        progress.done()
    metadata = {
        "created_by": f"{PROG} {__version__}",
        "corpus": [str(path) for path in corpus.files],
        "corpus_bytes": corpus.total_bytes,
        "vocab_size": args.vocab_size,
        "seconds": round(time.monotonic() - started, 2),
    }
    tokenizer = own.from_merges(merges, trainer.pretokenizer.regex, trainer.special_tokens,
                                name=args.name or _stem(args.out), metadata=metadata)
    own.save(tokenizer, args.out)
    print(f"{PROG}: {len(merges):,} merges, vocabulary {tokenizer.vocab_size:,}, "
          f"{time.monotonic() - started:.1f} s; saved {args.out}", file=sys.stderr)
    return 0


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] or "trained"


def token_json(token_id: int, data: bytes, start: int, end: int) -> dict[str, object]:
    return {"id": token_id, "bytes": data.hex(), "text": data.decode("utf-8", errors="replace"),
            "start": start, "end": end}


def _load(args: argparse.Namespace, spec: str | None = None) -> Tokenizer:
    return load_tokenizer(spec or args.tokenizer, pattern=args.pattern)


def _cmd_encode(args: argparse.Namespace) -> int:
    tokenizer = _load(args)
    text = _read_input(args)
    if not args.json:
        print(" ".join(map(str, tokenizer.encode(text, special=args.special))))
        return 0
    tokens = tokenizer.encode_tokens(text, special=args.special)
    document = {"ids": [t.id for t in tokens],
                "tokens": [token_json(t.id, t.bytes, t.start, t.end) for t in tokens]}
    print(json.dumps(document, ensure_ascii=False))
    return 0


def _cmd_decode(args: argparse.Namespace) -> int:
    tokenizer = _load(args)
    sys.stdout.write(tokenizer.decode(args.ids))
    sys.stdout.write("\n")
    return 0


def _cmd_chunks(args: argparse.Namespace) -> int:
    pretokenizer = Pretokenizer(args.pattern or "cl100k")
    if args.tokenizer:
        tokenizer = _load(args)
        if tokenizer.pretokenizer is None:
            raise UnsupportedView(tokenizer.unsupported.get("chunks", f"{tokenizer.name} has no pre-tokenizer"))
        pretokenizer = tokenizer.pretokenizer
    chunks = pretokenizer.chunks(_read_input(args))
    if args.json:
        document = {
            "pattern": {"name": pretokenizer.name, "regex": pretokenizer.regex, "alternatives": pretokenizer.labels},
            "chunks": [{"text": c.text, "start": c.start, "end": c.end, "alternative": c.alternative,
                        "label": c.label, "gap": c.is_gap} for c in chunks],
        }
        print(json.dumps(document, ensure_ascii=False))
        return 0
    for chunk in chunks:
        print(f"{chunk.start}\t{chunk.end}\t{chunk.label}\t{chunk.text!r}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    tokenizer = _load(args)
    export(tokenizer, args.format, args.out)
    print(f"{PROG}: wrote {args.out}", file=sys.stderr)
    if args.format == "tiktoken":
        print(f"{PROG}: a .tiktoken file holds neither the pattern nor special tokens; load it with "
              f"--pattern {tokenizer.pretokenizer.name if tokenizer.pretokenizer else 'PATTERN'}", file=sys.stderr)
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    entries = list_tokenizers()
    if args.json:
        print(json.dumps({"tokenizers": [{"name": e.name, "spec": e.spec, "source": e.source} for e in entries]},
                         ensure_ascii=False))
        return 0
    width = max(len(e.spec) for e in entries)
    for entry in entries:
        print(f"{entry.spec:<{width}}  {entry.source}")
    return 0


def _pieces(tokens: list[Token], start: int, end: int) -> list[str]:
    """How one tokenizer cuts the characters start..end: the tokens that touch them, as the token
    view shows them (`·` for a space, `<E0 A4>` for part of a character)."""
    return [token_text(t.bytes) for t in tokens if t.start < end and t.end > start]


def _cmd_compare(args: argparse.Namespace) -> int:
    if len(args.tokenizer) < 2:
        raise ExplorerError("compare needs at least two --tokenizer options")
    tokenizers = [_load(args, spec) for spec in args.tokenizer]
    text = _read_input(args)
    readings, spans = compare(text, tokenizers, args.special)
    rows = [{"spec": spec, "name": r.tokenizer.name, "kind": r.tokenizer.kind, "tokens": r.counts.tokens,
             "bytes_per_token": round(r.counts.bytes_per_token, 4),
             "chars_per_token": round(r.counts.chars / r.counts.tokens, 4) if r.counts.tokens else 0.0}
            for spec, r in zip(args.tokenizer, readings)]
    differences = [{"start": start, "end": end, "text": text[start:end],
                    "pieces": [_pieces(r.tokens, start, end) for r in readings]} for start, end in spans]
    if args.json:
        print(json.dumps({"chars": len(text), "bytes": len(text.encode("utf-8", errors="surrogatepass")),
                          "tokenizers": rows, "differences": differences}, ensure_ascii=False))
        return 0
    width = max(len(row["spec"]) for row in rows)  # type: ignore[arg-type]
    print(f"{'tokenizer':<{width}}  {'tokens':>8}  {'bytes/token':>11}  {'chars/token':>11}")
    for row in rows:
        print(f"{row['spec']:<{width}}  {row['tokens']:>8,}  {row['bytes_per_token']:>11.2f}  "
              f"{row['chars_per_token']:>11.2f}")
    print(f"token boundaries differ in {len(differences):,} place{'s' if len(differences) != 1 else ''}")
    for difference in differences[: args.limit]:
        cuts = "   ".join("|".join(pieces) for pieces in difference["pieces"])  # type: ignore[attr-defined]
        print(f"  {difference['start']}-{difference['end']} {difference['text']!r}: {cuts}")
    if len(differences) > args.limit:
        print(f"  ... and {len(differences) - args.limit:,} more (--limit, or --json for all)")
    return 0


def _drain(generator, progress: Progress, label: str) -> object:  # type: ignore[no-untyped-def]
    """Run a core generator of progress records to its end, showing a bar; return its value."""
    while True:
        try:
            record = next(generator)
        except StopIteration as stop:
            progress.show(1.0, label, force=True)
            progress.done()
            return stop.value
        done, total = getattr(record, "done", None), getattr(record, "total", None)
        fraction = getattr(record, "fraction", None) or (done / total if done is not None and total else 0.0)
        progress.show(fraction, label)


def _cmd_audit(args: argparse.Namespace) -> int:
    tokenizer = _load(args)
    progress = Progress()
    audit = _drain(audit_vocabulary(tokenizer), progress, "auditing the vocabulary")
    groups: dict[str, set[int]] = {
        "unreachable": audit.unreachable, "undecodable_alone": audit.undecodable,  # type: ignore[attr-defined]
        "impossible_bytes": audit.impossible, "special": audit.special,  # type: ignore[attr-defined]
    }
    corpus_summary: dict[str, object] | None = None
    if args.corpus:
        corpus = CorpusFiles(expand_paths(args.corpus))
        counts = _drain(count_occurrences(tokenizer, corpus), progress, "encoding the corpus")
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
    return f"{token_id} {token_text(tokenizer.token_bytes(token_id))}"


def _cmd_screenshot(args: argparse.Namespace) -> int:
    from explorer.ui.screenshot import parse_size, render_pane  # Qt only for this command

    text = _read_input(args) if args.text is not None or args.file is not None else None
    path = render_pane(args.pane, args.out, args.tokenizer, text, parse_size(args.size), args.theme)
    print(f"{PROG}: wrote {path}", file=sys.stderr)
    return 0


def _add_screenshot_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    shot = commands.add_parser("screenshot", help="render a pane offscreen to a PNG")
    shot.add_argument("--pane", required=True, choices=["corpus", "training", "tokens", "merges", "chunks", "bytes"])
    shot.add_argument("--out", required=True, help="PNG file to write")
    shot.add_argument("--tokenizer", help="a tokenizer file or name (default: none)")
    given = shot.add_mutually_exclusive_group()
    given.add_argument("--text", help="text for the pane to show")
    given.add_argument("--file", help="read that text from this UTF-8 file")
    shot.add_argument("--size", default="1200x800", help="WIDTHxHEIGHT in pixels (default 1200x800)")
    shot.add_argument("--theme", choices=["light", "dark"], default="light")
    shot.set_defaults(run=_cmd_screenshot)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="See byte-level BPE tokenization. "
                                     "With no command, opens the window.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    pattern_help = f"a named pattern ({', '.join(NAMED_PATTERNS)}) or a regex (default: cl100k)"

    train = commands.add_parser("train", help="learn merges from a corpus")
    train.add_argument("--vocab-size", type=int, required=True, help="256 + merges + special tokens")
    train.add_argument("--pattern", default="cl100k", help=pattern_help)
    train.add_argument("--special", action="append", default=[], metavar="TOKEN",
                       help="a special token (repeatable), e.g. <|endoftext|>")
    train.add_argument("--name", help="the tokenizer's name (default: the output file's stem)")
    train.add_argument("--out", required=True, help="tokenizer file to write")
    train.add_argument("corpus", nargs="+", metavar="CORPUS", help="a text file or a folder of them")
    train.set_defaults(run=_cmd_train)

    tiktoken_pattern = ("the split pattern of a .tiktoken file that is not a bundled encoding: "
                        f"{', '.join(NAMED_PATTERNS)} or a regex")

    def add_tokenizer(command: argparse.ArgumentParser, many: bool = False, required: bool = True) -> None:
        command.add_argument("--tokenizer", required=required, action="append" if many else "store",
                             help="a bundled encoding (o200k_base, cl100k_base, r50k_base/gpt2), hf:ORG/NAME from "
                             "the Hugging Face cache, or a file: tokenizer.json, .tiktoken, minbpe .model, our JSON"
                             + (" (repeat for each tokenizer)" if many else ""))
        command.add_argument("--pattern", help=tiktoken_pattern)

    encode = commands.add_parser("encode", help="text to token ids")
    add_tokenizer(encode)
    _add_input_arguments(encode)
    encode.add_argument("--json", action="store_true", help="print ids and tokens with bytes and spans")
    encode.add_argument("--special", choices=SPECIAL_MODES, default="disallowed",
                        help="special-token strings in the text: raise (disallowed, default), "
                        "encode as control tokens (allowed), or as ordinary text (plain)")
    encode.set_defaults(run=_cmd_encode)

    decode = commands.add_parser("decode", help="token ids to text")
    add_tokenizer(decode)
    decode.add_argument("ids", nargs="+", type=int, metavar="ID")
    decode.set_defaults(run=_cmd_decode)

    chunks = commands.add_parser("chunks", help="show how a pattern (or a tokenizer's) pre-tokenizes text")
    chunks.add_argument("--pattern", help=pattern_help)
    chunks.add_argument("--tokenizer", help="use this tokenizer's pre-tokenizer instead of --pattern")
    _add_input_arguments(chunks, stdin=False)
    chunks.add_argument("--json", action="store_true", help="print chunks as JSON")
    chunks.set_defaults(run=_cmd_chunks)

    export = commands.add_parser("export", help="write a byte-level BPE tokenizer in another format, same ids")
    add_tokenizer(export)
    export.add_argument("--format", choices=list(EXPORT_FORMATS), required=True,
                        help="; ".join(f"{name}: {text}" for name, text in EXPORT_FORMATS.items()))
    export.add_argument("--out", required=True, help="file to write")
    export.set_defaults(run=_cmd_export)

    listing = commands.add_parser("list", help="the bundled encodings and the tokenizers in the Hugging Face cache")
    listing.add_argument("--json", action="store_true", help="print name, spec and source of each as JSON")
    listing.set_defaults(run=_cmd_list)

    comparing = commands.add_parser("compare", help="token counts of several tokenizers and where they cut "
                                    "the same text differently")
    add_tokenizer(comparing, many=True)
    _add_input_arguments(comparing, stdin=False)
    comparing.add_argument("--special", choices=SPECIAL_MODES, default="plain",
                           help="special-token strings in the text (default: plain, ordinary text)")
    comparing.add_argument("--json", action="store_true", help="print counts and every difference as JSON")
    comparing.add_argument("--limit", type=int, default=40, help="differences to print (default 40)")
    comparing.set_defaults(run=_cmd_compare)

    audit = commands.add_parser("audit", help="vocabulary audit: unreachable, undecodable and impossible "
                                "tokens, special tokens, and with --corpus tokens never or rarely seen")
    add_tokenizer(audit)
    audit.add_argument("--corpus", action="append", metavar="PATH", help="a text file or folder to encode (repeatable)")
    audit.add_argument("--rare", type=int, default=10, help="with --corpus: rare means seen fewer times (default 10)")
    audit.add_argument("--json", action="store_true", help="print every flagged token as JSON")
    audit.add_argument("--limit", type=int, default=10, help="examples to print per finding (default 10)")
    audit.set_defaults(run=_cmd_audit)
    _add_screenshot_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.run(args))
    except ExplorerError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{PROG}: cancelled", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
