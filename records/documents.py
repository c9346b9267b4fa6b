"""The records users see: paragraphs, sections, documents, and retrieval hits.

A paragraph is addressed by ``(doc_id, sec_id, para_idx)`` (paper Eq. 8); a section
carries the paper's heading metadata (Eq. 5) plus ``title``, ``level`` and ``parent``.
Everything here is plain data so it serialises to JSON for the CLI, the graph state and
the LangGraph server alike.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from deepread.records.errors import CoordinateError

ParagraphKind = str  # "text" | "list_item" | "table" | "figure" | "code" | "caption" | "image"
#: A rectangle of a PDF page: ``(page, x0, top, x1, bottom)`` — page 1-based, PDF points
#: from the top-left corner of the page as shown (deepread.corpus.parsing.places).
Box = tuple[int, float, float, float, float]
#: Characters ``start`` up to (not including) ``end`` of a source's text.
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One addressable paragraph: prose, a list item, a whole table (HTML), code…"""

    doc_id: int
    sec_id: int
    para_idx: int
    text: str
    kind: ParagraphKind = "text"
    page: int | None = None
    #: Tables and figures: the caption as printed, its label ("Table 3", "Figure 2.1"),
    #: and for figures the image (a file path) when the source had one.
    caption: str | None = None
    label: str | None = None
    image: str | None = None
    #: Where it is in its source, kept at ingest: a PDF paragraph's rectangles on its
    #: pages (:data:`Box`; a table's: its rows; ``()`` for a source without pages), and
    #: for other sources its character range in the source's text (:data:`Span`). Both
    #: ``None``: stored before places were kept (``deepread ingest --force`` adds them).
    boxes: tuple[Box, ...] | None = None
    span: Span | None = None

    @property
    def coord(self) -> tuple[int, int, int]:
        return (self.doc_id, self.sec_id, self.para_idx)

    @property
    def placed(self) -> bool:
        """Whether the store knows where the paragraph is (see ``boxes``)."""
        return self.boxes is not None or self.span is not None

    @property
    def pages(self) -> list[int]:
        """The pages it is printed on, in order: its rectangles' pages (a paragraph that
        runs on to the next page has two), else its ``page``; ``[]`` without pages."""
        on = sorted({int(b[0]) for b in self.boxes or ()})
        return on or ([self.page] if self.page else [])

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["boxes"] = None if self.boxes is None else [list(b) for b in self.boxes]
        data["span"] = None if self.span is None else list(self.span)
        return data


