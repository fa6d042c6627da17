"""The Qt layer: one package or module per pane, over the core.

PySide6 6.12.0 on CPython 3.11 drops a reference to None on every void Qt call and long
sessions abort ("none_dealloc"); pyproject.toml keeps 3.11 on PySide6 < 6.12 for that reason.
"""
