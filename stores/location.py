"""Where a collection lives: an embedded store directory, or a Qdrant server URL.

Everything here takes explicit values: which store is the default, and the server's key
and timeout, are resolved from the environment by :mod:`deepread.environment.settings`. Collection
names are validated here because they become directory and Qdrant collection names.
"""

from __future__ import annotations

import re
from pathlib import Path

from deepread.stores.backend import Backend, StoreError, UsageError
from deepread.text.hygiene import brief
from deepread.text.redaction import redact, redact_url

# fullmatch, never match with "$": "$" also matches before a final newline ("x\n").
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_SERVER_PREFIX = "deepread_"


def is_url(store: str) -> bool:
    return store.startswith(("http://", "https://"))


def check_collection_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise UsageError(
            f"invalid collection name {brief(name)}: use 1–64 letters, digits, "
            "'_' or '-', starting with a letter or digit"
        )
    return name


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


def check_store_directory(store: str) -> Path:
    """``store`` as a directory path that is, or can become, a store.

    An empty name is a usage error (``Path("")`` is the current directory: a store
    would be written where the user happens to stand). A regular file — or a file where
    a parent directory should be — is a :class:`StoreError`, before anything is written.
    """
    if not store.strip():
        raise UsageError("the store location is empty; pass a directory or a Qdrant URL")
    path = Path(store).expanduser()
    # The store and its collections folder if they exist, else the nearest ancestor
    # that does: each must be a directory.
    existing = [p for p in (path, path / "collections") if p.exists() or p.is_symlink()]
    if not existing:
        existing = [next((p for p in path.absolute().parents if p.exists()), Path("/"))]
    for part in existing:
        if not part.is_dir():
            what = "a broken symlink" if not part.exists() else "not a directory"
            raise StoreError(f"the store {path} cannot be used: {part} is {what}")
    return path


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
        if _NAME.fullmatch(p.name) and (p / "edge_config.json").is_file()
    )


def sidecar_dir(store: str) -> Path:
    """A local directory beside the store for files that are not vectors (checkpoints)."""
    if is_url(store):
        from platformdirs import user_data_dir

        return Path(user_data_dir("deepread"))
    return Path(store).expanduser()
