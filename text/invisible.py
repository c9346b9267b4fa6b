"""Characters that show as nothing, or as a blank a reader takes for a space.

A zero-width space inside "AC\\u200bME" or a Hangul filler (U+3164, a *letter* that
renders as nothing) lets two names that look the same differ, or a name look empty: an
impostor's file or title passes for another's. What is here:

* :data:`INVISIBLE` — the format characters (Unicode category Cf: zero-width space,
  non-joiner and joiner, word joiner, byte order mark, the bidi controls, tags…) and the
  default-ignorable letters and marks that render as nothing (the Hangul fillers, the
  combining grapheme joiner, the Mongolian free variation selectors, the Khmer inherent
  vowels). The terminal shows each as an escape (:mod:`deepread.terminal`); titles are
  compared without them (:func:`visible`).
* :data:`BLANK_LOOKING` — besides those, what a file name may not hold because it looks
  like a space or like nothing next to a letter: spaces other than the ASCII one (no-break,
  em, ideographic…), the variation selectors, the blank braille pattern.

The code points are listed, not read from :mod:`unicodedata` at import (a scan of the
code space costs a tenth of a second at every command's start); a test checks the list
holds every Cf character of the running Python's Unicode version.
"""

from __future__ import annotations

import unicodedata

#: Unicode category Cf (format), as of Unicode 14, inclusive ranges.
FORMAT_RANGES = (
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
#: Letters and marks that are default-ignorable (render as nothing) but not Cf.
IGNORABLE_RANGES = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180D),  # Mongolian free variation selectors
    (0x180F, 0x180F),
    (0x3164, 0x3164),  # Hangul filler
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
)
#: What looks like a space or like nothing beside a letter, for names: the spaces other
#: than U+0020, the variation selectors (which change a preceding emoji, or nothing),
#: the blank braille pattern.
LOOKALIKE_RANGES = (
    (0x00A0, 0x00A0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0x2800, 0x2800),
    (0xFE00, 0xFE0F),
    (0xE0100, 0xE01EF),
)


def _points(*ranges: tuple[tuple[int, int], ...]) -> frozenset[int]:
    return frozenset(c for group in ranges for a, b in group for c in range(a, b + 1))


INVISIBLE = _points(FORMAT_RANGES, IGNORABLE_RANGES)
BLANK_LOOKING = INVISIBLE | _points(LOOKALIKE_RANGES)

_DROP = dict.fromkeys(INVISIBLE)


def visible(text: str) -> str:
    """``text`` as a reader sees it, for comparing names: invisible characters dropped
    and compatibility forms folded (NFKC: fullwidth ``ＡＣＭＥ`` is ``ACME``, a
    no-break space a space)."""
    return unicodedata.normalize("NFKC", text.translate(_DROP))


def blank_looking(text: str) -> list[str]:
    """The characters of ``text`` a name may not hold (:data:`BLANK_LOOKING`), as
    ``U+XXXX`` in order of appearance, each once."""
    return list(dict.fromkeys(f"U+{ord(c):04X}" for c in text if ord(c) in BLANK_LOOKING))
