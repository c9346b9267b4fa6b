"""Tables in a PDF's text layer: rows of cells on shared baselines, aligned in columns.

A PDF has no table objects, only text placed on a page. Kept whole — as HTML, like the
HTML reader's tables and the paper's — a table is one paragraph a reader can cite,
instead of a scatter of one-cell "paragraphs" ("$", "5,363", "$", "4,869" was what a
10-K's cash-flow statement became). Two detectors, because tables come in two shapes:

* **Tables of figures** (:func:`find_figure_tables`: financial statements, the notes'
  tables, a syllabus's grade scale). Rows are grouped by baseline over the whole page
  (not by content-stream order: some producers draw a column of figures after all the
  labels). A row is a label and its figures; "$" belongs to the figure after it;
  figures are right-aligned, so columns are clusters of right edges taken from the body
  rows (column titles such as "2023" are centred and are placed by overlap); rows with
  only a label ("Cash flows from operating activities:") stay inside; a label wrapped
  over two lines ("…, net of" / "proceeds") is joined into one row. One row of figures
  is already a table; from three rows on, the figures must line up in columns.
* **Text tables** (:func:`find_tables`): at least ``MIN_ROWS`` consecutive rows (in
  content-stream order) with the same number (≥ 2) of cells, every cell overlapping its
  column. Between rows, a single line that spans several columns (a cell so wide that
  the next cell's text follows after an ordinary word gap) is cut at the column starts.

Not detected: ruled tables without text alignment, and tables split over pages (each
page's part becomes its own table, captioned by the title lines above it on that page).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from itertools import pairwise

from deepread.corpus.parsing.pdf.lines import BULLET_GLYPHS, Line

__all__ = [
    "CELL_GAP",
    "MIN_ROWS",
    "FigureTable",
    "Table",
    "find_figure_tables",
    "find_tables",
    "table_html",
]

#: Fewer rows than this are not called a table (two label/value lines are not one).
MIN_ROWS = 3
#: Least gap between two cells of a row, in font sizes (a word space is ~0.25).
CELL_GAP = 0.5
#: A cell that is only a list bullet: a first column of these is a bulleted list whose
#: glyphs stand apart from their text (a tab after the bullet), not a table's column.
_BULLET = re.compile(rf"^[{BULLET_GLYPHS}*–-]$")


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
        while j < len(rows) and len(rows[j][2]) == len(columns) and _aligned(rows[j][2], columns):
            # Lines between two rows that span every column are rows of wide cells; any
            # other line between them ends the table.
            wide = [_cut(ln, columns) for ln in lines[last : rows[j][0]]]
            if None in wide:
                break
            grid += [w for w in wide if w is not None]
            grid.append(_texts(rows[j][2]))
            columns = [
                (min(a, ln.x0), max(b, ln.x1))
                for (a, b), ln in zip(columns, rows[j][2], strict=True)
            ]
            last = rows[j][1]
            j += 1
        if len(grid) >= MIN_ROWS and not all(_BULLET.match(row[0]) for row in grid):
            tables.append(Table(start, last, grid))
            k = j
        else:
            k += 1
    return tables


def table_html(rows: list[list[str]]) -> str:
    """The rows as an HTML ``<table>`` (cells escaped), the form tables are stored in."""
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
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
    return (
        abs(mid_l - mid_r) <= 0.4 * max(left.size, right.size)
        and abs(left.size - right.size) <= 1
        and right.x0 - left.x1 >= CELL_GAP * max(left.size, right.size)
        and left.mono < 0.5
        and right.mono < 0.5
    )


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


# --- financial statements and other tables of figures -----------------------------------

#: A cell holding a figure: "1,058", "(1,577)", "$ 4,869", "12.5%", "—", "2023". A closing
#: parenthesis only closes an opening one: "4)" alone is a list number, not a figure.
_FIGURE = re.compile(
    r"^(?:\(\s*[$€£¥]?\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+)\s*%?\s*\)?"
    r"|[\-–—]?\s*[$€£¥]?\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+)\s*%?)\s*%?$"
    r"|^[—–-]{1,2}$|^n/?[am]$|^nm$",
    re.I,
)
_CURRENCY = re.compile(r"^[$€£¥]$")
#: Fewest rows holding figures for a block of rows to be a table of figures: one. A
#: lone row ("Net sales  $ 11,154  $ 11,151") is still a row, and its cells apart would be
#: paragraphs of one figure each. Columns must line up from three rows on.
MIN_FIGURE_ROWS = 1


@dataclass(slots=True)
class FigureTable:
    """A table of figures: the page lines it is made of (by index) and its rows."""

    members: list[int]
    rows: list[list[str]]
    #: Index of the region's first line in stream order: where the table is emitted.
    start: int


@dataclass(slots=True)
class _Row:
    lines: list[int]
    label: list[int]
    values: list[int]


def _is_figure(text: str) -> bool:
    return _FIGURE.match(text.strip()) is not None


def _geometric_rows(lines: list[Line]) -> list[list[int]]:
    """Line indexes grouped by baseline, top to bottom, left to right in a row."""
    order = sorted(range(len(lines)), key=lambda i: -(lines[i].y0 + lines[i].y1))
    rows: list[list[int]] = []
    for i in order:
        ln = lines[i]
        mid = (ln.y0 + ln.y1) / 2
        if rows:
            head = lines[rows[-1][0]]
            if abs((head.y0 + head.y1) / 2 - mid) <= 0.4 * max(head.size, ln.size):
                rows[-1].append(i)
                continue
        rows.append([i])
    return [sorted(r, key=lambda i: lines[i].x0) for r in rows]


def _split_row(lines: list[Line], row: list[int]) -> _Row:
    """The row's label cells (text at the left) and value cells (figures, "$", and what
    follows the first figure)."""
    label: list[int] = []
    values: list[int] = []
    for i in row:
        text = lines[i].text.strip()
        if values or _is_figure(text) or _CURRENCY.match(text):
            values.append(i)
        else:
            label.append(i)
    return _Row(row, label, values)


def find_figure_tables(lines: list[Line]) -> list[FigureTable]:
    """Tables whose rows end in figures (financial statements, notes' tables) on a page.

    A run of baseline rows is one table when at least ``MIN_FIGURE_ROWS`` of them hold
    figures to the right of their label, with the figures' right edges lining up in
    columns. Rows with only a label (a caption line "Cash flows from operating
    activities:", the first line of a wrapped label) stay inside the table when they
    sit at the labels' left edge and end before the first column of figures.
    """
    rows = _join_wrapped_cells(lines, [_split_row(lines, r) for r in _geometric_rows(lines)])
    tables: list[FigureTable] = []
    k = 0
    while k < len(rows):
        if not _figure_row(lines, rows[k]):
            k += 1
            continue
        j = k
        members = [k]
        label_x0 = _label_x0(lines, rows[k])
        first_col = min(lines[i].x0 for i in rows[k].values)
        while j + 1 < len(rows):
            nxt = rows[j + 1]
            if _figure_row(lines, nxt):
                first_col = min(first_col, min(lines[i].x0 for i in nxt.values))
                lx = _label_x0(lines, nxt)
                label_x0 = lx if label_x0 is None else min(label_x0, lx or label_x0)
                members.append(j + 1)
                j += 1
                continue
            # A label-only row continues the table if a figure row follows soon.
            if (
                not nxt.values
                and len(nxt.label) == 1
                and lines[nxt.label[0]].x1 < first_col
                and len(lines[nxt.label[0]].text) <= 120
                and any(_figure_row(lines, r) for r in rows[j + 2 : j + 4])
            ):
                members.append(j + 1)
                j += 1
                continue
            break
        # Header rows just above (years, "Fiscal 2023", column titles) join the table.
        while (
            k > 0
            and _header_row(lines, rows[k - 1], first_col)
            and (not tables or rows[k - 1].lines[0] not in tables[-1].members)
        ):
            k -= 1
            members.insert(0, k)
        figure_rows = [rows[m] for m in members if _figure_row(lines, rows[m])]
        if len(figure_rows) >= MIN_FIGURE_ROWS and (
            len(figure_rows) < 3 or _columns_line_up(lines, figure_rows)
        ):
            grid = _grid(lines, [rows[m] for m in members])
            member_lines = sorted(i for m in members for i in rows[m].lines)
            tables.append(FigureTable(member_lines, grid, member_lines[0]))
        k = j + 1
    return tables


def _join_wrapped_cells(lines: list[Line], rows: list[_Row]) -> list[_Row]:
    """Rows whose cell wraps over several lines hold all of them, in reading order.

    A cell of two lines ("(will be held on 3/30 from 7pm-9pm" / "and will cover
    sections 1.1 - 3.4 )") has its row's figure ("30%") set on the cell's middle, so one
    of its lines shares the figure's baseline and the other sits on a baseline of its
    own, where it would be a label-only row of another row's cell, or fall out of the
    table. The lines of one text box (:mod:`~deepread.corpus.parsing.pdf.lines`) with
    lines both above and below the middle of exactly one row of figures, all of them
    words, are one cell of that row (its label, or a text cell after its figures). A
    label whose figures sit on its last line ("…, net of" / "proceeds" above "Net cash
    used" in one box) has nothing below them: those are rows of their own.
    A box spanning several rows of figures (a producer that draws all the labels first)
    is a column, not a cell, and is left alone.
    """
    row_of = {i: k for k, r in enumerate(rows) for i in r.lines}
    boxes: dict[int, list[int]] = {}
    for r in rows:
        if not _figure_row(lines, r):  # a box with a line on no row of figures may join one
            for i in r.lines:
                if lines[i].box >= 0:
                    boxes.setdefault(lines[i].box, [])
    if not boxes:
        return rows
    for i, ln in enumerate(lines):
        if ln.box in boxes:
            boxes[ln.box].append(i)
    figure_mids = [
        (k, (lines[r.values[0]].y0 + lines[r.values[0]].y1) / 2)
        for k, r in enumerate(rows)
        if _figure_row(lines, r)
    ]
    targets: set[int] = set()
    for members in boxes.values():
        if len(members) < 2 or any(i not in row_of or _is_figure(lines[i].text) for i in members):
            continue
        mids = [(lines[i].y0 + lines[i].y1) / 2 for i in members]
        step = 0.25 * max(lines[i].size for i in members)
        held = [k for k, mid in figure_mids if max(mids) > mid + step and min(mids) < mid - step]
        if len(held) != 1:
            continue
        target = rows[held[0]]
        others = {row_of[i] for i in members} - {held[0]}
        if not others or any(set(rows[k].lines) - set(members) for k in others):
            continue  # nothing to join, or another cell on a baseline to be joined
        # Left of the row's first figure, the cell is (part of) the label; else a text
        # cell among the values, placed in its column like them.
        first_figure = min(lines[i].x0 for i in target.values if _is_figure(lines[i].text))
        part = target.label if min(lines[i].x0 for i in members) < first_figure else target.values
        if any(i in (target.values if part is target.label else target.label) for i in members):
            continue  # the box straddles the label and the figures: not one cell
        for k in others:
            for i in rows[k].lines:
                target.lines.append(i)
                part.append(i)
                row_of[i] = held[0]
            rows[k] = _Row([], [], [])
        targets.add(held[0])
    for k in targets:
        r = rows[k]
        # Cells left to right; a cell's lines top to bottom (content-stream order).
        left: dict[int, float] = {}
        for i in r.lines:
            left[lines[i].box] = min(left.get(lines[i].box, lines[i].x0), lines[i].x0)
        for part in (r.label, r.values, r.lines):
            part.sort(key=lambda i: (left[lines[i].box], i))
    return [r for r in rows if r.lines]


def _figure_row(lines: list[Line], row: _Row) -> bool:
    """A row with at least one figure, set apart from its label if it has one."""
    figures = [i for i in row.values if _is_figure(lines[i].text)]
    if not figures:
        return False
    if not row.label:
        return True
    label_end = max(lines[i].x1 for i in row.label)
    return lines[figures[0]].x0 - label_end >= CELL_GAP * lines[figures[0]].size


def _header_row(lines: list[Line], row: _Row, first_col: float) -> bool:
    """Column titles above the figures: short cells, at least one over the figures."""
    texts = [lines[i].text.strip() for i in row.lines]
    return (
        len(row.lines) >= 2
        and all(len(t) <= 40 for t in texts)
        and any(lines[i].x1 > first_col for i in row.lines)
    )


def _label_x0(lines: list[Line], row: _Row) -> float | None:
    return min((lines[i].x0 for i in row.label), default=None)


def _columns_line_up(lines: list[Line], rows: list[_Row]) -> bool:
    """Some column of right edges is shared by most figure rows."""
    edges = sorted(lines[i].x1 for r in rows for i in r.values if _is_figure(lines[i].text))
    best = 0
    lo = 0
    for hi, x in enumerate(edges):
        while x - edges[lo] > 6:
            lo += 1
        best = max(best, hi - lo + 1)
    return best >= 0.6 * len(rows)


_YEAR = re.compile(r"^(?:19|20)\d\d$")


def _columns(lines: list[Line], rows: list[_Row]) -> list[tuple[float, float]]:
    """Spans (left, right) of the figure columns, left to right.

    Figures are right-aligned, so columns are clusters of right edges — taken from the
    body rows only: column titles ("2023", "Fiscal 2022") are centred over their figures
    and would make columns of their own.
    """
    body = [
        i
        for r in rows
        if r.label
        for i in r.values
        if not _CURRENCY.match(lines[i].text.strip()) and not _YEAR.match(lines[i].text)
    ]
    if not body:
        body = [i for r in rows for i in r.values if not _CURRENCY.match(lines[i].text.strip())]
    body.sort(key=lambda i: lines[i].x1)
    cols: list[list[int]] = []
    for i in body:
        if cols and lines[i].x1 - lines[cols[-1][-1]].x1 <= 8:
            cols[-1].append(i)
        else:
            cols.append([i])
    return [(min(lines[i].x0 for i in c), max(lines[i].x1 for i in c)) for c in cols]


def _column_of(cols: list[tuple[float, float]], line: Line) -> int:
    """The column a cell belongs to: the one it overlaps most, else the nearest."""

    def overlap(c: int) -> float:
        lo, hi = cols[c]
        return min(hi, line.x1) - max(lo, line.x0)

    best = max(range(len(cols)), key=overlap)
    if overlap(best) > 0:
        return best
    return min(range(len(cols)), key=lambda c: abs(cols[c][1] - line.x1))


def _grid(lines: list[Line], rows: list[_Row]) -> list[list[str]]:
    """Cell texts: the row's label, then one cell per column of figures."""
    cols = _columns(lines, rows)
    out: list[tuple[str, list[str], bool]] = []
    for row in rows:
        label = " ".join(lines[i].text.strip() for i in row.label)
        cells = [""] * len(cols)
        pending = ""
        for i in row.values:
            text = lines[i].text.strip()
            if _CURRENCY.match(text):
                pending = text  # "$" belongs to the figure after it
                continue
            c = _column_of(cols, lines[i]) if cols else 0
            value = f"{pending}{text}" if pending else text
            pending = ""
            cells[c] = f"{cells[c]} {value}".strip() if cells[c] else value
        has_values = any(cells)
        # A wrapped label: its second line starts in lower case ("activities").
        if out and label[:1].islower():
            prev_label, prev_cells, prev_has = out[-1]
            if not prev_has:
                out[-1] = (f"{prev_label} {label}".strip(), cells, has_values)
                continue
            if not has_values:
                out[-1] = (f"{prev_label} {label}".strip(), prev_cells, prev_has)
                continue
        out.append((label, cells, has_values))
    return [[label, *cells] for label, cells, _ in out]
