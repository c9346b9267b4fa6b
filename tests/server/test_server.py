"""The exported graphs served by a real ``langgraph dev`` server, driven over HTTP as
LangGraph Studio and API clients drive them (``langgraph_sdk``).

The server runs as an operator would start it: a store in ``DEEPREAD_STORE`` and the
shipped sample pages as the ingest root (``DEEPREAD_INGEST_ROOT``), nothing else. The
agent runs with no model configured, i.e. the offline extractive policy.

Covered: the JSON schemas Studio draws its forms from; the ``values``, ``updates`` and
``custom`` streams; context a client gets wrong (refused with a 4xx or a clear error, never
a raw TypeError); a server's bounds — paths outside the root, a client-chosen store,
over-cap limits — and documents sent as content; the served agent as a ``RemoteGraph``
node of a larger graph.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.pregel.remote import RemoteGraph
from langgraph.runtime import Runtime
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from support.langgraph_server import langgraph_dev
from support.local_http import CountingListener
from typing_extensions import TypedDict

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "tests" / "data" / "docs"
COLLECTION = "srv"
QUESTION = "What is name mangling of private variables?"
AGENT_NODES = {"toc", "compact", "policy", "retrieve", "read_section", "check", "finalize"}


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("langgraph_dev")
    with langgraph_dev(workdir, env={"DEEPREAD_INGEST_ROOT": str(DOCS)}) as url:
        yield url


@pytest.fixture(scope="module")
def client(server_url: str) -> SyncLangGraphClient:
    return get_sync_client(url=server_url)


@pytest.fixture(scope="module")
def ingested(client: SyncLangGraphClient) -> dict[str, Any]:
    """The ``ingest`` graph's output for one sample page inside the root, run statelessly."""
    return client.runs.wait(
        None,
        "ingest",
        input={"paths": [str(DOCS / "tutorial-classes.html")]},
        context={"collection": COLLECTION},
    )


@pytest.fixture(scope="module")
def first_turn(client: SyncLangGraphClient, ingested: dict[str, Any]) -> dict[str, Any]:
    """One question on a fresh thread, streamed as values, node updates and custom events."""
    thread_id = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(
            thread_id,
            "deepread",
            input={"question": QUESTION},
            context={"collection": COLLECTION},
            stream_mode=["values", "updates", "custom"],
        )
    )
    return {
        "thread_id": thread_id,
        "parts": parts,
        "values": client.threads.get_state(thread_id)["values"],
    }


def events(parts: list, kind: str) -> list[Any]:
    return [p.data for p in parts if p.event == kind]


def _assert_answered(out: dict[str, Any]) -> None:
    assert out.get("error") in (None, ""), out.get("error")
    assert out["stop_reason"] == "answered"
    assert isinstance(out["answer"], str) and out["answer"].strip()
    assert isinstance(out["citations"], list) and out["citations"]
    for cite in out["citations"]:
        assert {"doc_id", "sec_id", "para_idx"} <= set(cite)
        assert all(isinstance(cite[k], int) for k in ("doc_id", "sec_id", "para_idx"))


# -- the graphs, their schemas and streams (issue 12) -----------------------------------


def test_both_graphs_are_registered_as_assistants(client: SyncLangGraphClient) -> None:
    graph_ids = {a["graph_id"] for a in client.assistants.search()}
    assert {"deepread", "ingest"} <= graph_ids


@pytest.mark.parametrize(
    ("graph", "inputs", "outputs", "context"),
    [
        (
            "deepread",
            {"question", "messages"},
            {"answer", "citations", "stop_reason"},
            {"collection", "k", "max_rounds"},
        ),
        ("ingest", {"paths", "files"}, {"documents", "failures", "unsupported"}, {"collection"}),
    ],
)
def test_studio_gets_input_output_and_context_schemas_of_each_graph(
    client: SyncLangGraphClient, graph: str, inputs: set, outputs: set, context: set
) -> None:
    [assistant] = client.assistants.search(graph_id=graph)

    schemas = client.assistants.get_schemas(assistant["assistant_id"])

    for key, expected in (
        ("input_schema", inputs),
        ("output_schema", outputs),
        ("context_schema", context),
    ):
        schema = schemas.get(key)
        assert isinstance(schema, dict), f"{graph}: {key} is {schema!r}"
        assert expected <= set(schema.get("properties", {})), (graph, key, schema)


