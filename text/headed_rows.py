"""A table's rows as a person reads one: the row's label, then each value under its
column's head — ``Effective tax rate: 2022 23%, 2021 20%``.

A quoted row without its heads (``Effective tax rate 23% 20%``) does not say which year
is which. The heads are the table's own: the latest header row above the row — a row
holding no figure but years ("2022 | 2021") or words ("Pension | Other") — whose cells
pair with the row's values, by column where the columns line up, else in order when
they are as many. A row of a table with no such header row keeps its values without
heads. A label the table printed already is another quantity, named by the row above it
holding a label alone ("Basic earnings per share — Net income").

Statements print a currency sign, a percent sign or a closing parenthesis in a cell of
its own ("$ | 16,388"), and a label with dot leaders ("Revenue .......... $"): those
pieces are joined to the figure they belong to, so a value reads "$16,388".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from deepread.text.markup import table_cells

#: A cell holding one figure: "$9,583", "(7)", "$(491)", "23.2 %", "1,879", "—" (the one
#: pattern for a figure cell: a filing's rows are judged by it too).
FIGURE = re.compile(r"^(?:\(?[-−–]?\$?|\$\()\s?\d[\d,]*(?:\.\d+)?\)?\s?%?\)?$|^[—–-]$")
#: Words a row label adds to a quantity without naming another one ("Total net
#: revenue" is revenue); a label of only these names nothing without its table's place.
QUALIFIERS = frozenset({"total", "net", "other"})
#: A cell that is a year or a fiscal year, as column heads print them.
_YEAR = re.compile(r"^(?:FY\s?|fiscal\s)?(?:19|20)\d\d$", re.IGNORECASE)
#: Dot leaders and the currency sign a label carries into its first figure.
_LEADERS = re.compile(r"\s*(?:\.\s*){2,}")
#: Pieces of a figure printed in a cell of their own.
_BEFORE = frozenset({"$", "€", "£", "¥", "("})
_AFTER = frozenset({"%", ")", "%)", "pts", "bps"})


@dataclass(frozen=True)
class HeadedRow:
    """One row of a table: its label and its values, each with its column's head
    ("" where the table names none)."""

    label: str
    values: tuple[tuple[str, str], ...]  # (head, value)
    #: The row and the header row its heads come from ("" when none) as the table
    #: prints them: their cells between " | ".
    cells: str = ""
    head: str = ""

    def line(self) -> str:
        """The row as one line: ``label: head value, head value``."""
        cells = ", ".join(f"{head} {value}" if head else value for head, value in self.values)
        if not cells:
            return self.label
        return f"{self.label}: {cells}" if self.label else cells


def headed_rows(markup: str) -> list[HeadedRow]:
    """The rows of the tables in ``markup`` that hold a figure, each with its heads (see
    the module docstring); a table holding no figure at all (a list of names and what
    each is) gives each of its rows, without heads. ``[]`` when ``markup`` holds no
    table."""
    out: list[HeadedRow] = []
    words: list[HeadedRow] = []  # the rows of a table without figures, as they are
    heads: list[list[tuple[int, str]]] = []  # header rows seen, as (column, text)
    printed: list[str] = []  # and as printed
    labels: set[str] = set()  # the labels of the rows with figures so far
    under = ""  # the latest row holding a label alone ("Basic earnings per share:")
    for cells in table_cells(markup):
        label, values = _label(cells[0]), _joined(cells)
        if not values:
            if label:
                words.append(HeadedRow(label, (), _printed(cells)))
                under = label
            continue
        if label.lower() in labels and under:
            # A label printed again is another quantity, named by the row above it that
            # holds a label alone: "Net income" under "Basic earnings per share:" is a
            # figure per share, not the net income printed above it.
            label = f"{under} — {label}"
        labels.add(label.lower())
        if is_head(v for _, v in values):
            heads.append(values)
            printed.append(_printed(cells))
            words.append(HeadedRow(label, tuple(("", v) for _, v in values), _printed(cells)))
            continue
        paired, source = _paired(values, heads)
        head = printed[source] if source is not None else ""
        out.append(HeadedRow(label, paired, _printed(cells), head))
    return out or words


def _printed(cells: list[str]) -> str:
    """A row as the table prints it: its non-empty cells between " | "."""
    return " | ".join(c for c in cells if c)


def is_head(values: Iterable[str]) -> bool:
    """Whether a row's value cells (all but its label) make a header row: years or
    words, no figure."""
    return not any(FIGURE.match(v) and not _YEAR.match(v) for v in values)


def _label(cell: str) -> str:
    """A row's first cell without dot leaders and a trailing currency sign."""
    label = _LEADERS.sub(" ", cell).strip()
    return label.removesuffix("$").rstrip(" .:") if label.endswith("$") else label.rstrip(" .:")


def _joined(cells: list[str]) -> list[tuple[int, str]]:
    """A row's value cells (all but its label) as ``(column, text)``, a currency sign
    or parenthesis in a cell of its own joined to the figure after it, a percent sign
    or closing parenthesis to the figure before it (and a label's trailing "$" to the
    first figure)."""
    out: list[tuple[int, str]] = []
    carry = "$" if _LEADERS.sub(" ", cells[0]).rstrip().endswith("$") else ""
    for column, cell in enumerate(cells[1:], start=1):
        cell = cell.strip()
        if not cell:
            continue
        if cell in _BEFORE:
            carry += cell
        elif cell in _AFTER and out:
            last_column, last = out[-1]
            out[-1] = (last_column, f"{last}{cell}" if cell != "pts" else f"{last} {cell}")
        else:
            # a sign printed after a figure belongs to the next one ("9,497,578 $")
            cell, sign = (cell[:-1].rstrip(), cell[-1]) if cell[-1:] in _BEFORE else (cell, "")
            out.append((column, carry + cell))
            carry = sign
    return out


def _paired(
    values: list[tuple[int, str]], heads: list[list[tuple[int, str]]]
) -> tuple[tuple[tuple[str, str], ...], int | None]:
    """``values`` with their heads, and which of ``heads`` gave them: the latest header
    row naming every value's column, else the latest with as many cells as there are
    values (in order), else none."""
    for i in range(len(heads) - 1, -1, -1):
        by_column = dict(heads[i])
        if all(column in by_column for column, _ in values):
            return tuple((by_column[column], value) for column, value in values), i
    for i in range(len(heads) - 1, -1, -1):
        if len(heads[i]) == len(values):
            pairs = zip(heads[i], values, strict=True)
            return tuple((head, value) for (_, head), (_, value) in pairs), i
    return tuple(("", value) for _, value in values), None
