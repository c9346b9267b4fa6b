"""``deepread mcp``: the three tools served over stdio to a real MCP client.

The server runs as its own process (``deepread mcp``), as an MCP host would start it, over
a store of the shipped library-json page; the client is the ``mcp`` package's own.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import deepread
from deepread.stores.file_locks import EngineLock

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed (deepread[mcp])")

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parents[1] / "data" / "docs"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("mcp") / "store"
    with deepread.Index.open(store=store, collection="json") as idx:
        idx.ingest([DOCS / "library-json.html"])
    return store


@pytest.fixture(scope="module")
def results(store: Path) -> dict:
    """One session with ``deepread mcp`` started as a subprocess, as an MCP host does:
    the tool listing and the answers to a few calls (one process: it starts slowly)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("deepread")),
        args=["mcp", "--store", str(store), "--collection", "json", "--k", "3"],
    )

    async def main() -> dict:
        async with Client(params) as client:
            return {
                "tools": (await client.list_tools()).tools,
                "toc": await client.call_tool("toc", {}),
                "retrieve": await client.call_tool("retrieve", {"query": "sort_keys"}),
                "read": await client.call_tool(
                    "read_section", {"doc_id": 1, "sec_id": 2, "start": 0, "end": 2}
                ),
                "bad": await client.call_tool(
                    "read_section", {"doc_id": 7, "sec_id": 0, "start": 0, "end": 2}
                ),
            }

    return asyncio.run(main())


def text_of(result) -> str:
    return "\n".join(part.text for part in result.content if hasattr(part, "text"))


def test_an_mcp_client_lists_the_four_tools_with_their_arguments(results: dict) -> None:
    listed = {t.name: t for t in results["tools"]}

    assert set(listed) == {"retrieve", "read_section", "toc", "find_documents"}
    assert set(listed["read_section"].input_schema["properties"]) == {
        "doc_id",
        "sec_id",
        "start",
        "end",
    }
    assert set(listed["find_documents"].input_schema["properties"]) == {"query"}
    assert all(t.description for t in listed.values())


def test_an_mcp_client_locates_then_reads_with_coordinates(results: dict) -> None:
    toc, hits, read = results["toc"], results["retrieve"], results["read"]

    assert not toc.is_error and "(1) [0]" in text_of(toc)
    assert not hits.is_error and "sort_keys" in text_of(hits) and "[1:" in text_of(hits)
    assert not read.is_error and "[1:2:0]" in text_of(read)


def test_a_bad_mcp_tool_call_is_a_tool_error_saying_what_is_wrong(results: dict) -> None:
    bad = results["bad"]

    assert bad.is_error
    assert "7" in text_of(bad)


# -- every line gets an answer (issue 38) ----------------------------------------------------