def test_each_graph_is_described_to_studio_as_langgraph_json_describes_it(
    client: SyncLangGraphClient,
) -> None:
    config = json.loads((REPO / "langgraph.json").read_text())["graphs"]

    for graph in ("deepread", "ingest"):
        [assistant] = client.assistants.search(graph_id=graph)
        assert assistant["description"] == config[graph]["description"]


def test_the_model_field_says_which_nodes_call_the_model(client: SyncLangGraphClient) -> None:
    [assistant] = client.assistants.search(graph_id="deepread")

    model = client.assistants.get_schemas(assistant["assistant_id"])["context_schema"][
        "properties"
    ]["model"]

    assert model["langgraph_nodes"] == ["policy", "check"]
    assert "enum" not in model  # this operator offers clients no model


def test_studio_form_describes_the_question_and_says_the_model_is_the_operators(
    client: SyncLangGraphClient,
) -> None:
    [assistant] = client.assistants.search(graph_id="deepread")

    schemas = client.assistants.get_schemas(assistant["assistant_id"])

    assert "question to answer" in schemas["input_schema"]["properties"]["question"]["description"]
    model = schemas["context_schema"]["properties"]["model"]["description"]
    assert "On a server only the operator sets it" in model


def test_ingest_graph_stores_a_sample_page_in_the_named_collection(
    ingested: dict[str, Any],
) -> None:
    assert ingested["failures"] == []
    [doc] = ingested["documents"]
    assert doc["source"].endswith("tutorial-classes.html")
    assert doc["sections"] > 0 and doc["paragraphs"] > 0 and doc["tokens"] > 0


def test_streamed_agent_run_visits_every_node_and_answers_with_citations(
    first_turn: dict[str, Any],
) -> None:
    parts = first_turn["parts"]
    assert not events(parts, "error"), events(parts, "error")
    updates = events(parts, "updates")
    visited = {node for update in updates for node in update}
    assert visited >= AGENT_NODES, visited
    assert "finalize" in updates[-1]
    _assert_answered(updates[-1]["finalize"])
    _assert_answered(first_turn["values"])
    assert first_turn["values"]["citations"] == updates[-1]["finalize"]["citations"]


def test_every_node_update_carries_what_the_node_did(first_turn: dict[str, Any]) -> None:
    """Studio's graph view shows each step: no node's update arrives empty."""
    empty = [
        node
        for update in events(first_turn["parts"], "updates")
        for node, value in update.items()
        if not value
    ]
    assert empty == []


def test_the_values_stream_ends_with_the_answer_as_an_ai_message(
    first_turn: dict[str, Any],
) -> None:
    last = events(first_turn["parts"], "values")[-1]
    message = last["messages"][-1]
    assert message["type"] == "ai"
    assert message["content"] == last["answer"]
    assert not message.get("tool_calls")
    # the agent's own instructions to the model are not shown as the user's words
    humans = [m["content"] for m in last["messages"] if m["type"] == "human"]
    assert humans == [QUESTION]


def test_the_custom_stream_shows_each_tool_call(first_turn: dict[str, Any]) -> None:
    custom = events(first_turn["parts"], "custom")
    calls = first_turn["values"]["tool_calls"]
    assert calls
    for name in {c["name"] for c in calls}:
        shown = [e for e in custom if name in json.dumps(e)]
        assert len(shown) >= sum(c["name"] == name for c in calls), (name, custom)


def test_second_run_on_the_same_thread_answers_again_from_persisted_state(
    client: SyncLangGraphClient, first_turn: dict[str, Any]
) -> None:
    thread_id = first_turn["thread_id"]
    before = first_turn["values"]
    out = client.runs.wait(
        thread_id, "deepread", input={"question": QUESTION}, context={"collection": COLLECTION}
    )
    _assert_answered(out)
    values = client.threads.get_state(thread_id)["values"]
    _assert_answered(values)
    # the thread's history grew: both turns' messages are kept server-side
    assert len(values["messages"]) > len(before["messages"])
    # the second turn saw the first turn's read regions: repeats came back as pointers
    second_turn = values["messages"][len(before["messages"]) :]
    assert any(m["type"] == "tool" and "(shown above)" in m["content"] for m in second_turn)
    runs = client.runs.list(thread_id)
    assert len(runs) == 2 and all(r["status"] == "success" for r in runs)


