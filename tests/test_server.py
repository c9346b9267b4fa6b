"""The exported graphs served by a real ``langgraph dev`` server, driven over HTTP.

One ``langgraph dev`` process (:mod:`langgraph_server`) serves ``langgraph.json`` with a
fresh embedded store; the tests touch it only through ``langgraph_sdk``.

The agent runs with no model configured, i.e. the offline extractive policy.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from langgraph_server import langgraph_dev

COLLECTION = "srv"
QUESTION = "What is name mangling of private variables?"
AGENT_NODES = {"toc", "compact", "policy", "tools", "check", "finalize"}


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with langgraph_dev(tmp_path_factory.mktemp("langgraph_dev")) as url:
        yield url


@pytest.fixture(scope="module")
def client(server_url: str) -> SyncLangGraphClient:
    return get_sync_client(url=server_url)


@pytest.fixture(scope="module")
def ingested(client: SyncLangGraphClient, devset: Path) -> dict[str, Any]:
    """The ``ingest`` graph's output for one devset page, run statelessly."""
    path = devset / "docs" / "tutorial-classes.html"
    return client.runs.wait(None, "ingest", input={"paths": [str(path)]},
                            context={"collection": COLLECTION})


@pytest.fixture(scope="module")
def first_turn(client: SyncLangGraphClient, ingested: dict[str, Any]) -> dict[str, Any]:
    """One question on a fresh thread, streamed as node updates."""
    thread_id = client.threads.create()["thread_id"]
    parts = list(client.runs.stream(thread_id, "deepread", input={"question": QUESTION},
                                    context={"collection": COLLECTION},
                                    stream_mode="updates"))
    return {"thread_id": thread_id, "parts": parts,
            "values": client.threads.get_state(thread_id)["values"]}


def _assert_answered(out: dict[str, Any]) -> None:
    assert out.get("error") in (None, ""), out.get("error")
    assert out["stop_reason"] == "answered"
    assert isinstance(out["answer"], str) and out["answer"].strip()
    assert isinstance(out["citations"], list) and out["citations"]
    for cite in out["citations"]:
        assert set(cite) == {"doc_id", "sec_id", "para_idx"}
        assert all(isinstance(cite[k], int) for k in cite)


def test_both_graphs_are_registered_as_assistants(client: SyncLangGraphClient) -> None:
    graph_ids = {a["graph_id"] for a in client.assistants.search()}
    assert {"deepread", "ingest"} <= graph_ids


def test_ingest_graph_stores_a_devset_page_in_the_named_collection(
        ingested: dict[str, Any]) -> None:
    assert ingested["failures"] == []
    [doc] = ingested["documents"]
    assert doc["source"].endswith("tutorial-classes.html")
    assert doc["sections"] > 0 and doc["paragraphs"] > 0 and doc["tokens"] > 0


def test_streamed_agent_run_visits_every_node_and_answers_with_citations(
        first_turn: dict[str, Any]) -> None:
    parts = first_turn["parts"]
    errors = [p.data for p in parts if p.event == "error"]
    assert not errors, errors
    updates = [p.data for p in parts if p.event == "updates"]
    visited = {node for update in updates for node in update}
    assert visited >= AGENT_NODES, visited
    assert "finalize" in updates[-1]
    _assert_answered(updates[-1]["finalize"])
    _assert_answered(first_turn["values"])
    assert first_turn["values"]["citations"] == updates[-1]["finalize"]["citations"]


def test_second_run_on_the_same_thread_answers_again_from_persisted_state(
        client: SyncLangGraphClient, first_turn: dict[str, Any]) -> None:
    thread_id = first_turn["thread_id"]
    before = first_turn["values"]
    out = client.runs.wait(thread_id, "deepread", input={"question": QUESTION},
                           context={"collection": COLLECTION})
    _assert_answered(out)
    values = client.threads.get_state(thread_id)["values"]
    _assert_answered(values)
    # the thread's history grew: both turns' messages are kept server-side
    assert len(values["messages"]) > len(before["messages"])
    # the second turn saw the first turn's read regions: repeats came back as pointers
    second_turn = values["messages"][len(before["messages"]):]
    assert any(m["type"] == "tool" and "already shown above" in m["content"]
               for m in second_turn)
    runs = client.runs.list(thread_id)
    assert len(runs) == 2 and all(r["status"] == "success" for r in runs)
