"""What the two reading primitives return (Algorithm 1): the hits of a ``retrieve`` with
their window-expanded paragraphs, and the clipped range of a ``read_section``.

Plain data, shared by the store that makes them (:mod:`deepread.stores.reading`) and every
floor above that shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deepread.records.documents import Hit, Paragraph


@dataclass(slots=True)
class Retrieved:
    """What ``Index.retrieve`` returns: the ranked hits and the expanded paragraphs."""

    query: str | list[str]
    hits: list[Hit] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)


@dataclass(slots=True)
class SectionRead:
    """What ``Index.read_section`` returns: the clipped range and its paragraphs."""

    doc_id: int
    sec_id: int
    start: int
    end: int
    paragraphs: list[Paragraph] = field(default_factory=list)
