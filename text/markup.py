"""Paragraph text without its markup: the words a table or a marked-up paragraph holds.

Tables are stored as HTML rows (:mod:`deepread.corpus.parsing`), so a paragraph's text
can hold tags. Every reader that compares, counts or quotes its words — the search text,
the sufficiency check, the extractive policy's quotes, notes, reference detection, the
evaluation's evidence matching — wants them without the tags; a tag becomes a space so
that neighbouring cells stay separate words. It sits in ``stores``, the lowest layer,
so that every layer can use it (the search text included).
"""

from __future__ import annotations

import re

#: Any tag ("<td>", "</tr>", "<br/>").
TAGS = re.compile(r"<[^>]+>")


def untagged(text: str) -> str:
    """``text`` with every tag replaced by a space."""
    return TAGS.sub(" ", text)


def plain(text: str) -> str:
    """``text`` without tags, its whitespace collapsed: what a quote shows."""
    return " ".join(untagged(text).split())
