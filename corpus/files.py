"""Which files an ingest reads: paths as given, folders walked, each file once.

Folder symlinks are followed without looping; a broken link or a link loop is that
path's failure, not the walk's, and so is a named pipe, socket or device: it is named
from ``stat`` alone, never opened (opening a pipe blocks until someone writes). Files a
folder walk passes over because of their type are named to the caller
(``unsupported``), so a user sees what was left out and why — they are not failures:
nothing was wrong with them. The content hash decides whether a file changed since its
last ingest. A file that fails is reported with one line (:func:`failure_reason`), the
same whether it failed in this process or in a parse worker.
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from deepread.corpus.parsing import SUPPORTED_SUFFIXES, ParseError
from deepread.corpus.parsing.file_kind import irregular_reason
from deepread.records.errors import WriteConflict


@dataclass(slots=True)
class IngestFailure:
    """A file that could not be ingested, and why."""

    path: str
    reason: str


def failure_reason(exc: BaseException) -> str:
    """The line a failed file is reported with: the reader's reason, else the error."""
    if isinstance(exc, ParseError):
        return exc.reason
    if isinstance(exc, (OSError, ValueError, WriteConflict)) and str(exc):
        return str(exc)
    # An error no reader anticipated (a library's own exception type): name its type so
    # the line stays useful, e.g. "unexpected XMLSyntaxError: Char 0x0 out of allowed range".
    return f"unexpected {type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def expand_paths(
    paths: Iterable[str | Path],
    unsupported: list[Path] | None = None,
) -> tuple[list[Path], list[IngestFailure]]:
    """Files to ingest: files as given, folders walked for supported types, each once.

    Files a walk finds of another type are appended to ``unsupported`` when it is given.
    """
    files: list[Path] = []
    failures: list[IngestFailure] = []
    seen: set[Path] = set()

    def fail(path: Path, reason: str) -> None:
        key = Path(os.path.abspath(path))  # the link itself: it has no real path
        if key not in seen:
            seen.add(key)
            failures.append(IngestFailure(str(path), reason))

    def add(path: Path) -> None:
        if not path.exists():  # only a symlink can be listed yet not exist
            fail(path, _broken_link(path))
            return
        real = path.resolve()
        if real in seen:
            return
        try:
            odd = irregular_reason(path)
        except OSError as exc:
            fail(path, exc.strerror or str(exc))
            return
        if odd is not None:
            fail(path, odd)
            return
        seen.add(real)
        files.append(path)

    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            visited: set[Path] = set()
            for folder, dirs, names in _walk(path, visited):
                del dirs
                for name in sorted(names):
                    if Path(name).suffix.lower() in SUPPORTED_SUFFIXES:
                        add(folder / name)
                    elif unsupported is not None:
                        unsupported.append(folder / name)
        elif path.exists():
            add(path)
        elif path.is_symlink():
            fail(path, _broken_link(path))
        else:
            fail(path, "no such file or directory")
    return files, failures


def _broken_link(path: Path) -> str:
    """Why a symlink cannot be read: a loop, or a target that does not exist.

    (``Path.resolve`` raises RuntimeError on a loop in Python 3.11/3.12 and OSError
    from 3.13; before this check a file symlink loop in a folder crashed the walk.)
    """
    try:
        path.resolve(strict=True)
    except (RuntimeError, OSError) as exc:
        if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
            return "symlink loop (following the link leads back to it)"
    return f"broken symlink: its target {os.readlink(path)} does not exist"


def _walk(root: Path, visited: set[Path]) -> Iterable[tuple[Path, list[str], list[str]]]:
    """``os.walk`` that follows folder symlinks but never loops."""
    for folder, dirs, names in os.walk(root, followlinks=True):
        real = Path(folder).resolve()
        if real in visited:
            dirs[:] = []
            continue
        visited.add(real)
        dirs.sort()
        yield Path(folder), dirs, names


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


#: What changes whenever a file's bytes may have: its device and inode (a file saved by
#: renaming a new one over it), size, modification time and change time in nanoseconds —
#: a time no writer can set back, as ``touch`` can the modification time.
Stamp = tuple[int, int, int, int, int]


def file_stamp(path: Path) -> Stamp:
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def hashed(path: Path) -> tuple[str, Stamp]:
    """``path``'s SHA-256 and its :data:`Stamp` taken before it was read: a file written
    while it is hashed, or at any time after, no longer has that stamp."""
    stamp = file_stamp(path)
    return sha256_file(path), stamp


def unchanged(path: Path, digest: str, stamp: Stamp) -> bool:
    """Whether ``path`` still holds what was hashed as ``digest`` with ``stamp`` (read
    again: a same-size write within the file system's clock tick keeps the stamp)."""
    try:
        return file_stamp(path) == stamp and sha256_file(path) == digest
    except OSError:  # gone meanwhile
        return False


class FileChanged(ValueError):
    """A file kept changing while it was read: no parse of it matches its hash."""
