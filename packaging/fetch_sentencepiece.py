"""Fetch the three Mistral SentencePiece models the app ships, from the mistral-common wheel.

* mistral_v1 <- ``mistral_common/data/tokenizer.model.v1``
* mistral_v3 <- ``mistral_common/data/mistral_instruct_tokenizer_240323.model.v3``
* mistral_v7 <- ``mistral_common/data/mistral_instruct_tokenizer_241114.model.v7``

mistral-common is Apache-2.0; its licence text is copied beside the other licences. Each file is
written only if its sha256 is the one pinned in ``explorer/core/formats/sentencepiece_model.py``
(the app checks the same hash on every load). Their merges are recovered from the scores in
about half a second, so no merges file is shipped.

Usage: ``python packaging/fetch_sentencepiece.py [--out DIR] [--check]``
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "packaging"))
from explorer.core.files import write_atomic  # noqa: E402
from explorer.core.formats.sentencepiece_model import BUNDLED_MODELS  # noqa: E402
from fetch_encodings import MISTRAL_COMMON_VERSION, FetchError, pip_download  # noqa: E402  (one pinned version)

DEFAULT_OUT = REPO / "resources" / "sentencepiece"
LICENSE = (REPO / "resources" / "encodings" / "licenses" / "mistral-common-LICENSE.txt",
           f"mistral_common-{MISTRAL_COMMON_VERSION}.dist-info/licenses/LICENSE")


def fetch(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fetch_sentencepiece.") as tmp:
        wheel = pip_download(f"mistral-common=={MISTRAL_COMMON_VERSION}", Path(tmp), "--only-binary", ":all:")
        with zipfile.ZipFile(wheel) as zf:
            for model in BUNDLED_MODELS.values():
                data = zf.read(model.member)
                actual = hashlib.sha256(data).hexdigest()
                if actual != model.sha256:
                    raise FetchError(f"{model.member}: sha256 {actual} != pinned {model.sha256}")
                write_atomic(out_dir / f"{model.name}.model", data)
                print(f"wrote {out_dir / f'{model.name}.model'} ({len(data):,} bytes, sha256 ok)")
            LICENSE[0].parent.mkdir(parents=True, exist_ok=True)
            write_atomic(LICENSE[0], zf.read(LICENSE[1]))
            print(f"wrote {LICENSE[0]}")


def check(out_dir: Path) -> None:
    for model in BUNDLED_MODELS.values():
        path = out_dir / f"{model.name}.model"
        if not path.is_file():
            raise FetchError(f"{path}: missing")
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
        if actual != model.sha256:
            raise FetchError(f"{path}: sha256 {actual} != pinned {model.sha256}")
        print(f"ok {path.name} {actual}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default: {DEFAULT_OUT})")
    parser.add_argument("--check", action="store_true", help="only verify the existing files")
    args = parser.parse_args(argv)
    try:
        check(args.out) if args.check else fetch(args.out)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
