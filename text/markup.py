"""Paragraph text without its markup: the words a table or a marked-up paragraph holds.

Tables are stored as HTML rows (:mod:`deepread.corpus.parsing`), so a paragraph's text
can hold tags. Every reader that compares, counts or quotes its words — the search text,
the sufficiency check, the extractive policy's quotes, notes, reference detection, the
evaluation's evidence matching — wants them without the tags; a tag becomes a space so
that neighbouring cells stay separate words. It sits in ``text``, below
every layer that reads paragraphs (the search text included); so does a table's cell text
(:func:`plain_table`), which search, titles and the flat baselines read.
"""

from __future__ import annotations

import html
import re

#: Any tag ("<td>", "</tr>", "<br/>").
TAGS = re.compile(r"<[^>]+>")


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
        cells = [
            html.unescape(untagged(c)).strip()
            for c in re.split(r"</t[dh]\s*>", row, flags=re.IGNORECASE)
        ]
        cells = [" ".join(c.split()) for c in cells if c.strip()]
        if cells:
            out.append(" | ".join(cells))
    return "\n".join(out)
