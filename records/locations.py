"""Where a store is and what its collections are called, checked the same way on every
floor: a store is a directory or a Qdrant server URL, with a local folder beside it for
what is not vectors (checkpoints, uploads); a collection name becomes a directory and a
Qdrant collection name, so it is checked before anything is opened; and how much of the
disk a store's folder takes (``deepread collections`` shows it, a build beside the
collection checks room for its copy). Path rules only: opening an engine is
:mod:`deepread.stores.location`'s.
"""

from __future__ import annotations

import itertools
import os
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


def allocated_bytes(stat: os.stat_result) -> int:
    """The bytes the file system allocated for one file: its blocks (``st_blocks`` is in
    512-byte units), not its apparent size — the engine's files are sparse, sized far
    past what they hold (225.5 MiB apparent for a store ``du`` measured at 12.8 MiB)."""
    blocks = getattr(stat, "st_blocks", None)  # absent on Windows: the apparent size
    return stat.st_size if blocks is None else blocks * 512


def folder_bytes(folder: Path) -> int:
    """The disk space ``folder`` takes, as ``du`` counts it: the blocks allocated to it
    and everything under it (folders included), each file once however many links name
    it; symlinks not followed."""
    seen: set[tuple[int, int]] = set()
    total = 0
    paths = (
        os.path.join(root, name)
        for root, dirs, names in os.walk(folder)
        for name in [*dirs, *names]
    )
    for path in itertools.chain([str(folder)], paths):
        try:
            stat = os.lstat(path)
        except OSError:  # removed while walking (another process compacting)
            continue
        if (stat.st_dev, stat.st_ino) not in seen:
            seen.add((stat.st_dev, stat.st_ino))
            total += allocated_bytes(stat)
    return total
