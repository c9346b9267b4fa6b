"""The process that holds a collection's engine answers the others' calls on it.

The embedded engine's files admit one opener at a time (:mod:`deepread.stores.edge`
holds the lock that decides which). Rather than have every other process wait — readers
locked out for a whole ingest, writers taking turns at opening the files, which the
engine does not survive (:meth:`deepread.stores.shard.Shard.load`) — the holder runs a
small server beside its work: every other deepread process on the same machine sends
its calls (:data:`deepread.stores.shard.CALLS`) over a local socket and the holder runs
them on its open shard, one thread per caller. So a chat, ``docs``, ``search``, the MCP
server or a served graph answer while an ingest writes, and two ingests write at once
through one engine, their documents kept apart by the write protocol
(:mod:`deepread.stores.writers`) as on a Qdrant server.

Where: Linux's abstract socket namespace (no file left behind by a killed holder, no
path-length limit), else a socket file in a private temporary folder; the address is in
the holder's note (:mod:`deepread.stores.holder`). Who: a caller must run as the same
user (the peer's credentials, where the system gives them; the folder's mode otherwise)
and name the same collection in its first message.

Wire: a message is its length (8 bytes) and a pickle read by an unpickler that admits
only the records a call carries (:class:`~deepread.stores.backend.PointData`,
:class:`~deepread.stores.backend.ScoredPayload`, :class:`~deepread.stores.schema.Match`)
— anything else is refused, so a message can never name code to run. A request is
``(name, args)``; a reply ``("ok", value)`` or ``("error", kind, message)``.

A caller whose holder goes away (it let go, ended, or was killed) gets
:class:`RelayGone` and takes the collection again (:mod:`deepread.stores.edge`): it may
become the holder itself. A call the old holder ran but never answered is sent again;
every call the write protocol makes can be (an insert never overwrites, each conditional
update is read back), so nothing is applied twice in effect.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import shutil
import socket
import struct
import sys
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

from deepread.records.errors import StoreBusy, StoreError
from deepread.stores.disk_space import NoSpaceError
from deepread.stores.shard import CALLS, Shard

_LENGTH = struct.Struct(">Q")
#: The largest message either side accepts (a batch of 256 paragraphs with their vectors
#: is ~1 MB; a document list of a large library tens of MB).
MAX_MESSAGE = 1 << 30
#: Seconds a caller waits for the holder to answer one call before it says the holder
#: does not answer (a holder stopped with Ctrl-Z, say). Building the vector index is the
#: one call allowed to take longer.
REPLY_S = 60.0
#: Seconds a holder that lets go gives the calls it is running to finish.
GRACE_S = 10.0

_ALLOWED = {
    ("deepread.stores.backend", "PointData"),
    ("deepread.stores.backend", "ScoredPayload"),
    ("deepread.stores.schema", "Match"),
}
_ERRORS: dict[str, type[Exception]] = {
    "StoreError": StoreError,
    "NoSpaceError": NoSpaceError,
    "ValueError": ValueError,
}


class RelayGone(Exception):
    """The holder this caller talked to is gone or letting go: take the collection again."""


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a relay message may not name {module}.{name}")


def _send(sock: socket.socket, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_LENGTH.pack(len(data)) + data)


def _exactly(sock: socket.socket, n: int) -> bytes:
    parts, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the connection")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _receive(sock: socket.socket) -> Any:
    (size,) = _LENGTH.unpack(_exactly(sock, _LENGTH.size))
    if size > MAX_MESSAGE:
        raise pickle.UnpicklingError(f"a relay message of {size} bytes is too large")
    return _Unpickler(io.BytesIO(_exactly(sock, size))).load()


def available() -> bool:
    """Whether this system has local sockets to relay calls over."""
    return hasattr(socket, "AF_UNIX")


def _same_user(conn: socket.socket) -> bool:
    """Whether the peer runs as this process's user (or root); ``True`` where the system
    does not say (there the socket's private folder keeps others out)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, 12))
    return uid in (os.getuid(), 0)


def _connectable(address: str) -> str | bytes:
    """The note's text form of an address (``@name`` for the abstract namespace) as
    ``socket.connect`` takes it."""
    return "\0" + address[1:] if address.startswith("@") else address


class RelayServer:
    """Answers other processes' calls on ``shard`` until :meth:`stop`; ``address`` is
    what their notes name."""

    def __init__(self, shard: Shard, collection: Path) -> None:
        self._shard = shard
        self._collection = str(collection.resolve())
        self._folder: str | None = None
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if sys.platform.startswith("linux"):
                self.address = f"@deepread-relay-{os.getpid()}-{uuid.uuid4().hex}"
            else:
                self._folder = tempfile.mkdtemp(prefix="deepread-relay-")  # mode 0700
                self.address = os.path.join(self._folder, "socket")
            listener.bind(_connectable(self.address))
            listener.listen(64)
        except OSError:
            listener.close()
            self._remove_folder()
            raise
        self._listener = listener
        self._state = threading.Condition()
        self._running = 0  # calls being run or answered
        self._stopping = False
        self._connections: set[socket.socket] = set()
        threading.Thread(target=self._accept, name="deepread-relay", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # stopped
            with self._state:
                if self._stopping or not _same_user(conn):
                    conn.close()
                    continue
                self._connections.add(conn)
            threading.Thread(
                target=self._serve, args=(conn,), name="deepread-relay-call", daemon=True
            ).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            hello = _receive(conn)
            if hello != ("hello", self._collection):
                _send(conn, ("error", "StoreError", "this holder serves another collection"))
                return
            _send(conn, ("ok", os.getpid()))
            while True:
                name, args = _receive(conn)
                with self._state:
                    if self._stopping:
                        return  # the caller sees the connection close: it takes it again
                    self._running += 1
                try:
                    _send(conn, self._run(name, args))
                finally:
                    with self._state:
                        self._running -= 1
                        self._state.notify_all()
        except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError):
            return  # the caller went away, or sent what no caller sends
        finally:
            with self._state:
                self._connections.discard(conn)
            conn.close()

    def _run(self, name: Any, args: Any) -> tuple[Any, ...]:
        if name not in CALLS or not isinstance(args, tuple):
            return ("error", "StoreError", f"a relay call may not be {name!r}")
        try:
            return ("ok", getattr(self._shard, name)(*args))
        except Exception as exc:
            kind = next((k for k, t in _ERRORS.items() if type(exc) is t), "StoreError")
            return ("error", kind, str(exc))

    def answering(self) -> bool:
        """Whether another process is connected (it may be in the middle of a write)."""
        with self._state:
            return bool(self._connections)

    def stop(self, grace: float = GRACE_S) -> None:
        """Take no more calls, let the running ones finish (up to ``grace`` seconds),
        then close every connection: their callers take the collection again."""
        with self._state:
            self._stopping = True
        with contextlib.suppress(OSError):  # (wakes the accepting thread)
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._state:
            self._state.wait_for(lambda: self._running == 0, timeout=grace)
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._remove_folder()

    def _remove_folder(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


class RelayClient:
    """This process's calls on a collection another process holds, sent to that holder
    (one connection per thread, so threads of one reader do not queue behind each
    other)."""

    def __init__(self, address: str, collection: Path, holder: str, timeout: float) -> None:
        self.address = address
        self.holder = holder  # "deepread ingest (pid N)", for messages
        self._timeout = timeout  # for connecting and the holder's first answer
        self._collection = str(collection.resolve())
        self._local = threading.local()
        self._all: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        self._connection()  # fails now (RelayGone) if the holder does not answer

    def _connection(self) -> socket.socket:
        conn: socket.socket | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if self._closed:
            raise RelayGone("closed")
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(self._timeout)
        try:
            conn.connect(_connectable(self.address))
            _send(conn, ("hello", self._collection))
            reply = _receive(conn)
        except (OSError, EOFError, pickle.UnpicklingError) as exc:  # a timeout included
            conn.close()
            raise RelayGone(str(exc)) from None
        if reply[0] != "ok":
            conn.close()
            raise RelayGone(str(reply[-1]))
        self._local.conn = conn
        with self._lock:
            self._all.append(conn)
        return conn

    def _forget(self, conn: socket.socket) -> None:
        self._local.conn = None
        with self._lock:
            if conn in self._all:
                self._all.remove(conn)
        conn.close()

    def call(self, name: str, args: tuple[Any, ...]) -> Any:
        """Run ``name(*args)`` in the holder; :class:`RelayGone` if it is gone,
        :class:`StoreError` if it does not answer within :data:`REPLY_S` seconds."""
        conn = self._connection()
        # Building the vector index takes as long as it takes (minutes on a big store).
        conn.settimeout(None if name == "optimize" else REPLY_S)
        try:
            _send(conn, (name, args))
            reply = _receive(conn)
        except TimeoutError:
            self._forget(conn)
            raise StoreBusy(
                f"the store {self._collection} is held by {self.holder}, which did not "
                f"answer within {REPLY_S:g} s (is it stopped? Ctrl-Z, a debugger); "
                "resume or end it and try again"
            ) from None
        except (OSError, EOFError, pickle.UnpicklingError) as exc:
            self._forget(conn)
            raise RelayGone(str(exc)) from None
        if reply[0] == "ok":
            return reply[1]
        raise _ERRORS.get(reply[1], StoreError)(reply[2])

    def close(self) -> None:
        with self._lock:
            self._closed, connections, self._all = True, self._all, []
        for conn in connections:
            conn.close()
