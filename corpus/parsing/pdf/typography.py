"""Headings by typography and place: bold, larger or capitals, and where a block sits.

The last of the heading cues :mod:`~deepread.corpus.parsing.pdf.headings` combines: a
short block set bold (when the body is not), larger than the body text, or in capitals,
that does not read as a sentence. Levels rank the styles (larger first, then bold, then
capitals) below the labels (:mod:`~deepread.corpus.parsing.pdf.labels`): 3 + rank, at
most :data:`MAX_LEVEL`. The same test decides whether a labelled block is a title or a
reference. Where a block sits counts too: a line beside table cells is a column title or
a row label, and an exhibit label only opens a page.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from deepread.corpus.parsing.pdf.labels import label_kind, label_level
from deepread.corpus.parsing.pdf.lines import Line, PageText
from deepread.corpus.parsing.pdf.paragraphs import BARE_LABEL, Para, norm
from deepread.corpus.parsing.pdf.words import WORD

__all__ = [
    "MAX_LEVEL",
    "SENTENCE_END",
    "Style",
    "beside_cells",
    "body_style",
    "candidate",
    "capitals",
    "first_lines",
    "typographic_levels",
]

SENTENCE_END = re.compile(r"[.!?;,]['\"’”)\]]*$")
#: Deepest level a heading gets.
MAX_LEVEL = 6


def body_style(pages: list[PageText]) -> tuple[float, bool]:
    """The size and boldness of most of the document's characters."""
    counts: Counter[tuple[float, bool]] = Counter()
    for page in pages:
        for ln in page.lines:
            if ln.mono < 0.5:
                counts[(ln.size, ln.bold >= 0.5)] += len(ln.text)
    if not counts:
        return 0.0, False
    return counts.most_common(1)[0][0]


def capitals(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return (
        len(letters) >= 4
        and sum(c.isupper() for c in letters) >= 0.9 * len(letters)
        and (len(text.split()) >= 2 or len(letters) >= 8)
    )


@dataclass(slots=True)
class Style:
    size: float
    bold: bool
    caps: bool


_BULLET_START = re.compile(r"^\s*[•◦▪▫‣⁃∙●○■□►➢✓✔\-*–]")


def candidate(
    p: Para, body_size: float, body_bold: bool, first_on_page: bool, beside: set[int]
) -> tuple[int | None, Style] | None:
    """``(label level or None, style)`` when ``p`` reads as a heading, else ``None``.

    ``beside``: ids of lines that share their baseline with a table-like neighbour (a
    short cell): a column title or a row label is not a heading.
    """
    if p.kind not in ("text", "list_item", "heading") or len(p.lines) > 3:
        return None
    if any(id(ln) in beside for ln in p.lines):
        return None
    raw = norm(p.raw)
    # A wholly bold block of up to three lines is a title even as a sentence (a 10-K's
    # risk factors are headed by one bold sentence each).
    headline = p.bold >= 0.9 and not body_bold and len(raw) <= 300
    if (len(raw) > 200 and not headline) or not WORD.search(raw) or _BULLET_START.match(raw):
        return None
    if raw.startswith("(") and raw.endswith(")"):
        return None  # "($ in millions)": a note on the figures, not a title
    bold = p.bold >= 0.6 and not body_bold
    larger = p.size >= body_size + 1
    caps = capitals(raw) and len(raw) <= 120
    style = Style(p.size, bold, caps)
    styled = bold or larger or caps
    kind = label_kind(raw)
    sentence = SENTENCE_END.search(raw) is not None
    if kind is not None:
        level = label_level(raw)
        if kind == "exhibit" and not first_on_page:
            return None  # an exhibit starts a page; elsewhere "Exhibit 10.1" is a reference
        if kind == "num":
            if styled and len(raw) <= 150 and not (sentence and len(raw) > 60):
                return level, style
            return None
        short = len(p.lines) == 1 and len(raw) <= 100
        # "Note 12 'Equity' included in Item 8 of this 10-K." (plain type, a sentence) is
        # a reference, not a title.
        if styled:
            return level, style
        if short and not sentence:
            return level, style
        if short and len(raw) <= 40:  # "Item 1A. Risk Factors."
            return level, style
        return None
    if p.kind == "list_item":
        return None
    if headline:
        return None, style
    if not styled or len(raw) > 150 or (sentence and not raw.endswith(":") and len(raw) > 40):
        return None
    if sentence and not bold and not larger:
        return None
    return None, style


def _prominence(style: tuple[float, bool, bool]) -> tuple[float, bool, bool]:
    return -style[0], not style[1], not style[2]


def typographic_levels(styles: list[Style]) -> dict[tuple[float, bool, bool], int]:
    """Level of each heading style: 3 + how many recurring styles stand out more.

    Only styles used at least twice take a rank of their own; a style seen once (a cover
    page's 20 pt company name) slots in by prominence without pushing the others down.
    """
    counts = Counter((s.size, s.bold, s.caps) for s in styles)
    recurring = sorted((s for s, n in counts.items() if n >= 2), key=_prominence)
    return {
        s: min(MAX_LEVEL, 3 + sum(_prominence(r) < _prominence(s) for r in recurring))
        for s in counts
    }


def beside_cells(rows: list[list[list[Line]]]) -> set[int]:
    """Ids of lines sharing their baseline with a short line or two others (table cells).

    A heading in the left column of a two-column page shares its baseline with a long
    prose line of the right column; that does not count.
    """
    out: set[int] = set()
    for page_rows in rows:
        for row in page_rows:
            if len(row) < 2:
                continue
            if len(row) == 2 and BARE_LABEL.match(row[0].text):
                continue  # "2." and its title, set apart by a tab
            for ln in row:
                others = [o for o in row if o is not ln]
                if len(row) >= 3 or any(len(o.text.strip()) <= 40 for o in others):
                    out.add(id(ln))
    return out


def first_lines(paras: list[Para]) -> set[int]:
    """Indexes of paragraphs that open their page (within its first few lines)."""
    out = set()
    seen: Counter[int] = Counter()
    for i, p in enumerate(paras):
        if seen[p.page] < 4:
            out.add(i)
        seen[p.page] += len(p.lines)
    return out
