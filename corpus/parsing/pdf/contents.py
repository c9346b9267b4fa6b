"""Printed tables of contents: which pages are one, and the headings they name.

The second of the heading cues :mod:`~deepread.corpus.parsing.pdf.headings` combines. A
contents page has rows that end in page numbers running upwards; its own lines are the
contents, not headings. Its entries are looked for, in order, among the short blocks
after it, and a block that spells an entry is a heading even when its typography is
plain.
"""

from __future__ import annotations

import itertools
import re

from deepread.corpus.parsing.pdf.labels import label_level
from deepread.corpus.parsing.pdf.lines import Line, PageText, baseline_rows
from deepread.corpus.parsing.pdf.paragraphs import Para, norm
from deepread.corpus.parsing.pdf.words import WORD
from deepread.corpus.parsing.structure import CONTENTS_LABELS

__all__ = ["in_contents", "match_toc", "toc_pages"]

_TOC_TITLE = re.compile(rf"^({CONTENTS_LABELS})\b", re.I)
# A TOC row ends in a page number, maybe after dot leaders.
_TOC_ROW_END = re.compile(r"(?:\.{2,}|…|\s)\s*(\d{1,3}|[ivxlc]{1,6})$", re.I)
_LEADERS = re.compile(r"\s*(?:\.\s*){2,}|\s*…+\s*")


def _toc_rows(rows: list[list[Line]]) -> tuple[list[str], int, float]:
    """Entry texts of the rows ending in a page number, how many rows have words, and the
    top of the first entry."""
    entries: list[tuple[str, int]] = []
    top = 0.0
    worded = 0
    for row in rows:
        text = norm(" ".join(ln.text for ln in row))
        if not WORD.search(text):
            continue
        worded += 1
        m = _TOC_ROW_END.search(text)
        if m and WORD.search(text[: m.start()]):
            value = m.group(1)
            number = int(value) if value.isdigit() else 0
            entries.append((_LEADERS.sub(" ", text[: m.start()]).strip(" .…"), number))
            top = max(top, max(ln.y1 for ln in row))
    if len(entries) < 5:
        return [], worded, top
    numbers = [n for _, n in entries if n]
    rising = sum(b >= a for a, b in itertools.pairwise(numbers))
    if numbers and rising < 0.8 * (len(numbers) - 1):
        return [], worded, top
    return [t for t, _ in entries], worded, top


def toc_pages(
    pages: list[PageText], rows: list[list[list[Line]]] | None = None
) -> dict[int, tuple[list[str], float]]:
    """1-based pages that are a printed table of contents: their entries in order and the
    top of the first entry (a heading above it, "Item 8." over an index, is still one).

    A contents page has at least five rows that end in one page number, the numbers
    running upwards, and those rows are at least half its rows with words (or the page
    is titled "Contents"/"Table of Contents"/"Index"). A financial statement's rows end
    in figures too, but several per row and not in rising order.
    """
    out: dict[int, tuple[list[str], float]] = {}
    rows = rows if rows is not None else [baseline_rows(page.lines) for page in pages]
    for i, (page, page_rows) in enumerate(zip(pages, rows, strict=True), start=1):
        entries, worded, top = _toc_rows(page_rows)
        if not entries:
            continue
        titled = any(_TOC_TITLE.match(norm(ln.text)) for ln in page.lines[:6])
        if titled or len(entries) >= 0.5 * worded:
            out[i] = (entries, top)
    return out


def in_contents(p: Para, tocs: dict[int, tuple[list[str], float]]) -> bool:
    """``p`` is part of a contents page's list (not a heading printed above it)."""
    return p.page in tocs and p.lines[0].y0 <= tocs[p.page][1] + 1


def match_toc(
    paras: list[Para], tocs: dict[int, tuple[list[str], float]], heads: dict[int, int | None]
) -> None:
    """Mark the blocks that spell the printed contents' entries, in order, as headings.

    Linear in entries + blocks: the first block after each contents page is found by a
    pointer that only moves forward (blocks are in page order), and a block's letters are
    computed once however many entries look at it (an entry not printed in the body looks
    at up to 400).
    """
    if not tocs:
        return
    cursor = after = 0
    spelled: dict[int, str] = {}
    for toc_page in sorted(tocs):
        while after < len(paras) and paras[after].page <= toc_page:
            after += 1
        cursor = max(cursor, after)
        for entry in tocs[toc_page][0]:
            want = _alnum(entry)
            if len(want) < 4:
                continue
            for i in range(cursor, min(len(paras), cursor + 400)):
                p = paras[i]
                if p.kind not in ("text", "list_item") or len(p.lines) > 3:
                    continue
                have = spelled.get(i)
                if have is None:
                    have = spelled[i] = _alnum(p.raw)
                if have == want or (have.startswith(want) and len(have) <= len(want) + 12):
                    heads.setdefault(i, label_level(norm(p.raw)))
                    cursor = i + 1
                    break


def _alnum(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())
