"""The advisory file locks that let processes share an embedded collection.

Three locks beside each collection directory (``collections/.NAME.*``), each an
exclusive ``flock`` that the kernel releases when its holder dies, and each file kept
for good (a lock file removed while held would let a second process lock a new one):

* ``.NAME.lock`` — creating the collection (:func:`creation_lock`);
* ``.NAME.engine.lock`` — opening its files (:class:`EngineLock`, never waited on:
  :mod:`deepread.stores.edge` decides what to do meanwhile);
* ``.NAME.write.lock`` — one document's write, from the look at what is stored to the
  commit (:class:`WriteLock`): two ingests of the same file, or of copies of one file,
  end as if they had run one after the other.

A lock is released explicitly (``LOCK_UN``), so that a child process sharing the
descriptor cannot keep it; descriptors are opened close-on-exec.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: nothing is locked (creation is still atomic: a rename)
    fcntl = None  # type: ignore[assignment]

from deepread.records.errors import StoreError
from deepread.stores.holder import this_command

_POLL_S = 0.05


def _open(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(f"cannot open the lock file {path}: {exc.strerror or exc}") from exc


def _try(fd: int) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def _wait_for(
    fd: int, wait: float, waiting: Callable[[], str], refused: Callable[[float], str]
) -> None:
    """Take the lock on ``fd`` within ``wait`` seconds, saying ``waiting()`` on stderr
    once past the first second; ``StoreError(refused(wait))`` after that."""
    start = time.monotonic()
    said = False
    while not _try(fd):
        waited = time.monotonic() - start
        if waited >= wait:
            _unlock(fd)
            raise StoreError(refused(wait))
        if not said and waited >= 1.0:
            # A store layer that prints: waiting silently would look like a hang.
            print(f"deepread: {waiting()}…", file=sys.stderr, flush=True)
            said = True
        time.sleep(_POLL_S)


#: How long a process waits for another one to finish creating the same collection.
CREATION_WAIT_S = 60.0


@contextmanager
def creation_lock(collection: Path) -> Iterator[None]:
    """Hold the collection's creation lock (waiting up to :data:`CREATION_WAIT_S`)."""
    fd = _open(collection.parent / f".{collection.name}.lock")
    _wait_for(
        fd,
        CREATION_WAIT_S,
        lambda: f"waiting for another deepread process to finish creating {collection}",
        lambda s: (
            f"the store {collection} is in use by another deepread process (it has been "
            f"creating the collection for {s:g} s)"
        ),
    )
    try:
        yield
    finally:
        _unlock(fd)


class EngineLock:
    """The right to open a collection's files (``.NAME.engine.lock``), never waited on."""

    def __init__(self, collection: Path) -> None:
        self.path = collection.parent / f".{collection.name}.engine.lock"
        self._fd: int | None = None

    def take(self) -> bool:
        """Take the lock if nobody holds it; whether this process holds it now."""
        if self._fd is not None:
            return True
        fd = _open(self.path)
        if not _try(fd):
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            _unlock(fd)


#: How long a writer waits for another one's document write (a large filing's write
#: takes seconds; more while the holder builds the vector index).
WRITE_WAIT_S = 120.0


class WriteLock:
    """One document's write at a time on a collection (``.NAME.write.lock``), across
    processes and threads; re-entrant within one thread, so a write taking it inside a
    caller that holds it (the ingest's look at what is stored, then the write) does
    not wait for itself. The holder's pid and command are written into the file, for
    the message of whoever waits."""

    def __init__(self, collection: Path, wait: float) -> None:
        self.path = collection.parent / f".{collection.name}.write.lock"
        self.wait = max(wait, WRITE_WAIT_S)
        self._mine = threading.local()

    def _writer(self) -> str:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8") or "{}")
            return f"{data['command']} (pid {data['pid']})"
        except (OSError, ValueError, KeyError, TypeError):
            return "another deepread process"

    @contextmanager
    def held(self) -> Iterator[None]:
        depth = getattr(self._mine, "depth", 0)
        if depth:
            self._mine.depth = depth + 1
            try:
                yield
            finally:
                self._mine.depth -= 1
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = _open(self.path)
        _wait_for(
            fd,
            self.wait,
            lambda: f"waiting for {self._writer()} to finish writing a document",
            lambda s: (
                f"the store {self.path.parent} is being written by {self._writer()}, "
                f"which did not finish a document within {s:g} s; try again"
            ),
        )
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({"pid": os.getpid(), "command": this_command()}).encode(), 0)
        except OSError:  # the note only informs
            pass
        self._mine.depth = 1
        try:
            yield
        finally:
            self._mine.depth = 0
            _unlock(fd)
