"""One store, several processes' views of it — for the tests of writers and readers that
share a collection (tests/stores/test_writers.py).

A *server* is simulated as this repository's contract tests simulate one: qdrant-client's
in-memory local mode, which speaks the server's API (insert-only upserts and conditional
updates included: qdrant_client/local/local_collection.py ``_upsert_point`` honours
``update_mode`` and ``update_filter``). Local mode is not safe to call from several
threads, while a server applies one update at a time per shard; :class:`OneAtATime`
serialises the calls, so each request is atomic as it is on a server — and no more: a
sequence of requests by one view interleaves freely with another view's. Each view is a
``Collection`` with its own cache, as each process has.

With ``QDRANT_TEST_URL`` set (e.g. ``http://localhost:6333``), the "server" views use that
real Qdrant server instead, each store a fresh collection there: the same races, run
against the real thing (not possible on the development machines: no server binary).

On the *embedded* engine each view has a backend of its own, as each process has: the
first to open the collection holds the engine, the others' calls reach it through the
relay (stores/relay.py), as another process's would. Their writes are kept apart by the
write protocol alone here (:class:`ProtocolOnly`): the write lock that runs one
document's write at a time on the embedded engine would make every race below a queue;
it is tested apart (tests/stores/test_write_lock.py). A view's "process" is a thread of
this one, so a writer killed here is judged dead by its lease's time, on both engines: a
"restart" moves the clock past every lease (and, on the embedded engine, closes every
backend and opens the store again).

:class:`Clock` is a wall clock a test moves by hand; :class:`Pause` and :class:`Kill` are
``Collection.step`` hooks: a writer stops at a named step until the test lets it go, or
dies there (:class:`Killed`, a ``BaseException``: no rollback runs, as none does when a
process is killed).
"""

from __future__ import annotations

import os
import threading
import uuid
import warnings
import zlib
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from qdrant_client import QdrantClient

from deepread.records.documents import Document, Paragraph, Section
from deepread.stores.backend import Backend
from deepread.stores.collection import Collection
from deepread.stores.edge import EdgeBackend
from deepread.stores.schema import Match
from deepread.stores.server import ServerBackend

EMBEDDING = "writers-test-4d"
DIM = 4
HIDDEN = Match(equals={"record": "paragraph", "live": 0})
WAIT_S = 20.0  # a bound on every wait, so a broken protocol fails instead of hanging


class OneAtATime:
    """A client whose calls run one at a time, as a server applies its updates."""

    def __init__(self, client: QdrantClient) -> None:
        self._client = client
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock, warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "payload indexes have no effect" here
                return attr(*args, **kwargs)

        return call

    def close(self) -> None:
        """Views come and go; the simulated server stays up for the test."""


class ProtocolOnly(EdgeBackend):
    """The embedded backend without its write lock: writes kept apart by the write
    protocol alone, as on a server."""

    def writing(self) -> AbstractContextManager[None]:
        return nullcontext()


