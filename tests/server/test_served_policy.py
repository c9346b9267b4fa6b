"""The operator policy of served graphs (graphs/served.py), and which index a graph reads.

The served graphs are run in-process here, through the same factory and context schema
``langgraph.json`` serves; the tests over a real ``langgraph dev`` live in
tests/test_server*.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph_sdk.runtime import _ExecutionRuntime, _ReadRuntime
from support.layout import ROOT
from support.local_http import CountingListener
from support.scripted import ScriptedChatModel

import deepread
from deepread.graphs import agent, ingest
from deepread.graphs.served import (
    CAPS,
    PolicyError,
    check_client_context,
    current_policy,
    served_schema,
)
from deepread.nodes.context import Context, ContextError, IngestContext

DOC = "# Walrus\n\n## Sleep\n\nThe walrus sleeps on ice floes.\n"


@pytest.fixture()
def operator_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The operator's store (DEEPREAD_STORE) with collections 'alpha' and 'beta'."""
    store = tmp_path / "operator-store"
    doc = tmp_path / "walrus.md"
    doc.write_text(DOC, encoding="utf-8")
    for name in ("alpha", "beta"):
        with deepread.Index.open(store=store, collection=name) as idx:
            idx.ingest([doc])
    monkeypatch.setenv("DEEPREAD_STORE", str(store))
    return store


def run_served(context: dict) -> dict:
    return agent.served_graph().invoke(
        {"question": "Where does the walrus sleep?"}, context=context
    )


# -- what a client may set ----------------------------------------------------------------


def test_a_client_store_url_is_refused_and_receives_no_connection(operator_store):
    listener = CountingListener()
    try:
        with pytest.raises(PolicyError, match="'store' is set by the server's operator"):
            run_served({"store": listener.url})
    finally:
        listener.close()
    assert listener.connections == 0


def test_a_client_store_path_is_refused_and_creates_nothing(operator_store, tmp_path):
    wanted = tmp_path / "client-store"
    with pytest.raises(PolicyError, match="'store'"):
        run_served({"store": str(wanted), "collection": "alpha"})
    assert not wanted.exists()


@pytest.mark.parametrize(
    ("field", "value", "cap"),
    [
        ("k", 10**6, CAPS["k"]),
        ("max_rounds", 10**9, CAPS["max_rounds"]),
        ("toc_budget", 10**9, CAPS["toc_budget"]),
        ("notes_budget", 10**9, CAPS["notes_budget"]),
    ],
)
def test_a_value_over_its_cap_is_refused_naming_the_field_and_the_cap(field, value, cap):
    with pytest.raises(PolicyError, match=rf"'{field}' may be at most {cap} on this server"):
        check_client_context(Context, {field: value})


def test_a_window_over_its_cap_is_refused():
    with pytest.raises(PolicyError, match=f"each number of window may be at most {CAPS['window']}"):
        check_client_context(Context, {"window": [0, 99]})


def test_the_operator_sets_the_caps(monkeypatch):
    monkeypatch.setenv("DEEPREAD_SERVE_MAX_K", "8")
    assert check_client_context(Context, {"k": 8}).k == 8
    with pytest.raises(PolicyError, match="at most 8"):
        check_client_context(Context, {"k": 9})


def test_a_cap_the_operator_mistyped_is_named(monkeypatch):
    monkeypatch.setenv("DEEPREAD_SERVE_MAX_K", "many")
    with pytest.raises(ValueError, match="DEEPREAD_SERVE_MAX_K"):
        current_policy()


@pytest.mark.parametrize("field", ["store", "model_retries"])
def test_operator_fields_are_refused_from_clients(field):
    value = {"store": "/elsewhere", "model_retries": 9}[field]
    with pytest.raises(PolicyError, match=f"'{field}' is set by the server's operator"):
        check_client_context(Context, {field: value})


@pytest.mark.parametrize("field", ["ocr_model", "vision_model", "describe_model", "store"])
def test_the_ingest_models_and_store_are_the_operators(field):
    with pytest.raises(PolicyError, match=f"'{field}' is set by the server's operator"):
        check_client_context(IngestContext, {field: "gpt-4o"})


def test_a_client_model_is_refused_unless_the_operator_lists_it(monkeypatch):
    with pytest.raises(PolicyError, match="lets clients choose no model"):
        check_client_context(Context, {"model": "gpt-4o"})
    monkeypatch.setenv("DEEPREAD_SERVE_MODELS", "gpt-4o-mini, gpt-4o")
    assert check_client_context(Context, {"model": "gpt-4o"}).model == "gpt-4o"
    with pytest.raises(PolicyError, match="choose one of gpt-4o, gpt-4o-mini"):
        check_client_context(Context, {"model": "o3"})


def test_an_operator_field_sent_at_its_default_keeps_the_operators_value(monkeypatch):
    # Studio's form sends every field; "" means "the operator's", not "no model".
    monkeypatch.setenv("DEEPREAD_MODEL", "operator-model")
    got = check_client_context(Context, {"store": "", "model": "", "k": 3})
    assert (got.model, got.k, got.given) == ("operator-model", 3, {"k"})


def test_client_values_beat_the_operators_defaults_within_the_caps(monkeypatch):
    monkeypatch.setenv("DEEPREAD_K", "10")
    assert check_client_context(Context, {"k": 5}).k == 5
    assert check_client_context(Context, {}).k == 10


def test_a_misspelled_field_is_refused_naming_the_field_meant():
    with pytest.raises(ContextError, match=r"'max_round' \(did you mean 'max_rounds'\?\)"):
        check_client_context(Context, {"max_round": 3})


