"""Paragraph text without its markup: the words a table or a marked-up paragraph holds.

Tables are stored as HTML rows (:mod:`deepread.corpus.parsing`), so a paragraph's text
can hold tags. Every reader that compares, counts or quotes its words — the search text,
the sufficiency check, the extractive policy's quotes, notes, reference detection, the
evaluation's evidence matching — wants them without the tags; a tag becomes a space so
that neighbouring cells stay separate words. It sits in ``text``, below
every layer that reads paragraphs (the search text included); so does a table's cell text
(:func:`plain_table`), which search, titles and the flat baselines read.

What a *reader* is shown of a table (:func:`shown_text`, :func:`table_rows`) is its rows,
one line each, cells between " | ", a cell left empty where a column holds something in
another row: a table stays whole and in its columns, at about half the tokens of its
HTML (a filing's tables are a third of its tokens; as HTML, 152 of 3,498 tables in 26
filings were over a 1,100-token read and could be shown by no read at all, as rows 13:
docs/benchmarks.md). The store keeps the HTML.
"""

from __future__ import annotations

import html
import re

#: Any tag ("<td>", "</tr>", "<br/>").
TAGS = re.compile(r"<[^>]+>")
#: A table element and what it holds.
_TABLE = re.compile(r"<table\b[^>]*>(.*?)</table\s*>", re.IGNORECASE | re.DOTALL)
#: A row: from its ``<tr>`` to the next row or the end of its group (``</tr>`` may be
#: left out in HTML, and OCR engines' Markdown does).
_ROW = re.compile(r"<tr\b[^>]*>(.*?)(?=<tr\b|</t(?:body|head|foot)\b|$)", re.IGNORECASE | re.DOTALL)
#: A cell: its attributes and its content up to the next cell or the row's end
#: (``<td/>`` is an empty cell).
_CELL = re.compile(r"<t[dh]\b([^>]*)>(.*?)(?=<t[dh]\b|</tr\b|$)", re.IGNORECASE | re.DOTALL)
_COLSPAN = re.compile(r"colspan\s*=\s*[\"']?(\d+)", re.IGNORECASE)
#: Most columns one cell's ``colspan`` is taken to cover (a hostile "colspan=1000000"
#: would otherwise write a million separators).
MAX_COLSPAN = 50


def untagged(text: str) -> str:
    """``text`` with every tag replaced by a space."""
    return TAGS.sub(" ", text)


def plain(text: str) -> str:
    """``text`` without tags, its whitespace collapsed: what a quote shows."""
    return " ".join(untagged(text).split())


def plain_table(markup: str) -> str:
    """Cell text of an HTML table, cells separated by " | " and rows by newlines."""
    rows = re.split(r"</tr\s*>", markup, flags=re.IGNORECASE)
    out = []
    for row in rows:
        cells = [one_line(c) for c in re.split(r"</t[dh]\s*>", row, flags=re.IGNORECASE)]
        cells = [c for c in cells if c]
        if cells:
            out.append(" | ".join(cells))
    return "\n".join(out)


def one_line(markup: str) -> str:
    """The text of a piece of markup on one line, entities resolved: what a quote of it
    shows ("&amp;" as "&")."""
    return " ".join(html.unescape(untagged(markup)).split())


def _grid(body: str) -> list[str]:
    """A table element's rows as lines: :func:`_cells`, cells between " | "."""
    return [" | ".join(cells) for cells in _cells(body)]


def _cells(body: str) -> list[list[str]]:
    """A table element's rows as cells, a cell spanning ``colspan`` columns followed by
    its empty ones so that the columns stay aligned; columns empty in every row, a row's
    trailing empty cells and empty rows left out. (A ``rowspan`` cell is written once,
    in its first row.) Linear in the cells: rows are not padded to the widest (a hostile
    table of one wide row and many short ones stays small)."""
    rows: list[list[str]] = []
    for row in _ROW.finditer(body):
        cells: list[str] = []
        for cell in _CELL.finditer(row.group(1)):
            cells.append(one_line(cell.group(2)))
            span = _COLSPAN.search(cell.group(1))
            if span:
                cells += [""] * (min(int(span.group(1)), MAX_COLSPAN) - 1)
        if cells:
            rows.append(cells)
    used = sorted({j for r in rows for j, cell in enumerate(r) if cell})
    out = []
    for r in rows:
        cells = []
        for j in used:
            if j >= len(r):
                break
            cells.append(r[j])
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            out.append(cells)
    return out


def table_cells(markup: str) -> list[list[str]]:
    """The rows of every ``<table>`` in ``markup`` as cells (:func:`_cells`), the tables
    one after another; ``[]`` when it holds none."""
    return [
        cells
        for table in _TABLE.finditer(markup, 0, _closed(markup))
        for cells in _cells(table.group(1))
    ]


def _closed(markup: str) -> int:
    """Where the last ``</table>`` of ``markup`` ends (0: none). A table is looked for
    only before it: each ``<table`` after the last closing tag would scan to the end of
    the text in vain (quadratic in a hostile paragraph of openings)."""
    close = markup.lower().rfind("</table")
    return 0 if close < 0 else markup.find(">", close) + 1


def _rows(markup: str) -> str | None:
    """Each ``<table>``'s rows on lines of their own (:func:`_grid`), the text around the
    tables (a caption parsed into the paragraph) on its own lines; None when ``markup``
    holds no table."""
    lines: list[str] = []
    pos = 0
    for table in _TABLE.finditer(markup, 0, _closed(markup)):
        lines += [t for t in [one_line(markup[pos : table.start()])] if t]
        lines += _grid(table.group(1))
        pos = table.end()
    if not pos:
        return None
    lines += [t for t in [one_line(markup[pos:])] if t]
    return "\n".join(lines)


def table_rows(markup: str) -> str:
    """A table paragraph as a reader is shown it (:func:`_rows`; its words on one line
    when it holds no ``<table>``)."""
    rows = _rows(markup)
    return one_line(markup) if rows is None else rows


def shown_text(text: str, kind: str) -> str:
    """A paragraph's text as the reading tools show it: a table as its rows
    (:func:`_rows`; as stored when it holds no ``<table>``), anything else as stored. One
    pass over the markup: the tables found are the rows written."""
    rows = _rows(text) if kind == "table" else None
    return text if rows is None else rows
