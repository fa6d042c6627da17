"""The command line: train, encode, decode, chunks and export over the core.

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
from explorer.core.bpe import BPE
from explorer.core.tokenizer import SPECIAL_MODES
from explorer.core.corpus import CorpusFiles, expand_paths
from explorer.core.errors import ExplorerError
from explorer.core.formats import hf, own
from explorer.core.load import load_tokenizer
from explorer.core.pretokenize import NAMED_PATTERNS, Pretokenizer
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


def _cmd_encode(args: argparse.Namespace) -> int:
    tokenizer = load_tokenizer(args.tokenizer)
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
    tokenizer = load_tokenizer(args.tokenizer)
    sys.stdout.write(tokenizer.decode(args.ids))
    sys.stdout.write("\n")
    return 0


def _cmd_chunks(args: argparse.Namespace) -> int:
    pretokenizer = Pretokenizer(args.pattern)
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
    tokenizer = load_tokenizer(args.tokenizer)
    if not isinstance(tokenizer, BPE):
        raise ExplorerError(f"{args.tokenizer}: only byte-level BPE tokenizers can be exported")
    if args.format == "hf":
        hf.export(tokenizer, args.out)
    print(f"{PROG}: wrote {args.out}", file=sys.stderr)
    return 0


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

    encode = commands.add_parser("encode", help="text to token ids")
    encode.add_argument("--tokenizer", required=True, help="a tokenizer file or name")
    _add_input_arguments(encode)
    encode.add_argument("--json", action="store_true", help="print ids and tokens with bytes and spans")
    encode.add_argument("--special", choices=SPECIAL_MODES, default="disallowed",
                        help="special-token strings in the text: raise (disallowed, default), "
                        "encode as control tokens (allowed), or as ordinary text (plain)")
    encode.set_defaults(run=_cmd_encode)

    decode = commands.add_parser("decode", help="token ids to text")
    decode.add_argument("--tokenizer", required=True, help="a tokenizer file or name")
    decode.add_argument("ids", nargs="+", type=int, metavar="ID")
    decode.set_defaults(run=_cmd_decode)

    chunks = commands.add_parser("chunks", help="show how a pattern pre-tokenizes text")
    chunks.add_argument("--pattern", default="cl100k", help=pattern_help)
    _add_input_arguments(chunks, stdin=False)
    chunks.add_argument("--json", action="store_true", help="print chunks as JSON")
    chunks.set_defaults(run=_cmd_chunks)

    export = commands.add_parser("export", help="write a tokenizer in another format")
    export.add_argument("--tokenizer", required=True, help="a tokenizer file or name")
    export.add_argument("--format", choices=["hf"], required=True, help="hf: a Hugging Face tokenizer.json")
    export.add_argument("--out", required=True, help="file to write")
    export.set_defaults(run=_cmd_export)
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