class Clock:
    """Wall-clock seconds that move only when the test says."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Killed(BaseException):
    """The simulated death of a process at a step (no ``except Exception`` catches it)."""


@dataclass
class Pause:
    """Stops the writer at the ``nth`` time it reaches step ``at`` until :meth:`go`."""

    at: str
    nth: int = 1
    reached: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)
    seen: int = 0

    def __call__(self, name: str, doc_id: int) -> None:
        if name != self.at:
            return
        self.seen += 1
        if self.seen == self.nth:
            self.reached.set()
            if not self.released.wait(WAIT_S):
                raise TimeoutError(f"the test never released the writer paused at {name}")

    def go(self) -> None:
        self.released.set()


@dataclass
class Kill:
    """Kills the writer the ``nth`` time it reaches step ``at``."""

    at: str
    nth: int = 1
    seen: int = 0

    def __call__(self, name: str, doc_id: int) -> None:
        if name == self.at:
            self.seen += 1
            if self.seen == self.nth:
                raise Killed(f"killed at {name}")


class Store:
    """One store of one engine, and the views (processes) a test opens on it."""

    def __init__(self, engine: str, tmp_path: Path, lease_s: float = 30.0) -> None:
        self.engine = engine
        self.path = tmp_path / "store" / "c"
        self.lease_s = lease_s
        self.clock = Clock()
        self._backends: list[EdgeBackend] = []
        self._client: Any = None
        self._url = os.environ.get("QDRANT_TEST_URL", "")
        self._name = f"deepread_races_{uuid.uuid4().hex[:12]}" if self._url else "c"
        if engine == "server":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._client = (
                    QdrantClient(url=self._url)
                    if self._url
                    else OneAtATime(QdrantClient(location=":memory:"))
                )

    def backend(self) -> Backend:
        if self.engine == "server":
            return ServerBackend(self._url or "http://simulated", self._name, client=self._client)
        backend = ProtocolOnly(self.path, wait=WAIT_S)
        self._backends.append(backend)
        return backend

    def view(self, clock: Callable[[], float] | None = None) -> Collection:
        """A process's view: its own cache (and repair at open, if the store exists)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # local mode: "payload indexes have no effect"
            return Collection(
                self.backend(), "c", EMBEDDING, clock=clock or self.clock, lease_s=self.lease_s
            )

    def restart(self) -> Collection:
        """The view of a process started after the others died: its clock past every
        lease (on the embedded engine, the store opened again too)."""
        self._close_backends()
        self.clock.advance(self.lease_s + 1)
        return self.view()

    def _close_backends(self) -> None:
        for backend in reversed(self._backends):  # the relayed ones first, the holder last
            backend.close()
        self._backends.clear()

    def close(self) -> None:
        self._close_backends()
        if self._url:  # a real server: leave nothing behind
            self._client.delete_collection(self._name)
            self._client.close()


def body(tag: str, n: int) -> list[str]:
    return [f"{tag} paragraph {i} of the {tag} version." for i in range(n)]


def put(view: Collection, source: str, tag: str, n: int = 3) -> Document:
    """Store ``source`` as ``n`` paragraphs of one section, texts marked with ``tag``."""
    texts = body(tag, n)
    sections = [Section(0, source, 0, None, [1]), Section(1, "Body", 1, 0, n_para=n)]
    paragraphs = [Paragraph(0, 1, i, t) for i, t in enumerate(texts)]
    rng = np.random.default_rng(zlib.crc32(f"{source}/{tag}".encode()))
    vectors = rng.random((n, DIM)) + 0.01
    return view.put_document(
        source, f"{source} ({tag})", sections, paragraphs, vectors, content_hash=tag
    )


def texts(view: Collection, doc: Document) -> list[str]:
    return [
        p.text
        for s in doc.sections
        for p in view.paragraphs(doc.doc_id, s.sec_id, 0, max(s.n_para - 1, 0))
    ]


def state(view: Collection) -> dict[str, list[str]]:
    """What a reader sees: each document's source and texts; and that it is whole."""
    seen = {}
    for doc in view.documents():
        got = texts(view, doc)
        assert len(got) == doc.n_para == view.count_paragraphs(doc.doc_id), doc.source
        seen[doc.source] = got
    return seen


def assert_settled(view: Collection) -> None:
    """Nothing of any write left behind: no hidden paragraph, no lease, no claim without
    a document, one source point per document and a document per source point."""
    backend = view.backend
    assert backend.count(HIDDEN) == 0
    points = backend.scroll(Match(equals={"record": "document"}), limit=1000)
    assert not [p for p in points if p.get("writer")], "a lease was left held"
    assert all(p.get("document") is not None and not p.get("deleting") for p in points)
    sources = backend.scroll(Match(equals={"record": "source"}), limit=1000)
    assert sorted((s["source"], s["doc_id"]) for s in sources) == sorted(
        (p["source"], p["doc_id"]) for p in points
    )
    assert backend.count(Match(equals={"record": "paragraph", "live": 1})) == sum(
        d.n_para for d in view.documents()
    )


class Writer(threading.Thread):
    """Runs ``work`` in a thread and keeps what it returned or raised."""

    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self._work = work
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self._work()
        except BaseException as exc:  # kept for the test to assert on
            self.error = exc

    def finish(self) -> Any:
        self.join(WAIT_S)
        assert not self.is_alive(), "the writer did not finish"
        if self.error is not None:
            raise self.error
        return self.result
