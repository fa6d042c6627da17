"""The command line: train, encode, decode, chunks, chat, export, list, compare and audit over the core.

Errors are one clear line on stderr and a non-zero exit, never a traceback. What the commands
share is in cli_io.py; the reports (compare, audit, screenshot) are in cli_reports.py.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from explorer import __version__
from explorer.cli_io import (PROG, Progress, add_input_arguments, corpus_files, load, positive_int, print_json,
                             printable, read_input, token_id, utf8_argument, whole_number)
from explorer.cli_reports import add_screenshot_command, cmd_audit, cmd_compare
from explorer.core.algorithms.bpe import BPE
from explorer.core.algorithms.train import RULES, BpeTrainer, Merge
from explorer.core.chat import BUILTIN as CHAT_TEMPLATES
from explorer.core.chat import ChatResult, Message, encode_chat, load_messages
from explorer.core.chat.compare import ChatComparison, compare_chats, compared_template
from explorer.core.errors import ExplorerError, OutputFileError
from explorer.core.files import check_output, display_path, rescue_paths, unused_path
from explorer.core.formats import own
from explorer.core.formats.export import EXPORT_FORMATS, export
from explorer.core.pretokenization.pretokenize import NAMED_PATTERNS, REGEX_PREFIX, Pretokenizer, natural_reference
from explorer.core.sources.hf_cache import skipped_models
from explorer.core.sources.load import bundled_names, is_tokenizer_file, list_tokenizers, load_file, load_tokenizer
from explorer.core.sources.tokenizer import SPECIAL_MODES, Token, UnsupportedView


def _cmd_train(args: argparse.Namespace) -> int:
    corpus = corpus_files(args.corpus, whole=args.rules == "minbpe")
    check_output(args.out, corpus.files)  # now, not after an hour of training
    trainer = BpeTrainer(args.vocab_size, args.pattern, args.special, args.rules, explain_ties=args.print_merges)
    target = args.vocab_size - len(trainer.special_tokens) - 256
    _check_replaceable(Path(args.out), target)
    progress = Progress()
    started = time.monotonic()
    total_mb = corpus.total_bytes / 1e6
    for _ in trainer.add_texts(corpus, every=1 << 18):
        progress.show(corpus.bytes_read / max(corpus.total_bytes, 1),
                      f"counting {corpus.bytes_read / 1e6:.1f}/{total_mb:.1f} MB")
    texts = "files" if corpus.whole else "lines"
    progress.show(1.0, f"counted {trainer.texts:,} {texts}, {len(trainer.chunk_counts):,} distinct chunks", force=True)
    progress.done()
    merges: list[Merge] = []
    interrupted = False
    try:
        vocab = [bytes([b]) for b in range(256)]
        for merge in trainer.merges():
            merges.append(merge)
            if args.print_merges:
                vocab.extend(b"" for _ in range(merge.new_id + 1 - len(vocab)))
                vocab[merge.new_id] = merge.token
                print(_merge_line(merge, vocab), flush=True)
            elif merge.rank % 64 == 0:
                progress.show(len(merges) / max(target, 1), f"merge {len(merges):,}/{target:,} {merge.token!r}")
    except KeyboardInterrupt:
        interrupted = True
        progress.done()
        print(f"{PROG}: cancelled after {len(merges):,} merges; saving what was learned", file=sys.stderr)
    else:
        progress.show(1.0, f"learned {len(merges):,} merges", force=True)
        progress.done()
        if len(merges) < target:
            print(f"{PROG}: stopped after {len(merges):,} of {target:,} merges: no pair of tokens is left to "
                  f"merge in this corpus, so the vocabulary has {256 + len(trainer.special_tokens) + len(merges):,} "
                  f"tokens, not {args.vocab_size:,} (a bigger corpus gives more)", file=sys.stderr)
    metadata = {
        "created_by": f"{PROG} {__version__}",
        "corpus": [display_path(path) for path in corpus.files],
        "corpus_bytes": corpus.total_bytes,
        "vocab_size": args.vocab_size,
        "rules": args.rules,
        "seconds": round(time.monotonic() - started, 2),
    }
    tokenizer = own.from_merges(merges, trainer.pretokenizer.regex, trainer.special_tokens,
                                name=args.name or _stem(display_path(args.out)), metadata=metadata)
    saved = _save_trained(tokenizer, args.out, interrupted)
    if saved is None:
        return 1
    ties = sum(1 for merge in merges if merge.tie is not None)
    print(f"{PROG}: {len(merges):,} merges ({ties:,} of them ties, {args.rules} rules), vocabulary "
          f"{tokenizer.vocab_size:,}, {time.monotonic() - started:.1f} s; saved {display_path(saved)}",
          file=sys.stderr)
    if interrupted:
        return 130
    return 0 if saved == Path(args.out) else 1  # (1: kept a file with more merges, so saved elsewhere)


def _check_replaceable(target: Path, most: int) -> None:
    """Refuse, before training, to replace a file the run's result cannot be worth more than: one
    that is not a tokenizer of ours (an empty file aside), or one with more merges than the run's
    `most`."""
    if not target.is_file() or target.stat().st_size == 0:
        return
    kept = _merges_in(target)
    if kept is None:
        raise OutputFileError(f"{display_path(target)}: exists and is not a tokenizer saved by {PROG}; training "
                              "would replace it, so name another file (or delete this one first)")
    if kept > most:
        raise OutputFileError(f"{display_path(target)}: holds {kept:,} merges, more than the {most:,} this run can "
                              "learn; name another file to keep both (or delete this one first)")


def _save_trained(tokenizer: BPE, out: str, interrupted: bool) -> Path | None:
    """Save where asked, except that a file holding more merges (a run cut short, by Ctrl-C or by a
    corpus that ran out of pairs) is never replaced: it is kept and the result goes beside it; if
    writing fails, the merges are saved beside it, in the current folder or the temporary folder.
    Returns where, or None if the result could only be saved elsewhere."""
    target = Path(out)
    kept = _merges_in(target) if target.is_file() and target.stat().st_size else 0
    if kept is None or kept > len(tokenizer.merges):
        suffix = ".partial" if interrupted else ""
        beside = unused_path(target.with_name(f"{target.stem}{suffix}{target.suffix}"))
        had = "a file that is not one of our tokenizers" if kept is None else f"{kept:,} merges"
        print(f"{PROG}: kept {display_path(target)} ({had}) rather than replace it with fewer; "
              f"the {len(tokenizer.merges):,} merges learned are saved to {display_path(beside)}", file=sys.stderr)
        target = beside
    try:
        own.save(tokenizer, target)
        return target
    except OSError as exc:
        problem = exc.strerror or str(exc)
    for place in rescue_paths(target):
        try:
            own.save(tokenizer, place)
        except OSError:
            continue
        print(f"{PROG}: error: could not write {display_path(target)} ({problem}); the "
              f"{len(tokenizer.merges):,} merges are saved to {display_path(place)} instead", file=sys.stderr)
        return None
    raise OutputFileError(f"{display_path(target)}: could not be written ({problem}), nor anywhere else; "
                          "the merges are lost")


def _merges_in(path: Path) -> int | None:
    """How many merges the tokenizer file at `path` holds, or None if it is not one of ours."""
    try:
        return len(own.load(path).merges)
    except ExplorerError:
        return None


def _merge_line(merge: Merge, vocab: list[bytes]) -> str:
    """`merge   2: b't' + b'h' -> b'th' (4)`, as the tutorials print them, and the tie if there was one."""
    def pair(ids: tuple[int, int] | None) -> str:
        return "?" if ids is None else f"{vocab[ids[0]]!r} + {vocab[ids[1]]!r}"

    line = f"merge {merge.rank + 1:3}: {pair((merge.left, merge.right))} -> {merge.token!r} ({merge.count:,})"
    tie = merge.tie
    if tie is not None:
        tied = len(tie.packed) - 1
        more = "" if tie.complete else " or more"
        line += (f"  tie with {tied} other pair{'s' if tied > 1 else ''}{more}; hf rules take {pair(tie.hf_pick)},"
                 f" minbpe rules take {pair(tie.minbpe_pick)}")
    return line


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] or "trained"


def token_json(token_id: int, data: bytes, start: int, end: int) -> dict[str, object]:
    return {"id": token_id, "bytes": data.hex(), "text": data.decode("utf-8", errors="replace"),
            "start": start, "end": end}


def _cmd_encode(args: argparse.Namespace) -> int:
    tokenizer = load(args)
    text = read_input(args)
    if not args.json:
        print(" ".join(map(str, tokenizer.encode(text, special=args.special))))
        return 0
    _print_tokens_json(tokenizer.encode_tokens(text, special=args.special))
    return 0


def _print_tokens_json(tokens: list[Token], block: int = 10_000) -> None:
    print_json({"ids": [t.id for t in tokens]}, "tokens",
               (token_json(t.id, t.bytes, t.start, t.end) for t in tokens), block)


def _cmd_chat(args: argparse.Namespace) -> int:
    messages = load_messages(args.messages)  # a bad file is refused before the tokenizer loads
    tokenizer = load(args)
    result = encode_chat(messages, tokenizer, args.template, args.generation_prompt)
    other = None
    if args.compare_tokenizer or args.compare_template:
        other_tokenizer = load_tokenizer(args.compare_tokenizer) if args.compare_tokenizer else None
        template = compared_template(args.compare_template, other_tokenizer, args.template, tokenizer)
        comparison = compare_chats(messages, [(tokenizer, args.template), (other_tokenizer or tokenizer, template)],
                                   args.generation_prompt)
        result, other = comparison.results
    if args.json:
        document = _chat_document(result)
        if other is not None:
            document["compare"] = _chat_document(other)
        print(json.dumps(document, ensure_ascii=False))
    elif other is not None:
        _print_chat_comparison(comparison, messages)
    else:
        print(" ".join(map(str, result.encoding.ids)))
    sides = [(result, "")] if other is None else [(side, f"{label}: ") for side, label in
                                                   zip(comparison.results, comparison.labels)]
    for side, label in sides:
        for finding in side.findings:
            print(f"{PROG}: {label}{finding.kind}: {finding.title}", file=sys.stderr)
    return 0


def _chat_document(result: ChatResult) -> dict[str, object]:
    """`text`, `ids`, and `tokens` as encode --json gives them plus `control` (the contract), then
    each token's message and role, the template, and the findings."""
    prompt = result.prompt
    tokens = []
    for token in result.encoding.tokens:
        segment = prompt.segments[token.segment]
        tokens.append({**token_json(token.id, token.bytes, token.start, token.end), "control": token.control,
                       "message": segment.message, "role": prompt.role(segment)})
    findings = [{"kind": f.kind, "start": f.start, "end": f.end, "title": f.title, "detail": f.detail}
                for f in result.findings]
    return {"text": prompt.text, "ids": result.encoding.ids, "tokens": tokens, "template": result.template,
            "findings": findings}