def refusal(
    client: SyncLangGraphClient,
    graph: str,
    context: dict[str, Any],
    payload: dict[str, Any] | None = None,
) -> str:
    """How the server refused ``context``: a 4xx's body, or the run's error.

    Fails the test when the run went ahead as if nothing were wrong, or when the error
    is a raw Python exception instead of a message for the client.
    """
    payload = payload or (
        {"question": QUESTION}
        if graph == "deepread"
        else {"files": [{"name": "x.md", "text": "# X\n\nSome text.\n"}]}
    )
    try:
        parts = list(
            client.runs.stream(None, graph, input=payload, context=context, stream_mode="values")
        )
    except httpx.HTTPStatusError as exc:
        assert 400 <= exc.response.status_code < 500, exc.response.text
        said = exc.response.text
    else:
        errors = events(parts, "error")
        values = events(parts, "values")
        final = values[-1] if values else {}
        if errors:
            said = json.dumps(errors)
        else:
            assert final.get("stop_reason") == "error" or final.get("error"), (
                f"{context} was acted on: {final}"
            )
            said = str(final.get("error"))
    for raw in ("TypeError", "AttributeError", "Traceback", "slice indices"):
        assert raw not in said, said
    return said


@pytest.mark.parametrize(
    ("context", "names"),
    [
        ({"k": "abc"}, "k"),
        ({"k": 3.7}, "k"),
        ({"k": -1}, "k"),
        ({"k": 0}, "k"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"max_round": 3}, "max_round"),
    ],
)
def test_a_bad_context_is_refused_with_a_message_naming_the_field(
    client: SyncLangGraphClient, ingested: dict[str, Any], context: dict[str, Any], names: str
) -> None:
    said = refusal(client, "deepread", {"collection": COLLECTION} | context)
    assert names in said


def test_a_question_that_is_not_text_is_refused(
    client: SyncLangGraphClient, ingested: dict[str, Any]
) -> None:
    said = refusal(client, "deepread", {"collection": COLLECTION}, {"question": 42})
    assert "question" in said


def test_an_unknown_collection_ends_the_turn_with_an_error_naming_no_other(
    client: SyncLangGraphClient, ingested: dict[str, Any]
) -> None:
    out = client.runs.wait(
        None, "deepread", input={"question": QUESTION}, context={"collection": "no-such-collection"}
    )
    assert out["stop_reason"] == "error"
    assert "'no-such-collection' does not exist" in out["error"]
    assert COLLECTION not in out["error"] and "/" not in out["error"]


@pytest.mark.parametrize(
    "context", [None, {"collection": COLLECTION}], ids=["no-context", "context"]
)
@pytest.mark.parametrize("graph", ["deepread", "ingest"])
def test_a_collection_named_in_the_checkpoint_is_refused_unless_it_is_the_contexts(
    client: SyncLangGraphClient, ingested: dict[str, Any], context: Any, graph: str
) -> None:
    """LangGraph merges ``checkpoint`` into ``configurable`` after the run's context was
    made, so the graph never opens a collection named there: the served factory refuses
    the run rather than let an auth hook check one collection and the graph use another
    (issue 38)."""
    payload = (
        {"question": QUESTION}
        if graph == "deepread"
        else {"files": [{"name": "x.md", "text": "# X\n\nSome text.\n"}]}
    )
    parts = list(
        client.runs.stream(
            None,
            graph,
            input=payload,
            context=context,
            checkpoint={"collection": "elsewhere" if context else COLLECTION},
            stream_mode="values",
        )
    )

    assert "set it in the context only" in json.dumps(events(parts, "error"))
    assert not events(parts, "values")  # refused before any node ran


# -- ingest over the API --------------------------------------------------------------


def test_an_ingest_streams_each_files_progress_as_custom_events(
    client: SyncLangGraphClient,
) -> None:
    files = [
        {"name": "one.md", "text": "# One\n\nThe first progress document.\n"},
        {"name": "two.md", "text": "# Two\n\nThe second progress document.\n"},
    ]

    parts = list(
        client.runs.stream(
            None,
            "ingest",
            input={"files": files},
            context={"collection": "progress"},
            stream_mode=["custom", "values"],
        )
    )

    stored = [e for e in events(parts, "custom") if e.get("ingest") == "stored"]
    assert [(e["file"], e["done"], e["total"]) for e in stored] == [
        ("one.md", 1, 2),
        ("two.md", 2, 2),
    ]