@dataclass(slots=True)
class Section:
    """A heading entity. ``n_para``/``n_tok`` count direct paragraphs only (paper Eq. 5)."""

    sec_id: int
    title: str
    level: int
    parent: int | None
    children: list[int] = field(default_factory=list)
    n_para: int = 0
    n_tok: int = 0
    #: One-line description written at ingest by a describe model (TOC enrichment).
    summary: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data; ``summary`` only when there is one (records stay as before)."""
        data = asdict(self)
        if data["summary"] is None:
            del data["summary"]
        return data


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """What a document says about itself, kept at ingest (deepread.corpus.library.front):
    the raw material its identifying title and card are made from when the collection
    is read, so that a title can depend on the other documents without rewriting them.

    ``metadata``: the file's own fields (a PDF's Title, Subject, Author); ``lines``: the
    text lines of its first page (tables as cell text), in reading order; ``headings``:
    the headings printed on that page; ``pages``: its page count when it has pages.
    """

    metadata: dict[str, str] = field(default_factory=dict)
    lines: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    pages: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metadata": dict(self.metadata),
            "lines": list(self.lines),
            "headings": list(self.headings),
            "pages": self.pages,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FrontMatter:
        return cls(
            metadata={str(k): str(v) for k, v in (data.get("metadata") or {}).items()},
            lines=tuple(data.get("lines") or ()),
            headings=tuple(data.get("headings") or ()),
            pages=data.get("pages"),
        )


@dataclass(frozen=True, slots=True)
class Card:
    """How a document is told apart in a library: its identifying title, its file
    name, and a short description — kind ("Form 10-K", "syllabus"), period ("fiscal
    year ended June 30, 2023", "Fall 2021"), pages and top-level sections. Made when the
    collection is read (deepread.corpus.library), never stored."""

    title: str
    file: str
    kind: str | None = None
    period: str | None = None
    pages: int | None = None
    sections: tuple[str, ...] = ()

    def describe(self, max_sections: int = 6) -> str:
        """The card after the title, one line: ``file=… | kind, period | pages=N |
        sections: A; B; C`` (at most ``max_sections`` of them; 0: no sections part, not
        "sections: ; +1 more" in a TOC's document line)."""
        parts = [f"file={self.file}"]
        what = ", ".join(p for p in (self.kind, self.period) if p and p not in self.title)
        if what:
            parts.append(what)
        if self.pages:
            parts.append(f"pages={self.pages}")
        if self.sections and max_sections > 0:  # 0: the sections are listed elsewhere
            shown = list(self.sections[:max_sections])
            more = len(self.sections) - len(shown)
            parts.append("sections: " + "; ".join(shown) + (f"; +{more} more" if more else ""))
        return " | ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "file": self.file,
            "kind": self.kind,
            "period": self.period,
            "pages": self.pages,
            "sections": list(self.sections),
        }


@dataclass(slots=True)
class Document:
    """A document of a collection: its id, title, source path and section tree.

    ``sections[0]`` is the root (``sec_id`` 0, level 0); ``sections[i].sec_id == i``.
    ``title`` is the title that identifies it among the collection's documents, and
    ``card`` its card, when it was read through ``deepread.Index``
    (deepread.corpus.library); as stored, the title its parser gave it. ``front`` is its
    front matter (stores written before it have none).
    """

    doc_id: int
    title: str
    source: str
    sections: list[Section] = field(default_factory=list)
    content_hash: str = ""
    front: FrontMatter | None = None
    card: Card | None = None

    @property
    def n_para(self) -> int:
        return sum(s.n_para for s in self.sections)

    @property
    def n_tok(self) -> int:
        return sum(s.n_tok for s in self.sections)

    def section(self, sec_id: int) -> Section:
        """The section ``sec_id``; ``KeyError`` with a readable message if absent."""
        if 0 <= sec_id < len(self.sections):
            return self.sections[sec_id]
        raise CoordinateError(
            f"document {self.doc_id} has no section {sec_id} (valid: 0..{len(self.sections) - 1})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data; ``card`` only when there is one (records stay as before)."""
        data: dict[str, Any] = {
            "doc_id": self.doc_id,
            "title": self.title,
            "source": self.source,
            "sections": [s.to_dict() for s in self.sections],
        }
        if self.card is not None:
            data["card"] = self.card.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Document:
        front = data.get("front")
        return cls(
            doc_id=int(data["doc_id"]),
            title=data["title"],
            source=data["source"],
            sections=[Section(**s) for s in data["sections"]],
            content_hash=data.get("content_hash", ""),
            front=FrontMatter.from_dict(front) if isinstance(front, dict) else None,
        )


@dataclass(frozen=True, slots=True)
class Hit:
    """A ranked retrieval hit (Algorithm 1, line 9): a coordinate and its score, and
    where the paragraph is in its source (:attr:`Paragraph.boxes`, :attr:`Paragraph.span`)."""

    doc_id: int
    sec_id: int
    para_idx: int
    score: float
    boxes: tuple[Box, ...] | None = None
    span: Span | None = None

    @property
    def coord(self) -> tuple[int, int, int]:
        return (self.doc_id, self.sec_id, self.para_idx)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["boxes"] = None if self.boxes is None else [list(b) for b in self.boxes]
        data["span"] = None if self.span is None else list(self.span)
        return data
