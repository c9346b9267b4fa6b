"""Headings from the outline (bookmarks): each entry matched to the text it points to.

The first and most trusted of the heading cues :mod:`~deepread.corpus.parsing.pdf.headings`
combines. An entry's title is looked for on its destination page (or the next), in
order, among the blocks; a section number may be missing on either side. Its level is
the outline depth. An entry whose title is not printed as text still opens a section at
its page, and a title grouped with the text under it is split off.
"""

from __future__ import annotations

import re

from deepread.corpus.parsing.pdf.document import OutlineEntry
from deepread.corpus.parsing.pdf.lines import Line
from deepread.corpus.parsing.pdf.paragraphs import Para, key

__all__ = ["apply_outline"]

_NUMBERING = re.compile(r"^((?:\d{1,3}|[A-Z](?=\.\d))(?:\.\d{1,3})*)\.?\s+(?=\S)")


def apply_outline(paras: list[Para], outline: list[OutlineEntry]) -> bool:
    """Turn the blocks named by the outline into headings; False if none could be matched."""
    matched = 0
    cursor = 0
    for entry in outline:
        title, level, page = entry.title, entry.level, entry.page
        want = key(title)
        bare = key(_NUMBERING.sub("", title))
        hit = None
        for i in range(cursor, len(paras)):
            p = paras[i]
            if p.page > page + 1:
                break
            if p.page < page or p.kind in ("code", "table"):
                continue
            k = _match_lines(p, want, bare)
            if k:
                hit = (i, k)
                break
        if hit is None:
            # The title is not printed as text (or is an image): keep the section anyway.
            at = next((i for i in range(cursor, len(paras)) if paras[i].page >= page), len(paras))
            fake = Line(title, 0, 0, 0, 0, 0, 0, -1, False)
            paras.insert(at, Para(lines=[fake], page=page, kind="heading", level=level))
            cursor = at + 1
            continue
        i, k = hit
        p = paras[i]
        if k < len(p.lines):
            # The heading was grouped with the text under it: split them.
            rest = Para(
                lines=p.lines[k:],
                page=p.page,
                kind=p.kind,
                text_x0=p.text_x0,
                right_edge=p.right_edge,
                extra_pages=p.extra_pages,
            )
            p.lines, p.extra_pages = p.lines[:k], []
            paras.insert(i + 1, rest)
        p.kind, p.level = "heading", level
        matched += 1
        cursor = i + 1
    return matched > 0


def _match_lines(p: Para, want: str, bare: str) -> int:
    """How many leading lines of ``p`` spell the outline title (0 = no match)."""
    for k in range(1, min(len(p.lines), 4) + 1):
        got = key(" ".join(ln.text for ln in p.lines[:k]))
        if got in (want, bare) or key(_NUMBERING.sub("", got)) in (want, bare):
            return k
        if len(got) > len(want) + 10:
            break
    return 0
