"""One open shard of the embedded engine (``qdrant-edge-py``) and the calls deepread makes
on it: how a collection is laid out on disk, payload filters, writes, reads and the
hybrid query.

Only the process that holds a collection's engine lock (:mod:`deepread.stores.edge`)
has a :class:`Shard`; every other process's calls reach it through that process
(:mod:`deepread.stores.relay`), which runs them here by name — so the methods below that
:data:`CALLS` names are the whole of what may be asked of a shard, and each takes and
returns plain data (no engine objects), as a call from another process must.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from deepread.records.errors import StoreError
from deepread.stores.backend import PointData, RetrievalMode, ScoredPayload
from deepread.stores.fusion import TIE_MARGIN, fused, ordered
from deepread.stores.index_build import build_beside, drop_replaced, put_back, swap_in
from deepread.stores.schema import DENSE, INTEGER_FIELDS, KEYWORD_FIELDS, SPARSE, Match
from deepread.stores.shard_gate import Gate
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
#: index (``Pinned``) resident, so a process's RSS grew with the store (2.06 GB for a
#: 1.44 GB store of 184 filings; docs/history/benchmarks-2026.md §24). Mapped pages are
#: the kernel's to drop under pressure; a search touches only the pages its index visits.
COLD = qe.Memory.Cold
#: The engine's own HNSW defaults (m 16, ef_construct 100, brute force under 10,000
#: points), its graph kept on disk like the rest.
_HNSW = qe.HnswIndexConfig(m=16, ef_construct=100, full_scan_threshold=10_000, memory=COLD)
#: The largest segment the optimizer builds, in kB of vectors (~65,000 paragraphs of 384
#: dimensions). Unbounded, each ``optimize`` merged every segment into one and built its
#: vector index again — each build longer than the last — and the whole store sat in one
#: build's memory; bounded, a build indexes what was written since and merges only small
#: segments.
SEGMENT_KB = 100_000

#: Vectors written since the last build past which the build is made beside the
#: collection, in a process of its own (:meth:`Shard.optimize`): fewer, and the engine
#: builds nothing (under its indexing threshold of ~6,600 vectors of 384 dimensions) or
#: takes under a second, less than copying the collection would.
BESIDE_AT = 6_000

#: The payload indexes (coordinates, versions, sources), on disk too: kept in memory they
#: were read and built again at every opening, which grew with the points.
INTEGER_INDEX = qe.IntegerIndexParams(lookup=True, range=True, memory=COLD)
KEYWORD_INDEX = qe.KeywordIndexParams(memory=COLD)


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


def stored_config(path: Path) -> qe.EdgeConfig | None:
    """:func:`engine_config` for the collection at ``path``, its vector size as stored;
    ``None`` (the settings it has) where the stored settings name no dense vector."""
    try:
        stored = json.loads((path / "edge_config.json").read_text(encoding="utf-8"))
        dim = int(stored["vectors"][DENSE]["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # the engine reads the file itself, and says what is wrong with it
    return engine_config(dim)


def held_elsewhere(exc: Exception) -> bool:
    """Whether the engine refused because another opener holds the collection's files."""
    return "WouldBlock" in str(exc)


def build_empty(path: Path, dim: int) -> None:
    """Make an empty collection at ``path`` (a directory that does not exist yet): the
    segment and the payload indexes, flushed and closed."""
    shard = qe.EdgeShard.create(str(path), engine_config(dim))
    try:
        for name in INTEGER_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(name, INTEGER_INDEX))
        for name in KEYWORD_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(name, KEYWORD_INDEX))
        shard.flush()
    finally:
        shard.close()


def _point_id(value: Any) -> int | str:
    """The engine gives UUID ids back as ``uuid.UUID``; deepread passes them as text."""
    return value if isinstance(value, int) else str(value)


#: The calls another process may have run here (:mod:`deepread.stores.relay`).
CALLS = frozenset(
    {"upsert", "insert", "delete", "set_payload", "get", "scroll", "count", "query", "optimize"}
)


