"""Every pane x script x theme x zoom x size as PNGs, with an index.html contact sheet to look at.

    python packaging/screenshot_matrix.py DIR [--only GROUP ...] [--sizes 1280x800 ...]

Run by `bash packaging/make_screenshots.sh --all DIR`. One process per pane, size and theme renders
its shots (explorer/ui/screenshot.py's Shooter: Qt and the tokenizers are loaded once for them); a
shot that fails is listed in the sheet and the run goes on. DIR is never the repository: the matrix
is hundreds of files.
"""

from __future__ import annotations

import argparse
import html
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOKENIZER = "o200k_base"
COMPARE = ("r50k_base", "cl100k_base")
TEXTS = {
    "english": "The cat sat on the mat. In 1969, 600,000,000 people watched the Moon landing. Don't stop!",
    "hindi": "नमस्ते दुनिया! आज मौसम बहुत अच्छा है। मावा केक शनिवार के लिए चाहिए, कृपया।",
    "arabic": "مرحبا بالعالم. الطقس جميل اليوم، وسأشتري كعكة للسبت من المخبز القريب.",
    "japanese": "こんにちは世界。今日はいい天気ですね。東京タワーに行きましょう、カタカナも漢字も。",
    "thai": "สวัสดีชาวโลก วันนี้อากาศดีมาก ฉันจะซื้อเค้กสำหรับวันเสาร์ที่ร้านขนม",
    "emoji": "Party 🎉🎂 wave 👋🏽 family 👨‍👩‍👧‍👦 flag 🇺🇦 heart ❤️‍🔥 done ✅",
    "mixed": "Hello नमस्ते مرحبا こんにちは สวัสดี 👋🏽\ndef f(x):\n    return x ** 2  # 1234567 <|endoftext|> ",
}
TEXTS["long"] = " ".join(TEXTS[name] for name in ("english", "hindi", "arabic", "japanese", "thai", "emoji")) * 11
TEXTS["long"] = TEXTS["long"][:5000]
TEXT_PANES = ("tokens", "compare", "findings", "merges", "chunks", "bytes", "chat")
CORPUS_PANES = ("corpus", "efficiency", "training")
WINDOW_SHOTS = ("window", "menu-File", "menu-Edit", "menu-View", "menu-Help",
                *(f"tour-{pane}" for pane in ("tokens", "corpus", "training", "merges", "chunks", "bytes", "chat")))
SIZES = ("1280x800", "1920x1080")
THEMES = ("light", "dark")
MODES = ("normal", "presentation")


def write_corpus(folder: Path) -> list[str]:
    """Tiny files, one per script plus some Python, for the Corpus and Training panes."""
    paths = []
    for name in ("english", "hindi", "arabic", "japanese", "thai", "emoji"):
        path = folder / f"{name}.txt"
        path.write_text((TEXTS[name] + "\n") * 40, encoding="utf-8")
        paths.append(str(path))
    code = folder / "code.py"
    code.write_text("def area(width, height):\n    return width * height\n\n" * 30, encoding="utf-8")
    paths.append(str(code))
    return paths


def plan(out: Path, corpus: list[str], only: set[str], sizes: tuple[str, ...],
         themes: tuple[str, ...] = THEMES) -> list[tuple[str, object]]:
    """(group, Shot) for every picture of the matrix."""
    from explorer.ui.screenshot import Shot, parse_size

    shots: list[tuple[str, object]] = []

    def add(group: str, name: str, pane: str, size: str, theme: str, mode: str, **options: object) -> None:
        if group not in only:
            return
        path = out / group / f"{name}-{theme}-{mode}-{size}.png"
        shots.append((group, Shot(pane, str(path), TOKENIZER, size=parse_size(size), theme=theme,
                                  presentation=mode == "presentation", **options)))  # type: ignore[arg-type]

    for size in sizes:
        for theme in themes:
            for mode in MODES:
                for group in TEXT_PANES:
                    for name, text in TEXTS.items():
                        pane = "tokens" if group in ("compare", "findings") else group
                        extra = {"compare": COMPARE} if group == "compare" else {}
                        if group == "findings":
                            extra = {"view": "findings"}
                        add(group, name, pane, size, theme, mode, text=text, **extra)
                for group in CORPUS_PANES:
                    pane = "corpus" if group == "efficiency" else group
                    extra = {"view": "efficiency"} if group == "efficiency" else {}
                    add(group, "corpus", pane, size, theme, mode, corpus=tuple(corpus), **extra)
                for shot in WINDOW_SHOTS:
                    if size != SIZES[0] and shot != "window":
                        continue  # menus and tour cards at the first size only: they are the same cards
                    kind, _, what = shot.partition("-")
                    if kind == "window":
                        add("window", "tokens", "tokens", size, theme, mode, window=True)
                    elif kind == "menu":
                        add("menus", what, "tokens", size, theme, mode, menu=what)
                    else:
                        add("tour", what, what, size, theme, mode, tour=True)
    return shots


