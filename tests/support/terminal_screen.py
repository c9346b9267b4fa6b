"""What a terminal shows after a stream of output: enough of a VT100 to check an erase.

A test of a draft answer erased in place feeds what ``ask`` or ``chat`` wrote (through a
pseudo-terminal, or a recorder) to :class:`Screen` and reads the rows it ends with.
Understood: printable characters wrapping at the width (the cursor waits at the last
column until the next character, as xterm's does), newline (as a pty with ``onlcr`` sends
it: carriage return and line feed), carriage return, ``ESC [ n A`` (cursor up) and
``ESC [ J`` / ``ESC [ 0 J`` (clear to the end of the screen); any other escape sequence
fails the test, so that nothing the command writes goes unread.
"""

from __future__ import annotations

import re

_CSI = re.compile(r"\x1b\[(\d*)([A-Za-z])")


class Screen:
    """A terminal ``columns`` wide, unbounded in height (no scrolling off)."""

    def __init__(self, columns: int) -> None:
        self.columns = columns
        self.rows: list[list[str]] = [[]]
        self.row = 0
        self.col = 0  # == columns: waiting to wrap

    def feed(self, text: str) -> Screen:
        i = 0
        while i < len(text):
            c = text[i]
            if c == "\x1b":
                m = _CSI.match(text, i)
                assert m, f"an escape sequence the screen does not know: {text[i : i + 8]!r}"
                self._csi(int(m.group(1) or 0), m.group(2))
                i = m.end()
                continue
            if c == "\n":
                self._line_feed()
            elif c == "\r":
                self.col = 0
            else:
                self._put(c)
            i += 1
        return self

    def _csi(self, n: int, op: str) -> None:
        if op == "A":
            self.row = max(0, self.row - max(n, 1))
            self.col = min(self.col, self.columns - 1)
        elif op == "J" and n == 0:
            del self.rows[self.row + 1 :]
            del self.rows[self.row][self.col :]
        else:
            raise AssertionError(f"a control sequence the screen does not know: {n}{op}")

    def _line_feed(self) -> None:
        self.row += 1
        self.col = 0
        while len(self.rows) <= self.row:
            self.rows.append([])

    def _put(self, c: str) -> None:
        if self.col >= self.columns:
            self._line_feed()
        line = self.rows[self.row]
        line.extend(" " * (self.col - len(line)))
        if self.col < len(line):
            line[self.col] = c
        else:
            line.append(c)
        self.col += 1

    def text(self) -> str:
        """The screen's rows, each without trailing blanks, the empty last ones left out."""
        return "\n".join("".join(r).rstrip() for r in self.rows).rstrip("\n")
