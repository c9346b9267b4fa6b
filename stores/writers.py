"""The write protocol of a collection many processes share: writers that cannot collide,
and repair that touches only the dead.

Everything here rests on two properties both engines give (:mod:`deepread.stores.backend`):
an insert never overwrites an existing point, and a conditional update — ``set_payload``
or ``delete`` whose filter names a point *and the state it must be in* — applies to that
point whole or not at all. No lock outside the store, no clock shared between hosts.

* **A doc_id two processes cannot both take.** A new document's id is *claimed* by
  inserting its document point (insert-only, carrying the claimant's lease); the
  claimant reads it back, and a loser tries the next id.
* **One document per source.** A source path maps to its doc_id through a *source point*
  whose id is a hash of the path, inserted only if absent: of two processes storing the
  same new file at once, one maps it; the other gives its claim back and meets the
  winner's lease (:class:`WriteConflict`, "the other writer is told").
* **One writer per document at a time.** The document point holds the *lease*:
  ``writer`` (a token unique to this write, which also names the version it writes,
  and its process), ``lease`` (the wall-clock time it ends, in ms) and ``machine``
  (where that process runs; see below). It is taken
  by a conditional update (free, or held by a dead writer) and renewed before every
  batch of paragraphs; the commit is a conditional update that applies only while the
  token still holds the lease. A writer that lost its lease (it was too slow, and a
  repair took it over) fails that document (:class:`LeaseLost`) and never commits over
  the repair. A removal takes the same lease, so a delete racing a write leaves one or
  the other.
* **Ids no other write can use.** A write's paragraphs get ids made from its token
  (:func:`~deepread.stores.schema.paragraph_point_id`): a writer that lost its lease and
  goes on writing only adds invisible garbage, never overwrites a live writer's points.
* **Repair touches only the dead.** A lease is dead when its time has passed — or when it
  was taken on this very machine (the same boot, the same pid namespace:
  :func:`machine_tag`) by a process that no longer exists: ``kill -9`` of an ingest, then
  the same command at once, finishes the killed document instead of waiting out its
  lease. A pid reused since only makes the lease look alive (the wait for its time); a
  writer on another machine is judged by time alone. The embedded engine and a server
  are judged alike: on the embedded one too, any process may be a writer (it writes
  through the engine's holder, :mod:`deepread.stores.relay`). Repair takes a dead lease
  over and finishes what its writer left: a commit is published, an unfinished removal
  finished, an uncommitted claim given back. Invisible paragraphs of a version that is
  neither committed nor its document's lease holder are garbage: they are found by a
  scroll, and *then* the document point is read, so a write that started in between is
  the holder and is spared. Deletions name versions explicitly, never "everything but":
  a version once superseded is never committed again.

Clocks only decide *when* a lease counts as dead. A clock that jumps ahead makes a
repair take a live writer's lease: that writer then fails its document, nothing mixes.
A clock that jumps back delays repairs. The protocol is written out for readers in
``docs/deployment.md``.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from deepread.records.errors import CoordinateError, StoreError, WriteConflict
from deepread.stores.backend import Backend, PointData
from deepread.stores.holder import process_running
from deepread.stores.schema import (
    COLLECTION_POINT_ID,
    KIND_DOCUMENT,
    KIND_PARAGRAPH,
    KIND_SOURCE,
    LEGACY_SLOT,
    MAX_DOC_ID,
    SOURCE_PROBES,
    Match,
    committed_version,
    document_point_id,
    paragraph_version,
    source_point_id,
    version_paragraphs,
)

#: How long a lease lasts unless renewed (seconds). A writer renews it before every batch
#: of paragraphs (256) and at its commit, so only a writer stalled this long loses it.
LEASE_S = 30.0
#: Ids a claim tries before giving up (each loss means another process took that id).
CLAIM_TRIES = 1_000
#: What a write refused by another's lease did, and what a removal or a move did.
STORED_NOTHING = "nothing of this write was stored"
CHANGED_NOTHING = "nothing was changed"
#: Hidden paragraphs repair looks at in one pass.
HIDDEN_SCAN = 1_000_000
_HOLDER_FIELDS = (
    "doc_id",
    "source",
    "writer",
    "lease",
    "machine",
    "deleting",
    "version",
    "slot",
    "previous",
)

Step = Callable[[str, int], None]


class LeaseLost(WriteConflict):
    """This write outlived its lease and another process took the document over; nothing
    of this write was committed."""


_process: tuple[int, str] | None = None


def process_tag() -> str:
    """``host:pid`` of this process, for messages (recomputed in a forked child)."""
    global _process
    if _process is None or _process[0] != os.getpid():
        _process = (os.getpid(), f"{socket.gethostname()}:{os.getpid()}")
    return _process[1]


_machine: str | None = None


def machine_tag() -> str:
    """What names this machine's process ids: its boot (``boot_id``, new at every boot)
    and this process's pid namespace (containers on one host each have theirs). ``""``
    where the system does not say (then a lease is judged by its time alone)."""
    global _machine
    if _machine is None:
        try:
            boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
            space = os.readlink("/proc/self/ns/pid")
        except OSError:  # not Linux, or /proc not mounted
            boot = space = ""
        _machine = f"{boot}/{space}" if boot and space else ""
    return _machine


def _pid(token: str) -> int | None:
    """The process id a write token (:func:`new_token`) names, if it names one."""
    parts = token.rsplit(":", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


def new_token() -> str:
    """A token naming one write: its process, and 96 random bits no other write has."""
    return f"{process_tag()}:{uuid.uuid4().hex[:24]}"


def _who(token: str) -> str:
    return token.rsplit(":", 1)[0] if token.count(":") >= 2 else token


@dataclass(slots=True)
class Lease:
    """A document this process holds the lease of, and what it found there."""

    doc_id: int
    token: str
    source: str
    #: The version committed when the lease was taken (to delete once a new one is).
    previous: str | None
    #: No version was ever committed: a failure gives the doc_id (and source) back.
    fresh: bool
    committed: bool = False
    stale: list[str] = field(default_factory=list)

    @property
    def point(self) -> int:
        return document_point_id(self.doc_id)


class Writers:
    """The protocol over one backend; :class:`~deepread.stores.collection.Collection`
    drives it. ``clock`` (seconds, wall time) and ``lease_s`` are for tests to move;
    ``on_step(name, doc_id)`` is called between the steps of a write."""

    def __init__(
        self,
        backend: Backend,
        *,
        clock: Callable[[], float] = time.time,
        lease_s: float = LEASE_S,
        on_step: Step | None = None,
    ) -> None:
        self.backend = backend
        self.clock = clock
        self.lease_s = lease_s
        self._on_step = on_step

    def step(self, name: str, doc_id: int) -> None:
        if self._on_step is not None:
            self._on_step(name, doc_id)

    def changed(self) -> None:
        """Tell readers in every process to reload their document list (a new token on
        the collection point; any change of it means "reload")."""
        self.backend.set_payload(Match(ids=(COLLECTION_POINT_ID,)), {"changed": uuid.uuid4().hex})

    # -- leases -----------------------------------------------------------------------

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    def _holding(self, token: str) -> dict[str, Any]:
        return {
            "writer": token,
            "lease": self.now_ms() + int(self.lease_s * 1000),
            "machine": machine_tag() or None,
        }

    def dead(self, row: dict[str, Any], now_ms: int) -> bool:
        """Whether the lease on a document point belongs to a writer that is gone."""
        if not row.get("writer"):
            return False
        if self._gone_from_here(row):
            return True
        return int(row.get("lease") or 0) <= now_ms

    @staticmethod
    def _gone_from_here(row: dict[str, Any]) -> bool:
        """Whether the lease was taken on this machine by a process that no longer
        exists (killed: it can renew nothing, so waiting out its time helps no one)."""
        here = machine_tag()
        if not here or row.get("machine") != here:
            return False
        pid = _pid(str(row.get("writer")))
        return pid is not None and not process_running(pid)

    def _busy(self, what: str, row: dict[str, Any], outcome: str) -> WriteConflict:
        left = (int(row.get("lease") or 0) - self.now_ms()) / 1000
        gone = f"; if that process is gone, its lease ends in {max(left, 0):.0f} s: run again then"
        return WriteConflict(
            f"{what} is being written by another writer (process "
            f"{_who(str(row.get('writer')))}) right now; {outcome}{gone}"
        )

    def _get(self, point: int) -> dict[str, Any] | None:
        rows = self.backend.get([point])
        return rows[0] if rows else None

    def _if_held(self, lease: Lease) -> Match:
        return Match(ids=(lease.point,), equals={"writer": lease.token})

    def take(
        self, doc_id: int, token: str, what: str, outcome: str = STORED_NOTHING
    ) -> dict[str, Any] | None:
        """Take the lease of ``doc_id`` for ``token``: free, or from a dead writer.
        Returns the document point as held, ``None`` if there is no such point;
        :class:`WriteConflict` (saying ``outcome``) if a live writer holds it."""
        point = document_point_id(doc_id)
        row = self._get(point)
        if row is None:
            return None
        holder, now = row.get("writer"), self.now_ms()
        if holder and not self.dead(row, now):
            raise self._busy(what, row, outcome)
        if not holder:
            condition = Match(ids=(point,), empty=("writer",))
        elif self._gone_from_here(row):
            # its process is gone: only while that write still holds it (a token no one
            # else renews), whatever its time says
            condition = Match(ids=(point,), equals={"writer": holder})
        else:  # expired: only while still expired, so a late renewal wins
            condition = Match(ids=(point,), equals={"writer": holder}, ranges={"lease": (0, now)})
        self.backend.set_payload(condition, self._holding(token))
        row = self._get(point)
        if row is None:
            return None
        if row.get("writer") != token:
            raise self._busy(what, row, outcome)
        return row

    def renew(self, lease: Lease) -> None:
        """Push the lease's end forward; :class:`LeaseLost` if it is no longer ours."""
        self.backend.set_payload(
            self._if_held(lease), {"lease": self.now_ms() + int(self.lease_s * 1000)}
        )
        row = self._get(lease.point)
        if row is None or row.get("writer") != lease.token:
            raise self.lost(lease)

    def lost(self, lease: Lease) -> LeaseLost:
        return LeaseLost(
            f"{lease.source}: this write took longer than its lease "
            f"({self.lease_s:g} s) and another process took the document "
            "over; nothing of this write was stored — run it again"
        )

    def release(self, lease: Lease) -> None:
        self.backend.set_payload(
            self._if_held(lease),
            # ("opener": a field leases of older stores carry)
            {"writer": None, "lease": None, "opener": None, "machine": None, "previous": None},
        )

    # -- sources and doc_ids ----------------------------------------------------------

    def _source_rows(self, source: str) -> list[dict[str, Any]]:
        return self.backend.get([source_point_id(source, k) for k in range(SOURCE_PROBES)])

    def source_doc(self, source: str) -> int | None:
        """The doc_id ``source`` is mapped to, if any."""
        return next(
            (int(r["doc_id"]) for r in self._source_rows(source) if r.get("source") == source), None
        )

    def map_source(self, source: str, doc_id: int) -> int:
        """Map ``source`` to ``doc_id`` unless it is mapped already; the doc_id it maps to."""
        for _ in range(2 * SOURCE_PROBES):
            rows = self._source_rows(source)
            mapped = next((r for r in rows if r.get("source") == source), None)
            if mapped is not None:
                return int(mapped["doc_id"])
            taken = {r.get("probe") for r in rows}
            probe = next((k for k in range(SOURCE_PROBES) if k not in taken), None)
            if probe is None:
                break
            point = source_point_id(source, probe)
            self.backend.insert(
                [
                    PointData(
                        point,
                        {"record": KIND_SOURCE, "source": source, "doc_id": doc_id, "probe": probe},
                    )
                ]
            )
        raise StoreError(f"no free source id for {source!r} after {SOURCE_PROBES} probes")

    def max_doc_id(self) -> int:
        rows = self.backend.scroll(
            Match(equals={"record": KIND_DOCUMENT}),
            limit=1,
            order_by="doc_id",
            fields=["doc_id"],
            descending=True,
        )
        return int(rows[0]["doc_id"]) if rows else 0

    def _claim(self, source: str, token: str) -> Lease | None:
        """Claim a new doc_id for ``source`` and map the source to it; ``None`` if another
        process mapped the source first (our claim is given back)."""
        doc_id = self.max_doc_id() + 1
        for _ in range(CLAIM_TRIES):
            if doc_id > MAX_DOC_ID:
                raise StoreError(f"no doc_id left for {source} (the largest is {MAX_DOC_ID})")
            self.backend.insert(
                [
                    PointData(
                        document_point_id(doc_id),
                        {
                            "record": KIND_DOCUMENT,
                            "doc_id": doc_id,
                            "source": source,
                            **self._holding(token),
                        },
                    )
                ]
            )
            row = self._get(document_point_id(doc_id))
            if row is not None and row.get("writer") == token:
                break
            doc_id = max(doc_id + 1, self.max_doc_id() + 1)  # taken: another process's
        else:
            raise WriteConflict(
                f"{source}: no doc_id could be claimed in {CLAIM_TRIES} "
                "tries (other processes took each one first)"
            )
        lease = Lease(doc_id, token, source, previous=None, fresh=True)
        self.step("claimed", doc_id)
        if self.map_source(source, doc_id) != doc_id:
            self._give_back(lease)
            return None
        return lease

    def acquire(self, source: str) -> Lease:
        """The lease of the document ``source`` is (claimed anew if it is none yet)."""
        token = new_token()
        for _ in range(3):
            doc_id = self.source_doc(source)
            if doc_id is None:
                lease = self._claim(source, token)
                if lease is None:
                    continue  # another process mapped the source first: meet its lease
            else:
                lease = self._hold(doc_id, token, source, source)
                if lease is None:
                    continue
            self.step("acquired", lease.doc_id)
            return lease
        raise WriteConflict(
            f"{source} changed hands three times while this process tried "
            "to write it; nothing was stored"
        )

    def acquire_doc(self, doc_id: int, what: str) -> Lease:
        """The lease of the existing document ``doc_id`` (for a removal or a move)."""
        lease = self._hold(doc_id, new_token(), what, None, CHANGED_NOTHING)
        if lease is None or lease.fresh:
            if lease is not None:
                self.release(lease)
            raise CoordinateError(f"no document {doc_id}")
        self.step("acquired", doc_id)
        return lease

    def _hold(
        self, doc_id: int, token: str, what: str, source: str | None, outcome: str = STORED_NOTHING
    ) -> Lease | None:
        """Take ``doc_id``'s lease and settle what a dead writer left there; ``None`` if
        the document is gone (a stale mapping of ``source`` is dropped then)."""
        row = self.take(doc_id, token, what, outcome)
        if row is None:
            if source is not None:  # mapped, but its document point is gone
                self.backend.delete(
                    Match(equals={"record": KIND_SOURCE, "doc_id": doc_id, "source": source})
                )
            return None
        if not self._settle(row, token):
            return None
        committed = committed_version(row)
        return Lease(
            doc_id,
            token,
            source or str(row.get("source", "")),
            previous=committed,
            fresh=committed is None,
        )

    # -- what a dead writer left ------------------------------------------------------

    def _settle(self, row: dict[str, Any], token: str) -> bool:
        """With ``row``'s lease held by ``token``: finish a dead removal (``False``: the
        document is gone), publish a dead writer's commit, drop dead versions."""
        doc_id = int(row["doc_id"])
        lease = Lease(doc_id, token, str(row.get("source", "")), None, fresh=False)
        if row.get("deleting"):
            self.finish_delete(lease)
            return False
        committed = committed_version(row)
        if committed is not None and row.get("previous"):
            # killed after its commit: publish it, drop what it replaced
            self.changed()  # in case it died before saying so
            self.backend.set_payload(version_paragraphs(doc_id, committed), {"live": 1})
            for old in row["previous"]:
                self.backend.delete(version_paragraphs(doc_id, old))
            self.backend.set_payload(self._if_held(lease), {"previous": None})
        self.collect(doc_id)
        return True

    def collect(self, doc_id: int) -> None:
        """Hidden paragraphs of ``doc_id``: publish the committed version's (a commit
        whose writer died before publishing), delete dead versions'. Scrolled *before*
        the document point is read, so a write that began in between holds the lease."""
        hidden = self.backend.scroll(
            Match(equals={"record": KIND_PARAGRAPH, "doc_id": doc_id, "live": 0}),
            limit=HIDDEN_SCAN,
            fields=["version", "slot"],
        )
        versions = {paragraph_version(h) for h in hidden}
        if not versions:
            return
        row = self._get(document_point_id(doc_id)) or {}
        committed, holder = committed_version(row), row.get("writer")
        for version in versions:
            match = version_paragraphs(doc_id, version)
            if version == committed:
                self.backend.set_payload(match, {"live": 1})
            elif version != holder:  # never published: only its hidden points
                self.backend.delete(replace(match, equals=match.equals | {"live": 0}))

    def _give_back(self, lease: Lease) -> None:
        """Undo a claim that never committed: its paragraphs, its document point (only
        while still ours and uncommitted), then — the point gone — its source mapping."""
        self.backend.delete(version_paragraphs(lease.doc_id, lease.token))
        self.backend.delete(
            Match(ids=(lease.point,), equals={"writer": lease.token}, empty=("version", "slot"))
        )
        if self._get(lease.point) is None:
            self.backend.delete(
                Match(
                    equals={"record": KIND_SOURCE, "doc_id": lease.doc_id, "source": lease.source}
                )
            )

    # -- a write under the lease ------------------------------------------------------

    def commit(self, lease: Lease, values: dict[str, Any]) -> None:
        """Name ``lease``'s version the document's, in one update that applies only while
        the lease is ours; :class:`LeaseLost` if it was not."""
        previous = [lease.previous] if lease.previous else []
        if lease.previous and lease.previous.startswith(LEGACY_SLOT):
            previous = [f"{LEGACY_SLOT}0", f"{LEGACY_SLOT}1"]  # a killed schema-1 write's too
        self.backend.set_payload(
            self._if_held(lease),
            values
            | {
                "version": lease.token,
                "previous": previous,
                "lease": self.now_ms() + int(self.lease_s * 1000),
            },
        )
        row = self._get(lease.point)
        if row is None or row.get("version") != lease.token:
            raise self.lost(lease)
        lease.committed, lease.stale = True, previous
        self.changed()
        self.step("committed", lease.doc_id)

    def publish(self, lease: Lease) -> None:
        """Make the committed version searchable, then drop the one it replaced."""
        self.backend.set_payload(version_paragraphs(lease.doc_id, lease.token), {"live": 1})
        self.step("published", lease.doc_id)
        for old in lease.stale:
            self.backend.delete(version_paragraphs(lease.doc_id, old))
        self.step("cleaned", lease.doc_id)
        self.release(lease)

    def abandon(self, lease: Lease) -> None:
        """A write failed before its commit: drop its paragraphs, give a fresh claim back,
        else release the lease (only while ours: a lost lease is someone else's now)."""
        if lease.fresh:
            self._give_back(lease)
        else:
            self.backend.delete(version_paragraphs(lease.doc_id, lease.token))
            self.release(lease)

    # -- removal ----------------------------------------------------------------------

    def delete(self, lease: Lease) -> None:
        """Remove the document whose lease is held: marked (hidden from then on), its
        paragraphs, its source mapping, then its point."""
        self.backend.set_payload(self._if_held(lease), {"deleting": 1})
        row = self._get(lease.point)
        if row is None or row.get("writer") != lease.token:
            raise self.lost(lease)
        self.changed()
        self.step("marked", lease.doc_id)
        self.finish_delete(lease)

    def finish_delete(self, lease: Lease) -> None:
        self.changed()  # (again, for a removal whose process died before saying so)
        self.backend.delete(Match(equals={"record": KIND_PARAGRAPH, "doc_id": lease.doc_id}))
        self.step("emptied", lease.doc_id)
        self.backend.delete(Match(equals={"record": KIND_SOURCE, "doc_id": lease.doc_id}))
        self.step("unmapped", lease.doc_id)
        self.backend.delete(self._if_held(lease))

    # -- repair -----------------------------------------------------------------------

    def repair(self) -> int:
        """Take over every dead lease and finish or roll back its write, then drop dead
        versions' hidden paragraphs; live writers' work is left alone. Returns the
        number of documents whose dead writes were settled."""
        rows = self.backend.scroll(
            Match(equals={"record": KIND_DOCUMENT}), limit=MAX_DOC_ID, fields=list(_HOLDER_FIELDS)
        )
        now, settled = self.now_ms(), 0
        for row in rows:
            if not (self.dead(row, now) or (not row.get("writer") and row.get("deleting"))):
                continue
            doc_id, token = int(row["doc_id"]), new_token()
            try:
                held = self.take(doc_id, token, f"document {doc_id}")
            except WriteConflict:
                continue  # renewed since, or another repair got there first
            if held is None:
                continue
            settled += 1
            lease = Lease(doc_id, token, str(held.get("source", "")), None, fresh=True)
            if not self._settle(held, token):
                continue  # a removal, finished
            if committed_version(held) is None:  # a claim whose writer died
                self._give_back(lease)
            else:
                self.release(lease)
        hidden = self.backend.scroll(
            Match(equals={"record": KIND_PARAGRAPH, "live": 0}),
            limit=HIDDEN_SCAN,
            fields=["doc_id"],
        )
        for doc_id in sorted({int(h["doc_id"]) for h in hidden}):
            self.collect(doc_id)
        return settled

    def migrate(self, schema: int) -> None:
        """Bring a schema-1 store to schema 2: a source point for every document (writers
        now find documents by them), and the cleanup schema-1 repair did at every open
        (a killed publish left the other slot live)."""
        if schema >= 2:
            return
        rows = self.backend.scroll(
            Match(equals={"record": KIND_DOCUMENT}), limit=MAX_DOC_ID, fields=list(_HOLDER_FIELDS)
        )
        for row in rows:
            version = committed_version(row)
            if row.get("deleting") or version is None or not row.get("source"):
                continue
            self.map_source(str(row["source"]), int(row["doc_id"]))
            if version.startswith(LEGACY_SLOT):
                other = f"{LEGACY_SLOT}{1 - int(version[len(LEGACY_SLOT) :])}"
                self.backend.delete(version_paragraphs(int(row["doc_id"]), other))
        self.backend.set_payload(Match(ids=(COLLECTION_POINT_ID,)), {"schema": 2})