def test_documents_sent_as_content_are_ingested_and_then_cited(client: SyncLangGraphClient) -> None:
    text = (
        "# Kiwi care\n\nKiwi vines need a male plant within fifteen metres of every "
        "five female plants to bear fruit.\n\n# Pruning\n\nPrune in winter.\n"
    )

    out = client.runs.wait(
        None,
        "ingest",
        input={"files": [{"name": "kiwi.md", "text": text}]},
        context={"collection": "content"},
    )
    assert out["failures"] == [] and [d["source"] for d in out["documents"]] == ["kiwi.md"]

    answer = client.runs.wait(
        None,
        "deepread",
        input={"question": "How many male kiwi plants are needed?"},
        context={"collection": "content"},
    )
    _assert_answered(answer)
    assert "fifteen metres" in answer["answer"]


def test_a_citation_of_a_source_without_pages_opens_as_its_text_marked(
    server_url: str, first_turn: dict[str, Any]
) -> None:
    (cite, *_) = first_turn["values"]["citations"]
    assert cite["boxes"] == [] and cite["span"]  # an HTML page: a character range
    path = f"/deepread/passages/{COLLECTION}/{cite['doc_id']}/{cite['sec_id']}/{cite['para_idx']}"

    resp = httpx.get(f"{server_url}{path}.html", timeout=60)

    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/html")
    assert "<mark id='passage'>" in resp.text


# -- a server's bounds (issue 17) -------------------------------------------------------


def test_a_server_file_outside_the_ingest_root_is_refused_and_never_answered_from(
    client: SyncLangGraphClient, tmp_path: Path
) -> None:
    secret = tmp_path / "operator-notes.txt"
    secret.write_text("Operator notes\n\nThe vault combination is 7-1-9-4-4.\n")

    out = client.runs.wait(
        None, "ingest", input={"paths": [str(secret)]}, context={"collection": "outside"}
    )

    assert out["documents"] == []
    [failure] = out["failures"]
    assert failure["path"] == str(secret) and "outside the ingest root" in failure["reason"]
    answer = client.runs.wait(
        None,
        "deepread",
        input={"question": "What is the vault combination?"},
        context={"collection": "outside"},
    )
    assert "7-1-9-4-4" not in json.dumps(answer)


@pytest.mark.parametrize("graph", ["deepread", "ingest"])
def test_a_client_chosen_store_url_receives_no_connection(
    client: SyncLangGraphClient, graph: str
) -> None:
    listener = CountingListener()
    try:
        said = refusal(client, graph, {"collection": COLLECTION, "store": listener.url})
    finally:
        listener.close()
    assert listener.connections == 0
    assert "store" in said


@pytest.mark.parametrize("graph", ["deepread", "ingest"])
def test_a_client_chosen_store_path_creates_nothing(
    client: SyncLangGraphClient, tmp_path: Path, graph: str
) -> None:
    target = tmp_path / "client-store"

    said = refusal(client, graph, {"collection": COLLECTION, "store": str(target)})

    assert not target.exists()
    assert "store" in said


@pytest.mark.parametrize("field", ["max_rounds", "k", "toc_budget"])
def test_an_over_cap_value_is_refused_naming_the_field(
    client: SyncLangGraphClient, field: str
) -> None:
    said = refusal(client, "deepread", {"collection": COLLECTION, field: 10**9})
    assert field in said


# -- the served agent as a node of a larger graph (docs/api.md, "Inside a larger graph") --------


class Review(TypedDict, total=False):
    question: str
    answer: str
    citations: list


@dataclass
class ParentContext:
    collection: str = "default"


def parent_with(node: Any):
    builder = StateGraph(Review, context_schema=ParentContext)
    builder.add_node("reader", node)
    builder.add_edge(START, "reader")
    builder.add_edge("reader", END)
    return builder.compile()


def test_a_remote_graph_node_does_not_receive_the_parents_context(
    server_url: str, ingested: dict[str, Any]
) -> None:
    parent = parent_with(RemoteGraph("deepread", url=server_url))

    out = parent.invoke({"question": QUESTION}, context=ParentContext(collection=COLLECTION))

    # the remote run used the server's default collection, which is empty
    assert out["citations"] == []


def test_a_function_node_forwards_the_parents_context_to_the_remote_graph(
    server_url: str, ingested: dict[str, Any]
) -> None:
    remote = RemoteGraph("deepread", url=server_url)

    def reader(state: Review, runtime: Runtime[ParentContext]) -> dict[str, Any]:
        out = remote.invoke(
            {"question": state["question"]}, context={"collection": runtime.context.collection}
        )
        return {"answer": out["answer"], "citations": out["citations"]}

    out = parent_with(reader).invoke(
        {"question": QUESTION}, context=ParentContext(collection=COLLECTION)
    )

    assert out["citations"]
    assert "mangling" in out["answer"]
