"""Small real HTTP servers on 127.0.0.1 for tests that need an endpoint to misbehave.

:class:`LocalServer` runs a ``BaseHTTPRequestHandler`` subclass in a daemon thread
(``ThreadingHTTPServer``), each request in its own thread, until :meth:`close`; its
``stop`` event lets handlers that hold a connection open (a slow drip, a hang) end.
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    """A handler that does not log each request to stderr."""

    server: LocalServer.Server  # type: ignore[assignment]

    def log_message(self, *args: object) -> None:
        del args

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))


class LocalServer:
    """``handler`` served on a free port of 127.0.0.1; ``url`` ends with ``/v1``."""

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        owner: LocalServer

    def __init__(self, handler: type[QuietHandler]) -> None:
        self.stop = threading.Event()
        #: What the handlers recorded of each request they received.
        self.requests: list[Any] = []
        #: When (``time.monotonic()``) handlers saw their client close the connection.
        self.closed: list[float] = []
        self.httpd = self.Server(("127.0.0.1", 0), handler)
        self.httpd.owner = self
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class CountingListener:
    """A local TCP listener that counts the connections it is offered."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()
