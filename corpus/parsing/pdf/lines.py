"""The text layer of one PDF page as positioned lines grouped into boxes.

:mod:`deepread.corpus.parsing.pdf.reader` builds paragraphs, headings and tables from these
lines; this module only answers "what text is where, in which font". The characters come
from PDFium, read in bulk by :mod:`deepread.corpus.parsing.pdf.pdfium`; here they become
lines and boxes by array arithmetic — spaces, line breaks, gaps, run boundaries — with
**pdfminer's grouping rules** (``LAParams``: ``char_margin`` 2.0, ``line_margin`` 0.5),
because the paragraph logic was built on them:

- a **line** is a run of characters on one baseline, cut where PDFium starts a new
  line or where the horizontal gap exceeds ``char_margin`` × the character width (table
  cells and side-by-side columns stay apart);
- consecutive lines form one **box** when they have about the same font size, the
  next one starts within ``line_margin`` × size below the previous (sizes, not PDFium's
  glyph-following boxes, are compared), and it overlaps horizontally and is left-,
  right- or centre-aligned within that tolerance with some line of the box. Boxes
  follow the content stream, which for printed web pages and most filings is the
  reading order.

Lines that share a baseline across boxes (a contents row, table cells) are put back
together by :func:`baseline_rows`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from deepread.corpus.parsing.pdf.pdfium import Affine, Characters, flip, read_characters

__all__ = ["BULLET_GLYPHS", "Line", "PageText", "baseline_rows", "read_page", "regroup"]

#: Printed list-bullet glyphs (a drawn bullet is :attr:`Line.bullet` instead).
BULLET_GLYPHS = "•◦▪▫‣⁃∙●○■□►➢✓✔"

# pdfminer's LAParams defaults, for the same grouping.
_CHAR_MARGIN = 2.0
_LINE_MARGIN = 0.5


@dataclass(slots=True)
class Line:
    """One line of text with its box (PDF points, y up) and font facts."""

    text: str
    x0: float
    x1: float
    y0: float
    y1: float
    #: Dominant font size of the running (non-monospace) text, rounded to 0.5 pt.
    size: float
    #: Fraction of the visible characters set in a monospace font.
    mono: float
    #: Number of the text box the line belongs to on its page; -1 for synthetic lines.
    box: int
    #: A small drawn shape (a vector list bullet) sits just left of the line.
    bullet: bool
    #: Left edge of each character of ``text`` (an inserted space: the gap's left edge),
    #: to cut a line where a table column starts.
    xs: np.ndarray | tuple[float, ...] = ()
    #: Fraction of the visible characters set in a bold face.
    bold: float = 0.0
    #: The last visible character is bold: a bold phrase runs on to the next line, where
    #: a line ending in plain type after a bold run-in title ("Grading: 15% homework") does
    #: not.
    bold_end: bool = False
    #: The page the line is on (1-based; 0 until the reader numbers its pages).
    page: int = 0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def pitch_to(self, below: Line) -> float:
        """How far ``below``'s centre line sits under this one's (points; a baseline
        distance that does not depend on glyph boxes)."""
        return (self.y0 + self.y1 - below.y0 - below.y1) / 2


@dataclass(slots=True)
class PageText:
    """A page's lines in content-stream order, the page's size in points as shown, and
    where a point of its user space is on the page as shown (top-left origin)."""

    lines: list[Line] = field(default_factory=list)
    width: float = 612.0
    height: float = 792.0
    shown: Affine = field(default_factory=lambda: flip(792.0))


def read_page(doc: Any, index: int) -> PageText:
    """Lines of page ``index`` (0-based) of the open PDFium document ``doc``.

    The caller holds :data:`~deepread.corpus.parsing.pdf.pdfium.PDFIUM_LOCK`.
    """
    page = read_characters(doc, index)
    runs = _runs(page.chars) if page.chars is not None else []
    return PageText(_group(runs, page.shapes), page.width, page.height, page.shown)


@dataclass(slots=True)
class _Run:
    """One line in the making: its text, each character's left edge, box and font facts."""

    text: str
    xs: np.ndarray
    x0: float
    x1: float
    y0: float
    y1: float
    #: Most common size (0.5 pt steps) of the running text; 0 when nothing is visible.
    size: float
    mono: float
    bold: float
    bold_end: bool


