"""CJK (and every other CFF-outline font) as heavy as the text around it, in both themes.

Qt's FreeType engine turns FreeType's stem darkening back on for CFF fonts (Noto Sans CJK) and
then blends their glyphs with gamma correction; TrueType fonts (Noto Sans, the Latin beside
them) get neither. Gamma-correct blending thins dark text on light, which the darkening makes
up for, but it thickens light text on dark, and the darkening adds to it: Japanese in the dark
theme looked bold next to its Latin. With darkening off, Qt blends CFF glyphs as it blends
TrueType ones, as cairo and GTK do.
"""

from __future__ import annotations

import ctypes
import os
import sys

_QT_GET_FREETYPE = "_Z14qt_getFreetypev"  # QtGui's (exported, not public) per-thread FreeType library
_applied = False


def even_cff_weight() -> bool:
    """Turn CFF stem darkening off in Qt's FreeType library (Linux; a no-op elsewhere or if Qt or
    FreeType are not the expected ones). Call on the GUI thread before the first text is drawn:
    a font already loaded at a size keeps the way it was drawn. True if it took effect."""
    global _applied
    if _applied or not sys.platform.startswith("linux"):
        return _applied
    try:
        # Both are loaded already (PySide6's QtGui links them): RTLD_NOLOAD finds them, never another copy.
        gui = ctypes.CDLL("libQt6Gui.so.6", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        freetype = ctypes.CDLL("libfreetype.so.6", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        get_library = getattr(gui, _QT_GET_FREETYPE)
    except (OSError, AttributeError):
        return False
    get_library.restype = ctypes.c_void_p
    get_library.argtypes = []
    set_property = freetype.FT_Property_Set
    set_property.restype = ctypes.c_int
    set_property.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
    library = get_library()
    if not library:
        return False
    off = ctypes.c_ubyte(1)  # FT_Bool no-stem-darkening = true
    _applied = set_property(library, b"cff", b"no-stem-darkening", ctypes.byref(off)) == 0
    return _applied
