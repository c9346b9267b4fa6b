"""Turn unstructured's elements into :class:`Block` s.

The mapping is where unstructured's categories meet the paper's two entity types:
``Title`` elements that carry a heading depth become headings, everything else becomes
one paragraph each (a list item, a whole table as HTML, a code block, a caption…).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from deepread.corpus.parsing.blocks import Block, BlockKind

if TYPE_CHECKING:  # unstructured is imported only through parsing/unstructured_setup.py (no ping)
    from unstructured.documents.elements import Element

# Elements that are page furniture rather than content.
_SKIPPED = {"PageBreak", "Header", "Footer", "PageNumber"}
_KINDS: dict[str, BlockKind] = {
    "ListItem": "list_item",
    "Table": "table",
    "CodeSnippet": "code",
    "FigureCaption": "caption",
    "Image": "image",
}
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_PILCROW = re.compile(r"\s*\u00b6\s*$")


def clean_text(text: str) -> str:
    """Collapse runs of whitespace and drop a trailing "¶" permalink mark."""
    return _PILCROW.sub("", re.sub(r"\s+", " ", text)).strip()


def clean_code(text: str) -> str:
    """Keep code's line structure; only trim trailing blanks and outer empty lines."""
    lines = [
        _SPACES.sub(" ", ln).rstrip() if not ln.startswith(" ") else ln.rstrip()
        for ln in text.splitlines()
    ]
    return "\n".join(lines).strip("\n")


def to_blocks(elements: Iterable[Element], *, headings_need_depth: bool = True) -> list[Block]:
    """Blocks for ``elements`` in order.

    ``headings_need_depth``: only a ``Title`` with ``category_depth`` (set from a real
    heading tag or style) opens a section. Titles guessed from text shape are kept as
    paragraphs, because a wrong heading hides its text from reading tools (see the
    paper's own system-prompt caveat about parsing errors).
    """
    blocks: list[Block] = []
    for el in elements:
        category = type(el).__name__
        if category in _SKIPPED:
            continue
        page = getattr(el.metadata, "page_number", None)
        depth = getattr(el.metadata, "category_depth", None)
        if category == "Title" and (depth is not None or not headings_need_depth):
            title = clean_text(el.text)
            if title:
                blocks.append(Block("heading", title, level=(depth or 0) + 1, page=page))
            continue
        kind = _KINDS.get(category, "text")
        if kind == "table":
            html = getattr(el.metadata, "text_as_html", None)
            text = html.strip() if html else clean_text(el.text)
        elif kind == "code":
            text = clean_code(el.text)
        else:
            text = clean_text(el.text)
        if text:
            blocks.append(Block(kind, text, page=page))
    return blocks
