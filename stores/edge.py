"""The embedded store: Qdrant's own engine in-process (``qdrant-edge-py``).

Chosen over qdrant-client's local mode, which is a pure-Python brute force that ignores
payload indexes (~0.5 s per filtered scroll at 20k points here, against ~0.06 ms for
this engine). One shard directory per collection. The engine's write-ahead log holds an
exclusive lock, and a killed process loses no acknowledged write.

One process at a time, shared by taking turns: a process that finds the collection held
by another waits for it — up to ``wait`` seconds (``DEEPREAD_STORE_WAIT``, default 30),
saying once on stderr what it waits for ("held by deepread chat (pid N)",
:mod:`deepread.stores.holder`) — then gives up with a :class:`StoreError`. A process
that stays up (``deepread chat``, a served graph) holds the engine only while it works:
:meth:`EdgeBackend.release` lets go of it when idle (flushed and closed), and the next
call that needs the collection opens it again — ~0.1-0.3 s per turn on the README's
store (docs/benchmarks.md) — so a chat left open never locks the others out.

A new collection is made whole or not at all: built in a hidden temporary directory
beside its final place (segment, payload indexes), then renamed into place, under a
creation lock file (``collections/.NAME.lock``) — two processes ingesting into the same
new store at once never build into one directory (the engine refused that with "path
already contains segment data", and some interleavings left a collection without its
payload indexes for good). The second one waits for the first to finish creating, then
meets the engine's lock like any second process. Threads of one process share one
backend: a thread that finds the collection created by another thread meanwhile uses the
shard that thread opened (loading it a second time would meet the engine's lock, and
read as "in use by another deepread process").

Each opening has an ``opener`` id: a write lease (:mod:`deepread.stores.writers`) taken
under another opener is a dead process's, since this one holds the engine's lock. A
backend lets go of the engine only between writes (never under a lease it holds), so a
lease of its own earlier opening is never live either.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: creation is atomic (rename) but not locked
    fcntl = None  # type: ignore[assignment]

import qdrant_edge as qe

from deepread.records.errors import StoreError
from deepread.stores.backend import PointData, RetrievalMode, ScoredPayload
from deepread.stores.disk_space import (
    create_estimate,
    ensure_space,
    load_estimate,
    write_estimate,
)
from deepread.stores.fusion import TIE_MARGIN, fused, ordered
from deepread.stores.holder import holder_of, remove_note, write_note
from deepread.stores.schema import DENSE, INTEGER_FIELDS, KEYWORD_FIELDS, SPARSE, Match
from deepread.stores.sparse import bm25_document, bm25_query


def edge_filter(match: Match) -> qe.Filter:
    must: list[Any] = [
        qe.FieldCondition(key=k, match=qe.MatchValue(v)) for k, v in match.equals.items()
    ]
    must += [
        qe.FieldCondition(key=k, range=qe.RangeFloat(gte=lo, lte=hi))
        for k, (lo, hi) in match.ranges.items()
    ]
    must += [qe.FieldCondition(key=k, match=qe.MatchAny(list(v))) for k, v in match.any_of.items()]
    if match.ids:
        must.append(qe.HasIdCondition(set(match.ids)))
    must += [qe.IsEmptyCondition(k) for k in match.empty]
    return qe.Filter(must=must)


#: Where the engine keeps each part of a collection: on disk, mapped and read into the
#: page cache as it is used (``Memory.Cold``) — never copied into the process's own memory
#: or pinned there. The engine's defaults keep dense vectors (``InRam``) and the sparse
#: index (``Pinned``) resident, so a process's RSS grew with the store: 2.06 GB for a
#: 1.44 GB store of 184 filings (issue 34), 1.6 GB for a reader of 231,000 paragraphs
#: (docs/benchmarks.md §24). Mapped pages are the kernel's to drop under pressure;
#: a search touches only the pages its index visits.
COLD = qe.Memory.Cold
#: The engine's own HNSW defaults (m 16, ef_construct 100, brute force under 10,000
#: points), its graph kept on disk like the rest.
_HNSW = qe.HnswIndexConfig(m=16, ef_construct=100, full_scan_threshold=10_000, memory=COLD)
#: The largest segment the optimizer builds, in kB of vectors (~65,000 paragraphs of 384
#: dimensions). Unbounded, each ``optimize`` merged every segment into one and built its
#: vector index again — each build longer than the last (3 k new points: 8 → 30 s over
#: six rounds here) and the whole store in one build's memory; bounded, a build indexes
#: what was written since and merges only small segments (5–8 s each round).
SEGMENT_KB = 100_000


#: The payload indexes (coordinates, versions, sources), on disk too: kept in memory they
#: were read and built again at every opening, which grew with the points (the engine's
#: load 0.5 s at 36,530 paragraphs, 2.3-2.7 s at 231,304; docs/benchmarks.md §24).
_INTEGER_INDEX = qe.IntegerIndexParams(lookup=True, range=True, memory=COLD)
_KEYWORD_INDEX = qe.KeywordIndexParams(memory=COLD)


def engine_config(dim: int) -> qe.EdgeConfig:
    """The collection's engine settings: its two vectors, and every part of it kept on
    disk (:data:`COLD`). Given when a collection is created and again whenever one is
    opened: the engine stores the settings, and segments written or rebuilt
    (``optimize``) after that follow them — so a store made before them moves to them
    as its segments are rebuilt, with nothing to migrate."""
    return qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine, memory=COLD)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf, memory=COLD)},
        payload_memory=COLD,
        id_tracker_memory=COLD,
        hnsw_config=_HNSW,
        optimizers=qe.EdgeOptimizersConfig(max_segment_size=SEGMENT_KB),
    )


def _point_id(value: Any) -> int | str:
    """The engine gives UUID ids back as ``uuid.UUID``; deepread passes them as text."""
    return value if isinstance(value, int) else str(value)


def _held(exc: Exception) -> bool:
    """Whether the engine refused because another process holds the collection."""
    return "WouldBlock" in str(exc)


def _in_use(path: Path, waited: float | None = None) -> StoreError:
    holder = holder_of(path)
    said = f"the store {path} is in use by another deepread process"
    if holder is not None:
        said += f", {holder.describe()}"
    if waited:
        said += f", which did not let go of it within {waited:g} s"
    return StoreError(
        f"{said} (the embedded engine allows one process at a time; a chat or a served "
        "graph holds it only while it answers); try again when it is done, set "
        "DEEPREAD_STORE_WAIT to wait longer, or use a Qdrant server (--store http://…)"
    )


def _engine_error(exc: Exception, path: Path) -> StoreError:
    if _held(exc):
        return _in_use(path)
    return StoreError(f"the store {path} could not be used: {exc}")


def _stored_config(path: Path) -> qe.EdgeConfig | None:
    """:func:`engine_config` for the collection at ``path``, its vector size as stored;
    ``None`` (the settings it has) where the stored settings name no dense vector."""
    try:
        stored = json.loads((path / "edge_config.json").read_text(encoding="utf-8"))
        dim = int(stored["vectors"][DENSE]["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # the engine reads the file itself, and says what is wrong with it
    return engine_config(dim)


#: How often a waiting process tries the engine's lock again.
_RETRY_S = 0.05


def _load(path: Path, wait: float = 0.0) -> qe.EdgeShard:
    """Open the shard at ``path``: refused up front where loading would fill the disk;
    waiting up to ``wait`` seconds while another process holds it (said once on
    stderr, naming that process)."""
    ensure_space(path, load_estimate(path), "opening the collection")
    deadline, said = time.monotonic() + wait, False
    while True:
        try:
            shard = qe.EdgeShard.load(str(path), _stored_config(path))
        except Exception as exc:  # the engine raises bare Exception
            if not _held(exc):
                raise _engine_error(exc, path) from exc
            holder = holder_of(path)
            if holder is not None and holder.pid == os.getpid():
                # Another backend of this very process holds it: waiting for ourselves
                # ends only if some other thread lets go; say so at once instead.
                raise StoreError(
                    f"the store {path} is in use by another Index of this process (the "
                    "embedded engine allows one opener at a time: open a collection once "
                    "per process and share it, or close the other first)"
                ) from None
            if time.monotonic() >= deadline:
                raise _in_use(path, wait) from None
            if not said:
                # A store layer that prints: waiting silently would look like a hang.
                print(
                    f"deepread: waiting for the store {path}, held by "
                    f"{holder.describe() if holder else 'another process'} "
                    f"(up to {wait:g} s)…",
                    file=sys.stderr,
                    flush=True,
                )
                said = True
            time.sleep(_RETRY_S)
            continue
        write_note(path)
        return shard


#: How long a process waits for another one to finish creating the same collection.
CREATION_WAIT_S = 60.0


@contextmanager
def _creation_lock(lock_file: Path, collection: Path):
    """Hold the lock on ``lock_file`` (an advisory ``flock``, released by the kernel if
    the holder dies), saying so on stderr while waiting for another process."""
    try:
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(f"cannot create the lock file {lock_file}: {exc.strerror or exc}") from exc
    try:
        deadline, said = time.monotonic() + CREATION_WAIT_S, False
        while fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreError(
                        f"the store {collection} is in use by another deepread process "
                        f"(it has been creating the collection for {CREATION_WAIT_S:g} s)"
                    ) from None
                if not said:
                    # A store layer that prints: waiting silently would look like a hang.
                    print(
                        f"deepread: waiting for another deepread process to finish "
                        f"creating {collection}…",
                        file=sys.stderr,
                        flush=True,
                    )
                    said = True
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


class EdgeBackend:
    """A deepread collection in one qdrant-edge shard directory.

    ``wait``: seconds to wait for the collection while another process holds it.
    """

    def __init__(self, path: Path, wait: float = 0.0) -> None:
        self.path = path
        self.wait = wait
        self.opener: str | None = uuid.uuid4().hex
        self._shard: qe.EdgeShard | None = None
        self._closed = False
        self._released = False  # let go of while idle; opened again on the next call
        self._creating = threading.Lock()
        self._opening = threading.Lock()
        if (path / "edge_config.json").exists():
            self._shard = _load(path, wait)

    @property
    def shard(self) -> qe.EdgeShard:
        shard = self._shard
        if shard is not None:
            return shard
        if self._released and not self._closed:
            with self._opening:  # threads of one turn reopen it once
                if self._shard is None:
                    if not (self.path / "edge_config.json").exists():
                        raise StoreError(f"the collection at {self.path} was removed")
                    self._shard = _load(self.path, self.wait)
                    # A new opening: leases taken under the last one are not this one's.
                    self.opener = uuid.uuid4().hex
                return self._shard
        raise StoreError(
            f"the collection at {self.path} is closed"
            if self._closed
            else f"the collection at {self.path} does not exist yet"
        )

    def release(self) -> None:
        """Let go of the engine while idle — flushed and closed, so another process may
        open the collection — until the next call that needs it opens it again. Only
        between calls: never while another thread reads or writes through it."""
        with self._opening:
            if self._shard is None:
                return
            shard, self._shard, self._released = self._shard, None, True
            remove_note(self.path)  # before letting go: the next holder writes its own
            shard.flush()
            shard.close()

    def held(self) -> bool:
        """Whether this process has the engine open now (not released, not closed)."""
        return self._shard is not None

    def _run(self, operation: Any) -> Any:
        """Run one engine call, turning the engine's bare exceptions into StoreError."""
        try:
            return operation()
        except StoreError:
            raise
        except Exception as exc:
            raise _engine_error(exc, self.path) from exc

    def exists(self) -> bool:
        return self._shard is not None or (self._released and not self._closed)

    def create(self, dim: int) -> None:
        """Create the collection — or open it, if another process created it since this
        one looked (the caller then finds its metadata already written). Threads of this
        process wait for each other here, and all use the shard the first one opened."""
        with self._creating:
            if self._shard is not None:
                return  # another thread of this process created (or opened) it
            folder, name = self.path.parent, self.path.name
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot create the store folder {folder}: {exc.strerror or exc}"
                ) from exc
            with _creation_lock(folder / f".{name}.lock", self.path):
                if not (self.path / "edge_config.json").exists():
                    ensure_space(folder, create_estimate(folder), f"creating collection {name!r}")
                    self._build(dim, folder / f".{name}.creating-{os.getpid()}")
                self._shard = _load(self.path, self.wait)

    def _build(self, dim: int, temporary: Path) -> None:
        """Build an empty collection in ``temporary`` and rename it into place."""
        for stale in self.path.parent.glob(f".{self.path.name}.creating-*"):
            shutil.rmtree(stale, ignore_errors=True)  # a killed creator's (lock is ours)
        try:
            shard = qe.EdgeShard.create(str(temporary), engine_config(dim))
            try:
                for name in INTEGER_FIELDS:
                    shard.update(qe.UpdateOperation.create_field_index(name, _INTEGER_INDEX))
                for name in KEYWORD_FIELDS:
                    shard.update(qe.UpdateOperation.create_field_index(name, _KEYWORD_INDEX))
                shard.flush()
            finally:
                shard.close()
            if self.path.exists():  # an empty or half-made folder without a config
                shutil.rmtree(self.path)
            os.rename(temporary, self.path)
        except Exception as exc:
            shutil.rmtree(temporary, ignore_errors=True)
            raise _engine_error(exc, self.path) from exc

    def ensure_space(self, points: int, dim: int, text_bytes: int, what: str) -> None:
        """Refuse (:class:`~deepread.stores.disk_space.NoSpaceError`) a write of
        ``points`` points that the disk could not hold, the collection's creation
        included; nothing is written then."""
        needed = write_estimate(self.path, points, dim, text_bytes)
        if not self.exists():
            needed += create_estimate(self.path)
        ensure_space(self.path, needed, what)

    def _points(self, points: list[PointData]) -> list[qe.Point]:
        batch = []
        for p in points:
            vectors: dict[str, Any] = {}
            if p.dense is not None:
                vectors[DENSE] = p.dense
            if p.bm25_text:
                vectors[SPARSE] = bm25_document(p.bm25_text)
            batch.append(qe.Point(p.id, vectors, p.payload))
        return batch

    def upsert(self, points: list[PointData]) -> None:
        batch = self._points(points)
        self._run(lambda: self.shard.update(qe.UpdateOperation.upsert_points(batch)))

    def insert(self, points: list[PointData]) -> None:
        """Write the points whose ids do not exist yet; existing ones stay as they are
        (the engine's insert-only mode, applied under its update lock)."""
        batch = self._points(points)
        self._run(
            lambda: self.shard.update(
                qe.UpdateOperation.upsert_points(batch, update_mode=qe.UpdateMode.InsertOnly)
            )
        )

    def delete(self, match: Match) -> None:
        self._run(
            lambda: self.shard.update(
                qe.UpdateOperation.delete_points_by_filter(edge_filter(match))
            )
        )

    def set_payload(self, match: Match, values: dict[str, Any]) -> None:
        self._run(
            lambda: self.shard.update(
                qe.UpdateOperation.set_payload_by_filter(edge_filter(match), values)
            )
        )

    def get(self, ids: list[int | str]) -> list[dict[str, Any]]:
        point_ids: list[qe.PointId] = [*ids]
        return [
            r.payload or {} for r in self._run(lambda: self.shard.retrieve(point_ids, True, False))
        ]

    def scroll(
        self,
        match: Match,
        limit: int,
        order_by: str | None = None,
        fields: list[str] | None = None,
        descending: bool = False,
    ) -> list[dict[str, Any]]:
        payload: Any = fields if fields is not None else True
        direction = qe.Direction.Desc if descending else qe.Direction.Asc
        request = qe.ScrollRequest(
            filter=edge_filter(match),
            limit=limit,
            with_payload=payload,
            with_vector=False,
            order_by=qe.OrderBy(order_by, direction=direction) if order_by else None,
        )
        records, _ = self._run(lambda: self.shard.scroll(request))
        return [r.payload or {} for r in records]

    def count(self, match: Match) -> int:
        return self._run(
            lambda: self.shard.count(qe.CountRequest(filter=edge_filter(match), exact=True))
        )

    def query(
        self,
        mode: RetrievalMode,
        dense: list[float] | None,
        text: str,
        match: Match,
        limit: int,
        candidates: int,
    ) -> list[ScoredPayload]:
        if mode != "bm25" and dense is None:
            raise ValueError(f"retrieval mode {mode!r} needs a query vector")
        flt = edge_filter(match)
        sparse = bm25_query(text) if mode != "dense" else None

        def search(using: str, n: int) -> list[ScoredPayload]:
            vector = dense if using == "dense" else sparse
            assert vector is not None  # the mode's vectors are there (checked above)
            query = qe.Query.Nearest(vector, using=DENSE if using == "dense" else SPARSE)
            points = self._run(
                lambda: self.shard.query(
                    qe.QueryRequest(query=query, filter=flt, limit=n, with_payload=True)
                )
            )
            return [ScoredPayload(_point_id(p.id), float(p.score), p.payload or {}) for p in points]

        if mode == "hybrid":  # fused here, repeatably (deepread.stores.fusion)
            return fused(search, limit, candidates)
        return ordered(search(mode, limit + TIE_MARGIN), limit)

    def optimize(self) -> None:
        self._run(self.shard.optimize)

    def close(self) -> None:
        with self._opening:
            self._closed = True
            if self._shard is not None:
                shard, self._shard = self._shard, None
                remove_note(self.path)
                shard.flush()
                shard.close()
