"""Free space before a write: a store on a full disk refuses a write up front.

The embedded engine writes through memory-mapped files. On a full filesystem a write
does not fail with ``ENOSPC``: touching a page the filesystem cannot back kills the
process with ``SIGBUS`` (a 2 MB tmpfs died that way, with no message, on the second
document of the sample pages). So the space a write needs is estimated and checked
first (:func:`ensure_space`); a write that would not fit raises :class:`NoSpaceError`
naming the filesystem, the need and what is free, before anything is written.

The estimate is measured, not derived. A stored paragraph of the sample pages took
3.3–5.5 KB (ext4) and 4.0–4.8 KB (tmpfs) on disk: its vector and payload in the
write-ahead log and in the segment, the payload written again when published. The
engine's files are large and sparse (212 MB apparent for a 0.6 MB store), and where the
filesystem is memory (tmpfs, ramfs) every page the engine maps and touches takes real
space: a new empty collection took 0.5 MB on ext4 but 48 MB on tmpfs, and merely
opening a collection there allocates its dense vector chunk (a 1 MB store grew by 32 MB
for a ``toc``). So the figures depend on the filesystem (:func:`memory_backed`), and
they err above what was measured: a write refused with a few MB to spare costs less
than a process killed by a bus error.
"""

from __future__ import annotations

import os
from pathlib import Path

from deepread.records.errors import StoreError

#: A new collection: its segment's files, payload indexes and first log pages (0.5 MB
#: measured on ext4, 48 MB on tmpfs), with room to spare: (disk, memory filesystem).
CREATE_BYTES = (2 << 20, 64 << 20)
#: Fixed room kept free on top of every estimate: pages touched in ~30 mapped files (and
#: on a memory filesystem, new 2 MB index pages some of them may allocate at any write).
MARGIN_BYTES = (2 << 20, 16 << 20)
#: Filesystems whose pages are memory: a touched hole of a mapped file takes space.
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "shmem"})
#: Per stored point, beyond its vector and text: payload keys, ids, index entries.
POINT_OVERHEAD_BYTES = 1024


class NoSpaceError(StoreError):
    """The store's filesystem has too little free space for a write; nothing written."""


def memory_backed(path: Path) -> bool:
    """Whether ``path`` lies on a filesystem made of memory (Linux ``/proc`` tells;
    elsewhere: no)."""
    target = str(_existing(path).resolve())
    best, kind = "", ""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) < 3:
                    continue
                point = fields[1].replace("\\040", " ")
                inside = target == point or target.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best):
                    best, kind = point, fields[2]
    except OSError:
        return False
    return kind in MEMORY_FILESYSTEMS


def create_estimate(path: Path) -> int:
    """Bytes creating a collection under ``path`` may take."""
    return CREATE_BYTES[memory_backed(path)]


def write_estimate(path: Path, n_points: int, dim: int, text_bytes: int) -> int:
    """Bytes ``n_points`` new points of dimension ``dim`` holding ``text_bytes`` of text
    (paragraph and search text together) may take in the store at ``path``."""
    # The vector is written to the log and the segment (and copied on publish);
    # the text sits in the payload and feeds the BM25 vector, each also logged.
    return (
        n_points * (3 * 4 * dim + POINT_OVERHEAD_BYTES)
        + 2 * text_bytes
        + MARGIN_BYTES[memory_backed(path)]
    )


def load_estimate(collection: Path) -> int:
    """Bytes opening the collection at ``collection`` may newly take: on a memory
    filesystem, the unwritten bytes of its dense vector chunks (32 MB each), all of whose
    pages the engine touches when it loads them; elsewhere nothing (a hole read through
    a mapping stays a hole)."""
    if not memory_backed(collection):
        return 0
    total = 0
    for chunk in collection.glob("segments/*/vector_storage-*/vectors/chunk_*.mmap"):
        try:
            stat = chunk.stat()
        except OSError:
            continue
        total += max(0, stat.st_size - stat.st_blocks * 512)
    return total


def _existing(path: Path) -> Path:
    """``path``, or its nearest ancestor that exists (the store may not exist yet)."""
    path = path.absolute()
    return next((p for p in (path, *path.parents) if p.exists()), Path(path.anchor))


def _mount_point(path: Path) -> Path:
    path = _existing(path)
    while not os.path.ismount(path) and path != path.parent:
        path = path.parent
    return path


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged process may still write on ``path`` 's filesystem."""
    stats = os.statvfs(_existing(path))
    return stats.f_bavail * stats.f_frsize


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MB" if n >= 1 << 20 else f"{max(1, n >> 10)} KB"


def ensure_space(path: Path, needed: int, what: str) -> None:
    """Raise :class:`NoSpaceError` unless ``needed`` bytes fit on ``path`` 's
    filesystem; ``what`` names the write in the message."""
    free = free_bytes(path)
    if free < needed:
        raise NoSpaceError(
            f"no space left on {_mount_point(path)} for the store at {path}: {what} "
            f"(needed ~{_size(needed)}, {_size(free)} free); refused before writing — free "
            "some space or use a store on another disk (--store)"
        )
