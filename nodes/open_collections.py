"""The collections a process keeps open for graphs that name them in their context: bounded.

A served graph opens the collection a run's context names, and keeping it open makes the
next run on it fast (opening reads its segments and, for the embedded engine, takes its
lock). But every collection a client names would then stay open for the life of the
process: 30 small collections made the server grow by ~1 GB. So the open collections are
a least-recently-used set of at most ``DEEPREAD_MAX_OPEN_COLLECTIONS`` (default 8): past
it, the collection used least recently is closed.

A collection in use is never closed under its user. Each node that reads one holds a
*lease* on it while it runs (:meth:`OpenCollections.lease`, or the ``leasing`` node
wrapper of ``nodes/resources.py``); only collections nobody holds are closed, so while
more collections than the cap are in use at once (as many as the server runs turns at
once), the set holds them all and shrinks back to the cap as their leases end. A leased
collection asked for again is the same open index, never a second opener (which the
embedded engine would refuse).

A collection nobody holds lets go of its engine (:meth:`Index.release`): on an embedded
store another process — ``deepread ingest`` from a terminal beside ``langgraph dev`` —
may open it between requests; the next lease's first read opens it again (~0.1-0.3 s).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from deepread.corpus.index import Index
from deepread.environment.settings import current as current_settings
from deepread.text.redaction import redact_url

Key = tuple[str, str]  # (store, collection)
log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Entry:
    index: Index
    users: int = 0


class OpenCollections:
    """Open indexes by ``(store, collection)``, at most the cap of them idle."""

    def __init__(self, cap: Callable[[], int] | None = None) -> None:
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()
        # One lock for opening, leasing and closing: a collection is never opened twice,
        # nor closed while someone takes a lease on it.
        self._lock = threading.Lock()
        self._cap = cap or (lambda: current_settings().max_open_collections)

    def acquire(self, key: Key, opener: Callable[[], Index]) -> Index:
        """The open index of ``key`` (opened with ``opener`` if it is not), leased to
        the caller until :meth:`release`."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = _Entry(opener())
            entry.users += 1
            self._entries.move_to_end(key)
            self._close_idle()
            return entry.index

    def release(self, key: Key) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry.users > 0:
                entry.users -= 1
                if entry.users == 0:
                    _let_go(key, entry.index)
            self._close_idle()

    @contextmanager
    def lease(self, key: Key, opener: Callable[[], Index]) -> Iterator[Index]:
        index = self.acquire(key, opener)
        try:
            yield index
        finally:
            self.release(key)

    def _close_idle(self) -> None:
        """Close the least recently used collections nobody holds, down to the cap."""
        excess = len(self._entries) - self._cap()
        for key in [k for k, e in self._entries.items() if e.users == 0][: max(excess, 0)]:
            _close(key, self._entries.pop(key).index)

    def opened(self) -> list[Key]:
        """The open collections, least recently used first."""
        with self._lock:
            return list(self._entries)

    def users(self, key: Key) -> int:
        with self._lock:
            entry = self._entries.get(key)
            return entry.users if entry else 0

    def close(self, store: str | None = None) -> None:
        """Close the open collections (of ``store`` only, when given) nobody holds."""
        with self._lock:
            for key in [
                k
                for k, e in self._entries.items()
                if e.users == 0 and (store is None or k[0] == store)
            ]:
                _close(key, self._entries.pop(key).index)


def _let_go(key: Key, index: Index) -> None:
    """Let go of an idle collection's engine (:meth:`Index.release`), so other processes
    may use an embedded store between this server's requests; it stays in the set, its
    documents known, and is opened again by the next lease's first read. A failure is
    logged, as for :func:`_close`: the run that ended owes nobody this step."""
    try:
        index.release()
    except Exception:
        log.exception(
            "letting go of collection %r of %s failed",
            key[1],
            redact_url(key[0], current_settings().secrets),
        )


def _close(key: Key, index: Index) -> None:
    """Close an evicted index. A failure (a Qdrant server gone away) is logged, not
    raised: it belongs to no one waiting — the run that evicted it asked for another
    collection — and the collection is dropped from the set either way."""
    try:
        index.close()
    except Exception:
        log.exception(
            "closing collection %r of %s failed",
            key[1],
            redact_url(key[0], current_settings().secrets),
        )


#: The process's open collections (the served graphs' and any graph built without an index).
OPEN = OpenCollections()
