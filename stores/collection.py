"""A deepread collection: documents, their section trees and paragraphs in Qdrant.

This is where the store's guarantees meet its users: stable small ``doc_id`` s keyed by
source, all-or-nothing document replacement, repair after a killed process — all of it
safe with other processes writing the same collection at the same time (the protocol is
:mod:`deepread.stores.writers`; the layout :mod:`deepread.stores.schema`) — and the
coordinate lookups of the reading tools as payload-filter queries.

What a reader sees: the document list is reloaded whenever another process committed or
removed a document (the collection point's ``changed`` token says so); a document asked
for by id and not known yet is looked up (refresh on a miss). Paragraphs are read by the
version the reader's document record names, so they are that record's whole; when that
version was replaced or removed meanwhile, the record is refreshed and the read repeated.
Search hits of a version that is no longer the document's are dropped and the search is
asked again, so a reader never mixes two versions of one document.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: a reader never loads numpy for them (issue 36)
    import numpy as np

from deepread.records.documents import Document, FrontMatter, Hit, Paragraph, Section
from deepread.records.errors import CoordinateError, StoreError
from deepread.stores.backend import Backend, PointData, RetrievalMode
from deepread.stores.schema import (
    COLLECTION_POINT_ID,
    KIND_COLLECTION,
    KIND_DOCUMENT,
    KIND_PARAGRAPH,
    KIND_SOURCE,
    LEGACY_SLOT,
    MAX_DOC_ID,
    MAX_PARAGRAPHS,
    Match,
    committed_version,
    document_point_id,
    live_paragraphs,
    paragraph_point_id,
    paragraph_version,
    version_paragraphs,
)
from deepread.stores.writers import LEASE_S, Lease, Step, Writers
from deepread.text.hygiene import storable

_WRITE_BATCH = 256
#: 1: paragraphs in two id slots per document. 2: every write a version, a lease on the
#: document point, a source point per source (stores/schema.py); 1 is migrated at open.
_SCHEMA_VERSION = 2
#: Times a read is repeated after finding its version replaced (a busy document).
_REREADS = 3


def _stored(doc: Document) -> dict[str, Any]:
    """The document point's ``document`` record: the document with its content hash
    and front matter (:meth:`Document.to_dict` leaves both out; the store keeps the hash
    to skip unchanged and moved files, the front matter to make its card from)."""
    stored = doc.to_dict() | {"content_hash": doc.content_hash}
    stored.pop("card", None)  # made when the collection is read, never stored
    if doc.front is not None:
        stored["front"] = doc.front.to_dict()
    return stored


def _paragraph(payload: dict[str, Any]) -> Paragraph:
    """The paragraph a point's payload holds; ``boxes`` and ``span`` ``None`` when it was
    written before places were kept (the payload has no ``boxes``)."""
    boxes = payload.get("boxes")
    span = payload.get("span")
    return Paragraph(
        doc_id=payload["doc_id"],
        sec_id=payload["sec_id"],
        para_idx=payload["para_idx"],
        text=payload["text"],
        kind=payload.get("kind", "text"),
        page=payload.get("page"),
        caption=payload.get("caption"),
        label=payload.get("label"),
        image=payload.get("image"),
        boxes=None
        if boxes is None
        else tuple((int(b[0]), float(b[1]), float(b[2]), float(b[3]), float(b[4])) for b in boxes),
        span=None if span is None else (int(span[0]), int(span[1])),
    )


#: The fields of a document point that say which version of it is committed.
_VERSION_FIELDS = ("doc_id", "version", "slot", "deleting")
#: Document records fetched whole in one request.
_FETCH = 256


def _visible(row: dict[str, Any]) -> bool:
    """A document point readers list: committed, and not being removed."""
    return (
        committed_version(row) is not None
        and not row.get("deleting")
        and row.get("document") is not None
    )


class Collection:
    """One named collection on one backend, built with one embedding model.

    ``clock`` (wall-clock seconds) and ``lease_s`` set how write leases are timed
    (:mod:`deepread.stores.writers`); tests move them. ``step``, when set, is called as
    ``step(name, doc_id)`` between the steps of a write or removal ("claimed",
    "acquired", "written", "committed", "published", "cleaned"; "marked", "emptied",
    "unmapped"), which lets a test pause or kill a writer at each.
    """

    def __init__(
        self,
        backend: Backend,
        name: str,
        embedding_id: str,
        *,
        clock: Callable[[], float] = time.time,
        lease_s: float = LEASE_S,
    ) -> None:
        self.backend = backend
        self.name = name
        self.embedding_id = embedding_id
        self.step: Step | None = None
        self.writers = Writers(backend, clock=clock, lease_s=lease_s, on_step=self._step)
        self._lock = threading.Lock()
        self._documents: dict[int, Document] | None = None
        self._versions: dict[int, str] = {}
        self._seen: object = None  # the collection point's ``changed`` token at the last load
        if backend.exists():
            self.repair()  # (checks the embedding model and layout first)

    def _step(self, name: str, doc_id: int) -> None:
        if self.step is not None:
            self.step(name, doc_id)

    # -- metadata -------------------------------------------------------------------

    def _check_meta(self) -> int:
        """Refuse another embedding model or a newer layout; the store's schema."""
        meta = self.backend.get([COLLECTION_POINT_ID])
        built_with = meta[0].get("embedding") if meta else None
        if built_with and built_with != self.embedding_id:
            raise StoreError(
                f"collection {self.name!r} was built with embeddings {built_with!r}, not "
                f"{self.embedding_id!r}; query it with the same model, or re-ingest into "
                "a new collection"
            )
        schema = int(meta[0].get("schema", 1)) if meta else _SCHEMA_VERSION
        if schema > _SCHEMA_VERSION:
            raise StoreError(
                f"collection {self.name!r} was written by a newer deepread "
                f"(layout {schema}; this one reads up to {_SCHEMA_VERSION}): "
                "upgrade deepread to use it"
            )
        return schema

    def _ensure_created(self, dim: int) -> None:
        if self.backend.exists():
            return
        # Another process (or thread) may create it at the same moment: creation is
        # idempotent on both engines, and the metadata point is inserted only if absent.
        self.backend.create(dim)
        self.backend.insert(
            [
                PointData(
                    COLLECTION_POINT_ID,
                    {
                        "record": KIND_COLLECTION,
                        "name": self.name,
                        "embedding": self.embedding_id,
                        "dim": dim,
                        "schema": _SCHEMA_VERSION,
                        "changed": uuid.uuid4().hex,
                    },
                )
            ]
        )
        self._check_meta()

    # -- documents ------------------------------------------------------------------

    def documents(self) -> list[Document]:
        """All committed documents, by ``doc_id`` — as of now: the list is reloaded
        when any process has committed or removed a document since it was read."""
        if self._documents is None and not self.backend.exists():
            return []  # (a server answers exists() with a request: asked until it does)
        meta = self.backend.get([COLLECTION_POINT_ID])
        seen = meta[0].get("changed") if meta else None
        documents = self._documents
        if documents is None or seen != self._seen:
            documents = self._load(seen)
        return list(documents.values())

    def _load(self, seen: object) -> dict[int, Document]:
        """Every committed document, reading again only the records whose committed
        version changed since the last load: the versions of all are listed (a few
        fields per document), the records of new and rewritten ones fetched whole. A
        record keeps its Document object while its version stands, so what is made
        from it (cards, titles, the document search) can be kept too."""
        listed = self.backend.scroll(
            Match(equals={"record": KIND_DOCUMENT}),
            limit=MAX_DOC_ID,
            order_by="doc_id",
            fields=list(_VERSION_FIELDS),
        )
        known, known_versions = self._documents or {}, self._versions
        documents: dict[int, Document] = {}
        versions: dict[int, str] = {}
        changed: list[int] = []
        for row in listed:
            version = committed_version(row)
            if version is None or row.get("deleting"):
                continue
            doc_id = int(row["doc_id"])
            # A schema-1 slot names one of two places, not one write: read it again.
            if (
                doc_id in known
                and known_versions.get(doc_id) == version
                and not version.startswith(LEGACY_SLOT)
            ):
                documents[doc_id], versions[doc_id] = known[doc_id], version
            else:
                changed.append(doc_id)
        for start in range(0, len(changed), _FETCH):
            ids: list[int | str] = [document_point_id(d) for d in changed[start : start + _FETCH]]
            for row in self.backend.get(ids):
                if _visible(row):
                    doc = Document.from_dict(row["document"])
                    documents[doc.doc_id] = doc
                    versions[doc.doc_id] = str(committed_version(row))
        documents = dict(sorted(documents.items()))
        with self._lock:
            self._documents, self._versions, self._seen = documents, versions, seen
        return documents

    def _refresh(self, doc_id: int) -> Document | None:
        """Read document ``doc_id`` from the store again (another process may have
        stored, replaced or removed it); ``None`` if it is not a committed document —
        as one whose id no document can have is not (not asked of the engine, which
        cannot hold its point id)."""
        if not 0 <= doc_id <= MAX_DOC_ID or not self.backend.exists():
            return None
        rows = self.backend.get([document_point_id(doc_id)])
        row = rows[0] if rows else None
        doc = Document.from_dict(row["document"]) if row and _visible(row) else None
        with self._lock:
            if self._documents is None:
                self._documents = {}
            if doc is None:
                self._documents.pop(doc_id, None)
                self._versions.pop(doc_id, None)
            else:
                self._documents[doc_id] = doc
                self._versions[doc_id] = str(committed_version(row or {}))
        return doc

    def _remember(self, doc: Document, version: str | None) -> None:
        with self._lock:
            if self._documents is not None:
                if version is None:
                    self._documents.pop(doc.doc_id, None)
                    self._versions.pop(doc.doc_id, None)
                else:
                    self._documents[doc.doc_id] = doc
                    self._versions[doc.doc_id] = version

    def document(self, doc_id: int) -> Document:
        """The document ``doc_id``; ``KeyError`` naming the valid ids if absent. One this
        reader has not seen yet (stored by another process since) is looked up."""
        documents = self._documents
        if documents is None:
            self.documents()
            documents = self._documents or {}
        doc = documents.get(doc_id)
        if doc is None:
            doc = self._refresh(doc_id)
        if doc is None:
            known = sorted(d.doc_id for d in self.documents())
            raise CoordinateError(
                f"no document {doc_id} in collection {self.name!r}"
                + (f" (documents: {_ranges(known)})" if known else " (it is empty)")
            )
        return doc

    def versions(self) -> dict[int, str]:
        """The committed version of every document, as of now (:meth:`documents`): a
        write of a document gives it a new one; a removed document has none."""
        self.documents()
        with self._lock:
            return dict(self._versions)

    def _version(self, doc_id: int) -> str | None:
        version = self._versions.get(doc_id)
        if version is None and self._refresh(doc_id) is not None:
            version = self._versions.get(doc_id)
        return version

    def find_source(self, source: str) -> Document | None:
        source = storable(source)  # as put_document stored it
        return next((d for d in self.documents() if d.source == source), None)

    def find_content(self, content_hash: str) -> Document | None:
        """The stored document whose file had exactly this content (sha256), if any."""
        if not content_hash:
            return None
        return next((d for d in self.documents() if d.content_hash == content_hash), None)

    def move_source(self, doc_id: int, source: str) -> Document | None:
        """Name ``source`` as where document ``doc_id`` comes from now (the file moved,
        or a store was copied with its files): one payload update of the document's
        point under its lease, its paragraphs, vectors and ``doc_id`` untouched.
        ``None`` if ``source`` is another document's already (another process stored it
        meanwhile); :class:`~deepread.stores.writers.WriteConflict` if the document is
        being written."""
        source = storable(source)
        with self.backend.writing():
            lease = self.writers.acquire_doc(doc_id, f"document {doc_id}")
            try:
                if self.writers.map_source(source, doc_id) != doc_id:
                    return None
                row = self.backend.get([lease.point])[0]
                old = Document.from_dict(row["document"])
                doc = replace(old, source=source)
                held = Match(ids=(lease.point,), equals={"writer": lease.token})
                self.backend.set_payload(held, {"source": source, "document": _stored(doc)})
                if self.backend.count(replace(held, equals=held.equals | {"source": source})) != 1:
                    raise self.writers.lost(lease)
                self.backend.delete(
                    Match(equals={"record": KIND_SOURCE, "doc_id": doc_id, "source": old.source})
                )
            finally:
                self.writers.release(lease)
        self.writers.changed()
        self._remember(doc, committed_version(row))
        return doc

    def put_document(
        self,
        source: str,
        title: str,
        sections: list[Section],
        paragraphs: Sequence[Paragraph],
        vectors: np.ndarray,
        content_hash: str,
        search_texts: Sequence[str] | None = None,
        front: FrontMatter | None = None,
    ) -> Document:
        """Store a document, replacing any earlier version of ``source`` all at once.

        ``search_texts`` (one per paragraph) is what BM25 indexes; default the text itself.
        ``front``: what the document says about itself (its card is made from it).
        Another process writing the same source at this moment makes this a
        :class:`~deepread.stores.writers.WriteConflict` (nothing stored); so does a
        lease lost to a repair while this write stalled (``LeaseLost``).
        """
        if len(paragraphs) > MAX_PARAGRAPHS:
            raise ValueError(f"{source}: too many paragraphs ({len(paragraphs)})")
        # A file name that is not UTF-8 reaches here with lone surrogates, which the
        # engine cannot store: keep its bytes visible instead (text/hygiene.py).
        source, title = storable(source), storable(title)
        sections = [
            s if storable(s.title) == s.title else replace(s, title=storable(s.title))
            for s in sections
        ]
        # Refuse up front what the disk cannot hold: the embedded engine's mapped files
        # would otherwise kill the process by SIGBUS midway (stores/disk_space.py).
        dim = int(vectors.shape[1])
        text_bytes = sum(len(p.text.encode("utf-8", "surrogatepass")) for p in paragraphs)
        text_bytes += sum(len(t.encode("utf-8", "surrogatepass")) for t in search_texts or ())
        self.backend.ensure_space(len(paragraphs) + 2, dim, text_bytes, f"storing {source}")
        self._ensure_created(dim)
        with self.backend.writing():
            lease = self.writers.acquire(source)
            try:
                doc = Document(
                    doc_id=lease.doc_id,
                    title=title,
                    source=source,
                    sections=sections,
                    content_hash=content_hash,
                    front=front,
                )
                self._write(lease, paragraphs, vectors, search_texts)
                self.writers.commit(lease, {"source": source, "document": _stored(doc)})
            except (Exception, KeyboardInterrupt) as exc:  # (Ctrl-C too: the process lives)
                _undo(self.writers, lease, exc)
                raise
            self._remember(doc, lease.token)
            self.writers.publish(lease)
        return doc

    def _write(
        self,
        lease: Lease,
        paragraphs: Sequence[Paragraph],
        vectors: np.ndarray,
        search_texts: Sequence[str] | None,
    ) -> None:
        """The new version's paragraphs, invisible (``live=0``), batch by batch, the
        lease renewed before each batch."""
        for start in range(0, len(paragraphs), _WRITE_BATCH):
            self.writers.renew(lease)
            chunk = paragraphs[start : start + _WRITE_BATCH]
            self.backend.upsert(
                [
                    PointData(
                        id=paragraph_point_id(lease.token, start + i),
                        payload={
                            "record": KIND_PARAGRAPH,
                            "doc_id": lease.doc_id,
                            "sec_id": p.sec_id,
                            "para_idx": p.para_idx,
                            "text": p.text,
                            "kind": p.kind,
                            "page": p.page,
                            "caption": p.caption,
                            "label": p.label,
                            "image": p.image,
                            # where it is in its source: [] and a span for sources
                            # without pages, so a payload without "boxes" is one
                            # written before places were kept
                            "boxes": [list(b) for b in p.boxes or ()],
                            "span": list(p.span) if p.span is not None else None,
                            "version": lease.token,
                            "live": 0,
                        },
                        dense=vectors[start + i].tolist(),
                        bm25_text=search_texts[start + i] if search_texts else p.text,
                    )
                    for i, p in enumerate(chunk)
                ]
            )
            self._step("written", lease.doc_id)
        self.writers.renew(lease)

    def delete_document(self, doc_id: int) -> None:
        """Remove a document and all its paragraphs, under its lease (a document being
        written is a :class:`~deepread.stores.writers.WriteConflict`).

        The document point is first marked ``deleting`` (hidden from then on), then its
        paragraphs go, its source mapping, then the point: a process killed midway
        leaves a marked point with a dead lease, which :meth:`repair` finishes deleting.
        """
        with self.backend.writing():
            doc = self.document(doc_id)
            lease = self.writers.acquire_doc(doc_id, f"document {doc_id} ({doc.source})")
            try:
                self.writers.delete(lease)
            except (Exception, KeyboardInterrupt) as exc:  # (Ctrl-C too: the process lives)
                _undo(self.writers, lease, exc)
                raise
            self._remember(doc, None)

    def repair(self) -> None:
        """Finish or roll back the writes and removals of dead processes (killed, or
        stalled past their lease); live writers' work is left alone."""
        schema = self._check_meta()
        self.writers.repair()
        self.writers.migrate(schema)
        with self._lock:
            self._documents = None

    # -- reading --------------------------------------------------------------------

    def paragraphs(self, doc_id: int, sec_id: int, start: int, end: int) -> list[Paragraph]:
        """Paragraphs ``start..end`` (inclusive) of one section, in order — all of the
        version the document record names (:meth:`document`); a version replaced or
        removed meanwhile is noticed by its missing paragraphs and the read repeated."""
        if end < start:
            return []
        rows: list[dict[str, Any]] = []
        for _ in range(_REREADS):
            doc = self.document(doc_id)
            version = self._versions.get(doc_id)
            if version is None:
                break
            n_para = doc.sections[sec_id].n_para if 0 <= sec_id < len(doc.sections) else 0
            wanted = max(0, min(end, n_para - 1) - max(start, 0) + 1)
            match = version_paragraphs(doc_id, version)
            rows = self.backend.scroll(
                replace(
                    match,
                    equals=match.equals | {"sec_id": sec_id},
                    ranges={"para_idx": (start, end)},
                ),
                limit=end - start + 1,
                order_by="para_idx",
            )
            if len(rows) >= wanted:
                break
            self._refresh(doc_id)  # replaced or removed since the record was read
        return [_paragraph(r) for r in rows]

    def rank(
        self,
        query: str,
        dense: list[float] | None,
        k: int,
        mode: RetrievalMode,
        doc_ids: Sequence[int] | None = None,
        candidates: int = 50,
    ) -> list[tuple[Hit, Paragraph]]:
        """Top-``k`` paragraphs for ``query`` (Algorithm 1, line 9), best first. A hit of
        a version its document no longer has (replaced while it was searched) is
        dropped and the search asked for as many more."""
        if not self.backend.exists() or k <= 0:
            return []
        if self._documents is None:
            self.documents()
        match = live_paragraphs(doc_ids=tuple(doc_ids) if doc_ids else None)
        limit = k
        out: list[tuple[Hit, Paragraph]] = []
        for _ in range(_REREADS):
            scored = self.backend.query(mode, dense, query, match, limit, max(candidates, limit))
            out, stale = [], 0
            for s in scored:
                if self._version(s.payload["doc_id"]) != paragraph_version(s.payload):
                    stale += 1
                    continue
                para = _paragraph(s.payload)
                hit = Hit(para.doc_id, para.sec_id, para.para_idx, s.score, para.boxes, para.span)
                out.append((hit, para))
            if not stale or len(scored) < limit:
                break
            limit += stale
        return out[:k]

    def count_paragraphs(self, doc_id: int | None = None) -> int:
        """Searchable paragraphs of the collection, or the committed version's of one
        document."""
        if not self.backend.exists():
            return 0
        if doc_id is None:
            return self.backend.count(live_paragraphs())
        version = self._version(doc_id)
        return self.backend.count(version_paragraphs(doc_id, version)) if version else 0

    def writing(self) -> AbstractContextManager[None]:
        """One document's write at a time (:meth:`Backend.writing`): hold it across a look
        at what is stored and the write that depends on it, so that two processes
        storing one file end as if one had run after the other."""
        return self.backend.writing()

    def release(self) -> None:
        """Let go of the engine while idle (:meth:`Backend.release`); what this reader
        knows of the documents is kept, and checked against the store on the next read."""
        self.backend.release()

    def leave(self) -> None:
        """The process ends now without closing (:meth:`Backend.leave`)."""
        self.backend.leave()

    def close(self) -> None:
        self.backend.close()


def _undo(writers: Writers, lease: Lease, exc: BaseException) -> None:
    """Roll back a write or removal that failed before its commit; a failure of the
    rollback itself is added to the original error (repair finishes the job once the
    lease has expired, as it does for a process killed outright)."""
    if lease.committed:
        return  # committed is stored: publishing is left to repair
    try:
        writers.abandon(lease)
    except Exception as undo_exc:  # the store that failed the write may fail this too
        exc.add_note(
            f"rolling the write back failed too ({type(undo_exc).__name__}: "
            f"{undo_exc}); the next repair after its lease ends finishes it"
        )


def _ranges(ids: list[int]) -> str:
    """``[1, 2, 3, 7]`` → ``"1-3, 7"``, short enough for an error message."""
    parts: list[str] = []
    for i in ids:
        if parts and parts[-1].split("-")[-1] == str(i - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{i}"
        else:
            parts.append(str(i))
    return ", ".join(parts)


#: The paragraph a point's payload holds, for what reads raw points itself (a bench script
#: rebuilding a library from another's points).
paragraph_of = _paragraph
