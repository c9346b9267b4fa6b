"""Small real HTTP servers on 127.0.0.1 for tests that need an endpoint to misbehave.

:class:`LocalServer` runs a ``BaseHTTPRequestHandler`` subclass in a daemon thread
(``ThreadingHTTPServer``), each request in its own thread, until :meth:`close`; its
``stop`` event lets handlers that hold a connection open (a slow drip, a hang) end.
"""

from __future__ import annotations

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
        self.httpd = self.Server(("127.0.0.1", 0), handler)
        self.httpd.owner = self
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
