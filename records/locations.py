"""Where a store is and what its collections are called, checked the same way on every
floor: a store is a directory or a Qdrant server URL, with a local folder beside it for
what is not vectors (checkpoints, uploads); a collection name becomes a directory and a
Qdrant collection name, so it is checked before anything is opened. Path rules only:
opening an engine is :mod:`deepread.stores.location`'s.
"""

from __future__ import annotations

import re
from pathlib import Path

from deepread.records.errors import StoreError, UsageError
from deepread.text.hygiene import brief

# fullmatch, never match with "$": "$" also matches before a final newline ("x\n").
COLLECTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def is_url(store: str) -> bool:
    return store.startswith(("http://", "https://"))


def check_collection_name(name: str) -> str:
    if not isinstance(name, str) or not COLLECTION_NAME.fullmatch(name):
        raise UsageError(
            f"invalid collection name {brief(name)}: use 1–64 letters, digits, "
            "'_' or '-', starting with a letter or digit"
        )
    return name


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


def sidecar_dir(store: str) -> Path:
    """A local directory beside the store for files that are not vectors (checkpoints)."""
    if is_url(store):
        from platformdirs import user_data_dir

        return Path(user_data_dir("deepread"))
    return Path(store).expanduser()
