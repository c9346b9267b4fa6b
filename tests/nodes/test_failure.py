"""Faults routed by LangGraph: the graph's error handler ends a failed turn in finalize,
and the nodes that read the store try a transient failure again."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from support.scripted import ScriptedChatModel, ai, call, section_of

from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.records.errors import TransientStoreError


def flaky(real: Any, failures: int) -> Any:
    """``real``, failing its first ``failures`` calls as a Qdrant server's 503 would."""
    calls = [0]

    def method(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] <= failures:
            raise TransientStoreError("the Qdrant server at http://q answered HTTP 503")
        return real(*args, **kwargs)

    method.calls = calls  # type: ignore[attr-defined]
    return method


def test_a_transient_store_failure_is_tried_again_and_the_call_answered(shapes, monkeypatch):
    five = section_of(shapes, "Five")
    monkeypatch.setattr(shapes, "read", flaky(shapes.read, failures=1))
    read = call("read_section", {"doc_id": five[0], "sec_id": five[1], "start": 2, "end": 2})
    model = ScriptedChatModel(steps=[ai(read), ai(content=f"Cherries [{five[0]}:{five[1]}:2].")])

    out = build_graph(index=shapes, model=model).invoke(
        {"question": "Which paragraph is about cherries?"}, context=Context()
    )

    answer = next(m for m in out["messages"] if getattr(m, "tool_call_id", "") == read["id"])
    assert answer.status == "success" and "Charlie paragraph about cherries." in answer.content
    assert out["stop_reason"] == "answered"


def test_a_store_that_stays_down_ends_the_turn_after_three_attempts(shapes, monkeypatch):
    five = section_of(shapes, "Five")
    monkeypatch.setattr(shapes, "read", flaky(shapes.read, failures=99))
    read = call("read_section", {"doc_id": five[0], "sec_id": five[1], "start": 2, "end": 2})
    model = ScriptedChatModel(steps=[ai(read)])

    out = build_graph(index=shapes, model=model).invoke(
        {"question": "Which paragraph is about cherries?"}, context=Context()
    )

    assert out["stop_reason"] == "error"
    assert out["error"] == (
        "the document store failed: the Qdrant server at http://q answered HTTP 503"
    )
    assert shapes.read.calls[0] == 3  # type: ignore[attr-defined]
    assert out["messages"][-1].content.startswith("Error: the document store failed")


def test_a_turn_whose_toc_fails_reports_itself_not_the_turn_before(shapes):
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(steps=[ai(content=f"Cherries [{five[0]}:{five[1]}:2].")], cycle=True)
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    first = graph.invoke(
        {"question": "Which paragraph is about cherries?"}, thread, context=Context()
    )

    out = graph.invoke({"question": "And the dates?"}, thread, context=Context(documents=[99]))

    assert first["stop_reason"] == "answered"
    assert out["stop_reason"] == "error" and "no document 99" in out["error"]
    assert out["answer"] == "" and out["tool_calls"] == [] and out["citations"] == []
    assert out["messages"][-1].content == "And the dates?"


def test_a_question_that_is_not_text_ends_the_run_with_the_reason(shapes):
    graph = build_graph(index=shapes, model=ScriptedChatModel(steps=[]))

    try:
        graph.invoke({"question": 42}, context=Context())
    except ValueError as exc:
        assert "question must be text" in str(exc)
    else:
        raise AssertionError("a question of 42 was run")
