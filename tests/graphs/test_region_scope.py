"""Read-region memory is kept per collection (issue 29 §2): a thread that asks collection
``a`` and then collection ``b`` must see b's paragraphs, not pointers to a's text that
happens to have the same coordinates; and a thread written before memory was scoped still
runs.

Two real collections whose paragraph ``[1:1:0]`` differ; one checkpointer and thread
shared by a graph reading each (as one server thread whose runs name ``a`` then ``b``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from support.citations import coordinates
from support.scripted import ScriptedChatModel, ai, call

import deepread
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.read_memory import index_scope, region_key, region_scope, view

THREAD = {"configurable": {"thread_id": "both"}}
POINTER = "(shown above)"
DOCS = {
    "a": "# Apples\n\nApples grow in orchards of the north.\n\nThey ripen in autumn.\n",
    "b": "# Boats\n\nBoats are moored in the harbour.\n\nThey sail at dawn.\n",
}


@pytest.fixture(scope="module")
def collections(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, deepread.Index]]:
    folder = tmp_path_factory.mktemp("scopes")
    out: dict[str, deepread.Index] = {}
    for name, text in DOCS.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
        out[name] = deepread.Index.open(store=folder / "store", collection=name)
        out[name].ingest([folder / f"{name}.md"])
    yield out
    for idx in out.values():
        idx.close()


def read_then_answer(answer: str) -> ScriptedChatModel:
    return ScriptedChatModel(
        steps=[
            ai(call("read_section", {"doc_id": 1, "sec_id": 1, "start": 0, "end": 0})),
            ai(content=answer),
        ]
    )


def last_result(graph) -> ToolMessage:
    return [m for m in graph.get_state(THREAD).values["messages"] if isinstance(m, ToolMessage)][-1]


def test_a_thread_reading_two_collections_is_shown_each_ones_text(collections) -> None:
    saver = InMemorySaver()
    in_a = build_graph(
        index=collections["a"], model=read_then_answer("Orchards [1:1:0]."), checkpointer=saver
    )
    in_b = build_graph(
        index=collections["b"], model=read_then_answer("Harbour [1:1:0]."), checkpointer=saver
    )
    in_a.invoke(
        {"question": "Where do apples grow?"}, THREAD, context=Context(check_sufficiency=False)
    )

    out = in_b.invoke(
        {"question": "Where are boats moored?"}, THREAD, context=Context(check_sufficiency=False)
    )

    shown = last_result(in_b).content
    assert "Boats are moored in the harbour." in shown and POINTER not in shown
    assert coordinates(out["citations"]) == [{"doc_id": 1, "sec_id": 1, "para_idx": 0}]
    regions = in_b.get_state(THREAD).values["read_regions"]
    assert regions == {
        region_key(1, 1, index_scope(collections["a"])): [[0, 0]],
        region_key(1, 1, index_scope(collections["b"])): [[0, 0]],
    }


def test_a_citation_of_what_only_another_collection_showed_is_dropped(collections) -> None:
    saver = InMemorySaver()
    thread = {"configurable": {"thread_id": "drop"}}
    reads_a = ScriptedChatModel(
        steps=[
            ai(call("read_section", {"doc_id": 1, "sec_id": 1, "start": 0, "end": 1})),
            ai(content="Autumn [1:1:1]."),
        ]
    )
    build_graph(index=collections["a"], model=reads_a, checkpointer=saver).invoke(
        {"question": "When do apples ripen?"}, thread, context=Context(check_sufficiency=False)
    )
    in_b = build_graph(
        index=collections["b"],
        model=ScriptedChatModel(steps=[ai(content="They sail at dawn [1:1:1].")]),
        checkpointer=saver,
    )

    out = in_b.invoke(
        {"question": "When do boats sail?"}, thread, context=Context(check_sufficiency=False)
    )

    assert out["citations"] == [] and out["dropped_citations"] == 1


def test_a_thread_written_before_memory_was_scoped_runs_and_shows_text_again(collections) -> None:
    """An old checkpoint's ``doc:sec`` keys name no collection: they are kept, matched by
    none, and the paragraphs they meant are shown in full when asked for."""
    saver = InMemorySaver()
    thread = {"configurable": {"thread_id": "old"}}
    graph = build_graph(
        index=collections["a"], model=read_then_answer("Orchards [1:1:0]."), checkpointer=saver
    )
    graph.update_state(thread, {"read_regions": {"1:1": [[0, 1]]}}, as_node="finalize")

    out = graph.invoke(
        {"question": "Where do apples grow?"}, thread, context=Context(check_sufficiency=False)
    )

    result = [m for m in graph.get_state(thread).values["messages"] if isinstance(m, ToolMessage)][
        -1
    ]
    assert "Apples grow in orchards of the north." in result.content
    assert POINTER not in result.content
    assert out["stop_reason"] == "answered" and out["citations"]
    regions = graph.get_state(thread).values["read_regions"]
    assert regions["1:1"] == [[0, 1]]  # kept as it was
    assert view(regions, index_scope(collections["a"])) == {"1:1": [[0, 0]]}


def test_the_same_collection_name_in_two_stores_is_two_scopes(tmp_path: Path) -> None:
    assert region_scope(str(tmp_path / "one"), "docs") != region_scope(
        str(tmp_path / "two"), "docs"
    )
    assert region_scope(str(tmp_path / "one"), "docs") == region_scope(
        str(tmp_path / "one" / ".." / "one"), "docs"
    )
    assert "secret" not in region_scope("https://u:secret@q.example:6333", "docs")


def test_the_doc_of_a_read_region_key_is_read_from_the_scoped_form_and_a_views_alike():
    from deepread.nodes.read_memory import region_doc

    scope = region_scope("/some/store", "docs")

    assert region_doc(region_key(12, 3, scope)) == 12
    assert region_doc("12:3") == 12


def test_an_executor_shows_the_turns_collection_and_records_it_under_that_collection(
    collections: dict[str, deepread.Index],
) -> None:
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.runtime import Runtime

    from deepread.nodes.executors import make_executor
    from deepread.nodes.resources import Resources

    a, b = collections["a"], collections["b"]
    read = call("read_section", {"doc_id": 1, "sec_id": 1, "start": 0, "end": 1}, id="c1")
    state = {
        "messages": [HumanMessage(content="q"), AIMessage(content="", tool_calls=[read])],
        "scope": index_scope(b),
        # the same coordinates were read in collection a, never in b
        "read_regions": {region_key(1, 1, index_scope(a)): [[0, 1]]},
    }

    update = make_executor(Resources(index=b), "read_section")(state, Runtime(context=Context()))

    (answer,) = update["messages"]
    assert "Boats are moored" in answer.content and POINTER not in answer.content
    assert set(update["read_regions"]) == {region_key(1, 1, index_scope(b))}
