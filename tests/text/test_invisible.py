"""The characters that show as nothing (text/invisible.py): the listed code points hold
every format character of the running Python's Unicode, and names compare as read."""

from __future__ import annotations

import sys
import unicodedata

from deepread.text.invisible import BLANK_LOOKING, INVISIBLE, blank_looking, visible


def test_every_format_character_of_this_unicode_is_listed() -> None:
    missing = [
        f"U+{c:04X}" for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"
    ]
    missing = [m for m in missing if int(m[2:], 16) not in INVISIBLE]

    assert not missing, f"Cf characters of Unicode {unicodedata.unidata_version}: {missing}"


def test_letters_digits_and_the_ascii_space_are_never_blank_looking() -> None:
    text = "Acme 2019 보고서 Отчёт 東京 café ❤ 😀 _-.()"

    assert blank_looking(text) == []
    assert not any(ord(c) in INVISIBLE for c in text)
    assert INVISIBLE <= BLANK_LOOKING


def test_names_are_compared_as_a_reader_sees_them() -> None:
    assert visible("AC\u200bME\u2060 Corp") == "ACME Corp"
    assert visible("ＡＣＭＥ\u00a0Corp") == "ACME Corp"
    assert blank_looking("a\u3164b\u3164c\u2003.md") == ["U+3164", "U+2003"]
