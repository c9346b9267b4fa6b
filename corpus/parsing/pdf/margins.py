"""Running headers, footers and page numbers: page furniture, not paragraphs.

A line is furniture when it sits among the top or bottom few baselines of its page (the
page's own text extent, not a fixed band of the paper: filings printed on tall paper put
the page number a third of the way up) and the same line comes back on many pages:

* a line with words ("Table of Contents", "Amcor plc | 2023 Form 10-K | 12") is compared
  with its digits masked, so "Page 3 of 9" and "Page 4 of 9" are one line — as long as
  the numbers that differ count the pages: "Net revenue 1,037 2,091" atop each page of a
  table is a row of figures, and so is a label on the baseline of such figures;
* a bare page number ("12", "- 12 -", "Page 12", "iv") is furniture when the numbers run
  with the pages (the printed number minus the page index is the same on several pages);
* any other line without words is data — a row of figures at the top of every page of
  a table that runs over pages differs only in its digits, and must stay.

Why "many pages": ``max(2, min(pages / 2, max(3, 5 % of pages)))``. A 10-K repeats a
section's name ("Notes to Consolidated Financial Statements") in the header of that
section's pages only, a few percent of the filing; a syllabus of 4 pages repeats its
footer on all of them.
"""

from __future__ import annotations

import re
from collections import Counter

from deepread.corpus.parsing.pdf.lines import Line, PageText
from deepread.corpus.parsing.pdf.paragraphs import BARE_LABEL, norm

__all__ = ["drop_running_lines"]

#: How many baselines at the top and at the bottom of a page may hold furniture.
MARGIN_LINES = 3
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-–—]?\s*(\d{1,4}|[ivxlc]{1,7})\s*[-–—]?(?:\s*(?:of|/)\s*(\d{1,4}))?$", re.I
)
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"\d+(?:[,.]\d{3})*")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def _roman(text: str) -> int | None:
    total, prev = 0, 0
    for ch in reversed(text.lower()):
        value = _ROMAN.get(ch)
        if value is None:
            return None
        total += -value if value < prev else value
        prev = max(prev, value)
    return total or None


def _margin_lines(page: PageText) -> list[tuple[str, Line]]:
    """Lines among the page's top and bottom ``MARGIN_LINES`` baselines, with their band."""
    if not page.lines:
        return []
    mids = sorted({_mid(ln) for ln in page.lines}, reverse=True)
    top, bottom = set(mids[:MARGIN_LINES]), set(mids[-MARGIN_LINES:])
    out = []
    for ln in page.lines:
        mid = _mid(ln)
        if mid in top:
            out.append(("top", ln))
        elif mid in bottom:
            out.append(("bottom", ln))
    return out


def _numbers(text: str) -> list[int]:
    """The numbers of a line, a figure's thousands separators kept inside it ("1,037")."""
    return [int(re.sub(r"\D", "", n)) for n in _NUMBER.findall(text)]


def _runs_with_pages(lines: list[tuple[int, str]]) -> bool:
    """Whether lines alike but for their numbers are one running header.

    ``lines`` are (page index, text) with the same words. A running header's numbers are
    the same on every page, count the pages ("Page 3 of 9", "Form 10-K | 12") or change
    now and then ("Chapter 3 · 45": the chapter); a row of figures atop each page of a
    table ("Net revenue 1,037 2,091") has numbers that change from page to page without
    counting them: data, to be kept.
    """
    numbered = [(index, _numbers(text)) for index, text in lines]
    width = len(numbered[0][1])
    if any(len(nums) != width for _, nums in numbered):
        return False
    for position in range(width):
        column = [nums[position] for _, nums in numbered]
        distinct = len(set(column))
        counts_pages = len({v - index for (index, _), v in zip(numbered, column, strict=True)}) == 1
        if distinct > 1 and not counts_pages and 2 * distinct > len(column):
            return False
    return True


def _page_numbers(margin: list[tuple[str, Line]], index: int) -> dict[int, int]:
    """The margin lines that read as a page number: id(line) -> number minus ``index``.

    "3 / 9" is page 3 of 9, but "3/13" (a date) is not when the "of" part is smaller
    than the page (no "3 of 1"); and a page number stands alone on its baseline: several
    number-like lines side by side ("3/13   3/15   3/17", a schedule's row of dates)
    are a table's row.
    """
    found: dict[int, tuple[int, int]] = {}
    for _band, ln in margin:
        m = _PAGE_NUMBER.match(norm(ln.text).casefold())
        if not m:
            continue
        value = int(m.group(1)) if m.group(1).isdigit() else _roman(m.group(1))
        if value is None or (m.group(2) is not None and int(m.group(2)) < value):
            continue
        found[id(ln)] = (value - index, _mid(ln))
    per_baseline = Counter(mid for _, mid in found.values())
    return {i: off for i, (off, mid) in found.items() if per_baseline[mid] == 1}


def _figure_baselines(margin: list[tuple[str, Line]], numbers: dict[int, int]) -> set[int]:
    """Baselines of a page's margin lines that hold figures but no words nor page number.

    A label on such a baseline ("Net revenue" left of "1,037  2,091") heads a row of a
    table continued over pages, not a running header, however often it repeats.
    """
    return {
        _mid(ln)
        for _, ln in margin
        if id(ln) not in numbers and _DIGIT.search(ln.text) and not _LETTER.search(ln.text)
    }


def _mid(ln: Line) -> int:
    return round((ln.y0 + ln.y1) / 4) * 2


def drop_running_lines(pages: list[PageText]) -> None:
    """Remove headers, footers and page numbers from ``pages`` (in place)."""
    n = len(pages)
    if n < 2:
        return
    needed = max(2.0, min(n / 2, max(3.0, 0.05 * n)))
    words: dict[int, tuple[str, str]] = {}
    pages_of: dict[tuple[str, str], set[int]] = {}
    numbers: dict[int, int] = {}  # id(line) -> printed number minus page index
    texts: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for index, page in enumerate(pages):
        margin = _margin_lines(page)
        numbers.update(_page_numbers(margin, index))
        rows = _figure_baselines(margin, numbers)
        for band, ln in margin:
            text = norm(ln.text).casefold()
            if id(ln) in numbers or not _LETTER.search(text) or _mid(ln) in rows:
                continue
            labelled = BARE_LABEL.match(text) is not None
            k = (band, text if labelled else re.sub(r"\d+", "#", text))
            words[id(ln)] = k
            pages_of.setdefault(k, set()).add(index)
            texts.setdefault(k, []).append((index, text))
    offset_counts = Counter(numbers.values())
    min_run = 2 if n <= 6 else 3
    running = {
        k for k, seen in pages_of.items() if len(seen) >= needed and _runs_with_pages(texts[k])
    }
    drop = {i for i, k in words.items() if k in running}
    drop |= {i for i, off in numbers.items() if offset_counts[off] >= min_run}
    for page in pages:
        page.lines[:] = [ln for ln in page.lines if id(ln) not in drop]
