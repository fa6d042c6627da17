"""Crash handling: an exception hook that keeps work, writes a log and shows a dialog.

An unexpected error must never lose a trained tokenizer or an edited prompt. The prompt is
kept in the settings as it is edited; the hook saves unsaved trained tokenizers to a recovery
folder, appends the traceback to a log file, and shows a dialog with the error and a "Copy
details" button; the next start brings the saved tokenizers back.
"""

from __future__ import annotations

import datetime
import html
import sys
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import (
    QApplication, QDialog, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget,
)

from explorer import __version__
from explorer.ui.session import Session


def state_dir() -> Path:
    """Where logs and recovered work live (per user, survives restarts)."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)
    path = Path(location or Path.home() / ".local" / "share" / "tokenizer-explorer")
    path.mkdir(parents=True, exist_ok=True)
    return path


def log_path() -> Path:
    return state_dir() / "crash.log"


def recovery_dir() -> Path:
    return state_dir() / "recovery"


def save_recovery(session: Session) -> list[Path]:
    """Write unsaved trained tokenizers; return the files written."""
    from explorer.core.algorithms.bpe import BPE
    from explorer.core.formats import own

    folder = recovery_dir()
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name in sorted(session.unsaved):
        tokenizer = session.trained.get(name)
        if isinstance(tokenizer, BPE):
            path = folder / f"{_safe(name)}.json"
            own.save(tokenizer, path)
            written.append(path)
    return written


def pending_recovery() -> list[Path]:
    folder = recovery_dir()
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def restore_recovery(session: Session) -> list[str]:
    """Bring recovered tokenizers back into the session; return what was restored (and clear it)."""
    paths = pending_recovery()
    if not paths:
        return []  # (the usual start: `own` brings the trainer's imports, not needed for the first tokens)
    from explorer.core.errors import ExplorerError
    from explorer.core.formats import own

    restored: list[str] = []
    for path in paths:
        try:
            tokenizer = own.load(path)
            session.add_trained(tokenizer, select=False)
            restored.append(f"tokenizer {tokenizer.name}")
        except (ExplorerError, OSError) as exc:
            restored.append(f"{path.name}: could not be restored ({exc})")
        path.unlink(missing_ok=True)
    return restored


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "tokenizer"


def crash_report(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> str:
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    details = "".join(traceback.format_exception(kind, value, tb))
    return f"Tokenizer Explorer {__version__}, Python {sys.version.split()[0]}, {stamp}\n{details}"


def install_excepthook(session: Session, parent: QWidget | None = None) -> None:
    """Replace sys.excepthook: log, save work, then tell the user (the app keeps running)."""

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        report = crash_report(kind, value, tb)
        try:
            with log_path().open("a", encoding="utf-8") as log:
                log.write(report + "\n")
            saved = save_recovery(session)
        except Exception as exc:  # the hook itself must never raise
            saved = []
            report += f"\n(could not save recovery files: {exc!r})"
        sys.__stderr__.write(report) if sys.__stderr__ else None
        show_crash_dialog(value, report, saved, parent)

    sys.excepthook = hook


def show_crash_dialog(error: BaseException, report: str, saved: list[Path], parent: QWidget | None = None) -> None:
    if QApplication.instance() is None:
        return
    dialog = QDialog(parent)
    dialog.setWindowTitle("Something went wrong")
    kept = ("<p>Your work was saved and will be offered back at the next start:<br>"
            + "<br>".join(str(p) for p in saved) + "</p>") if saved else ""
    message = QLabel(f"<h3>An unexpected error happened</h3><p>{html.escape(str(error))}</p>"
                     f"<p>The details are also in {html.escape(str(log_path()))}.</p>{kept}")
    message.setWordWrap(True)
    details = QPlainTextEdit(report)
    details.setReadOnly(True)
    copy = QPushButton("Copy details")
    copy.clicked.connect(lambda: QApplication.clipboard().setText(report))
    close = QPushButton("Close")
    close.setDefault(True)
    close.clicked.connect(dialog.accept)
    buttons = QHBoxLayout()
    buttons.addStretch(1)
    buttons.addWidget(copy)
    buttons.addWidget(close)
    layout = QVBoxLayout(dialog)
    layout.addWidget(message)
    layout.addWidget(details, 1)
    layout.addLayout(buttons)
    dialog.resize(720, 480)
    dialog.exec()
