"""The records users see: paragraphs, sections, documents, and retrieval hits.

A paragraph is addressed by ``(doc_id, sec_id, para_idx)`` (paper Eq. 8); a section
carries the paper's heading metadata (Eq. 5) plus ``title``, ``level`` and ``parent``.
Everything here is plain data so it serialises to JSON for the CLI, the graph state and
the LangGraph server alike.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from deepread.stores.backend import CoordinateError

ParagraphKind = str  # "text" | "list_item" | "table" | "figure" | "code" | "caption" | "image"


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

    @property
    def coord(self) -> tuple[int, int, int]:
        return (self.doc_id, self.sec_id, self.para_idx)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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


@dataclass(slots=True)
class Document:
    """A document of a collection: its id, title, source path and section tree.

    ``sections[0]`` is the root (``sec_id`` 0, level 0); ``sections[i].sec_id == i``.
    """

    doc_id: int
    title: str
    source: str
    sections: list[Section] = field(default_factory=list)
    content_hash: str = ""

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
            f"document {self.doc_id} has no section {sec_id} "
            f"(valid: 0..{len(self.sections) - 1})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "title": self.title,
            "source": self.source,
            "sections": [s.to_dict() for s in self.sections],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Document:
        return cls(
            doc_id=int(data["doc_id"]),
            title=data["title"],
            source=data["source"],
            sections=[Section(**s) for s in data["sections"]],
            content_hash=data.get("content_hash", ""),
        )


@dataclass(frozen=True, slots=True)
class Hit:
    """A ranked retrieval hit (Algorithm 1, line 9): a coordinate and its score."""

    doc_id: int
    sec_id: int
    para_idx: int
    score: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
