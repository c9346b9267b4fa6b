"""Where a collection lives: an embedded store directory, or a Qdrant server URL.

Everything here takes explicit values: which store is the default, and the server's key
and timeout, are resolved from the environment by :mod:`deepread.environment.settings`. Collection
names are validated here because they become directory and Qdrant collection names.
"""

from __future__ import annotations

from pathlib import Path

from deepread.records.errors import StoreError
from deepread.records.locations import (
    COLLECTION_NAME,
    check_collection_name,
    check_store_directory,
    is_url,
)
from deepread.stores.backend import Backend
from deepread.text.redaction import redact, redact_url

_SERVER_PREFIX = "deepread_"


def open_backend(
    store: str,
    collection: str,
    *,
    api_key: str | None = None,
    timeout: float = 30.0,
    wait: float = 0.0,
) -> Backend:
    """The engine holding ``collection`` in ``store`` (created on first write).

    ``api_key`` and ``timeout`` (seconds) are used for a Qdrant server URL only;
    ``wait`` (seconds) for an embedded store another process holds.
    """
    check_collection_name(collection)
    if is_url(store):
        from deepread.stores.server import ServerBackend

        return ServerBackend(
            store, f"{_SERVER_PREFIX}{collection}", api_key=api_key, timeout=timeout
        )
    from deepread.stores.edge import EdgeBackend

    return EdgeBackend(Path(check_store_directory(store)) / "collections" / collection, wait)


def list_collections(store: str, *, api_key: str | None = None, timeout: float = 30.0) -> list[str]:
    """Names of the deepread collections in ``store`` (none for a store not yet made)."""
    if is_url(store):
        from qdrant_client import QdrantClient

        try:
            client = QdrantClient(
                url=store, api_key=api_key, timeout=int(max(1, timeout)), check_compatibility=False
            )
            try:
                names = [c.name for c in client.get_collections().collections]
            finally:
                client.close()
        except Exception as exc:  # the client raises transport-specific types
            known = (api_key or "",)
            raise StoreError(
                f"cannot list the collections of {redact_url(store, known)}: "
                f"{type(exc).__name__}: {redact(str(exc), known)}"
            ) from None
        return sorted(n[len(_SERVER_PREFIX) :] for n in names if n.startswith(_SERVER_PREFIX))
    folder = Path(store).expanduser() / "collections"
    if not folder.is_dir():
        return []
    return sorted(
        p.name
        for p in folder.iterdir()
        if COLLECTION_NAME.fullmatch(p.name) and (p / "edge_config.json").is_file()
    )
