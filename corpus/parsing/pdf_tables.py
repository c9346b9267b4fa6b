"""Tables in a PDF's text layer: rows of cells on shared baselines, aligned in columns.

A PDF has no table objects, only text placed on a page. A table shows as several short
runs of text on one baseline (the cells of a row; :mod:`~deepread.corpus.parsing.pdf_lines`
already cuts a line where the gap is wider than two characters, as pdfminer does), and
the next rows below with their cells under the same columns. Kept whole — as HTML, like
the HTML reader's tables and the paper's — a table is one paragraph a reader can cite,
instead of a scatter of one-cell "paragraphs".

A table is found when at least ``MIN_ROWS`` consecutive rows (in content-stream order)
each have the same number (≥ 2) of cells, every cell overlapping its column. Between
rows, a single line that spans several columns (a cell so wide that the next cell's text
follows after an ordinary word gap) is cut at the column starts. Not detected: cells
wrapped over several lines (the rows stop being regular; those lines stay text, as
before), ruled tables without text alignment, and tables split over pages (each page's
part becomes its own table).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from itertools import pairwise

from deepread.corpus.parsing.pdf_lines import Line

__all__ = ["CELL_GAP", "MIN_ROWS", "Table", "find_tables", "table_html"]

#: Fewer rows than this are not called a table (two label/value lines are not one).
MIN_ROWS = 3
#: Least gap between two cells of a row, in font sizes (a word space is ~0.25).
CELL_GAP = 0.5


@dataclass(slots=True)
class Table:
    """Lines ``start`` to ``end`` (exclusive) of a page are this table's ``rows``."""

    start: int
    end: int
    rows: list[list[str]]


def find_tables(lines: list[Line]) -> list[Table]:
    """The tables among one page's lines, in order."""
    rows = _rows(lines)
    tables: list[Table] = []
    k = 0
    while k < len(rows):
        start, last, cells = rows[k]
        columns = [(ln.x0, ln.x1) for ln in cells]
        grid = [_texts(cells)]
        j = k + 1
        while j < len(rows) and len(rows[j][2]) == len(columns) and _aligned(rows[j][2],
                                                                             columns):
            # Lines between two rows that span every column are rows of wide cells; any
            # other line between them ends the table.
            wide = [_cut(ln, columns) for ln in lines[last:rows[j][0]]]
            if None in wide:
                break
            grid += [w for w in wide if w is not None]
            grid.append(_texts(rows[j][2]))
            columns = [(min(a, ln.x0), max(b, ln.x1))
                       for (a, b), ln in zip(columns, rows[j][2], strict=True)]
            last = rows[j][1]
            j += 1
        if len(grid) >= MIN_ROWS:
            tables.append(Table(start, last, grid))
            k = j
        else:
            k += 1
    return tables


def table_html(rows: list[list[str]]) -> str:
    """The rows as an HTML ``<table>`` (cells escaped), the form tables are stored in."""
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table>{body}</table>"


def _rows(lines: list[Line]) -> list[tuple[int, int, list[Line]]]:
    """Runs of ≥ 2 consecutive lines on one baseline, left to right: (start, end, cells)."""
    out = []
    i = 0
    while i < len(lines):
        j = i + 1
        while j < len(lines) and _same_row(lines[j - 1], lines[j]):
            j += 1
        if j - i >= 2:
            out.append((i, j, lines[i:j]))
        i = j
    return out


def _same_row(left: Line, right: Line) -> bool:
    mid_l, mid_r = (left.y0 + left.y1) / 2, (right.y0 + right.y1) / 2
    # Cells are set apart by more than a word gap: letter-spaced or kerned words that
    # PDFium splits into runs ("Perm" "ission") are not cells.
    return (abs(mid_l - mid_r) <= 0.4 * max(left.size, right.size)
            and abs(left.size - right.size) <= 1
            and right.x0 - left.x1 >= CELL_GAP * max(left.size, right.size)
            and left.mono < 0.5 and right.mono < 0.5)


def _aligned(cells: list[Line], columns: list[tuple[float, float]]) -> bool:
    """Every cell overlaps its column and no other."""
    for j, ln in enumerate(cells):
        for c, (a, b) in enumerate(columns):
            overlaps = ln.x0 < b and ln.x1 > a
            if overlaps != (c == j):
                return False
    return True


def _cut(line: Line, columns: list[tuple[float, float]]) -> list[str] | None:
    """``line`` cut at the column starts if it spans every column there between words."""
    starts = [a for a, _ in columns]
    if not (line.x0 < columns[0][1] and line.x1 > starts[-1]) or len(line.xs) == 0:
        return None
    cuts = [0]
    for start in starts[1:]:
        at = next((i for i, x in enumerate(line.xs) if x >= start - 1), None)
        if at is None or at <= cuts[-1] or line.text[at - 1] != " ":
            return None
        cuts.append(at)
    cuts.append(len(line.text))
    cells = [line.text[a:b].strip() for a, b in pairwise(cuts)]
    return cells if all(cells) else None


def _texts(cells: list[Line]) -> list[str]:
    return [ln.text.strip() for ln in cells]
