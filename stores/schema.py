"""How deepread lays its records out in a Qdrant collection.

One Qdrant collection per deepread collection holds four kinds of points:

* ``paragraph`` points: payload ``doc_id, sec_id, para_idx, text, kind, page, version,
  live`` with a dense vector ``dense`` and a BM25 sparse vector ``bm25``;
* one ``document`` point per ``doc_id`` (no vectors): its source, the committed
  ``document`` record (title, content hash, section tree — the TOC is read from these)
  and the ``version`` whose paragraphs are that record's, plus the write lease
  (``writer``, ``lease``, ``machine``) while a process writes it;
* one ``source`` point per source path (no vectors): which ``doc_id`` the path is —
  inserted only if absent, so two processes can never give one file two documents;
* one ``collection`` point (id 0): which embedding model built the vectors, and a
  ``changed`` token rewritten by every commit and removal, so readers in other processes
  know to reload their document list.

Every write of a document is a *version*: a token unique to that write (it names the
writing process, and is the lease holder while it writes). Its paragraphs are written
invisibly (``live=0``) under ids no other write can use, the document point is switched
to the new version in one conditional update (the commit), then the paragraphs are
flipped ``live=1`` and the previous version's are deleted. Readers read a document's
paragraphs by its committed ``version``, so they see one version whole whatever a writer
is doing. The protocol — leases, repair, what a reader sees when — is in
:mod:`deepread.stores.writers` and ``docs/deployment.md``.

Stores written before versions (schema 1) keep ``slot`` 0/1 instead: their paragraphs
are read by ``slot``, and their first rewrite replaces them with a version.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field

DENSE = "dense"
SPARSE = "bm25"

KIND_PARAGRAPH = "paragraph"
KIND_DOCUMENT = "document"
KIND_SOURCE = "source"
KIND_COLLECTION = "collection"

INTEGER_FIELDS = ("doc_id", "sec_id", "para_idx", "slot", "live")
KEYWORD_FIELDS = ("record", "version", "source")

COLLECTION_POINT_ID = 0
_SLOT_SHIFT = 32
_DOC_SHIFT = 34
MAX_DOC_ID = (1 << 29) - 1
MAX_PARAGRAPHS = (1 << 32) - 1
#: How many ids a source may probe past a hash collision (61 bits: never, in practice).
SOURCE_PROBES = 8
#: Prefix of a version that names a schema-1 slot rather than a write token.
LEGACY_SLOT = "slot:"

_PARAGRAPH_IDS = uuid.UUID("8f6b3c52-93a4-4f0e-9d0e-6a1f0f5d2a71")


def paragraph_point_id(version: str, seq: int) -> str:
    """Point id (a UUID) of the ``seq``-th paragraph written by ``version``: unique to
    that write, so a writer that lost its lease can never overwrite another's points."""
    return str(uuid.uuid5(_PARAGRAPH_IDS, f"{version}/{seq}"))


def legacy_paragraph_point_id(doc_id: int, slot: int, seq: int) -> int:
    """Point id of a schema-1 paragraph (``slot`` 0/1): never written any more."""
    return (doc_id << _DOC_SHIFT) | (slot << _SLOT_SHIFT) | seq


def document_point_id(doc_id: int) -> int:
    """Point id of ``doc_id``'s document record (slot field 2 is never a paragraph's)."""
    return (doc_id << _DOC_SHIFT) | (2 << _SLOT_SHIFT)


def source_point_id(source: str, probe: int = 0) -> int:
    """Point id of the source point of ``source``: 61 bits of its hash in the id space
    no other record uses (slot field 3), the ``probe``-th on a collision."""
    digest = hashlib.sha256(f"{probe}\0{source}".encode("utf-8", "surrogatepass")).digest()
    h = int.from_bytes(digest[:8], "big")
    high, low = (h >> 32) & MAX_DOC_ID, h & 0xFFFFFFFF
    return (high << _DOC_SHIFT) | (3 << _SLOT_SHIFT) | low


@dataclass(frozen=True, slots=True)
class Match:
    """A payload filter: every key equals its value, or lies in an inclusive range, or
    is one of several values; ``ids`` limits it to those points, ``empty`` to points
    where those keys are missing or null."""

    equals: dict[str, int | str] = field(default_factory=dict)
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    any_of: dict[str, tuple[int, ...]] = field(default_factory=dict)
    ids: tuple[int | str, ...] = ()
    empty: tuple[str, ...] = ()


def live_paragraphs(
    doc_id: int | None = None,
    sec_id: int | None = None,
    start: int | None = None,
    end: int | None = None,
    doc_ids: tuple[int, ...] | None = None,
) -> Match:
    """Filter for searchable (published) paragraphs, optionally of one document /
    section / range."""
    equals: dict[str, int | str] = {"record": KIND_PARAGRAPH, "live": 1}
    if doc_id is not None:
        equals["doc_id"] = doc_id
    if sec_id is not None:
        equals["sec_id"] = sec_id
    ranges = {"para_idx": (start, end)} if start is not None and end is not None else {}
    any_of = {"doc_id": doc_ids} if doc_ids else {}
    return Match(equals=equals, ranges=ranges, any_of=any_of)


def version_paragraphs(doc_id: int, version: str) -> Match:
    """Filter for the paragraphs one write (``version``) stored for ``doc_id``."""
    if version.startswith(LEGACY_SLOT):
        return Match(
            equals={
                "record": KIND_PARAGRAPH,
                "doc_id": doc_id,
                "slot": int(version[len(LEGACY_SLOT) :]),
            },
            empty=("version",),
        )
    return Match(equals={"record": KIND_PARAGRAPH, "doc_id": doc_id, "version": version})


def committed_version(document_point: dict) -> str | None:
    """The version a document point names as committed: its write token, or a schema-1
    slot as ``"slot:N"``; ``None`` for a doc_id claimed but never committed (a claim
    carries neither field; a schema-1 point always had both ``slot`` and its record)."""
    if document_point.get("version"):
        return str(document_point["version"])
    if document_point.get("slot") in (0, 1):
        return f"{LEGACY_SLOT}{document_point['slot']}"
    return None


def paragraph_version(payload: dict) -> str:
    """The version a paragraph point belongs to (see :func:`committed_version`)."""
    if payload.get("version"):
        return str(payload["version"])
    return f"{LEGACY_SLOT}{payload.get('slot')}"