def _print_chat_comparison(comparison: ChatComparison, messages: list[Message]) -> None:
    """Tokens per message (content + template's) in each rendering, then the totals."""
    table = comparison.table(len(messages))
    print("message\trole\t" + "\t".join(label for label, _ in table))
    rows = [(str(i), m.role) for i, m in enumerate(messages)] + [("-", "template")]
    for number, (index, role) in enumerate(rows):
        cells = [f"{costs[number].total} ({costs[number].content}+{costs[number].template})" for _, costs in table]
        print(f"{index}\t{role}\t" + "\t".join(cells))
    print("total\t\t" + "\t".join(str(sum(c.total for c in costs)) for _, costs in table))


def _cmd_decode(args: argparse.Namespace) -> int:
    tokenizer = load(args)
    text = tokenizer.decode(args.ids)
    sys.stdout.write(text + "\n")
    if "\ufffd" in text and "\ufffd" not in tokenizer.decode_bytes(args.ids).decode("utf-8", "ignore"):
        print(f"{PROG}: note: these ids hold part of a character, not all its bytes (a token can end half-way "
              "through one): each such part is shown as U+FFFD (\ufffd); the ids before or after may hold the rest",
              file=sys.stderr)
    return 0


def _cmd_chunks(args: argparse.Namespace) -> int:
    pattern = "cl100k" if args.pattern is None else args.pattern  # ("" is an empty pattern, refused)
    pretokenizer = Pretokenizer(pattern, natural_reference(pattern))
    if args.tokenizer:
        tokenizer = load(args)
        if tokenizer.pretokenizer is None:
            raise UnsupportedView(tokenizer.unsupported.get("chunks", f"{tokenizer.name} has no pre-tokenizer"))
        pretokenizer = tokenizer.pretokenizer
    chunks = pretokenizer.chunks(read_input(args))
    if args.json:
        document = {
            "pattern": {"name": pretokenizer.name, "regex": pretokenizer.regex, "alternatives": pretokenizer.labels,
                        "reference": pretokenizer.reference},
            "chunks": [{"text": c.text, "start": c.start, "end": c.end, "alternative": c.alternative,
                        "label": c.label, "gap": c.is_gap} for c in chunks],
        }
        print(json.dumps(document, ensure_ascii=False))
        return 0
    for chunk in chunks:
        print(f"{chunk.start}\t{chunk.end}\t{chunk.label}\t{chunk.text!r}")
    return 0


