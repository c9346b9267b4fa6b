"""A deepread collection: documents, their section trees and paragraphs in Qdrant.

This is where the store's guarantees live: stable small ``doc_id`` s keyed by source,
all-or-nothing document replacement (see :mod:`deepread.stores.schema` for the slot
protocol), repair after a killed process, and the coordinate lookups of the reading
tools as payload-filter queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from deepread.stores.backend import (
    Backend,
    CoordinateError,
    PointData,
    RetrievalMode,
    StoreError,
)
from deepread.stores.records import Document, Hit, Paragraph, Section
from deepread.stores.schema import (
    COLLECTION_POINT_ID,
    KIND_COLLECTION,
    KIND_DOCUMENT,
    KIND_PARAGRAPH,
    MAX_DOC_ID,
    MAX_PARAGRAPHS,
    Match,
    document_point_id,
    live_paragraphs,
    paragraph_point_id,
)
from deepread.text.hygiene import storable

_WRITE_BATCH = 256
_SCHEMA_VERSION = 1


def _stored(doc: Document) -> dict[str, Any]:
    """The document point's ``document`` record: the document with its content hash
    (:meth:`Document.to_dict` leaves the hash out; the store keeps it to skip unchanged
    and moved files)."""
    return doc.to_dict() | {"content_hash": doc.content_hash}


def _paragraph(payload: dict[str, Any]) -> Paragraph:
    return Paragraph(doc_id=payload["doc_id"], sec_id=payload["sec_id"],
                     para_idx=payload["para_idx"], text=payload["text"],
                     kind=payload.get("kind", "text"), page=payload.get("page"),
                     caption=payload.get("caption"), label=payload.get("label"),
                     image=payload.get("image"))


class Collection:
    """One named collection on one backend, built with one embedding model."""

    def __init__(self, backend: Backend, name: str, embedding_id: str) -> None:
        self.backend = backend
        self.name = name
        self.embedding_id = embedding_id
        self._documents: dict[int, Document] | None = None
        if backend.exists():
            self._check_meta()
            self.repair()

    # -- metadata -------------------------------------------------------------------

    def _check_meta(self) -> None:
        meta = self.backend.get([COLLECTION_POINT_ID])
        built_with = meta[0].get("embedding") if meta else None
        if built_with and built_with != self.embedding_id:
            raise StoreError(
                f"collection {self.name!r} was built with embeddings {built_with!r}, not "
                f"{self.embedding_id!r}; query it with the same model, or re-ingest into "
                "a new collection")

    def _ensure_created(self, dim: int) -> None:
        if self.backend.exists():
            return
        self.backend.create(dim)
        if self.backend.get([COLLECTION_POINT_ID]):
            # Another process created the collection since this one opened it (and may
            # have stored documents): check it as an existing one, forget the cache.
            self._check_meta()
            self._documents = None
            self.repair()
            return
        self.backend.upsert([PointData(COLLECTION_POINT_ID, {
            "record": KIND_COLLECTION, "name": self.name, "embedding": self.embedding_id,
            "dim": dim, "schema": _SCHEMA_VERSION})])

    # -- documents ------------------------------------------------------------------

    def documents(self) -> list[Document]:
        """All committed documents, by ``doc_id``."""
        if self._documents is None:
            self._documents = {}
            if self.backend.exists():
                rows = self.backend.scroll(Match(equals={"record": KIND_DOCUMENT}),
                                           limit=MAX_DOC_ID, order_by="doc_id")
                for row in rows:
                    if row.get("deleting"):
                        continue
                    doc = Document.from_dict(row["document"])
                    self._documents[doc.doc_id] = doc
        return list(self._documents.values())

    def document(self, doc_id: int) -> Document:
        """The document ``doc_id``; ``KeyError`` naming the valid ids if absent."""
        self.documents()
        assert self._documents is not None
        if doc_id not in self._documents:
            known = sorted(self._documents)
            raise CoordinateError(f"no document {doc_id} in collection {self.name!r}"
                           + (f" (documents: {_ranges(known)})" if known else " (it is empty)"))
        return self._documents[doc_id]

    def find_source(self, source: str) -> Document | None:
        source = storable(source)  # as put_document stored it
        return next((d for d in self.documents() if d.source == source), None)

    def find_content(self, content_hash: str) -> Document | None:
        """The stored document whose file had exactly this content (sha256), if any."""
        if not content_hash:
            return None
        return next((d for d in self.documents() if d.content_hash == content_hash), None)

    def move_source(self, doc_id: int, source: str) -> Document:
        """Name ``source`` as where document ``doc_id`` comes from now (the file moved,
        or a store was copied with its files): one payload update of the document's
        point, its paragraphs, vectors and ``doc_id`` untouched."""
        doc = replace(self.document(doc_id), source=storable(source))
        self.backend.set_payload(Match(equals={"record": KIND_DOCUMENT, "doc_id": doc_id}),
                                 {"source": doc.source, "document": _stored(doc)})
        assert self._documents is not None
        self._documents[doc_id] = doc
        return doc

    def _committed_slot(self, doc_id: int) -> int | None:
        rows = self.backend.get([document_point_id(doc_id)])
        return rows[0]["slot"] if rows else None

    def put_document(self, source: str, title: str, sections: list[Section],
                     paragraphs: Sequence[Paragraph], vectors: np.ndarray,
                     content_hash: str,
                     search_texts: Sequence[str] | None = None) -> Document:
        """Store a document, replacing any earlier version of ``source`` all at once.

        ``search_texts`` (one per paragraph) is what BM25 indexes; default the text itself.
        """
        if len(paragraphs) > MAX_PARAGRAPHS:
            raise ValueError(f"{source}: too many paragraphs ({len(paragraphs)})")
        # A file name that is not UTF-8 reaches here with lone surrogates, which the
        # engine cannot store: keep its bytes visible instead (text/hygiene.py).
        source, title = storable(source), storable(title)
        sections = [s if storable(s.title) == s.title else replace(s, title=storable(s.title))
                    for s in sections]
        # Refuse up front what the disk cannot hold: the embedded engine's mapped files
        # would otherwise kill the process by SIGBUS midway (stores/disk_space.py).
        dim = int(vectors.shape[1])
        text_bytes = sum(len(p.text.encode("utf-8", "surrogatepass")) for p in paragraphs)
        text_bytes += sum(len(t.encode("utf-8", "surrogatepass")) for t in search_texts or ())
        self.backend.ensure_space(len(paragraphs) + 1, dim, text_bytes, f"storing {source}")
        self._ensure_created(dim)
        previous = self.find_source(source)
        doc_id = previous.doc_id if previous else self._next_doc_id()
        old_slot = self._committed_slot(doc_id)
        slot = 1 - old_slot if old_slot in (0, 1) else 0
        # 1. Write the new version invisibly (live=0) into the free slot.
        self.backend.delete(Match(equals={"record": KIND_PARAGRAPH, "doc_id": doc_id,
                                          "slot": slot}))
        for start in range(0, len(paragraphs), _WRITE_BATCH):
            chunk = paragraphs[start:start + _WRITE_BATCH]
            self.backend.upsert([
                PointData(
                    id=paragraph_point_id(doc_id, slot, start + i),
                    payload={"record": KIND_PARAGRAPH, "doc_id": doc_id, "sec_id": p.sec_id,
                             "para_idx": p.para_idx, "text": p.text, "kind": p.kind,
                             "page": p.page, "caption": p.caption, "label": p.label,
                             "image": p.image, "slot": slot, "live": 0},
                    dense=vectors[start + i].tolist(),
                    bm25_text=search_texts[start + i] if search_texts else p.text)
                for i, p in enumerate(chunk)])
        # 2. Commit: the document point now names the new slot.
        doc = Document(doc_id=doc_id, title=title, source=source, sections=sections,
                       content_hash=content_hash)
        self.backend.upsert([PointData(document_point_id(doc_id), {
            "record": KIND_DOCUMENT, "doc_id": doc_id, "slot": slot, "source": source,
            "document": _stored(doc)})])
        # 3. Publish the new slot and drop the old one (repair() redoes this if killed).
        self._publish(doc_id, slot)
        if self._documents is not None:
            self._documents[doc_id] = doc
        return doc

    def _publish(self, doc_id: int, slot: int) -> None:
        self.backend.set_payload(Match(equals={"record": KIND_PARAGRAPH, "doc_id": doc_id,
                                               "slot": slot}), {"live": 1})
        self.backend.delete(Match(equals={"record": KIND_PARAGRAPH, "doc_id": doc_id,
                                          "slot": 1 - slot}))

    def delete_document(self, doc_id: int) -> None:
        """Remove a document and all its paragraphs.

        The document point is first marked ``deleting`` (hidden from then on), then its
        paragraphs go, then the point: a process killed midway leaves a marked point,
        which :meth:`repair` finishes deleting.
        """
        self.document(doc_id)
        self.backend.set_payload(Match(equals={"record": KIND_DOCUMENT, "doc_id": doc_id}),
                                 {"deleting": 1})
        self._finish_delete(doc_id)
        assert self._documents is not None
        self._documents.pop(doc_id, None)

    def _finish_delete(self, doc_id: int) -> None:
        self.backend.delete(Match(equals={"record": KIND_PARAGRAPH, "doc_id": doc_id}))
        self.backend.delete(Match(equals={"record": KIND_DOCUMENT, "doc_id": doc_id}))

    def _next_doc_id(self) -> int:
        # Ids of documents whose commit never happened are reusable: repair() removed
        # their paragraphs, so max+1 over committed documents is enough.
        ids = [d.doc_id for d in self.documents()]
        return max(ids, default=0) + 1

    def repair(self) -> None:
        """Finish or roll back a document write that a killed process left half-done."""
        points = self.backend.scroll(Match(equals={"record": KIND_DOCUMENT}),
                                     limit=MAX_DOC_ID, fields=["doc_id", "slot", "deleting"])
        for point in points:
            if point.get("deleting"):
                self._finish_delete(point["doc_id"])  # killed during delete_document
        committed = {d["doc_id"]: d["slot"] for d in points if not d.get("deleting")}
        hidden = self.backend.scroll(Match(equals={"record": KIND_PARAGRAPH, "live": 0}),
                                     limit=1_000_000, fields=["doc_id", "slot"])
        for doc_id, slot in {(h["doc_id"], h["slot"]) for h in hidden}:
            if committed.get(doc_id) == slot:
                self._publish(doc_id, slot)  # killed after the commit: finish it
            else:
                self.backend.delete(Match(equals={"record": KIND_PARAGRAPH, "doc_id": doc_id,
                                                  "slot": slot, "live": 0}))
        for doc_id, slot in committed.items():
            # killed between publishing the new slot and deleting the old one
            self.backend.delete(Match(equals={"record": KIND_PARAGRAPH, "doc_id": doc_id,
                                              "slot": 1 - slot}))

    # -- reading --------------------------------------------------------------------

    def paragraphs(self, doc_id: int, sec_id: int, start: int, end: int) -> list[Paragraph]:
        """Paragraphs ``start..end`` (inclusive) of one section, in order."""
        if end < start:
            return []
        rows = self.backend.scroll(live_paragraphs(doc_id, sec_id, start, end),
                                   limit=end - start + 1, order_by="para_idx")
        return [_paragraph(r) for r in rows]

    def rank(self, query: str, dense: list[float] | None, k: int, mode: RetrievalMode,
             doc_ids: Sequence[int] | None = None,
             candidates: int = 50) -> list[tuple[Hit, Paragraph]]:
        """Top-``k`` paragraphs for ``query`` (Algorithm 1, line 9), best first."""
        if not self.backend.exists() or k <= 0:
            return []
        match = live_paragraphs(doc_ids=tuple(doc_ids) if doc_ids else None)
        scored = self.backend.query(mode, dense, query, match, k, max(candidates, k))
        out = []
        for s in scored:
            para = _paragraph(s.payload)
            out.append((Hit(para.doc_id, para.sec_id, para.para_idx, s.score), para))
        return out

    def count_paragraphs(self, doc_id: int | None = None) -> int:
        if not self.backend.exists():
            return 0
        return self.backend.count(live_paragraphs(doc_id))

    def close(self) -> None:
        self.backend.close()


def _ranges(ids: list[int]) -> str:
    """``[1, 2, 3, 7]`` → ``"1-3, 7"``, short enough for an error message."""
    parts: list[str] = []
    for i in ids:
        if parts and parts[-1].split("-")[-1] == str(i - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{i}"
        else:
            parts.append(str(i))
    return ", ".join(parts)
