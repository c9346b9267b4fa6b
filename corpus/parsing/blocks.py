"""The parser-neutral block stream every format reader produces.

Each reader (HTML, Markdown, PDF, DOCX, text) turns a file into a flat list of
:class:`Block` in reading order; :mod:`deepread.corpus.parsing.structure` then builds the
section tree from it. Keeping readers to this one shape is what lets the tree rules
(root section, numbering, parent/children) live in exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from deepread.corpus.parsing.places import LineBox, Span

BlockKind = Literal["heading", "text", "list_item", "table", "figure", "code", "caption", "image"]


@dataclass(slots=True)
class Block:
    """One unit of a document in reading order.

    ``kind == "heading"`` blocks open sections and carry ``level`` (1 = top). Every
    other kind becomes one paragraph. Tables carry HTML in ``text``. Tables and figures
    may carry their ``caption``, its ``label`` ("Table 3") and, for figures, the
    ``image`` path (see :mod:`deepread.corpus.parsing.figures`). Where the block is in
    its source (:mod:`deepread.corpus.parsing.places`): a PDF block's ``lines`` on their
    pages (a table's: its rows), any other block's ``span`` of the source's text.
    """

    kind: BlockKind
    text: str
    level: int | None = None
    page: int | None = None
    caption: str | None = None
    label: str | None = None
    image: str | None = None
    lines: tuple[LineBox, ...] = ()
    span: Span | None = None


@dataclass(slots=True)
class ParsedDocument:
    """What a reader returns: an optional title and the blocks in order; the page count
    and the file's own metadata fields (a PDF's Title, Subject, Author) when it has
    them (what a document says about itself: deepread.corpus.library.front)."""

    title: str | None
    blocks: list[Block] = field(default_factory=list)
    pages: int | None = None
    metadata: dict[str, str] = field(default_factory=dict)
