"""What ``deepread mcp`` reads from its stdin: every line answered as JSON-RPC asks.

The ``mcp`` package's stdio transport drops a line it cannot read as a message — one
that is not JSON, a JSON value that is not a request, and (its JSON parser refuses them)
a string holding a lone surrogate such as ``"\\ud800"`` — with no reply at all: the
client waits for ever. Here each line is read first:

* not JSON (nor JSON nested past what Python parses) → a ``-32700`` *Parse error* reply,
  ``id`` null;
* JSON that is not a message (an array, a request without a method or whose ``id`` is
  an object…) → ``-32600`` *Invalid Request*, with the request's ``id`` when it has a
  usable one, else null;
* lone surrogates in its strings → each replaced by U+FFFD, and the message is served
  (the tools clean queries the same way: :func:`deepread.text.hygiene.clean_query`).

The replies go out through the transport's own write stream, so they never interleave
with its messages on stdout.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import AsyncIterator
from typing import Any, cast

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from deepread.text.hygiene import brief

_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(value: Any) -> Any:
    """``value`` (parsed JSON) with every lone surrogate of its strings — keys included —
    replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    return value


def usable_id(value: Any) -> bool:
    """Whether ``value`` may be a request's id: a string or a whole number (MCP: never
    null, unlike JSON-RPC)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def _error(code: int, message: str, detail: str, request_id: Any = None) -> JSONRPCError:
    return JSONRPCError(
        jsonrpc="2.0",
        id=request_id if usable_id(request_id) else None,
        error=ErrorData(code=code, message=message, data=detail),
    )


def checked_line(line: str) -> str | JSONRPCError | None:
    """The line to hand the transport (cleaned), the error to answer it with, or
    ``None`` for a blank line (nothing was sent)."""
    if not line.strip():
        return None
    try:
        parsed = json.loads(line)
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return _error(PARSE_ERROR, "Parse error", f"the line cannot be read as JSON: {why}")
    cleaned = without_surrogates(parsed)
    request_id = cleaned.get("id") if isinstance(cleaned, dict) else None
    try:
        # With an id of another kind, the message would pass as a notification (which
        # nobody answers): it is a request with a bad id.
        request = isinstance(cleaned, dict) and {"method", "id"} <= cleaned.keys()
        if request and not usable_id(request_id):
            raise ValueError("the id is neither a string nor a whole number")
        jsonrpc_message_adapter.validate_python(cleaned, by_name=False)
    except (ValidationError, ValueError, RecursionError):
        return _error(
            INVALID_REQUEST,
            "Invalid Request",
            f"not a JSON-RPC 2.0 message (jsonrpc, id, method, params): {brief(parsed)}",
            request_id,
        )
    return json.dumps(cleaned)


class CheckedStdin:
    """The transport's stdin: the lines of ``lines`` that are messages, cleaned; the
    others answered on the write stream given to :meth:`answer_on`."""

    def __init__(self, lines: Any) -> None:
        self._lines = lines
        self._ready = anyio.Event()
        self._write: Any = None

    def answer_on(self, write_stream: Any) -> None:
        """Where the errors go: the transport's write stream, known once it is open."""
        self._write = write_stream
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._lines:
            checked = checked_line(line)
            if isinstance(checked, str):
                yield checked
            elif checked is not None:
                await self._ready.wait()
                await self._write.send(SessionMessage(checked))


async def serve_stdio(server: Any) -> None:
    """Run ``server`` (an ``MCPServer``) over stdin and stdout with every line checked
    (:class:`CheckedStdin`); stdout stays the transport's (stray output goes to stderr)."""
    # The transport's own reading, as it would do it: UTF-8, undecodable bytes replaced.
    text = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    stdin = CheckedStdin(anyio.wrap_file(text))
    # MCPServer runs its low-level server this way in run_stdio_async, which takes no
    # stdin of ours; the low-level server has no public accessor.
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=cast(Any, stdin)) as (read_stream, write_stream):
        stdin.answer_on(write_stream)
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
