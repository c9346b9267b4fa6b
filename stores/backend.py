"""The small engine interface the collection logic is written against.

Two implementations: :mod:`deepread.stores.edge` (Qdrant's engine in-process, the
default) and :mod:`deepread.stores.server` (a Qdrant server through qdrant-client). The
same contract tests run on both, so a user moving to a server sees the same behaviour.

What the write protocol (:mod:`deepread.stores.writers`) relies on, on both: each call
is applied to a point as one operation (a conditional update — ``set_payload`` or
``delete`` whose filter names the point and the state it must be in — either applies
whole or not at all), and :meth:`Backend.insert` never overwrites a point that exists.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from deepread.stores.schema import Match

RetrievalMode = Literal["dense", "bm25", "hybrid"]


@dataclass(slots=True)
class PointData:
    """A point to write: payload, and optionally its dense vector and BM25 text."""

    id: int | str
    payload: dict[str, Any]
    dense: list[float] | None = None
    bm25_text: str | None = None


@dataclass(slots=True)
class ScoredPayload:
    id: int | str
    score: float
    payload: dict[str, Any]


class Backend(Protocol):
    """What :class:`deepread.stores.collection.Collection` needs from an engine."""

    def exists(self) -> bool: ...
    def create(self, dim: int) -> None: ...
    def ensure_space(self, points: int, dim: int, text_bytes: int, what: str) -> None: ...
    def upsert(self, points: list[PointData]) -> None: ...
    def insert(self, points: list[PointData]) -> None: ...
    def delete(self, match: Match) -> None: ...
    def set_payload(self, match: Match, values: dict[str, Any]) -> None: ...
    def get(self, ids: list[int | str]) -> list[dict[str, Any]]: ...
    def scroll(
        self,
        match: Match,
        limit: int,
        order_by: str | None = None,
        fields: list[str] | None = None,
        descending: bool = False,
    ) -> list[dict[str, Any]]: ...
    def count(self, match: Match) -> int: ...
    def query(
        self,
        mode: RetrievalMode,
        dense: list[float] | None,
        text: str,
        match: Match,
        limit: int,
        candidates: int,
    ) -> list[ScoredPayload]: ...
    def optimize(self) -> None: ...
    def writing(self) -> AbstractContextManager[None]:
        """One document's write at a time where the engine can say so (the embedded one,
        across the machine's processes); elsewhere the write protocol alone keeps
        concurrent writers apart."""
        ...

    def release(self) -> None:
        """Let go of the engine while idle (the embedded one's lock); the next call
        takes it again."""
        ...

    def leave(self) -> None:
        """The process ends now without closing: hand over what other processes rely on
        (the embedded engine, when this process answers others' calls)."""
        ...

    def close(self) -> None: ...
