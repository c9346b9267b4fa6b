"""Threads that survive a stopped run: every history sent to the model is one an
OpenAI-compatible API accepts.

The model is a strict scripted one (:mod:`scripted`): it answers HTTP 400, as the real
APIs do, when a tool call in what it is sent has no tool message answering it. A run is
stopped between the policy's tool call and the tool in each way a run can stop — an
interrupt, a tool that breaks, a process interrupted inside a tool, the recursion
limit, the round budget — then the thread is asked again.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from support.citations import coordinates
from support.scripted import (
    ScriptedChatModel,
    ai,
    call,
    cite,
    history_problem,
    last_tool_message,
    read_call,
    section_of,
    shown_coords,
)

from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.model_input.history import NOT_RUN, repair
from deepread.nodes.read_memory import index_scope, region_key

CONFIG = {"configurable": {"thread_id": "t"}}


def cite_last(messages: list[BaseMessage]) -> AIMessage:
    return ai(content=f"See {cite(shown_coords(last_tool_message(messages))[:1])}.")


def stopped_then_asked_again(shapes) -> tuple[tuple[int, int], ScriptedChatModel, Any]:
    """Section Five, a strict model (read 0-1 — the run is stopped there —, then read 2,
    then cite), and a graph keeping threads."""
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(
        strict=True, steps=[ai(read_call(five, 0, 1)), ai(read_call(five, 2, 2)), cite_last]
    )
    return five, model, build_graph(index=shapes, model=model, checkpointer=InMemorySaver())


def thread(graph) -> list[BaseMessage]:
    return graph.get_state(CONFIG).values["messages"]


def assert_every_call_answered_once(messages: list[BaseMessage]) -> None:
    assert history_problem(messages) is None, history_problem(messages)


def assert_model_saw_only_valid_histories(model: ScriptedChatModel) -> None:
    assert model.calls, "the model was never called: no history to check"
    for sent in model.calls:
        assert history_problem(sent) is None, history_problem(sent)


# -- the repair itself ---------------------------------------------------------------------


def test_repair_answers_a_dangling_call_right_after_its_message():
    calls = [call("retrieve", {"query": "a"}, "c1"), call("retrieve", {"query": "b"}, "c2")]
    answered = ToolMessage(content="ok", tool_call_id="c1", name="retrieve")
    history = [HumanMessage(content="q1"), ai(*calls), answered, HumanMessage(content="q2")]

    fixed = repair(history)

    assert [type(m).__name__ for m in fixed] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "ToolMessage",
        "HumanMessage",
    ]
    assert fixed[3].tool_call_id == "c2" and fixed[3].status == "error"
    assert NOT_RUN in fixed[3].content
    assert fixed[3].artifact["paragraphs"] == []
    assert repair(fixed) is None  # a valid history is left alone


# -- runs stopped after the policy's call, then asked again ---------------------------------


def test_a_run_interrupted_after_the_policy_call_leaves_a_thread_that_answers_again(shapes):
    five, model, graph = stopped_then_asked_again(shapes)
    graph.invoke({"question": "apples?"}, CONFIG, context=Context(), interrupt_after=["policy"])
    assert history_problem(thread(graph)) is not None  # the call is dangling

    out = graph.invoke({"question": "cherries?"}, CONFIG, context=Context())

    assert out["stop_reason"] == "answered" and coordinates(out["citations"]) == [
        {"doc_id": five[0], "sec_id": five[1], "para_idx": 2}
    ]
    assert_model_saw_only_valid_histories(model)
    messages = thread(graph)
    assert_every_call_answered_once(messages)
    [patched] = [m for m in messages if isinstance(m, ToolMessage) and NOT_RUN in m.content]
    assert messages.index(patched) < [m.content for m in messages].index("cherries?")
    # the call that never ran marked nothing read
    assert graph.get_state(CONFIG).values["read_regions"] == {
        region_key(*five, index_scope(shapes)): [[2, 2]]
    }


def test_a_tool_that_breaks_leaves_a_thread_that_answers_again(shapes, monkeypatch):
    _five, model, graph = stopped_then_asked_again(shapes)
    real_read = shapes.read

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(shapes, "read", broken)
    first = graph.invoke({"question": "apples?"}, CONFIG, context=Context())
    monkeypatch.setattr(shapes, "read", real_read)

    out = graph.invoke({"question": "cherries?"}, CONFIG, context=Context())

    assert first["stop_reason"] == "error" and "the disk went away" in first["error"]
    assert out["stop_reason"] == "answered"
    assert_model_saw_only_valid_histories(model)
    assert_every_call_answered_once(thread(graph))


def test_a_run_interrupted_inside_a_tool_leaves_a_thread_that_answers_again(shapes, monkeypatch):
    _five, model, graph = stopped_then_asked_again(shapes)
    real_read = shapes.read

    def ctrl_c(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(shapes, "read", ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        graph.invoke({"question": "apples?"}, CONFIG, context=Context())
    monkeypatch.setattr(shapes, "read", real_read)
    assert history_problem(thread(graph)) is not None

    out = graph.invoke({"question": "cherries?"}, CONFIG, context=Context())

    assert out["stop_reason"] == "answered"
    assert_model_saw_only_valid_histories(model)
    assert_every_call_answered_once(thread(graph))


def test_a_run_stopped_by_the_recursion_limit_leaves_a_thread_that_answers_again(shapes):
    _five, model, graph = stopped_then_asked_again(shapes)
    with pytest.raises(GraphRecursionError):  # toc, compact, policy: then the limit
        graph.invoke({"question": "apples?"}, {**CONFIG, "recursion_limit": 3}, context=Context())

    out = graph.invoke({"question": "cherries?"}, CONFIG, context=Context())

    assert out["stop_reason"] == "answered"
    assert_model_saw_only_valid_histories(model)
    assert_every_call_answered_once(thread(graph))


def test_a_run_stopped_by_the_round_budget_leaves_a_thread_that_answers_again(shapes):
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(
        strict=True,
        steps=[
            ai(read_call(five, 0, 1)),
            ai(read_call(five, 2, 2), content="Apples, and more to read."),
            ai(read_call(five, 3, 3)),
            cite_last,
        ],
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    first = graph.invoke({"question": "apples?"}, CONFIG, context=Context(max_rounds=1))

    out = graph.invoke({"question": "dates?"}, CONFIG, context=Context())

    assert first["stop_reason"] == "budget"
    assert out["stop_reason"] == "answered"
    assert_model_saw_only_valid_histories(model)
    assert_every_call_answered_once(thread(graph))


def test_an_ordinary_three_turn_thread_sends_only_valid_histories(shapes):
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(
        strict=True,
        steps=[
            ai(call("retrieve", {"query": "apples"}), read_call(five, 0, 0)),
            cite_last,
            ai(read_call(five, 1, 2)),
            cite_last,
            ai(content="As said before."),
        ],
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    outs = [
        graph.invoke({"question": q}, CONFIG, context=Context())
        for q in ("apples?", "bananas?", "and again?")
    ]

    assert [o["stop_reason"] for o in outs] == ["answered"] * 3
    assert len(model.calls) == 5
    assert_model_saw_only_valid_histories(model)
    assert_every_call_answered_once(thread(graph))
    assert not any(NOT_RUN in str(m.content) for m in thread(graph))