def test_langgraphs_own_configurable_keys_are_not_taken_for_misspellings():
    assert (
        check_client_context(
            Context, {"thread_id": "t", "__after_seconds__": 0, "langgraph_request_id": "r", "k": 2}
        ).k
        == 2
    )


def test_the_factory_refuses_a_bad_client_context_before_building_anything():
    runtime = _ExecutionRuntime(
        access_context="threads.create_run", user=None, store=None, context={"K": 3}
    )
    with pytest.raises(ContextError, match="did you mean 'k'"):
        agent.graph(runtime)


@pytest.mark.parametrize(
    ("context", "configurable"),
    [({}, {"collection": "alpha"}), ({"collection": "alpha"}, {"collection": "beta"})],
)
def test_the_factory_refuses_a_run_whose_config_names_another_collection(context, configurable):
    """A run's ``checkpoint`` reaches ``configurable`` after its context was made (issue
    38): a collection there is never the one the graph opens, so none may differ."""
    runtime = _ExecutionRuntime(
        access_context="threads.create_run", user=None, store=None, context=context
    )
    with pytest.raises(PolicyError, match="set it in the context only"):
        agent.graph(runtime, {"configurable": {**configurable, "thread_id": "t"}})


def test_the_factory_accepts_a_config_that_repeats_the_contexts_collection():
    runtime = _ExecutionRuntime(
        access_context="threads.create_run", user=None, store=None, context={"collection": "a"}
    )
    assert agent.graph(runtime, {"configurable": {"collection": "a"}}) is agent.graph(runtime)


def test_the_factory_returns_one_graph_under_the_policy_for_runs_and_reads():
    run = _ExecutionRuntime(
        access_context="threads.create_run", user=None, store=None, context={"k": 3}
    )
    read = _ReadRuntime(access_context="assistants.read", user=None, store=None)
    served = agent.graph(run)
    assert agent.graph(read) is served
    assert served.context_schema is served_schema(Context)
    assert ingest.graph(read).context_schema is served_schema(IngestContext)


def test_python_graphs_are_not_under_the_policy(operator_store):
    out = deepread.build_graph().invoke(
        {"question": "Where does the walrus sleep?"},
        context=Context(collection="alpha", k=500, max_rounds=1000, toc_budget=10**6),
    )
    assert out["stop_reason"] == "answered"


# -- which index a graph reads ------------------------------------------------------------


def test_an_unknown_collection_ends_the_turn_naming_neither_the_others_nor_the_store(
    operator_store,
):
    """A served client reads its thread's error: the names of the other collections
    (other users' on a shared server) and the store's location are not its to know
    (issue 38 §3; was: "… in store /abs/path; collections there: 'alpha', 'beta'")."""
    out = run_served({"collection": "gamma"})
    assert out["stop_reason"] == "error"
    assert out["error"] == "collection 'gamma' does not exist (ingest documents into it first)"
    assert not (operator_store / "collections" / "gamma").exists()


def test_a_served_question_is_answered_from_the_collection_the_client_names(operator_store):
    out = run_served({"collection": "beta", "k": 3})
    assert out["stop_reason"] == "answered" and out["citations"]


def test_a_graph_with_a_fixed_index_refuses_a_context_that_names_a_collection(tmp_path):
    doc = tmp_path / "walrus.md"
    doc.write_text(DOC, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "s", collection="fixed") as idx:
        idx.ingest([doc])
        graph = deepread.build_graph(index=idx, model=ScriptedChatModel(steps=[]))
        out = graph.invoke({"question": "q?"}, context=Context(collection="other"))
    assert out["stop_reason"] == "error"
    assert "built with a fixed index (collection 'fixed'" in out["error"]
    assert "may not name collection too" in out["error"]


def _documented_fields(answer: str) -> set[str]:
    """The fields the table in docs/deployment.md ("The operator policy") marks with
    ``answer`` in its "a client may set it?" column."""
    text = (ROOT / "docs" / "deployment.md").read_text()
    table = text.split("### The operator policy", 1)[1].split("\n\n", 2)[1]
    out: set[str] = set()
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if cells[2].startswith(answer):
            out.update(f.strip("` ") for f in cells[0].split(","))
    return out


def test_the_deployment_table_lists_exactly_the_fields_a_client_may_set() -> None:
    from deepread.graphs.served import CLIENT_FIELDS

    documented = _documented_fields("yes")

    assert documented == set(CLIENT_FIELDS[Context]) | set(CLIENT_FIELDS[IngestContext])
    assert "answer_type_check" in documented


def test_a_client_may_set_answer_type_check_as_the_deployment_table_says() -> None:
    context = check_client_context(agent.Context, {"answer_type_check": False})

    assert context.answer_type_check is False


@pytest.mark.parametrize(
    "context",
    [
        {"documents": list(range(100_000))},
        {"documents": ["x"] * 100_000},
        {"k": "9" * 100_000},
        {f"unknown_{i}": 1 for i in range(10_000)},
    ],
    ids=["many-ids", "many-bad-ids", "huge-string", "many-unknown-fields"],
)
def test_a_refused_value_is_echoed_bounded(context: dict) -> None:
    with pytest.raises(ContextError) as caught:
        check_client_context(agent.Context, context)

    assert len(str(caught.value)) < 1_000, str(caught.value)[:2000]


def test_a_refused_collection_name_is_echoed_bounded() -> None:
    from deepread.records.locations import check_collection_name

    with pytest.raises(ValueError) as caught:
        check_collection_name("a" * 1_000_000)

    assert len(str(caught.value)) < 300 and "(1000000 characters)" in str(caught.value)
