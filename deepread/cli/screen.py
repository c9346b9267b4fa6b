"""Text already written to a terminal, taken back: the rows it took and how to erase them.

A streamed answer is a draft until the sufficiency check has passed it; when the checked
answer differs, ``ask`` and ``chat`` erase the draft where it stands (``deepread.cli.turn``)
instead of printing a second answer under it. Erasing takes the cursor back to the row
the draft began on — as many rows up as the draft took, each of its lines wrapped at the
terminal's width (a wide character takes two columns, a combining mark none, a tab runs
to the next multiple of 8) — and clears from there to the end of the screen. A draft
taller than the screen leaves its first rows in the scrollback: a terminal moves the
cursor no higher than its top row.
"""

from __future__ import annotations

import os
import shutil
import unicodedata
from typing import IO

TAB = 8


def columns(stream: IO[str]) -> int:
    """The width of the terminal ``stream`` writes to (else ``$COLUMNS``, else 80)."""
    try:
        width = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        width = 0
    return width or shutil.get_terminal_size().columns or 80


def _cells(c: str) -> int:
    if unicodedata.combining(c) or unicodedata.category(c) in ("Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def width(line: str) -> int:
    """The columns ``line`` (no newline in it) takes, written from the first column."""
    at = 0
    for c in line:
        at = (at // TAB + 1) * TAB if c == "\t" else at + _cells(c)
    return at


def rows_up(text: str, cols: int) -> int:
    """How many rows above the cursor ``text`` began, once written from the first column
    of a row of a terminal ``cols`` wide: each of its ended lines takes its wrapped rows
    (an empty one, one row); after a last line left open the cursor stays on its last
    row (a line filling the row exactly leaves the cursor on it, at its last column)."""
    lines = text.split("\n")
    ups = sum(max(1, -(-width(line) // cols)) for line in lines[:-1])
    last = width(lines[-1])
    return ups + ((last - 1) // cols if last else 0)


def erase(text: str, cols: int) -> str:
    """The control sequence that erases ``text`` just written from a row's first column:
    back to that column, up the rows it took, clear to the end of the screen."""
    up = rows_up(text, cols)
    return "\r" + (f"\x1b[{up}A" if up else "") + "\x1b[J"
