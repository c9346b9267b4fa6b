"""The tool executors as nodes, called directly as LangGraph's ``ToolNode`` tests call it:
a state holding an AI message with tool calls in, the node's update out."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime
from support.scripted import call, section_of, shown_coords
from support.scripted import calls_state as asked

from deepread.nodes.context import Context
from deepread.nodes.executors import invalid_call, make_executor
from deepread.nodes.read_memory import index_scope, merge_regions, view
from deepread.nodes.resources import Resources


def runtime(events: list[dict[str, Any]] | None = None) -> Runtime[Context]:
    sink = events if events is not None else []
    return Runtime(context=Context(), stream_writer=sink.append)


def test_the_retrieve_executor_answers_its_call_and_records_what_it_showed(shapes):
    search = call("retrieve", {"query": "cherries"}, id="c1")
    events: list[dict[str, Any]] = []

    update = make_executor(Resources(index=shapes), "retrieve")(asked(search), runtime(events))

    (answer,) = update["messages"]
    assert isinstance(answer, ToolMessage) and answer.tool_call_id == "c1"
    assert "Charlie paragraph about cherries." in answer.content
    shown = set(shown_coords(answer))
    # recorded under the collection read (read-region memory is kept per collection)
    memory = view(update["read_regions"], index_scope(shapes))
    assert shown and all(any(a <= p <= b for a, b in memory[f"{d}:{s}"]) for d, s, p in shown)
    assert [e["event"] for e in events] == ["tool_call", "tool_result"]


def test_a_later_call_of_the_same_round_shows_what_an_earlier_one_showed_as_a_pointer(shapes):
    d, s = section_of(shapes, "Five")
    first = call("read_section", {"doc_id": d, "sec_id": s, "start": 0, "end": 2}, id="c1")
    second = call("read_section", {"doc_id": d, "sec_id": s, "start": 0, "end": 3}, id="c2")
    execute = make_executor(Resources(index=shapes), "read_section")
    state = asked(first, second)

    update = execute(state, runtime())
    state = {
        **state,
        "messages": [*state["messages"], *update["messages"]],
        "read_regions": merge_regions(state["read_regions"], update["read_regions"]),
    }
    later = execute(state, runtime())["messages"][0]

    assert later.tool_call_id == "c2"
    assert f"[{d}:{s}:0-2] (shown above)" in later.content
    assert "Delta paragraph about dates." in later.content
    assert "Alpha paragraph about apples." not in later.content


def test_a_bad_argument_is_an_error_the_model_can_act_on_not_a_fault(shapes):
    bad = call("read_section", {"doc_id": 99, "sec_id": 0, "start": 0, "end": 1}, id="c1")

    (answer,) = make_executor(Resources(index=shapes), "read_section")(asked(bad), runtime())[
        "messages"
    ]

    assert answer.status == "error" and answer.content.startswith("Error: no document 99")


def test_a_call_no_executor_takes_is_answered_by_invalid_call_with_the_tools_on_offer():
    unknown = call("delete_everything", {}, id="c1")

    (answer,) = invalid_call(asked(unknown), runtime())["messages"]

    assert answer.tool_call_id == "c1" and answer.status == "error"
    assert answer.content == (
        "Error: unknown tool 'delete_everything'; the tools are: retrieve, read_section"
    )
