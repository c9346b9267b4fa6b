"""``deepread mcp``: the three tools served over stdio to a real MCP client.

The server runs as its own process (``deepread mcp``), as an MCP host would start it, over
a store of the shipped library-json page; the client is the ``mcp`` package's own.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

import deepread

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
