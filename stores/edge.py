"""The embedded store: Qdrant's own engine in-process (``qdrant-edge-py``), shared by every
deepread process on the machine.

Chosen over qdrant-client's local mode, which is a pure-Python brute force that ignores
payload indexes (~0.5 s per filtered scroll at 20k points here, against ~0.06 ms for
this engine). One shard directory per collection (:mod:`deepread.stores.shard`).

**One holder, everyone served.** The engine's files admit one opener at a time, and a
load tried while another process has them open can undo that process's unflushed writes
— so exactly one process opens them: the one holding the *engine lock*
(``collections/.NAME.engine.lock``, :mod:`deepread.stores.file_locks`). It is taken
without waiting; the process that gets it loads the shard
and answers every other process's calls on it (:mod:`deepread.stores.relay`); a process
that does not get it sends its calls to the holder the note names
(:mod:`deepread.stores.holder`). Nobody ever tries the engine's files while another
process has them. So readers answer while an ingest writes, two ingests write at once
through one engine (the write protocol, :mod:`deepread.stores.writers`, keeps their
documents and doc_ids apart, as on a Qdrant server), and whoever opens the files next
sees every write acknowledged before.

When the holder lets go — ``deepread chat`` between questions, a served graph when a
collection's last run ends, an ingest after each index build, any process at its end —
it stops answering (the calls it is running finish first), closes the shard, then
releases the lock. Its callers' next call takes the collection again: one of them
becomes the holder. A call that found the holder gone is sent again; the write
protocol's calls can all be (:mod:`deepread.stores.relay`).

An index build does not stop the holder answering: it is made on a copy, in a process
of its own (:mod:`deepread.stores.index_build`); only writes wait for it.

Waiting happens only where nobody answers: the holder is between taking the lock and
answering (its load: a fraction of a second, seconds on a very large store), or cannot
answer (no local sockets on this system), or is stopped (Ctrl-Z) — up to ``wait``
seconds (``DEEPREAD_STORE_WAIT``, default 30), saying once on stderr whom it waits
for, then a :class:`StoreError` naming it.

A new collection is made whole or not at all: built in a hidden temporary directory
beside its final place (segment, payload indexes), then renamed into place, under the
creation lock (:mod:`deepread.stores.file_locks`) — two processes creating the same new
collection at once never build into one directory. One document is written at a time
(:meth:`EdgeBackend.writing`, the write lock), from the writer's look at what is stored
to its commit, so concurrent ingests end as if they had run one after the other.

Leases (:mod:`deepread.stores.writers`) are judged by their writer's process (on this
machine: alive or not) and their time, as on a server: a writer may be any process,
not only the holder.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from deepread.records.errors import StoreBusy, StoreError
from deepread.stores.backend import PointData, RetrievalMode, ScoredPayload
from deepread.stores.disk_space import (
    create_estimate,
    ensure_space,
    load_estimate,
    write_estimate,
)
from deepread.stores.file_locks import EngineLock, WriteLock, creation_lock
from deepread.stores.holder import Holder, holder_of, remove_note, write_note
from deepread.stores.index_build import present, recover
from deepread.stores.relay import RelayClient, RelayGone, RelayServer, available
from deepread.stores.schema import Match
from deepread.stores.shard import Shard, build_empty

#: How often a waiting process looks again for the lock or a holder that answers.
_RETRY_S = 0.05
#: Seconds a process waits, whatever ``wait`` says, while the collection changes hands
#: (a holder loading the shard, or letting go of it), and gives a holder to answer
#: its first message; said on stderr only past the first second.
HANDOVER_S = 3.0
#: How many times one call is sent again after finding its holder gone (each time to
#: whoever holds the collection then).
_RESENDS = 20


def _in_use(path: Path, holder: Holder | None, waited: float | None = None) -> StoreBusy:
    said = f"the store {path} is in use by another deepread process"
    if holder is not None:
        said += f", {holder.describe()}"
    if waited:
        said += f", which did not answer or let go of it within {waited:g} s"
    return StoreBusy(
        f"{said}; try again when it is done, set DEEPREAD_STORE_WAIT to wait longer, "
        "or use a Qdrant server (--store http://…)"
    )


class EdgeBackend:
    """A deepread collection in one qdrant-edge shard directory, held by this process or
    reached through the process that holds it.

    ``wait``: seconds to wait while the collection is held by a process that does not
    answer (see the module's docstring).
    """

    def __init__(self, path: Path, wait: float = 0.0) -> None:
        self.path = path
        self.wait = wait
        self._lock = EngineLock(path)
        self._writes = WriteLock(path, wait)
        self._shard: Shard | None = None
        self._server: RelayServer | None = None
        self._client: RelayClient | None = None
        self._closed = False
        self._creating = threading.Lock()
        self._opening = threading.Lock()  # one thread of this process takes it at a time
        if present(self.path):
            self._door()  # a store that cannot be used says so at open

    # -- who holds the engine ---------------------------------------------------------

    def _door(self) -> Shard | RelayClient:
        """The open shard, or the holder that answers for it — taken now if neither."""
        door = self._shard or self._client
        if door is not None:
            return door
        with self._opening:
            door = self._shard or self._client
            if door is not None:
                return door
            if self._closed:
                raise StoreError(f"the collection at {self.path} is closed")
            if not present(self.path):
                raise StoreError(f"the collection at {self.path} does not exist (or was removed)")
            return self._take()

    def _take(self) -> Shard | RelayClient:
        """Hold the engine (take the lock, load the shard, answer others) or reach the
        process that holds it; wait up to ``wait`` seconds while neither is possible."""
        start = time.monotonic()
        deadline, said = start + max(self.wait, HANDOVER_S), False
        while True:
            if self._lock.take():
                return self._hold()
            holder = holder_of(self.path)
            if holder is not None and holder.relay is not None and available():
                try:
                    self._client = RelayClient(
                        holder.relay, self.path, holder.describe(), HANDOVER_S
                    )
                    return self._client
                except RelayGone:
                    pass  # letting go, gone, or not answering: look again
            if time.monotonic() >= deadline:
                raise _in_use(self.path, holder, max(self.wait, HANDOVER_S)) from None
            if not said and time.monotonic() - start >= 1.0:
                # A store layer that prints: waiting silently would look like a hang.
                print(
                    f"deepread: waiting for the store {self.path}, held by "
                    f"{holder.describe() if holder else 'another process'} "
                    f"(up to {self.wait:g} s)…",
                    file=sys.stderr,
                    flush=True,
                )
                said = True
            time.sleep(_RETRY_S)

    def _hold(self) -> Shard:
        """With the lock taken: load the shard and start answering the others."""
        try:
            recover(self.path)  # a swap a killed holder left (stores/index_build.py)
            ensure_space(self.path, load_estimate(self.path), "opening the collection")
            shard = Shard.load(self.path)
        except BaseException:
            self._lock.release()
            raise
        server = None
        if available():
            try:
                server = RelayServer(shard, self.path)
            except OSError:
                server = None  # no local socket here: the others wait for this process
        self._shard, self._server = shard, server
        write_note(self.path, server.address if server else None)
        return shard

    def _let_go(self) -> None:
        """Stop answering (running calls finish), close the shard, release the lock."""
        shard, server = self._shard, self._server
        self._shard = self._server = None
        if server is not None:
            server.stop()
        if shard is not None:
            remove_note(self.path)  # before letting go: the next holder writes its own
            try:
                shard.close()
            finally:
                self._lock.release()

    def _drop_client(self, client: RelayClient) -> None:
        with self._opening:
            if self._client is client:
                self._client = None
        client.close()

    def _call(self, name: str, *args: Any) -> Any:
        """``name(*args)`` on the shard, here or in the process holding it; sent again
        to whoever holds it next when its holder went away meanwhile."""
        for _ in range(_RESENDS):
            door = self._door()
            if isinstance(door, Shard):
                return getattr(door, name)(*args)
            try:
                return door.call(name, args)
            except RelayGone:
                self._drop_client(door)
        raise StoreError(
            f"the store {self.path} changed hands {_RESENDS} times during one call; try again"
        )

    def release(self) -> None:
        """Let go of the engine while idle — the others then open it or reach whoever
        does — until the next call takes it again. Only between calls: never while
        another thread of this process reads or writes through it."""
        with self._opening:
            client, self._client = self._client, None
            if client is not None:
                client.close()
            self._let_go()

    def leave(self) -> None:
        """This process ends now without closing (a reading command's quick exit): if it
        answers other processes, let go properly first — their running calls finish and
        their next ones find the next holder; otherwise leave it to the exit (the
        kernel releases the lock, and no acknowledged write is lost)."""
        server = self._server
        if server is not None and server.answering():
            self.release()

    def held(self) -> bool:
        """Whether this process has the engine open now (not released, not closed)."""
        return self._shard is not None

    def holder(self) -> str | None:
        """Who answers this process's calls when it is not the holder ("deepread ingest
        (pid N)"), for messages; ``None`` when it holds the engine or nothing."""
        client = self._client
        return client.holder if client is not None else None

    def close(self) -> None:
        with self._opening:
            self._closed = True
            client, self._client = self._client, None
            if client is not None:
                client.close()
            self._let_go()

    # -- the collection ---------------------------------------------------------------

    def exists(self) -> bool:
        return not self._closed and (
            self._shard is not None or self._client is not None or present(self.path)
        )

    def create(self, dim: int) -> None:
        """Create the collection — or open it, if another process created it since this
        one looked (the caller then finds its metadata already written). Threads of this
        process wait for each other here."""
        with self._creating:
            if self._shard is not None or self._client is not None:
                return
            folder, name = self.path.parent, self.path.name
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot create the store folder {folder}: {exc.strerror or exc}"
                ) from exc
            with creation_lock(self.path):
                if not present(self.path):
                    ensure_space(folder, create_estimate(folder), f"creating collection {name!r}")
                    self._build(dim, folder / f".{name}.creating-{os.getpid()}")
            self._door()

    def _build(self, dim: int, temporary: Path) -> None:
        """Build an empty collection in ``temporary`` and rename it into place."""
        for stale in self.path.parent.glob(f".{self.path.name}.creating-*"):
            shutil.rmtree(stale, ignore_errors=True)  # a killed creator's (lock is ours)
        try:
            build_empty(temporary, dim)
            if self.path.exists():  # an empty or half-made folder without a config
                shutil.rmtree(self.path)
            os.rename(temporary, self.path)
        except Exception as exc:
            shutil.rmtree(temporary, ignore_errors=True)
            raise StoreError(f"the store {self.path} could not be used: {exc}") from exc

    def writing(self) -> AbstractContextManager[None]:
        """One document's write at a time on this collection, across the machine's
        processes (the write lock; re-entrant in one thread)."""
        return self._writes.held()

    def ensure_space(self, points: int, dim: int, text_bytes: int, what: str) -> None:
        """Refuse (:class:`~deepread.stores.disk_space.NoSpaceError`) a write of
        ``points`` points that the disk could not hold, the collection's creation
        included; nothing is written then."""
        needed = write_estimate(self.path, points, dim, text_bytes)
        if not self.exists():
            needed += create_estimate(self.path)
        ensure_space(self.path, needed, what)

    # -- the calls, here or through the holder ----------------------------------------

    def upsert(self, points: list[PointData]) -> None:
        self._call("upsert", points)

    def insert(self, points: list[PointData]) -> None:
        """Write the points whose ids do not exist yet; existing ones stay as they are."""
        self._call("insert", points)

    def delete(self, match: Match) -> None:
        self._call("delete", match)

    def set_payload(self, match: Match, values: dict[str, Any]) -> None:
        self._call("set_payload", match, values)

    def get(self, ids: list[int | str]) -> list[dict[str, Any]]:
        return self._call("get", ids)

    def scroll(
        self,
        match: Match,
        limit: int,
        order_by: str | None = None,
        fields: list[str] | None = None,
        descending: bool = False,
    ) -> list[dict[str, Any]]:
        return self._call("scroll", match, limit, order_by, fields, descending)

    def count(self, match: Match) -> int:
        return self._call("count", match)

    def query(
        self,
        mode: RetrievalMode,
        dense: list[float] | None,
        text: str,
        match: Match,
        limit: int,
        candidates: int,
    ) -> list[ScoredPayload]:
        return self._call("query", mode, dense, text, match, limit, candidates)

    def optimize(self) -> None:
        self._call("optimize")