def _ids_in(path: Path) -> int | None:
    """The vocabulary size of the tokenizer file at `path`; None if it does not load (a rank file
    is read with any pattern: its size does not depend on it)."""
    try:
        return load_file(path, pattern="gpt2").vocab_size
    except ExplorerError:
        return None


def _cmd_export(args: argparse.Namespace) -> int:
    check_output(args.out, [args.tokenizer])
    target = Path(args.out)
    if target.is_file() and target.stat().st_size and not is_tokenizer_file(target):  # (a mistyped name)
        raise OutputFileError(f"{display_path(target)}: exists and is not a tokenizer file; exporting would "
                              "replace it, so name another file (or delete this one first)")
    tokenizer = load(args)
    if target.is_file() and target.stat().st_size:
        kept = _ids_in(target)
        if kept is None:  # (its size cannot be compared: it may well be the bigger one)
            raise OutputFileError(f"{display_path(target)}: is a tokenizer file this app cannot load, so it cannot "
                                  "tell whether it holds more; name another file (or delete this one first)")
        if kept > tokenizer.vocab_size:
            raise OutputFileError(f"{display_path(target)}: holds {kept:,} ids, more than the "
                                  f"{tokenizer.vocab_size:,} of {tokenizer.name}; name another file to keep both "
                                  "(or delete this one first)")
    notes = export(tokenizer, args.format, args.out)
    print(f"{PROG}: wrote {display_path(args.out)}", file=sys.stderr)
    for note in notes:
        print(f"{PROG}: note: {note}", file=sys.stderr)
    if args.format == "tiktoken":
        pretokenizer = tokenizer.pretokenizer
        pattern = ("PATTERN" if pretokenizer is None else pretokenizer.name if pretokenizer.name != "custom" else
                   shlex.quote(pretokenizer.regex))
        print(f"{PROG}: a .tiktoken file holds neither the pattern nor special tokens; load it with "
              f"--pattern {pattern}", file=sys.stderr)
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    """Print every tokenizer, and on stderr each damaged cache folder left out. Cache entries are
    named after folders, which may hold anything: names are escaped for the terminal, and paths
    with bytes that are not UTF-8 are shown as `display_path` shows them, so --json stays UTF-8."""
    entries = list_tokenizers()
    if args.json:
        print(json.dumps({"tokenizers": [{"name": e.name, "spec": e.spec, "source": display_path(e.source),
                                          **({"family": e.family} if e.family else {})} for e in entries]},
                         ensure_ascii=False))
    else:
        shown = [(printable(e.spec), printable(display_path(e.source))) for e in entries]
        width = max(len(spec) for spec, _ in shown)
        for spec, source in shown:
            print(f"{spec:<{width}}  {source}")
    for note in skipped_models():
        print(f"{PROG}: left out {printable(note)}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="See byte-level BPE tokenization. "
                                     "With no command, opens the window.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    pattern_help = (f"a named pattern ({', '.join(NAMED_PATTERNS)}) or a regex (default: cl100k); "
                    f"a bare word must be a name: write {REGEX_PREFIX}WORD to match the word itself")

    train = commands.add_parser("train", help="learn merges from a corpus")
    train.add_argument("--vocab-size", type=whole_number, required=True, help="256 + merges + special tokens")
    train.add_argument("--pattern", default="cl100k", type=utf8_argument, help=pattern_help)
    train.add_argument("--special", action="append", default=[], metavar="TOKEN", type=utf8_argument,
                       help="a special token (repeatable), e.g. <|endoftext|>")
    train.add_argument("--rules", choices=list(RULES), default="hf",
                       help="; ".join(f"{name}: {text}" for name, text in RULES.items()) + " (default: hf)")
    train.add_argument("--print-merges", action="store_true",
                       help="print every merge with its count, and the pairs it tied with, as it is learned")
    train.add_argument("--name", type=utf8_argument, help="the tokenizer's name (default: the output file's stem)")
    train.add_argument("--out", required=True, help="tokenizer file to write")
    train.add_argument("corpus", nargs="+", metavar="CORPUS", help="a text file or a folder of them")
    train.set_defaults(run=_cmd_train)

    tiktoken_pattern = ("the split pattern of a .tiktoken file that is not a bundled encoding: "
                        f"{', '.join(NAMED_PATTERNS)} or a regex ({REGEX_PREFIX}WORD for a bare word)")

    def add_tokenizer(command: argparse.ArgumentParser, many: bool = False, required: bool = True) -> None:
        command.add_argument("--tokenizer", required=required, action="append" if many else "store",
                             help=f"a bundled encoding ({', '.join(bundled_names())}), hf:ORG/NAME from the "
                             "Hugging Face cache, or a file: tokenizer.json, .tiktoken, tekken.json, minbpe .model, "
                             "our JSON"
                             + (" (repeat for each tokenizer)" if many else ""))
        command.add_argument("--pattern", type=utf8_argument, help=tiktoken_pattern)

    encode = commands.add_parser("encode", help="text to token ids")
    add_tokenizer(encode)
    add_input_arguments(encode)
    encode.add_argument("--json", action="store_true", help="print ids and tokens with bytes and spans")
    encode.add_argument("--special", choices=SPECIAL_MODES, default="disallowed",
                        help="special-token strings in the text: raise (disallowed, default), "
                        "encode as control tokens (allowed), or as ordinary text (plain)")
    encode.set_defaults(run=_cmd_encode)

    decode = commands.add_parser("decode", help="token ids to text")
    add_tokenizer(decode)
    decode.add_argument("ids", nargs="+", type=token_id, metavar="ID")
    decode.set_defaults(run=_cmd_decode)

    chat = commands.add_parser("chat", help="a conversation rendered by a chat template, as token ids")
    add_tokenizer(chat)
    chat.add_argument("--messages", required=True, metavar="FILE.json",
                      help='a JSON list of {"role": system|user|assistant|tool, "content": TEXT} objects')
    chat.add_argument("--template", help=f"{', '.join(CHAT_TEMPLATES)}; hf (the tokenizer's own "
                      "tokenizer_config.json), hf:ORG/NAME, or a tokenizer_config.json (default: the tokenizer's own)")
    chat.add_argument("--generation-prompt", action="store_true",
                      help="end with the start of an assistant message, for the model to complete")
    chat.add_argument("--json", action="store_true",
                      help="print the prompt text, ids, and tokens marked control or not")
    chat.add_argument("--compare-template", metavar="NAME", help="also render with this template, and show the "
                      "tokens of each message side by side")
    chat.add_argument("--compare-tokenizer", metavar="NAME", help="also encode with this tokenizer (with its own "
                      "template, if it has one, unless --compare-template), side by side")
    chat.set_defaults(run=_cmd_chat)

    chunks = commands.add_parser("chunks", help="show how a pattern (or a tokenizer's) pre-tokenizes text")
    chunks.add_argument("--pattern", type=utf8_argument, help=pattern_help)
    chunks.add_argument("--tokenizer", help="use this tokenizer's pre-tokenizer instead of --pattern")
    add_input_arguments(chunks, stdin=False)
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
    add_input_arguments(comparing, stdin=False)
    comparing.add_argument("--special", choices=SPECIAL_MODES, default="plain",
                           help="special-token strings in the text (default: plain, ordinary text)")
    comparing.add_argument("--json", action="store_true", help="print counts and every difference as JSON")
    comparing.add_argument("--limit", type=positive_int, default=40, help="differences to print (default 40)")
    comparing.set_defaults(run=cmd_compare)

    audit = commands.add_parser("audit", help="vocabulary audit: unreachable, undecodable and impossible "
                                "tokens, special tokens, and with --corpus tokens never or rarely seen")
    add_tokenizer(audit)
    audit.add_argument("--corpus", action="append", metavar="PATH", help="a text file or folder to encode (repeatable)")
    audit.add_argument("--rare", type=positive_int, default=10, help="with --corpus: rare means seen fewer times (default 10)")
    audit.add_argument("--json", action="store_true", help="print every flagged token as JSON")
    audit.add_argument("--limit", type=positive_int, default=10, help="examples to print per finding (default 10)")
    audit.set_defaults(run=cmd_audit)
    add_screenshot_command(commands)
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
        print(f"{PROG}: error: {printable(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{PROG}: cancelled", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file that could not be written after all: still one line
        where = f"{display_path(exc.filename)}: " if exc.filename else ""
        print(f"{PROG}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