def _runs(chars: Characters) -> list[_Run]:
    """Split the page's characters into lines (PDFium order, cut at big gaps)."""
    codes, boxes, newline, space = chars.codes, chars.boxes, chars.newline, chars.space
    skip_space, kept = chars.skip_space, chars.kept
    size, mono, bold = chars.size, chars.mono, chars.bold

    x0, top, x1, y0 = (boxes[kept, c].astype(np.float64) for c in range(4))
    y1 = top
    w = x1 - x0
    mid = (y0 + y1) / 2
    # What lies between a kept character and the one before it: a line break, a space.
    nl_cum = np.cumsum(newline)[kept]
    sp_cum = np.cumsum(skip_space)[kept]
    nl_before = np.diff(nl_cum, prepend=0) > 0
    sp_before = np.diff(sp_cum, prepend=0) > 0
    gap = np.empty_like(x0)
    gap[0] = 0.0
    gap[1:] = x0[1:] - x1[:-1]
    both_mono = np.zeros(len(kept), dtype=bool)
    both_mono[1:] = mono[1:] & mono[:-1]
    off_line = np.zeros(len(kept), dtype=bool)
    # Neither character's middle lies within the other's height: another baseline. (A
    # superscript's middle lies within its neighbour's box, so it stays on the line.)
    off_line[1:] = ((mid[1:] < y0[:-1]) | (mid[1:] > y1[:-1])) & (
        (mid[:-1] < y0[1:]) | (mid[:-1] > y1[1:])
    )
    backwards = np.zeros(len(kept), dtype=bool)
    backwards[1:] = x0[1:] < x0[:-1] - 1
    wmax = np.zeros(len(kept))
    wmax[1:] = np.maximum(w[1:], w[:-1])
    far = (gap > _CHAR_MARGIN * wmax) & ~both_mono
    cut = nl_before | off_line | backwards | far
    cut[0] = True
    # Code is laid out by position, not by space glyphs: restore its columns.
    code_gap = both_mono & (w > 0) & (gap > 0.5 * np.where(w > 0, w, 1))
    n_spaces = np.where(code_gap, np.maximum(1, np.round(gap / np.where(w > 0, w, 1))), 0)
    is_space = space[kept]
    plain_space = sp_before & ~code_gap
    plain_space[1:] &= ~is_space[1:] & ~is_space[:-1]
    n_spaces = np.where(plain_space, 1, n_spaces).astype(np.int64)
    n_spaces[cut] = 0
    return _assemble(
        np.flatnonzero(cut), codes[kept], n_spaces, x0, x1, y0, y1, size, mono, bold, is_space
    )


def _assemble(
    starts: np.ndarray,
    codes: np.ndarray,
    n_spaces: np.ndarray,
    x0: np.ndarray,
    x1: np.ndarray,
    y0: np.ndarray,
    y1: np.ndarray,
    size: np.ndarray,
    mono: np.ndarray,
    bold: np.ndarray,
    is_space: np.ndarray,
) -> list[_Run]:
    """The runs starting at ``starts``: text with the spaces put back, and their facts."""
    n = len(codes)
    is_start = np.zeros(n, dtype=bool)
    is_start[starts] = True
    run_of = np.cumsum(is_start) - 1
    # Text: the kept characters decoded in one call, the inserted spaces put in at the
    # (few) places that have them; each run is then a slice of that one string.
    base = codes.astype("<u4").tobytes().decode("utf-32-le", "replace")
    pieces: list[str] = []
    prev = 0
    for i in np.flatnonzero(n_spaces).tolist():
        pieces.append(base[prev:i])
        pieces.append(" " * int(n_spaces[i]))
        prev = i
    pieces.append(base[prev:])
    full = "".join(pieces)
    # Left edge of every output character; an inserted space sits at the gap's left edge.
    prev_x1 = np.concatenate(([0.0], x1[:-1]))
    width = n_spaces + 1
    xs = np.repeat(prev_x1, width)
    out_end = np.cumsum(width)
    xs[out_end - 1] = x0
    out_start = np.concatenate(([0], out_end[starts[1:] - 1])) if len(starts) > 1 else np.array([0])
    out_stop = np.concatenate((out_end[starts[1:] - 1], [out_end[-1]]))
    texts = [full[a:b] for a, b in zip(out_start.tolist(), out_stop.tolist(), strict=True)]
    lo_x, hi_x = np.minimum.reduceat(x0, starts), np.maximum.reduceat(x1, starts)
    lo_y, hi_y = np.minimum.reduceat(y0, starts), np.maximum.reduceat(y1, starts)
    visible = ~is_space
    n_vis = np.bincount(run_of, weights=visible, minlength=len(starts))
    mono_f = np.bincount(run_of, weights=visible & mono, minlength=len(starts)) / np.maximum(
        n_vis, 1
    )
    bold_f = np.bincount(run_of, weights=visible & bold, minlength=len(starts)) / np.maximum(
        n_vis, 1
    )
    # Index of each run's last visible character (-1: none), in one pass over the runs.
    last_vis = np.maximum.reduceat(np.where(visible, np.arange(n), -1), starts)
    bold_end = (last_vis >= 0) & bold[np.maximum(last_vis, 0)]
    run_size = _mode_size(run_of, np.round(size * 2) / 2, visible, mono, len(starts))
    return [
        _Run(
            texts[r],
            xs[out_start[r] : out_stop[r]],
            float(lo_x[r]),
            float(hi_x[r]),
            float(lo_y[r]),
            float(hi_y[r]),
            max(float(run_size[r]), 0.5) if n_vis[r] else 0.0,
            float(mono_f[r]),
            float(bold_f[r]),
            bool(bold_end[r]),
        )
        for r in range(len(starts))
    ]


