"""How deepread lays its records out in a Qdrant collection.

One Qdrant collection per deepread collection holds three kinds of points:

* ``paragraph`` points: payload ``doc_id, sec_id, para_idx, text, kind, page, slot,
  live`` with a dense vector ``dense`` and a BM25 sparse vector ``bm25``;
* one ``document`` point per document (no vectors): its title, source, content hash and
  section tree — the TOC is read from these;
* one ``collection`` point (id 0): which embedding model built the vectors.

Replacing a document must never show half of it. Each document alternates between two
id *slots*: a re-ingest writes the new paragraphs into the free slot with ``live=0``,
then rewrites the document point (the commit), then flips the new slot ``live=1`` and
deletes the old one. Readers only see ``live=1`` paragraphs; on open, :func:`repair`
finishes or rolls back whatever a killed process left behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DENSE = "dense"
SPARSE = "bm25"

KIND_PARAGRAPH = "paragraph"
KIND_DOCUMENT = "document"
KIND_COLLECTION = "collection"

INTEGER_FIELDS = ("doc_id", "sec_id", "para_idx", "slot", "live")
KEYWORD_FIELDS = ("record",)

COLLECTION_POINT_ID = 0
_SLOT_SHIFT = 32
_DOC_SHIFT = 34
MAX_DOC_ID = (1 << 29) - 1
MAX_PARAGRAPHS = (1 << 32) - 1


def paragraph_point_id(doc_id: int, slot: int, seq: int) -> int:
    """Point id of the ``seq``-th paragraph of ``doc_id`` written into ``slot`` (0/1)."""
    return (doc_id << _DOC_SHIFT) | (slot << _SLOT_SHIFT) | seq


def document_point_id(doc_id: int) -> int:
    """Point id of ``doc_id``'s document record (slot field 2 is never a paragraph's)."""
    return (doc_id << _DOC_SHIFT) | (2 << _SLOT_SHIFT)


@dataclass(frozen=True, slots=True)
class Match:
    """A payload filter: every key equals its value, or lies in an inclusive range."""

    equals: dict[str, int | str] = field(default_factory=dict)
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    any_of: dict[str, tuple[int, ...]] = field(default_factory=dict)


def live_paragraphs(doc_id: int | None = None, sec_id: int | None = None,
                    start: int | None = None, end: int | None = None,
                    doc_ids: tuple[int, ...] | None = None) -> Match:
    """Filter for visible paragraphs, optionally of one document / section / range."""
    equals: dict[str, int | str] = {"record": KIND_PARAGRAPH, "live": 1}
    if doc_id is not None:
        equals["doc_id"] = doc_id
    if sec_id is not None:
        equals["sec_id"] = sec_id
    ranges = {"para_idx": (start, end)} if start is not None and end is not None else {}
    any_of = {"doc_id": doc_ids} if doc_ids else {}
    return Match(equals=equals, ranges=ranges, any_of=any_of)
