"""Context validation and the operator policy over a real ``langgraph dev`` server.

The LangGraph API drops context keys the graph's schema does not list before the graph
runs, so only the served graph factory (graphs/served.py) sees a misspelled key; every
bad context must end the run with an error event that names the field — never a raw
``TypeError``, never a silently ignored value. The server is the one tests/test_server.py
starts (same fixtures), with the operator's store in ``DEEPREAD_STORE``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk.client import SyncLangGraphClient
from test_served_policy import CountingListener
from test_server import client, server_url  # noqa: F401  (fixtures: one server per module)

pytestmark = pytest.mark.slow
QUESTION = "Where does the walrus sleep?"


@pytest.fixture(scope="module")
def walrus(client: SyncLangGraphClient, tmp_path_factory: pytest.TempPathFactory) -> str:  # noqa: F811
    doc = tmp_path_factory.mktemp("docs") / "walrus.md"
    doc.write_text("# Walrus\n\n## Sleep\n\nThe walrus sleeps on ice floes.\n",
                   encoding="utf-8")
    out = client.runs.wait(None, "ingest", input={"paths": [str(doc)]},
                           context={"collection": "walrus"})
    assert out["failures"] == [] and out["documents"]
    return "walrus"


def _last(client: SyncLangGraphClient, context: dict[str, Any]) -> Any:  # noqa: F811
    parts = list(client.runs.stream(None, "deepread", input={"question": QUESTION},
                                    context=context, stream_mode="values"))
    return parts[-1]


@pytest.mark.parametrize(("context", "error", "says"), [
    ({"k": "abc"}, "ContextError", "context field 'k' = 'abc' (str)"),
    ({"k": 3.7}, "ContextError", "context field 'k' = 3.7 (float)"),
    ({"k": -1}, "ContextError", "greater than or equal to 1"),
    ({"max_rounds": 0}, "ContextError", "context field 'max_rounds' = 0"),
    ({"max_round": 3}, "ContextError", "'max_round' (did you mean 'max_rounds'?)"),
    ({"K": 3}, "ContextError", "'K' (did you mean 'k'?)"),
    ({"k": 10**6}, "PolicyError", "'k' may be at most 50 on this server"),
    ({"max_rounds": 10**9}, "PolicyError", "'max_rounds' may be at most 50"),
    ({"toc_budget": 10**9}, "PolicyError", "'toc_budget' may be at most"),
    ({"model": "gpt-4o"}, "PolicyError", "'model' is set by the server's operator"),
])
def test_a_bad_client_context_ends_the_run_with_an_error_event_naming_the_field(
        client: SyncLangGraphClient, walrus: str, context: dict[str, Any],  # noqa: F811
        error: str, says: str) -> None:
    last = _last(client, {"collection": walrus, **context})
    assert last.event == "error"
    assert last.data["error"] == error and says in last.data["message"]


def test_a_client_store_url_gets_no_connection_from_the_server(
        client: SyncLangGraphClient) -> None:  # noqa: F811
    listener = CountingListener()
    try:
        last = _last(client, {"store": listener.url})
    finally:
        listener.close()
    assert last.event == "error" and "'store' is set by the server's operator" in (
        last.data["message"])
    assert listener.connections == 0


def test_a_client_store_path_creates_nothing(client: SyncLangGraphClient,  # noqa: F811
                                             tmp_path: Path) -> None:
    wanted = tmp_path / "client-store"
    last = _last(client, {"store": str(wanted)})
    assert last.event == "error" and not wanted.exists()


def test_an_unknown_collection_ends_the_turn_naming_the_collections_there_are(
        client: SyncLangGraphClient, walrus: str) -> None:  # noqa: F811
    last = _last(client, {"collection": "nope"})
    assert last.event == "values" and last.data["stop_reason"] == "error"
    assert "collection 'nope' does not exist" in last.data["error"]
    assert f"'{walrus}'" in last.data["error"]


def test_a_good_client_context_is_answered(client: SyncLangGraphClient,  # noqa: F811
                                           walrus: str) -> None:
    last = _last(client, {"collection": walrus, "k": 3, "store": "", "model": ""})
    assert last.event == "values" and last.data["stop_reason"] == "answered"


def test_the_served_context_schemas_carry_constraints_and_the_ingest_one_is_small(
        client: SyncLangGraphClient) -> None:  # noqa: F811
    ids = {a["graph_id"]: a["assistant_id"] for a in client.assistants.search()}
    agent = client.assistants.get_schemas(ids["deepread"])["context_schema"]["properties"]
    ingest = client.assistants.get_schemas(ids["ingest"])["context_schema"]["properties"]
    assert agent["k"]["minimum"] == 1 and agent["window"]["maxItems"] == 2
    assert set(ingest) == {"store", "collection", "ocr_model", "vision_model",
                           "describe_model"}