def _mode_size(
    run_of: np.ndarray, half: np.ndarray, visible: np.ndarray, mono: np.ndarray, n_runs: int
) -> np.ndarray:
    """Most common font size of each run's running text (monospace only if nothing else).

    Browsers shrink inline code, so the size of a line is that of its prose.
    """
    prose = visible & ~mono
    has_prose = np.bincount(run_of, weights=prose, minlength=n_runs) > 0
    use = np.where(has_prose[run_of], prose, visible)
    r, h = run_of[use], half[use]
    out = np.zeros(n_runs)
    if not len(r):
        return out
    # One integer per (run, size in half points): a 1-D unique is far cheaper than 2-D.
    halves = np.clip(np.round(h * 2), 0, 4095).astype(np.int64)
    keys, counts = np.unique(r.astype(np.int64) * 4096 + halves, return_counts=True)
    runs, sizes = keys // 4096, (keys % 4096) / 2
    # Per run, the size with the largest count; on a tie the larger one (a label with a
    # footnote marker, "net(1)", is set in the label's size, not the marker's).
    order = np.lexsort((-sizes, -counts, runs))
    first = order[np.concatenate(([True], np.diff(runs[order]) != 0))]
    out[runs[first]] = sizes[first]
    return out


def _group(runs: list[_Run], shapes: np.ndarray) -> list[Line]:
    """Lines with their box numbers (pdfminer's neighbour rule over consecutive lines)."""
    lines: list[Line] = []
    box = -1
    members: list[Line] = []  # lines of the current box
    sx1 = shapes[:, 2]
    smid = (shapes[:, 1] + shapes[:, 3]) / 2
    for run in runs:
        # "¶" at a line end is a web permalink glyph, never content.
        text = run.text.rstrip().rstrip("¶").rstrip()
        if not text.strip() or not run.size:
            continue
        bullet = bool(len(shapes)) and bool(
            np.any((sx1 >= run.x0 - 24) & (sx1 <= run.x0) & (smid >= run.y0) & (smid <= run.y1))
        )
        line = Line(
            text=text,
            x0=run.x0,
            x1=run.x1,
            y0=run.y0,
            y1=run.y1,
            size=run.size,
            mono=run.mono,
            box=box,
            bullet=bullet,
            xs=run.xs[: len(text)],
            bold=run.bold,
            bold_end=run.bold_end,
        )
        if not members or not _joins(members, line):
            box += 1
            members = []
        line.box = box
        members.append(line)
        lines.append(line)
    return lines


def _joins(box: list[Line], line: Line) -> bool:
    """pdfminer's ``find_neighbors`` test, for the next line in the stream.

    pdfminer gives every character the height of its font size, so two lines are close
    when the gap between them is at most ``line_margin`` × size, i.e. their baselines are
    at most 1.5 sizes apart. PDFium's character boxes follow the glyphs for fonts without
    ascent/descent metrics, so the test is made on line centres and font sizes instead
    of box edges. Like pdfminer's transitive grouping, the line may be aligned with *any*
    line of the box (an indented line of a listing, then one back at the margin).
    """
    above = box[-1]
    d = _LINE_MARGIN * max(above.size, line.size)
    pitch = above.pitch_to(line)
    if not (abs(above.size - line.size) <= d and 0 < pitch <= max(above.size, line.size) + d):
        return False
    return any(
        line.x0 < other.x1
        and line.x1 > other.x0
        and (
            abs(other.x0 - line.x0) <= d
            or abs(other.x1 - line.x1) <= d
            or abs((other.x0 + other.x1) - (line.x0 + line.x1)) / 2 <= d
        )
        for other in box
    )


def regroup(lines: list[Line]) -> None:
    """Renumber the boxes of ``lines`` after they were put in another order (in place)."""
    box = -1
    members: list[Line] = []
    for line in lines:
        if not members or not _joins(members, line):
            box += 1
            members = []
        line.box = box
        members.append(line)


def baseline_rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped by shared baseline, top to bottom."""
    rows: list[list[Line]] = []
    for ln in sorted(lines, key=lambda ln: -(ln.y0 + ln.y1)):
        mid = (ln.y0 + ln.y1) / 2
        if rows:
            last = rows[-1][0]
            if abs((last.y0 + last.y1) / 2 - mid) <= 0.4 * max(last.size, ln.size):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    return [sorted(r, key=lambda ln: ln.x0) for r in rows]
