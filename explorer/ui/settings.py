"""Preferences that persist between runs (QSettings): theme, font size, last tokenizer, recent files.

Tests point QSettings at a temporary folder (see tests/ui/conftest.py), never at the user's.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 10
THEMES = ("system", "light", "dark")


class Settings:
    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store or QSettings()

    def _get(self, key: str, default: object, kind: type) -> object:
        value = self.store.value(key, default)
        try:
            return kind(value)  # QSettings' INI backend returns strings
        except (TypeError, ValueError):
            return default

    @property
    def theme(self) -> str:
        value = str(self._get("ui/theme", "system", str))
        return value if value in THEMES else "system"

    @theme.setter
    def theme(self, value: str) -> None:
        self.store.setValue("ui/theme", value)

    @property
    def palette(self) -> str:
        """The token palette: 'default' or 'colour-blind' (see explorer.ui.theme.PALETTES)."""
        value = str(self._get("ui/palette", "default", str))
        return value if value in ("default", "colour-blind") else "default"

    @palette.setter
    def palette(self, value: str) -> None:
        self.store.setValue("ui/palette", value)

    @property
    def font_size(self) -> int:
        return int(self._get("ui/font_size", 0, int))  # type: ignore[call-overload]

    @font_size.setter
    def font_size(self, value: int) -> None:
        self.store.setValue("ui/font_size", int(value))

    @property
    def last_tokenizer(self) -> str:
        return str(self._get("tokenizer/last", "o200k_base", str))

    @last_tokenizer.setter
    def last_tokenizer(self, spec: str) -> None:
        self.store.setValue("tokenizer/last", spec)

    @property
    def last_pane(self) -> str:
        return str(self._get("ui/last_pane", "tokens", str))

    @last_pane.setter
    def last_pane(self, name: str) -> None:
        self.store.setValue("ui/last_pane", name)

    @property
    def last_prompt(self) -> str | None:
        """The Tokens pane's prompt when it was last edited (None: never, or too long to keep)."""
        value = self.store.value("tokens/last_prompt")
        return value if isinstance(value, str) else None

    @last_prompt.setter
    def last_prompt(self, text: str | None) -> None:
        if text is None:
            self.store.remove("tokens/last_prompt")
        else:
            self.store.setValue("tokens/last_prompt", text)

    @property
    def recent_files(self) -> list[str]:
        value = self.store.value("tokenizer/recent", [])
        if isinstance(value, str):
            return [value] if value else []
        return [str(v) for v in (value or [])]

    def add_recent_file(self, path: str) -> None:
        recent = [path, *(p for p in self.recent_files if p != path)][:MAX_RECENT]
        self.store.setValue("tokenizer/recent", recent)

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        self.store.setValue("window/geometry", geometry)
        self.store.setValue("window/state", state)

    def window_geometry(self) -> QByteArray | None:
        value = self.store.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    def window_state(self) -> QByteArray | None:
        value = self.store.value("window/state")
        return value if isinstance(value, QByteArray) else None

    def sync(self) -> None:
        self.store.sync()