class Wire:
    """``deepread mcp`` as a process, spoken to line by line as a raw JSON-RPC client: what
    a line gets back, or ``None`` when nothing comes within the wait."""

    def __init__(self, store: Path) -> None:
        self.proc = subprocess.Popen(
            [
                *[str(Path(sys.executable).with_name("deepread")), "mcp"],
                *["--store", str(store), "--collection", "json"],
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.pending = b""

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def reply(self, wait: float = 10.0) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        fd, deadline = self.proc.stdout.fileno(), time.monotonic() + wait
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def ask(self, line: bytes) -> dict[str, Any] | None:
        self.send(line)
        return self.reply()

    def close(self) -> tuple[int, str]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read().decode("utf-8", "replace")


def message(**fields: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **fields}).encode()


def tool_call(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    return message(
        id=request_id, method="tools/call", params={"name": name, "arguments": arguments}
    )


@pytest.fixture(scope="module")
def wire(store: Path) -> dict[str, Any]:
    """One raw session: initialize, then each bad line and what it got back, then a good
    call to show the server still serves."""
    session = Wire(store)
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
    session.send(message(id=1, method="initialize", params=init))
    # (its start — imports, the store opened — takes seconds more on a loaded machine)
    answers: dict[str, Any] = {"init": session.reply(wait=120)}
    session.send(message(method="notifications/initialized"))
    lines = {
        "not json": b"this is not json",
        "truncated": b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"',
        "not utf-8": b"\xff\xfe{}",
        "deep": b"[" * 100_000 + b"]" * 100_000,
        "array": b"[1, 2]",
        "no method": message(id=5),
        "no jsonrpc": b'{"id": 6, "method": "tools/list"}',
        "bad id": message(id={"a": 1}, method="tools/list"),
        "surrogate": b'{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": '
        b'{"name": "retrieve", "arguments": {"query": "sort_keys \\ud800"}}}',
        "surrogate key": b'{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": '
        b'{"name": "toc", "arguments": {"\\udc00": 1}}}',
        "negative doc": tool_call(
            10, "read_section", {"doc_id": -1, "sec_id": 0, "start": 0, "end": 2}
        ),
        "huge doc": tool_call(11, "toc", {"doc_id": 2**64}),
        "true doc": tool_call(
            13, "read_section", {"doc_id": True, "sec_id": 0, "start": 0, "end": 2}
        ),
        "true toc": tool_call(14, "toc", {"doc_id": True}),
        "true in a list": tool_call(15, "retrieve", {"query": "sort_keys", "doc_id": [True]}),
        "after": tool_call(12, "toc", {}),
    }
    for name, line in lines.items():
        answers[name] = session.ask(line)
    answers["exit"] = session.close()
    return answers


@pytest.mark.parametrize("name", ["not json", "truncated", "not utf-8", "deep"])
def test_a_line_that_is_not_json_gets_a_parse_error(wire: dict[str, Any], name: str) -> None:
    answer = wire[name]

    assert answer is not None, "no reply: the client would wait for ever"
    assert answer["id"] is None
    assert answer["error"]["code"] == -32700 and answer["error"]["message"] == "Parse error"


@pytest.mark.parametrize(
    ("name", "request_id"), [("array", None), ("no method", 5), ("no jsonrpc", 6), ("bad id", None)]
)
def test_json_that_is_not_a_request_gets_invalid_request(
    wire: dict[str, Any], name: str, request_id: int | None
) -> None:
    answer = wire[name]

    assert answer is not None, "no reply: the client would wait for ever"
    assert answer["id"] == request_id
    assert answer["error"]["code"] == -32600


def test_a_lone_surrogate_in_a_tool_call_is_cleaned_and_the_call_answered(wire) -> None:
    answer = wire["surrogate"]

    assert answer is not None and answer["id"] == 8
    assert not answer["result"]["isError"]
    assert "sort_keys" in answer["result"]["content"][0]["text"]
    assert wire["surrogate key"] is not None and wire["surrogate key"]["id"] == 9


@pytest.mark.parametrize("name", ["negative doc", "huge doc"])
def test_a_doc_id_out_of_range_is_a_tool_error_without_internals(wire, name, store) -> None:
    answer = wire[name]

    text = answer["result"]["content"][0]["text"]
    assert answer["result"]["isError"]
    assert "doc_id must be a whole number from 0 to 9223372036854775807" in text
    assert "Helper" not in text and str(store) not in text


@pytest.mark.parametrize("name", ["true doc", "true toc", "true in a list"])
def test_true_where_an_id_is_expected_is_a_tool_error_not_document_1(wire, name) -> None:
    answer = wire[name]

    assert answer["result"]["isError"], answer
    assert "whole number" in answer["result"]["content"][0]["text"]


def test_the_server_serves_on_after_bad_lines_and_exits_cleanly(wire) -> None:
    assert wire["after"] is not None and not wire["after"]["result"]["isError"]
    assert "(1) [0]" in wire["after"]["result"]["content"][0]["text"]
    code, stderr = wire["exit"]
    assert code == 0 and "Traceback" not in stderr


def test_an_idle_mcp_server_holds_no_store_and_answers_after_others_used_it(store: Path) -> None:
    session = Wire(store)
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
    try:
        session.send(message(id=1, method="initialize", params=init))
        assert session.reply(wait=120) is not None  # (a loaded machine starts it slowly)
        session.send(message(method="notifications/initialized"))
        session.send(tool_call(2, "toc", {}))
        assert session.reply(wait=120) is not None  # it has served a call

        lock, deadline = EngineLock(store / "collections" / "json"), time.monotonic() + 30
        while not lock.take():  # it lets go a second after its last call
            assert time.monotonic() < deadline, "the idle server still holds the store"
            time.sleep(0.2)
        lock.release()
        docs = subprocess.run(
            [str(Path(sys.executable).with_name("deepread")), "docs", "--store", str(store),
             "--collection", "json"],
            capture_output=True, text=True, timeout=120, check=False,
            env=os.environ | {"DEEPREAD_STORE_WAIT": "0"},
        )  # fmt: skip
        assert docs.returncode == 0, docs.stderr

        session.send(tool_call(3, "retrieve", {"query": "sort_keys"}))
        answer = session.reply(wait=120)
        assert answer is not None and not answer["result"].get("isError"), answer
    finally:
        session.close()