class Shard:
    """The engine's shard of the collection at ``path``, open in this process."""

    def __init__(self, path: Path, engine: qe.EdgeShard) -> None:
        self.path = path
        self._engine = engine
        self._gate = Gate()
        self._building = threading.Lock()  # one build at a time; closing waits for it

    @classmethod
    def load(cls, path: Path) -> Shard:
        """Open the collection's files. Only under the engine lock (the caller's): a load
        tried while another process has the files open can undo that process's unflushed
        writes (measured: a loader retrying every 50 ms against a writer found it empty
        afterwards, and so did every later opener)."""
        return cls(path, _open(path))

    def _run(self, operation: Any) -> Any:
        """Run one engine call, turning the engine's bare exceptions into StoreError."""
        try:
            return operation()
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"the store {self.path} could not be used: {exc}") from exc

    def _read(self, operation: Any) -> Any:
        with self._gate.read():
            return self._run(operation)

    def _write(self, operation: Any) -> Any:
        with self._gate.write():
            return self._run(operation)

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
        self._write(lambda: self._engine.update(qe.UpdateOperation.upsert_points(batch)))

    def insert(self, points: list[PointData]) -> None:
        """Write the points whose ids do not exist yet; existing ones stay as they are
        (the engine's insert-only mode, applied under its update lock)."""
        batch = self._points(points)
        self._write(
            lambda: self._engine.update(
                qe.UpdateOperation.upsert_points(batch, update_mode=qe.UpdateMode.InsertOnly)
            )
        )

    def delete(self, match: Match) -> None:
        self._write(
            lambda: self._engine.update(
                qe.UpdateOperation.delete_points_by_filter(edge_filter(match))
            )
        )

    def set_payload(self, match: Match, values: dict[str, Any]) -> None:
        self._write(
            lambda: self._engine.update(
                qe.UpdateOperation.set_payload_by_filter(edge_filter(match), values)
            )
        )

    def get(self, ids: list[int | str]) -> list[dict[str, Any]]:
        point_ids: list[qe.PointId] = [*ids]
        return [
            r.payload or {}
            for r in self._read(lambda: self._engine.retrieve(point_ids, True, False))
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
        records, _ = self._read(lambda: self._engine.scroll(request))
        return [r.payload or {} for r in records]

    def count(self, match: Match) -> int:
        return self._read(
            lambda: self._engine.count(qe.CountRequest(filter=edge_filter(match), exact=True))
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
            points = self._read(
                lambda: self._engine.query(
                    qe.QueryRequest(query=query, filter=flt, limit=n, with_payload=True)
                )
            )
            return [ScoredPayload(_point_id(p.id), float(p.score), p.payload or {}) for p in points]

        if mode == "hybrid":  # fused here, repeatably (deepread.stores.fusion)
            return fused(search, limit, candidates)
        return ordered(search(mode, limit + TIE_MARGIN), limit)

    def optimize(self) -> None:
        """Build the vector index of what was written since the last build — beside the
        collection, in a process of its own, reads answered meanwhile and writes held
        back (:mod:`deepread.stores.index_build`); here, holding every call, when it
        cannot be built there."""
        with self._building, self._gate.build():
            info = self._run(self._engine.info)
            # each paragraph has two vectors; the sparse one counts as indexed as written
            unbuilt = 2 * info.points_count - info.indexed_vectors_count
            self._run(self._engine.flush)
            built = build_beside(self.path) if unbuilt >= BESIDE_AT else None
            if built is None:
                self._run(self._engine.optimize)
                return
            with self._gate.swap():
                self._engine.close()
                swap_in(self.path, built)
                try:
                    self._engine = _open(self.path)
                except StoreError:
                    put_back(self.path)  # the copy does not open: the collection as it was
                    self._engine = _open(self.path)
                    raise
            drop_replaced(self.path)

    def close(self) -> None:
        """Flush and close the engine (the files stay as every acknowledged write left
        them); after the build under way, if one is."""
        with self._building:
            try:
                self._engine.flush()
            finally:
                self._engine.close()


def _open(path: Path) -> qe.EdgeShard:
    try:
        return qe.EdgeShard.load(str(path), stored_config(path))
    except Exception as exc:  # the engine raises bare Exception
        if held_elsewhere(exc):
            raise StoreError(
                f"the store {path} is open in a process that does not take deepread's "
                "engine lock (an older deepread, or another program using qdrant-edge); "
                "end it and try again"
            ) from None
        raise StoreError(f"the store {path} could not be used: {exc}") from exc