def contact_sheet(out: Path, done: list[tuple[str, Path, float]], failed: list[tuple[str, str, str]]) -> Path:
    """index.html: one section per group, every picture as a thumbnail linking to the full size."""
    parts = ["<!doctype html><meta charset='utf-8'><title>Tokenizer Explorer screenshots</title>",
             "<style>body{font:14px sans-serif} img{width:320px;border:1px solid #999} figure{display:inline-block;"
             "margin:4px} figcaption{font-size:11px;width:320px;overflow-wrap:anywhere}</style>",
             f"<h1>{len(done)} screenshots</h1>"]
    if failed:
        parts.append("<h2>Failed</h2><ul>" + "".join(f"<li>{html.escape(g)} {html.escape(n)}: {html.escape(e)}</li>"
                                                     for g, n, e in failed) + "</ul>")
    for group in dict.fromkeys(g for g, _, _ in done):
        parts.append(f"<h2 id='{group}'>{group}</h2>")
        for _, path, seconds in (d for d in done if d[0] == group):
            name = html.escape(str(path.relative_to(out)))
            parts.append(f"<figure><a href='{name}'><img loading='lazy' src='{name}'></a>"
                         f"<figcaption>{name} ({seconds:.1f} s)</figcaption></figure>")
    sheet = out / "index.html"
    sheet.write_text("\n".join(parts), encoding="utf-8")
    return sheet


def render_group(out: Path, group: str, sizes: tuple[str, ...], themes: tuple[str, ...]) -> Path:
    """Render one group's shots at `sizes` and `themes` in this process; returns the results file."""
    from explorer.core.errors import ExplorerError
    from explorer.ui.screenshot import Shooter

    shooter = Shooter()
    results: dict[str, list[object]] = {"done": [], "failed": []}
    with tempfile.TemporaryDirectory() as folder:
        for _, shot in plan(out, write_corpus(Path(folder)), {group}, sizes, themes):
            path = Path(shot.out)  # type: ignore[attr-defined]
            path.parent.mkdir(parents=True, exist_ok=True)
            began = time.monotonic()
            try:
                shooter.render(shot)  # type: ignore[arg-type]
                results["done"].append([str(path), time.monotonic() - began])
            except (ExplorerError, OSError, RuntimeError, AttributeError, ValueError) as exc:
                results["failed"].append([path.name, repr(exc)])
    results_file = out / group / f"results-{'-'.join(sizes)}-{'-'.join(themes)}.json"
    results_file.parent.mkdir(parents=True, exist_ok=True)
    results_file.write_text(json.dumps(results), encoding="utf-8")
    return results_file


GROUPS = (*TEXT_PANES, *CORPUS_PANES, "window", "menus", "tour")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--only", nargs="*", default=list(GROUPS), choices=GROUPS, help="groups to render")
    parser.add_argument("--sizes", nargs="*", default=list(SIZES))
    parser.add_argument("--themes", nargs="*", default=list(THEMES), choices=THEMES)
    parser.add_argument("--group", help=argparse.SUPPRESS)  # the child process rendering one group
    args = parser.parse_args(argv)
    out = args.dir.resolve()
    if (out / ".git").exists() or (Path(__file__).resolve().parent.parent in (out, *out.parents)):
        print(f"{out}: the matrix goes outside the repository", file=sys.stderr)
        return 2
    if args.group:
        render_group(out, args.group, tuple(args.sizes), tuple(args.themes))
        return 0
    # One child process per group, size and theme (at most 16 shots): Qt and the panes' caches
    # keep some MB per shot that no deletion gives back (the Merges pane ~60 MB), so one process
    # for the whole matrix grew past 4 GB.
    started = time.monotonic()
    done: list[tuple[str, Path, float]] = []
    failed: list[tuple[str, str, str]] = []
    for group in args.only:
        for size in args.sizes:
            if group in ("menus", "tour") and size != SIZES[0]:
                continue  # the same cards at every size: shot at the first only
            for theme in args.themes:
                results_file = out / group / f"results-{size}-{theme}.json"
                results_file.unlink(missing_ok=True)
                subprocess.run([sys.executable, __file__, str(out), "--group", group, "--sizes", size,
                                "--themes", theme], check=False)
                if not results_file.exists():
                    failed.append((group, f"{size} {theme}", "the child process ended without results"))
                    continue
                results = json.loads(results_file.read_text(encoding="utf-8"))
                done.extend((group, Path(path), seconds) for path, seconds in results["done"])
                failed.extend((group, name, error) for name, error in results["failed"])
        print(f"{group}: {sum(1 for g, _, _ in done if g == group)} shots, {time.monotonic() - started:.0f} s",
              file=sys.stderr)
    sheet = contact_sheet(out, done, failed)
    print(f"wrote {len(done)} screenshots ({len(failed)} failed) in {time.monotonic() - started:.0f} s; see {sheet}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
