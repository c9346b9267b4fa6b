"""Two-column pages read column by column.

PDF text has no reading order of its own: the content stream is whatever order the
producer drew in. Most producers draw a column before the next, and then nothing needs
doing; some draw row by row across a two-column page, and the lines of the two columns
then alternate. This module finds a page's gutter — a vertical band near the middle
that no prose line crosses, with prose lines on both sides at the same heights — and
puts the lines in column order: between two full-width lines (a title, a figure caption
across both columns), the left column top to bottom, then the right one.

Conservative on purpose: both sides must be prose (most lines of several words). A
financial table has its labels on the left and figures on the right, aligned in rows
with a wide gap between them; reading it "column by column" would tear every row apart.
"""

from __future__ import annotations

import itertools

import numpy as np

from deepread.corpus.parsing.pdf.lines import Line, regroup

__all__ = ["reading_order"]

#: Fewest prose lines each column needs before a page is called two-column.
MIN_COLUMN_LINES = 5
#: Largest rise, in line heights, from one line of a column to the next in stream order
#: that still reads top-down: a label centred beside a cell of up to seven lines.
CELL_RISE = 3


def _prose(line: Line) -> bool:
    words = line.text.split()
    return len(words) >= 3 and sum(any(c.isalpha() for c in w) for w in words) >= 0.6 * len(words)


def _gutter(lines: list[Line], width: float) -> float | None:
    narrow = sum(1 for ln in lines if ln.x1 - ln.x0 < 0.5 * width and _prose(ln))
    if narrow < 2 * MIN_COLUMN_LINES:
        return None  # columns are made of narrow prose lines; a page without them has none
    x0 = np.array([ln.x0 for ln in lines])
    x1 = np.array([ln.x1 for ln in lines])
    mid = np.array([(ln.y0 + ln.y1) / 2 for ln in lines])
    prose = np.array([_prose(ln) for ln in lines])
    # Every candidate gutter position at once (positions x lines).
    g = np.arange(0.3 * width, 0.7 * width, 2.0)[:, None]
    left = (x1[None, :] <= g) & prose
    right = (x0[None, :] >= g) & prose
    n_left, n_right = left.sum(axis=1), right.sum(axis=1)
    crossing = (x0[None, :] < g - 1) & (x1[None, :] > g + 1)
    inf = np.inf
    # Where both columns have text, nothing may cross the gutter.
    lo = np.maximum(np.where(left, mid, inf).min(axis=1), np.where(right, mid, inf).min(axis=1))
    hi = np.minimum(np.where(left, mid, -inf).max(axis=1), np.where(right, mid, -inf).max(axis=1))
    blocked = (crossing & (mid[None, :] > lo[:, None]) & (mid[None, :] < hi[:, None])).any(axis=1)
    # Side by side, not one above the other: nearly every line not crossing is on a side.
    side = (x1[None, :] <= g) | (x0[None, :] >= g)
    not_crossing = ~crossing
    share = (side & not_crossing).sum(axis=1) / np.maximum(not_crossing.sum(axis=1), 1)
    ok = (
        (n_left >= MIN_COLUMN_LINES)
        & (n_right >= MIN_COLUMN_LINES)
        & (hi > lo)
        & ~blocked
        & (share >= 0.9)
    )
    if not ok.any():
        return None
    score = np.where(ok, np.minimum(n_left, n_right), -1)
    return float(g[int(np.argmax(score)), 0])


def reading_order(lines: list[Line], width: float) -> list[Line]:
    """``lines`` in reading order: unchanged unless the page has two columns."""
    if len(lines) < 2 * MIN_COLUMN_LINES:
        return lines
    g = _gutter(lines, width)
    if g is None:
        return lines
    ordered: list[Line] = []
    band: list[Line] = []
    position = {id(ln): k for k, ln in enumerate(lines)}

    def flush() -> None:
        left = [ln for ln in band if ln.x1 <= g]
        right = [ln for ln in band if ln.x1 > g]
        for side in (left, right):
            ordered.extend(_top_down(side, position))
        band.clear()

    for ln in sorted(lines, key=lambda ln: -(ln.y0 + ln.y1)):
        if ln.x0 < g - 1 and ln.x1 > g + 1:
            flush()
            ordered.append(ln)
        else:
            band.append(ln)
    flush()
    if [id(ln) for ln in ordered] == [id(ln) for ln in lines]:
        return lines
    if _stream_follows_columns(lines, g):
        return lines
    regroup(ordered)
    return ordered


def _top_down(side: list[Line], position: dict[int, int]) -> list[Line]:
    """One column's lines top to bottom: in content-stream order when that already runs
    down the page, else sorted by height.

    Within a column the stream is the producer's order, and sorting by height can only
    lose it: a schedule's date set on the middle of its two-line topic ("9/12" beside
    "Overview: …" / "The 5 Sources …") sits lower than the topic's first line, yet the
    page reads it first, and the stream draws it first. A line may start up to
    :data:`CELL_RISE` line heights above the one before it (the next row's first line
    after such a centred label); anything more is a stream that jumps around, and then
    height decides.
    """
    stream = sorted(side, key=lambda ln: position[id(ln)])
    for above, below in itertools.pairwise(stream):
        rise = below.pitch_to(above)
        if rise > CELL_RISE * max(above.size, below.size):
            return sorted(side, key=lambda ln: -(ln.y0 + ln.y1))
    return stream


def _stream_follows_columns(lines: list[Line], g: float) -> bool:
    """The content stream already reads a column before the next (few side switches)."""
    sides = [ln.x0 >= g for ln in lines if ln.x1 <= g or ln.x0 >= g]
    switches = sum(a != b for a, b in itertools.pairwise(sides))
    return switches <= max(2, len(sides) // 15)
