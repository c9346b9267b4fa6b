"""The server store: one Qdrant collection on a Qdrant server, through qdrant-client.

Kept deliberately thin — a line-for-line translation of :mod:`deepread.stores.edge` —
and run through the same contract tests (``tests/stores/test_backend_contract.py``, where a
``QdrantClient(":memory:")`` stands in for the server). BM25 vectors are computed here
with the same local encoder as the embedded store and the server applies IDF, so both
score alike; hybrid results are fused by the same code as the embedded store's (RRF, k=60,
repeatable ties: :mod:`deepread.stores.fusion`). Every client
failure becomes a :class:`StoreError` naming the URL (never the API key).

Several processes share a server collection, so the write protocol
(:mod:`deepread.stores.writers`) needs two things of it: an insert that never overwrites
(``update_mode=insert_only``, Qdrant 1.17.0 and later — :data:`MIN_SERVER_VERSION`,
checked before the first insert: an older server would ignore the field and overwrite),
and conditional updates (``set_payload`` / ``delete`` by a filter naming the point and the
state it must be in), which every supported version applies point by point under its
update lock. The protocol's writes go with ``ordering=strong``: in a cluster they pass
through one leader, so replicas apply them in one order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, TypeVar

import httpx
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from deepread.records.errors import StoreError, TransientStoreError
from deepread.stores.backend import PointData, RetrievalMode, ScoredPayload
from deepread.stores.fusion import TIE_MARGIN, fused, ordered
from deepread.stores.schema import DENSE, INTEGER_FIELDS, KEYWORD_FIELDS, SPARSE, Match
from deepread.stores.sparse import bm25_document, bm25_query
from deepread.text.redaction import redact, redact_url

T = TypeVar("T")
_UPSERT_BATCH = 256  # keeps one request well under the server's 32 MB body limit
#: The oldest Qdrant server with insert-only upserts (``update_mode``, qdrant/qdrant#7963).
MIN_SERVER_VERSION = (1, 17, 0)
_STRONG = models.WriteOrdering.STRONG


def _version(text: str) -> tuple[int, ...]:
    """``"1.17.2"`` → ``(1, 17, 2)``; pre-release suffixes ignored, unreadable parts 0."""
    parts = []
    for part in text.split("-")[0].split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def server_filter(match: Match) -> models.Filter:
    must: list[models.Condition] = [
        models.FieldCondition(key=k, match=models.MatchValue(value=v))
        for k, v in match.equals.items()
    ]
    must += [
        models.FieldCondition(key=k, range=models.Range(gte=lo, lte=hi))
        for k, (lo, hi) in match.ranges.items()
    ]
    must += [
        models.FieldCondition(key=k, match=models.MatchAny(any=list(v)))
        for k, v in match.any_of.items()
    ]
    if match.ids:
        must.append(models.HasIdCondition(has_id=list(match.ids)))
    must += [models.IsEmptyCondition(is_empty=models.PayloadField(key=k)) for k in match.empty]
    return models.Filter(must=must)


def _sparse(text: str, query: bool) -> models.SparseVector:
    vec = bm25_query(text) if query else bm25_document(text)
    return models.SparseVector(indices=list(vec.indices), values=list(vec.values))


class ServerBackend:
    """A deepread collection as one collection on a Qdrant server."""

    def __init__(
        self,
        url: str,
        collection_name: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        client: QdrantClient | None = None,
    ) -> None:
        self.url = url
        self.name = collection_name
        self._api_key = api_key
        self._timeout = timeout
        self._version_checked = False
        # No version probe at construction: a down server surfaces at the first call
        # (exists(), at open) as a StoreError instead of a warning.
        self.client = (
            client
            if client is not None
            else QdrantClient(
                url=url, api_key=api_key, timeout=int(max(1, timeout)), check_compatibility=False
            )
        )

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn the client's transport / HTTP failures into a readable StoreError."""
        try:
            yield
        except UnexpectedResponse as exc:
            if exc.status_code == 404:
                raise StoreError(
                    f"the collection {self.name} does not exist yet on the "
                    f"Qdrant server at {self.where}"
                ) from None
            if exc.status_code in (401, 403):
                raise StoreError(
                    f"the Qdrant server at {self.where} refused the request "
                    f"(HTTP {exc.status_code}): check QDRANT_API_KEY"
                ) from None
            detail = exc.content.decode("utf-8", "replace")[:300]
            failure = TransientStoreError if (exc.status_code or 0) >= 500 else StoreError
            raise failure(
                f"the Qdrant server at {self.where} answered HTTP "
                f"{exc.status_code}: {self._redact(detail)}"
            ) from None
        except (ResponseHandlingException, httpx.HTTPError) as exc:
            source = getattr(exc, "source", exc)
            if isinstance(source, httpx.TimeoutException):
                why = f"no answer within {self._timeout:g} s"
            elif isinstance(source, httpx.ConnectError):
                why = (
                    "connection refused"
                    if "refused" in str(source).lower()
                    else self._redact(str(source)) or "connection failed"
                )
            else:
                why = self._redact(str(source)) or type(source).__name__
            raise TransientStoreError(
                f"cannot reach the Qdrant server at {self.where}: {why}"
            ) from None
        except ValueError as exc:  # local mode (tests) reports a missing collection so
            if "not found" not in str(exc):
                raise
            raise StoreError(
                f"the collection {self.name} does not exist yet on {self.where}"
            ) from None

    def _redact(self, text: str) -> str:
        return redact(text, (self._api_key or "",))

    @property
    def where(self) -> str:
        """The server's URL as messages show it: without the secrets it may carry."""
        return redact_url(self.url, (self._api_key or "",))

    def _call(self, fn: Callable[[], T]) -> T:
        with self._guard():
            return fn()

    def exists(self) -> bool:
        """Raises StoreError when the server is unreachable: a down store fails at open."""
        return self._call(lambda: self.client.collection_exists(self.name))

    def ensure_space(self, points: int, dim: int, text_bytes: int, what: str) -> None:
        """Nothing to check here: the server manages (and reports) its own disk."""

    def create(self, dim: int) -> None:
        """Create the collection and its payload indexes; another process creating it at
        the same moment is no error (both then find it whole: index creation is
        idempotent)."""
        with self._guard():
            try:
                # Every part on disk, as the embedded store keeps it (stores/edge.py):
                # a server holding a whole library serves it from the page cache
                # instead of holding every vector and index in its own memory.
                self.client.create_collection(
                    self.name,
                    vectors_config={
                        DENSE: models.VectorParams(
                            size=dim, distance=models.Distance.COSINE, on_disk=True
                        )
                    },
                    sparse_vectors_config={
                        SPARSE: models.SparseVectorParams(
                            modifier=models.Modifier.IDF,
                            index=models.SparseIndexParams(on_disk=True),
                        )
                    },
                    hnsw_config=models.HnswConfigDiff(on_disk=True),
                    on_disk_payload=True,
                )
            except (UnexpectedResponse, ValueError):
                # 409 from a server, ValueError from local mode: created meanwhile?
                if not self.client.collection_exists(self.name):
                    raise
            for name in INTEGER_FIELDS:
                self.client.create_payload_index(
                    self.name, name, models.PayloadSchemaType.INTEGER, wait=True
                )
            for name in KEYWORD_FIELDS:
                self.client.create_payload_index(
                    self.name, name, models.PayloadSchemaType.KEYWORD, wait=True
                )

    def upsert(self, points: list[PointData]) -> None:
        batch = []
        for p in points:
            vectors: dict[str, Any] = {}
            if p.dense is not None:
                vectors[DENSE] = p.dense
            if p.bm25_text:
                vectors[SPARSE] = _sparse(p.bm25_text, query=False)
            batch.append(models.PointStruct(id=p.id, vector=vectors, payload=p.payload))
        with self._guard():
            for start in range(0, len(batch), _UPSERT_BATCH):
                self.client.upsert(self.name, batch[start : start + _UPSERT_BATCH], wait=True)

    def insert(self, points: list[PointData]) -> None:
        """Write the points whose ids do not exist yet; existing ones stay as they are."""
        self._check_version()
        batch = [models.PointStruct(id=p.id, vector={}, payload=p.payload) for p in points]
        if any(p.dense is not None or p.bm25_text for p in points):
            raise ValueError("insert() writes records without vectors")
        self._call(
            lambda: self.client.upsert(
                self.name,
                batch,
                wait=True,
                ordering=_STRONG,
                update_mode=models.UpdateMode.INSERT_ONLY,
            )
        )

    def _check_version(self) -> None:
        """Refuse a server too old for insert-only upserts: it would take the field it
        does not know for a plain upsert, and two writers could take one doc_id."""
        if self._version_checked:
            return
        version = self._call(self.client.info).version
        if _version(version) < MIN_SERVER_VERSION:
            need = ".".join(map(str, MIN_SERVER_VERSION))
            raise StoreError(
                f"the Qdrant server at {self.where} is version {version}; "
                f"deepread needs {need} or later to write (insert-only "
                "upserts keep two writers from taking one doc_id)"
            )
        self._version_checked = True

    def delete(self, match: Match) -> None:
        self._call(
            lambda: self.client.delete(
                self.name,
                models.FilterSelector(filter=server_filter(match)),
                wait=True,
                ordering=_STRONG,
            )
        )

    def set_payload(self, match: Match, values: dict[str, Any]) -> None:
        self._call(
            lambda: self.client.set_payload(
                self.name,
                values,
                points=models.FilterSelector(filter=server_filter(match)),
                wait=True,
                ordering=_STRONG,
            )
        )

    def get(self, ids: list[int | str]) -> list[dict[str, Any]]:
        records = self._call(
            lambda: self.client.retrieve(self.name, ids, with_payload=True, with_vectors=False)
        )
        return [r.payload or {} for r in records]

    def scroll(
        self,
        match: Match,
        limit: int,
        order_by: str | None = None,
        fields: list[str] | None = None,
        descending: bool = False,
    ) -> list[dict[str, Any]]:
        direction = models.Direction.DESC if descending else models.Direction.ASC
        order = models.OrderBy(key=order_by, direction=direction) if order_by else None
        records, _ = self._call(
            lambda: self.client.scroll(
                self.name,
                scroll_filter=server_filter(match),
                limit=limit,
                order_by=order,
                with_payload=fields if fields is not None else True,
                with_vectors=False,
            )
        )
        return [r.payload or {} for r in records]

    def count(self, match: Match) -> int:
        return self._call(
            lambda: (
                self.client.count(self.name, count_filter=server_filter(match), exact=True).count
            )
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
        flt = server_filter(match)
        sparse = _sparse(text, query=True) if mode != "dense" else None  # as the edge does

        def search(using: str, n: int) -> list[ScoredPayload]:
            query = dense if using == "dense" else sparse
            response = self._call(
                lambda: self.client.query_points(
                    self.name,
                    query=query,
                    using=DENSE if using == "dense" else SPARSE,
                    query_filter=flt,
                    limit=n,
                    with_payload=True,
                )
            )
            return [
                ScoredPayload(
                    p.id if isinstance(p.id, int) else str(p.id), float(p.score), p.payload or {}
                )
                for p in response.points
            ]

        if mode == "hybrid":  # fused here, as the embedded engine does (stores/fusion.py)
            return fused(search, limit, candidates)
        return ordered(search(mode, limit + TIE_MARGIN), limit)

    def leave(self) -> None:
        """Nothing to hand over: the server stays."""

    def writing(self) -> AbstractContextManager[None]:
        """Nothing to take: writers on many machines are kept apart by the write
        protocol (stores/writers.py) alone."""
        return nullcontext()

    def optimize(self) -> None:
        """Nothing to do: the server's own optimizer builds indexes in the background."""

    def release(self) -> None:
        """Nothing to let go of: a server is shared by every process at once."""

    def close(self) -> None:
        self.client.close()
