"""List markers printed at a PDF line's start: what they are, which one comes next, and
where the item's text starts.

A PDF has no list objects. An item is a line that starts with a printed marker ("•",
"-", "4)", "(b)"); its wrapped lines sit at the item's text column, right of the marker.
Word processors set list items in one text box when the lines are close, so the
paragraph splitter (:mod:`~deepread.corpus.parsing.pdf.reader`) cannot rely on box boundaries
alone: "1) Complete the survey" / "2) You are encouraged …" / "is only available …" /
"3) Check …" is one box of three items. What tells them apart is the marker itself: a
line that starts with the *next* marker of the list ("2)" after "1)", "b." after "a.",
the same bullet again) at the marker column of the item before is the next item, never a
wrapped line of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepread.corpus.parsing.pdf.lines import BULLET_GLYPHS, Line

__all__ = ["MARKER_ONLY", "STRONG_BULLET", "WEAK_MARKER", "Marker", "marker_of", "text_column"]

#: Glyph bullets that never start an ordinary wrapped line, so they may split a box.
STRONG_BULLET = re.compile(rf"^\s*[{BULLET_GLYPHS}]\s*")
#: Weaker markers ("- item", "1. item", "(a) item") count only at the start of a box (or
#: as the next marker of a list), because a wrapped line can begin with a dash or a number.
WEAK_MARKER = re.compile(r"^\s*(?:[-*–](?=\s)|\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5})[.)](?=\s))")
#: A line that is only a marker: the item's text follows in the next box.
MARKER_ONLY = re.compile(rf"^\s*(?:[{BULLET_GLYPHS}\-*–]|\(?(?:\d{{1,3}}|[a-zA-Z])[.)])\s*$")
# One marker, parsed: a glyph, or an optional "(", a number or a letter, and "." or ")".
_PARSED = re.compile(
    rf"^\s*(?:(?P<glyph>[{BULLET_GLYPHS}\-*–])(?=\s|$)"
    r"|(?P<open>\()?(?:(?P<num>\d{1,3})|(?P<alpha>[a-zA-Z]))"
    r"(?P<close>[.)])(?=\s|$))"
)


@dataclass(frozen=True, slots=True)
class Marker:
    """A list marker: its style ("•", "1)", "(1)", "a.", …) and its ordinal (0 for glyphs)."""

    style: str
    ordinal: int

    def followed_by(self, other: Marker) -> bool:
        """``other`` is the marker of the item after this one: the same glyph again, or
        the next number or letter in the same punctuation."""
        if self.style != other.style:
            return False
        return other.ordinal == (0 if self.ordinal == 0 else self.ordinal + 1)


def marker_of(text: str) -> Marker | None:
    """The list marker ``text`` starts with, if any."""
    m = _PARSED.match(text)
    if m is None:
        return None
    if m["glyph"]:
        return Marker(m["glyph"], 0)
    opener = "(" if m["open"] else ""
    if m["num"]:
        return Marker(f"{opener}1{m['close']}", int(m["num"]))
    letter = m["alpha"]
    case = "a" if letter.islower() else "A"
    return Marker(f"{opener}{case}{m['close']}", ord(letter.lower()) - ord("a") + 1)


def text_column(line: Line) -> float:
    """Left edge of the item's text on its marker line: where its wrapped lines sit.

    The first character after the marker and the space (or tab) that follows it; the
    line's own left edge when the marker is drawn (a vector bullet) or not found.
    """
    m = STRONG_BULLET.match(line.text) or WEAK_MARKER.match(line.text)
    if m is None or len(line.xs) == 0:
        return line.x0
    at = m.end()
    while at < len(line.text) and line.text[at].isspace():
        at += 1
    return float(line.xs[at]) if at < len(line.xs) else line.x0
