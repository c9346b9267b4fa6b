"""A small persistent cache of model outputs made at ingest (figure descriptions, section
summaries, OCR pages), so re-ingesting a document never pays for the same call twice.

One SQLite file, ``<sidecar dir>/enrich-cache.sqlite`` (beside the store, see
:func:`deepread.records.locations.sidecar_dir`), one table keyed by
``(kind, model, content sha256)``. It is safe to share between the parse thread and the
main thread (one connection, one lock) and between processes (SQLite's own locking).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

CACHE_FILE = "enrich-cache.sqlite"


def sha256(data: bytes | str) -> str:
    """Hex sha256 of bytes, or of a string's UTF-8."""
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


class ModelCache:
    """``get``/``put`` of text by ``(kind, model, digest)``; ``None`` path = in memory."""

    def __init__(self, path: Path | None = None) -> None:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            str(path) if path else ":memory:", check_same_thread=False, timeout=30
        )
        with self._lock, self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS cache (kind TEXT, model TEXT, "
                "digest TEXT, value TEXT, PRIMARY KEY (kind, model, digest))"
            )

    @classmethod
    def beside(cls, store_dir: Path) -> ModelCache:
        """The cache file of a store's sidecar directory."""
        return cls(store_dir / CACHE_FILE)

    def get(self, kind: str, model: str, digest: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT value FROM cache WHERE kind=? AND model=? AND digest=?",
                (kind, model, digest),
            ).fetchone()
        return row[0] if row else None

    def put(self, kind: str, model: str, digest: str, value: str) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO cache VALUES (?, ?, ?, ?)", (kind, model, digest, value)
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM cache").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
