"""Where a collection lives: an embedded store directory, or a Qdrant server URL.

``--store`` / ``DEEPREAD_STORE`` / ``QDRANT_URL`` decide; without any, a per-user data
directory. A server is asked with ``QDRANT_API_KEY`` and waited for ``QDRANT_TIMEOUT``
seconds (default 30). Collection names are validated here because they become directory and
Qdrant collection names.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from deepread.stores.backend import Backend

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def default_store() -> str:
    """The store used when none is given: env vars, else the user's data directory."""
    configured = os.environ.get("DEEPREAD_STORE") or os.environ.get("QDRANT_URL")
    if configured:
        return configured
    from platformdirs import user_data_dir

    return str(Path(user_data_dir("deepread")) / "store")


def is_url(store: str) -> bool:
    return store.startswith(("http://", "https://"))


def check_collection_name(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"invalid collection name {name!r}: use 1–64 letters, digits, "
                         "'_' or '-', starting with a letter or digit")
    return name


def open_backend(store: str, collection: str) -> Backend:
    """The engine holding ``collection`` in ``store`` (created on first write)."""
    check_collection_name(collection)
    if is_url(store):
        from deepread.stores.server import ServerBackend

        return ServerBackend(store, f"deepread_{collection}",
                             api_key=os.environ.get("QDRANT_API_KEY"),
                             timeout=float(os.environ.get("QDRANT_TIMEOUT", "30")))
    from deepread.stores.edge import EdgeBackend

    return EdgeBackend(Path(store).expanduser() / "collections" / collection)


def sidecar_dir(store: str) -> Path:
    """A local directory beside the store for files that are not vectors (checkpoints)."""
    if is_url(store):
        from platformdirs import user_data_dir

        return Path(user_data_dir("deepread"))
    return Path(store).expanduser()
