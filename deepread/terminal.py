"""Text bound for a terminal, made unable to drive it.

Document text, file names and model answers are data, but a terminal obeys control
characters in them: ``ESC ] 52 ; c ; … BEL`` (OSC 52) writes the user's clipboard,
``ESC [ 2 J`` clears the screen, the C1 control U+009B is a one-byte CSI, and the
bidi overrides (U+202E …) make ``gnp.exe`` look like ``exe.png``. Every human-readable
line the command line prints passes :func:`terminal_text`, which shows such characters
as visible escapes (``\\x1b``, ``\\u202e``) and keeps newline and tab; so are the
characters that show as nothing (``\\u200b``, ``\\u3164``: :mod:`deepread.text.invisible`),
which would let two different titles or names look the same. Lone surrogates
(bytes of a non-UTF-8 argument or file name that Python carries as ``\\udcXX``) are shown
the same way: the terminal's encoder would refuse them.

Only output is escaped: stored text stays exactly as parsed, and ``--json`` output is
exact (its encoder escapes the same characters the JSON way, :mod:`deepread.json_output`).
"""

from __future__ import annotations

import sys

from deepread.text.invisible import INVISIBLE

#: C0 controls but newline and tab, DEL, and the C1 controls.
_CONTROLS = [c for c in range(0x20) if c not in (0x09, 0x0A)] + list(range(0x7F, 0xA0))
#: Bidi controls: LRM/RLM, the embeddings and overrides, the isolates, the Arabic mark.
_BIDI = [0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x061C]
#: Characters that change the terminal's state or the line's visual order.
UNSAFE = frozenset(_CONTROLS + _BIDI)


def _escape(c: int) -> str:
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}"


_TABLE: dict[int, str | None] = {c: _escape(c) for c in sorted(UNSAFE)}
# Characters that show as nothing (zero-width spaces and joiners, the byte order mark,
# tags, Hangul fillers…): "AC\u200bME" printed raw looks like "ACME" (text.invisible).
_TABLE |= {c: _escape(c) for c in sorted(INVISIBLE)}
# ... but a soft hyphen, a hyphenation hint only, is left out: hiding it hides nothing.
_TABLE[0xAD] = None
_TABLE |= {c: _escape(c) for c in range(0xD800, 0xE000)}  # lone surrogates
# ... but a byte of a non-UTF-8 file name (U+DC80-DCFF under surrogateescape) is shown as
# the byte it was, as the store shows it (``caf\\xe9.txt``, see text.hygiene.storable).
_TABLE |= {c: f"\\x{c - 0xDC00:02x}" for c in range(0xDC80, 0xDD00)}


def terminal_text(text: object) -> str:
    """``text`` (``str()`` of anything) with every control, bidi control, invisible
    character and lone surrogate but newline and tab written as a visible escape (soft
    hyphens left out)."""
    return str(text).translate(_TABLE)


def say(*parts: object, sep: str = " ", err: bool = False) -> None:
    """``print`` for people: the joined parts through :func:`terminal_text`, to stdout
    (or stderr with ``err=True``)."""
    print(terminal_text(sep.join(str(p) for p in parts)), file=sys.stderr if err else sys.stdout)
