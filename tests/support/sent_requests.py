"""The HTTP requests httpx sends, counted, for tests that bound a client's work.

A refused connection or an error reply comes back in milliseconds, so how long a call
took says little on a loaded machine and nothing about retries: a loop that retries a
refusal three times is as quick. What the client sent is the measure — counted at the
transport (``httpx.HTTPTransport.handle_request``, which still sends each request).
"""

from __future__ import annotations

import httpx
import pytest


def sent_requests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs of the requests httpx's transport sends from now on, in order (the list
    fills as they are sent; ``monkeypatch`` undoes the counting at the test's end)."""
    sent: list[str] = []
    handle = httpx.HTTPTransport.handle_request

    def counted(self: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        return handle(self, request)

    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", counted)
    return sent
