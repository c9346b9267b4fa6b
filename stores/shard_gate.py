"""Who may use an open shard while its vector index is built beside it.

A build (:mod:`deepread.stores.index_build`) works on a copy of the collection's files,
so while it runs the live shard keeps answering reads but must take no write (the copy
would not hold it); then, for the moment the built copy is swapped in, the shard takes
no call at all. :class:`Gate` says so: reads and writes pass it side by side, as the
engine allows, until a build holds writes back or a swap holds everything back.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Gate:
    """Reads, writes, a build (no writes meanwhile) and a swap (nothing meanwhile)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._reads = 0
        self._writes = 0
        self._building = False
        self._swapping = False

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._changed:
            self._changed.wait_for(lambda: not self._swapping)
            self._reads += 1
        try:
            yield
        finally:
            with self._changed:
                self._reads -= 1
                self._changed.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._changed:
            self._changed.wait_for(lambda: not (self._building or self._swapping))
            self._writes += 1
        try:
            yield
        finally:
            with self._changed:
                self._writes -= 1
                self._changed.notify_all()

    @contextmanager
    def build(self) -> Iterator[None]:
        """No write runs inside: those running finish first, the next ones wait."""
        with self._changed:
            self._changed.wait_for(lambda: not self._building)
            self._building = True
            self._changed.wait_for(lambda: self._writes == 0)
        try:
            yield
        finally:
            with self._changed:
                self._building = False
                self._changed.notify_all()

    @contextmanager
    def swap(self) -> Iterator[None]:
        """No call runs inside (inside :meth:`build`): running reads finish first."""
        with self._changed:
            self._swapping = True
            self._changed.wait_for(lambda: self._reads == 0 and self._writes == 0)
        try:
            yield
        finally:
            with self._changed:
                self._swapping = False
                self._changed.notify_all()
