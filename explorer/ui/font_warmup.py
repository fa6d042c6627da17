"""Every script's fallback font found and opened before a view first draws it.

The first time the window draws Devanagari, Thai, CJK or an emoji, Qt asks fontconfig which font
has those letters, opens that font and shapes with it: 1-6 ms per script, about 50 ms for the
first dozen. Without this, that cost fell in whatever frame first showed them: the Training
pane's first rows of a multilingual corpus's merges, while tens of thousands poured in (issue
16's longest stalls), or the first paste of a Hindi prompt. The main window draws the samples
off-screen, a script a step, after start-up.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from PySide6.QtGui import QFont, QImage, QPainter

# A few letters of each script a corpus or a prompt is likely to hold (the fonts-noto-core,
# -cjk and -color-emoji packages have them all). Not the rare ones: for Thaana, Qt asked every
# installed font whether it shapes the script, 90-450 ms that a step must not take.
SAMPLES = (
    "Привет Γειά Բարեւ გამარჯობა",
    "नमस्ते দুনিয়া ਸਤਿ ગુજરાતી",
    "வணக்கம் తెలుగు ಕನ್ನಡ മലയാളം සිංහල",
    "مرحبا שלום",
    "สวัสดี ສະບາຍດີ សួស្តី မြန်မာ བོད་",
    "こんにちは カタカナ 世界 中文",
    "안녕하세요 한국어",
    "ሰላም",
    "😀🎉👍🏽🇯🇵",
)


def warm_steps(fonts: Sequence[QFont]) -> Iterator[str]:
    """Draw every sample in each of `fonts` on a small off-screen image, one per `next` (a few
    milliseconds each: the caller spaces them out, so that no frame pays for many)."""
    image = QImage(32, 32, QImage.Format.Format_ARGB32_Premultiplied)
    for font in fonts:
        for word in " ".join(SAMPLES).split():  # (a script a step: 2-14 ms each, 24 ms for the very first)
            painter = QPainter(image)
            painter.setFont(font)
            painter.drawText(0, 24, word)  # (off the image, its glyphs are still shaped and cached)
            painter.end()
            yield f"fonts: {word} in {font.family()} {font.pointSize()} pt"
