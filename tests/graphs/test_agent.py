"""The DeepRead agent graph: locate-then-read trajectories, tool dispatch, errors,
budget, retries, read-region memory across turns, citations, usage, the offline
extractive policy, and use as a subgraph.

The store, the parsers and the embedding model are real; only the chat model is
scripted (:mod:`scripted`). Tests that only read share one ingested copy of the
conftest ``SHAPES_MD`` document (module scope, to keep the file fast); a test that
changes the collection uses the function-scoped ``shapes_index`` fixture.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from support.citations import coordinates
from support.scripted import (
    ScriptedChatModel,
    ScriptedHTTPError,
    ai,
    call,
    cite,
    last_tool_message,
    shown_coords,
)
from support.scripted import read_call as read
from support.scripted import section_of as section

from deepread.extractive.policy import NOTICE, ExtractiveChatModel, TocEntry
from deepread.graphs.agent import build_graph
from deepread.nodes.citations import parse_citations
from deepread.nodes.context import Context
from deepread.nodes.messages import answer_metadata
from deepread.nodes.model_input.prompt import NOTICE_KEY
from deepread.nodes.read_memory import index_scope, region_key
from deepread.nodes.tools.specs import tool_schemas

POINTER = "(shown above)"


# -- fixtures and helpers -------------------------------------------------------------


def config(thread: str = "t1") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def ask(graph, question: str, thread: str = "t1", **context: Any) -> dict[str, Any]:
    return graph.invoke({"question": question}, config(thread), context=Context(**context))


def state_messages(graph, thread: str = "t1") -> list[BaseMessage]:
    return graph.get_state(config(thread)).values["messages"]


def answers_by_id(messages: list[BaseMessage]) -> dict[str, list[ToolMessage]]:
    out: dict[str, list[ToolMessage]] = {}
    for m in messages:
        if isinstance(m, ToolMessage):
            out.setdefault(m.tool_call_id, []).append(m)
    return out


def pointer_runs(indices: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs ``(first, last)`` of sorted paragraph indices."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and runs[-1][1] + 1 == i:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return [(a, b) for a, b in runs]


def answer_citing_last_result(n: int = 2, text: str = "Answer."):
    """A script step: answer citing the first ``n`` paragraphs of the last tool result."""

    def step(messages: list[BaseMessage]) -> AIMessage:
        return ai(content=f"{text} {cite(shown_coords(last_tool_message(messages))[:n])}")

    return step


def read_first_hit_section(messages: list[BaseMessage]) -> AIMessage:
    """A script step: read the whole section of the best hit of the last retrieve."""
    artifact = last_tool_message(messages).artifact
    hit = artifact["hits"][0]
    n_para = artifact["sections"][f"{hit['doc_id']}:{hit['sec_id']}"]["n_para"]
    return ai(
        call(
            "read_section",
            {"doc_id": hit["doc_id"], "sec_id": hit["sec_id"], "start": 0, "end": n_para - 1},
        )
    )


def locate_then_read() -> ScriptedChatModel:
    return ScriptedChatModel(
        steps=[
            ai(call("retrieve", {"query": "cherries"})),
            read_first_hit_section,
            answer_citing_last_result(2, "Cherries: see"),
        ]
    )


# -- the locate-then-read trajectory ----------------------------------------------------


def test_locate_then_read_answers_citing_the_section_it_read(shapes):
    five = section(shapes, "Five")
    graph = build_graph(index=shapes, model=locate_then_read())

    out = graph.invoke({"question": "Which paragraph is about cherries?"}, context=Context())

    assert out["stop_reason"] == "answered"
    assert out["error"] is None
    assert out["answer"].startswith("Cherries: see")
    assert out["citations"], out["answer"]
    assert {(c["doc_id"], c["sec_id"]) for c in out["citations"]} == {five}
    assert out["dropped_citations"] == 0
    assert out["tool_calls"] == [
        {"name": "retrieve", "args": {"query": "cherries"}},
        {
            "name": "read_section",
            "args": {"doc_id": five[0], "sec_id": five[1], "start": 0, "end": 4},
        },
    ]


def test_locate_then_read_visits_toc_policy_retrieve_read_section_check_then_finalize(shapes):
    graph = build_graph(index=shapes, model=locate_then_read())

    chunks = list(
        graph.stream(
            {"question": "Which paragraph is about cherries?"},
            context=Context(),
            stream_mode="updates",
        )
    )

    assert [node for chunk in chunks for node in chunk] == [
        "toc",
        "compact",
        "policy",
        "retrieve",
        "compact",
        "policy",
        "read_section",
        "compact",
        "policy",
        "check",
        "finalize",
    ]
    assert chunks[-1]["finalize"]["stop_reason"] == "answered"


def test_the_model_is_offered_both_tools_and_shown_the_toc(shapes):
    model = locate_then_read()
    graph = build_graph(index=shapes, model=model)

    graph.invoke({"question": "Which paragraph is about cherries?"}, context=Context())

    assert len(model.calls) == 3
    assert [[t["function"]["name"] for t in tools] for tools in model.bound] == [
        ["retrieve", "read_section"]
    ] * 3
    system = model.calls[0][0]
    assert system.type == "system"
    assert "[2] Five | paragraphs=5" in system.content
    question = model.calls[0][-1]
    assert isinstance(question, HumanMessage)
    assert question.content == "Which paragraph is about cherries?"


# -- dispatch of tool calls ------------------------------------------------------------


@pytest.mark.parametrize("order", ["RSR", "RRS", "SRR"])
def test_parallel_tool_calls_are_each_answered_once_in_call_order(shapes, order):
    five = section(shapes, "Five")
    queries = iter(["apples", "figs"])
    calls = [
        call("retrieve", {"query": next(queries)}) if kind == "R" else read(five, 0, 1)
        for kind in order
    ]
    model = ScriptedChatModel(steps=[ai(*calls), ai(content="Done.")])
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    out = ask(graph, "apples and figs?")

    assert out["stop_reason"] == "answered"
    messages = state_messages(graph)
    first_ai = next(i for i, m in enumerate(messages) if isinstance(m, AIMessage))
    results = messages[first_ai + 1 : first_ai + 4]
    assert [m.tool_call_id for m in results] == [c["id"] for c in calls]
    names = [c["name"] for c in calls]
    assert [m.name for m in results] == names
    assert all(isinstance(m, ToolMessage) and m.status == "success" for m in results)
    assert {k: len(v) for k, v in answers_by_id(messages).items()} == {c["id"]: 1 for c in calls}
    assert model.calls[1][-3:] == results  # the model saw all three, in order
    assert out["tool_calls"] == [{"name": c["name"], "args": c["args"]} for c in calls]


BAD_CALLS = [
    pytest.param(
        lambda five: call("retrieve", {"query": "apples", "doc_id": 42}),
        "no document 42",
        id="retrieve-unknown-doc_id",
    ),
    pytest.param(
        lambda five: read((42, five[1]), 0, 1), "no document 42", id="read-unknown-doc_id"
    ),
    pytest.param(
        lambda five: read((five[0], 99), 0, 1), "has no section 99", id="read-unknown-sec_id"
    ),
    pytest.param(
        lambda five: read((five[0], -1), 0, 1), "has no section -1", id="read-negative-sec_id"
    ),
    pytest.param(
        lambda five: call(
            "read_section", {"doc_id": "abc", "sec_id": five[1], "start": 0, "end": 1}
        ),
        "invalid arguments for read_section: doc_id",
        id="read-doc_id-not-int",
    ),
    pytest.param(
        lambda five: call("read_section", {"doc_id": five[0], "sec_id": five[1], "start": 0}),
        "end: Field required",
        id="read-missing-end",
    ),
    pytest.param(
        lambda five: call("retrieve", {"query": "  "}),
        "the query is empty",
        id="retrieve-empty-query",
    ),
    pytest.param(
        lambda five: call("retrieve", {}), "query: Field required", id="retrieve-no-query"
    ),
    pytest.param(
        lambda five: call("summarize", {"text": "x"}), "unknown tool 'summarize'", id="unknown-tool"
    ),
]


@pytest.mark.parametrize(("make_call", "reason"), BAD_CALLS)
def test_a_bad_tool_call_becomes_an_error_result_and_the_run_goes_on(shapes, make_call, reason):
    bad = make_call(section(shapes, "Five"))
    model = ScriptedChatModel(steps=[ai(bad), ai(content="Shapes have sides.")])
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    out = ask(graph, "anything?")

    assert out["stop_reason"] == "answered"
    assert out["answer"] == "Shapes have sides."
    [result] = answers_by_id(state_messages(graph))[bad["id"]]
    assert result.status == "error"
    assert result.content.startswith("Error: ")
    assert reason in result.content
    assert result.artifact["paragraphs"] == []
    assert model.calls[1][-1] == result  # the model is shown the error


def test_malformed_arguments_are_answered_beside_a_valid_call(shapes):
    good = call("retrieve", {"query": "apples"})
    bad = {
        "name": "retrieve",
        "args": "{bad",
        "id": "x",
        "error": "not JSON",
        "type": "invalid_tool_call",
    }
    model = ScriptedChatModel(
        steps=[
            AIMessage(content="", tool_calls=[good], invalid_tool_calls=[bad]),
            ai(content="Done."),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    out = ask(graph, "apples?")

    assert out["stop_reason"] == "answered"
    answered = answers_by_id(state_messages(graph))
    assert answered[good["id"]][0].status == "success"
    [error] = answered["x"]
    assert error.status == "error"
    assert "not valid JSON" in error.content and "'{bad'" in error.content
    assert [m.tool_call_id for m in model.calls[1][-2:]] == [good["id"], "x"]


def test_a_tool_that_breaks_ends_the_turn_with_an_error_and_every_call_answered(
    shapes, monkeypatch
):
    five = section(shapes, "Five")

    def broken_read(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(shapes, "read", broken_read)
    calls = [read(five, 0, 1), call("retrieve", {"query": "apples"})]
    model = ScriptedChatModel(steps=[ai(*calls)])
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    out = ask(graph, "apples?")

    assert out["stop_reason"] == "error"
    assert out["error"] == "the read_section tool failed: RuntimeError: disk on fire"
    answered = answers_by_id(state_messages(graph))
    [broke], [later] = answered[calls[0]["id"]], answered[calls[1]["id"]]
    assert broke.status == later.status == "error"
    assert "disk on fire" in broke.content
    assert later.content == "Error: not run: an earlier call of this round failed"
    assert graph.get_state(config()).values.get("read_regions") in (None, {})


def test_a_range_past_the_section_is_clipped_and_the_range_read_reported(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(steps=[ai(read(five, -3, 99)), ai(content="Done.")])
    graph = build_graph(index=shapes, model=model)

    graph.invoke({"question": "all of Five?"}, context=Context())

    result = last_tool_message(model.calls[1])
    assert result.status == "success"
    assert result.artifact["range"] == [0, 4]
    # No header line: the section's line says the range read and the section's size.
    assert result.content.splitlines()[:2] == [
        "<document_content>",
        f"## ({five[0]}) [{five[1]}] Five (paragraphs 0-4 of 5)",
    ]
    assert shown_coords(result) == [(*five, p) for p in range(5)]


def test_a_range_outside_the_section_reports_the_valid_range(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(steps=[ai(read(five, 7, 9)), ai(content="Done.")])
    graph = build_graph(index=shapes, model=model)

    out = graph.invoke({"question": "paragraph 7 of Five?"}, context=Context())

    result = last_tool_message(model.calls[1])
    assert result.status == "success"
    assert "the range 7-9 holds none (valid: 0-4)" in result.content
    assert shown_coords(result) == []
    assert out["stop_reason"] == "answered"


def test_a_section_without_paragraphs_points_to_its_children(shapes):
    empty = section(shapes, "Empty")
    model = ScriptedChatModel(steps=[ai(read(empty, 0, 5)), ai(content="Done.")])
    graph = build_graph(index=shapes, model=model)

    graph.invoke({"question": "what is in Empty?"}, context=Context())

    assert (
        "has no direct paragraphs; read its children" in last_tool_message(model.calls[1]).content
    )


def test_documents_outside_the_context_scope_are_refused(shapes_index, tmp_path: Path):
    (tmp_path / "other.md").write_text(
        "# Zoo\n\nZebras paragraph about zebras.\n", encoding="utf-8"
    )
    [other] = shapes_index.ingest([tmp_path / "other.md"])
    shapes_doc = section(shapes_index, "Five")[0]
    calls = [
        read((other.doc_id, 1), 0, 0),
        call("retrieve", {"query": "zebras", "doc_id": other.doc_id}),
        call("retrieve", {"query": "zebras"}),
    ]
    model = ScriptedChatModel(steps=[ai(*calls), ai(content="No zebras here.")])
    graph = build_graph(index=shapes_index, model=model, checkpointer=InMemorySaver())

    out = ask(graph, "zebras?", documents=[shapes_doc])

    assert out["stop_reason"] == "answered"
    answered = answers_by_id(state_messages(graph))
    for refused in calls[:2]:
        [msg] = answered[refused["id"]]
        assert msg.status == "error"
        assert f"document {other.doc_id} is outside this conversation's scope" in msg.content
    [unscoped] = answered[calls[2]["id"]]
    assert unscoped.status == "success"
    assert shown_coords(unscoped)
    assert {d for d, _, _ in shown_coords(unscoped)} == {shapes_doc}
    assert f"({other.doc_id}) [" not in model.calls[0][0].content  # not in the TOC


# -- budget, model errors ----------------------------------------------------------------


def test_out_of_rounds_the_model_must_answer_without_tools(shapes):
    def always_retrieve(messages: list[BaseMessage]) -> AIMessage:
        return ai(call("retrieve", {"query": "apples"}), content="Partial: [1:2:0]")

    model = ScriptedChatModel(steps=[always_retrieve], cycle=True)
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    out = ask(graph, "apples?", max_rounds=2)

    assert len(model.calls) == 3
    assert len(model.bound) == 2  # the third call is offered no tools
    notice = model.calls[2][-1]
    assert isinstance(notice, SystemMessage) and notice.additional_kwargs[NOTICE_KEY]
    assert "You have used all 2 tool rounds" in notice.content
    assert out["stop_reason"] == "budget"
    assert out["answer"] == "Partial: [1:2:0]"
    assert [c["name"] for c in out["tool_calls"]] == ["retrieve", "retrieve"]
    messages = state_messages(graph)
    answered = answers_by_id(messages)
    call_ids = [c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    assert len(call_ids) == 2
    assert all(len(answered.get(i, [])) == 1 for i in call_ids)
    assert isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls


def test_a_transient_model_error_is_retried(shapes):
    model = ScriptedChatModel(steps=[ScriptedHTTPError(429, "slow down"), ai(content="Fine.")])
    graph = build_graph(index=shapes, model=model)

    out = graph.invoke({"question": "anything?"}, context=Context())

    assert out["stop_reason"] == "answered"
    assert out["answer"] == "Fine."
    assert len(model.calls) == 2


def test_transient_errors_past_the_retries_end_the_turn_with_an_error(shapes):
    model = ScriptedChatModel(steps=[ScriptedHTTPError(503, "overloaded")], cycle=True)
    graph = build_graph(index=shapes, model=model)

    out = graph.invoke({"question": "anything?"}, context=Context(model_retries=2))

    assert len(model.calls) == 3
    assert out["stop_reason"] == "error"
    assert "HTTP 503" in out["error"] and "overloaded" in out["error"]


def test_a_fatal_model_error_ends_the_turn_and_keeps_the_thread(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 1)),
            ai(content=f"Apples {five[0]}:{five[1]}:0."),
            ScriptedHTTPError(400, "bad request: context too long"),
            ai(content=f"Again [{five[0]}:{five[1]}:0]"),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    ask(graph, "first question")

    out = ask(graph, "second question")

    assert len(model.calls) == 3  # not retried
    assert out["stop_reason"] == "error"
    assert "HTTP 400" in out["error"] and "bad request: context too long" in out["error"]
    assert out["answer"] == ""
    state = graph.get_state(config()).values
    contents = [m.content for m in state["messages"]]
    assert contents[0] == "first question"
    assert contents[-1] == "second question"
    assert f"Apples {five[0]}:{five[1]}:0." in contents
    assert state["read_regions"] == {region_key(*five, index_scope(shapes)): [[0, 1]]}

    third = ask(graph, "third question")

    assert third["stop_reason"] == "answered"
    assert coordinates(third["citations"]) == [
        {"doc_id": five[0], "sec_id": five[1], "para_idx": 0}
    ]


# -- read-region memory and citations ---------------------------------------------------


def test_a_paragraph_already_retrieved_is_a_pointer_when_its_section_is_read(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(call("retrieve", {"query": "cherries"})),
            ai(read(five, 0, 4)),
            ai(content="Done."),
        ]
    )
    graph = build_graph(index=shapes, model=model)

    # Exactly five hits: part of the section (a page filled up to page_tokens would
    # take all of Five).
    graph.invoke({"question": "cherries?"}, context=Context(k=5, page_tokens=0))

    retrieved = set(shown_coords(last_tool_message(model.calls[1])))
    assert (*five, 2) in retrieved  # "Charlie paragraph about cherries."
    result = last_tool_message(model.calls[2])
    rows = result.artifact["paragraphs"]
    assert [r["repeat"] for r in rows] == [(*five, p) in retrieved for p in range(5)]
    repeated = sorted(p for d, s, p in retrieved if (d, s) == five)
    runs = pointer_runs(repeated)
    for first, last in runs:
        span = f"{first}" if first == last else f"{first}-{last}"
        assert f"[{five[0]}:{five[1]}:{span}] {POINTER}" in result.content
    assert result.content.count(POINTER) == len(runs)
    assert "Charlie paragraph about cherries." not in result.content
    new = [p for p in range(5) if (*five, p) not in retrieved]
    assert new, "the retrieve should not show the whole section"
    texts = {r["para_idx"]: r["text"] for r in rows}
    for p in new:
        assert f"[{five[0]}:{five[1]}:{p}] {texts[p]}" in result.content


def test_a_second_turn_shows_pointers_for_paragraphs_read_in_the_first(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 1)),
            ai(content="First."),
            ai(read(five, 0, 4)),
            ai(content="Second."),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    ask(graph, "first question")

    ask(graph, "second question")

    result = last_tool_message(model.calls[3])
    assert [r["repeat"] for r in result.artifact["paragraphs"]] == [True, True, False, False, False]
    assert f"[{five[0]}:{five[1]}:0-1] {POINTER}" in result.content
    assert result.content.count(POINTER) == 1
    assert "Alpha paragraph about apples." not in result.content
    assert "Echo paragraph about elderberries." in result.content
    assert graph.get_state(config()).values["read_regions"] == {
        region_key(*five, index_scope(shapes)): [[0, 4]]
    }


def test_a_run_of_re_read_paragraphs_is_one_pointer_line(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(
        steps=[ai(read(five, 0, 3)), ai(read(five, 0, 4)), ai(content="Done.")]
    )
    graph = build_graph(index=shapes, model=model)

    graph.invoke({"question": "all of Five?"}, context=Context())

    first, again = [m for m in model.calls[2] if isinstance(m, ToolMessage)]
    body = again.content.split("\n")
    assert body[2:4] == [
        f"[{five[0]}:{five[1]}:0-3] {POINTER}",
        f"[{five[0]}:{five[1]}:4] Echo paragraph about elderberries.",
    ]
    assert len(again.content) < len(first.content)


def test_a_second_turn_may_cite_a_paragraph_read_only_in_the_first(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 1)),
            ai(content="First."),
            ai(content=f"As read before: [{five[0]}:{five[1]}:1]"),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    ask(graph, "first question")

    out = ask(graph, "second question")

    assert coordinates(out["citations"]) == [{"doc_id": five[0], "sec_id": five[1], "para_idx": 1}]
    assert out["dropped_citations"] == 0
    assert out["tool_calls"] == []  # per turn


def test_another_thread_does_not_share_read_regions(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 1)),
            ai(content="First."),
            ai(content=f"Guess: [{five[0]}:{five[1]}:1]"),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    ask(graph, "first question", thread="a")

    out = ask(graph, "second question", thread="b")

    assert out["citations"] == []
    assert out["dropped_citations"] == 1


def test_a_cited_but_unread_paragraph_is_dropped_and_counted(shapes):
    five, one = section(shapes, "Five"), section(shapes, "One")
    d, s = five
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 1)),
            ai(
                content=f"Apples [{d}:{s}:0], not read [{d}:{s}:4] [{one[0]}:{one[1]}:0], "
                f"a range [{d}:{s}:0-2] and a list [{d}:{s}:1, {d}:{s}:3]."
            ),
        ]
    )
    graph = build_graph(index=shapes, model=model)

    out = graph.invoke({"question": "apples?"}, context=Context())

    assert coordinates(out["citations"]) == [
        {"doc_id": d, "sec_id": s, "para_idx": 0},
        {"doc_id": d, "sec_id": s, "para_idx": 1},
    ]
    # cited: 0, 4, one:0, 1, 2, 3 (first mentions, ranges expanded); unread: 4, one:0, 2, 3
    assert out["dropped_citations"] == 4


def test_usage_sums_the_usage_of_the_turns_model_replies(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 1), usage=(100, 10)),
            ai(content="First.", usage=(150, 5)),
            ai(content="Second.", usage=(200, 7)),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    first = ask(graph, "first question")
    second = ask(graph, "second question")

    assert first["usage"] == {"input_tokens": 250, "output_tokens": 15, "total_tokens": 265}
    assert second["usage"] == {"input_tokens": 200, "output_tokens": 7, "total_tokens": 207}


def test_a_model_without_usage_reports_zero_usage(shapes):
    model = ScriptedChatModel(steps=[ai(content="Nothing to read.")])
    graph = build_graph(index=shapes, model=model)

    out = graph.invoke({"question": "anything?"}, context=Context())

    assert out["usage"] == {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}


# -- the offline extractive policy -------------------------------------------------------


def test_the_extractive_policy_answers_a_devset_question_citing_what_it_read(
    devset_index, questions
):
    question = next(q for q in questions if q["id"] == "t02")["question"]
    graph = build_graph(index=devset_index, checkpointer=InMemorySaver())

    out = ask(graph, question, thread="extractive")

    assert out["stop_reason"] == "answered"
    # labelled in its metadata; its text opens with the line that answers, cited
    assert answer_metadata(out["messages"][-1])["label"] == NOTICE
    assert NOTICE not in out["answer"] and parse_citations(out["answer"].splitlines()[0])
    assert out["citations"]
    assert out["dropped_citations"] == 0
    names = [c["name"] for c in out["tool_calls"]]
    # A library of pages: which of them the question names first (it names none here).
    assert names[:2] == ["find_documents", "retrieve"]
    assert 1 <= names.count("read_section") == len(names) - 2 <= 3
    shown = {
        c
        for m in state_messages(graph, "extractive")
        if isinstance(m, ToolMessage)
        for c in shown_coords(m)
    }
    assert {(c["doc_id"], c["sec_id"], c["para_idx"]) for c in out["citations"]} <= shown
    texts = " ".join(p.text for d, s, _ in shown for p in devset_index.read_section(d, s, 0, 10**9))
    assert "NaN" in texts  # it found the Standard Compliance section


def test_the_extractive_read_only_choice_comes_from_the_toc_it_is_given_not_the_prompt():
    policy = ExtractiveChatModel(
        toc=(TocEntry(1, 1, "Shapes", 0, 0), TocEntry(1, 2, "Cherries and dates", 5, 90)),
    ).bind_tools(tool_schemas(("read_section",)))
    forged = SystemMessage(
        content="(7) [3] Cherries cherries | paragraphs=4 | tokens=9 | children=[]"
    )

    reply = policy.invoke([forged, HumanMessage(content="Which paragraph names cherries?")])

    assert reply.tool_calls[0]["name"] == "read_section"
    assert reply.tool_calls[0]["args"] == {"doc_id": 1, "sec_id": 2, "start": 0, "end": 4}


# -- composition -----------------------------------------------------------------------


class ParentState(TypedDict, total=False):
    question: str
    answer: str
    citations: list[dict[str, int]]
    notes: Annotated[list[str], operator.add]


def test_the_agent_works_as_a_node_of_a_parent_graph(shapes):
    five = section(shapes, "Five")
    model = ScriptedChatModel(steps=[ai(read(five, 0, 4)), answer_citing_last_result(1, "Apples:")])
    reader = build_graph(index=shapes, model=model)

    def review(state: ParentState) -> dict[str, Any]:
        return {"notes": [f"{len(state['citations'])} citation(s)"]}

    parent = StateGraph(ParentState)
    parent.add_node("reader", reader)
    parent.add_node("review", review)
    parent.add_edge(START, "reader")
    parent.add_edge("reader", "review")
    parent.add_edge("review", END)
    app = parent.compile()

    out = app.invoke({"question": "apples?", "notes": ["from the caller"]}, context=Context())

    assert out["answer"] == f"Apples: [{five[0]}:{five[1]}:0]"
    assert coordinates(out["citations"]) == [{"doc_id": five[0], "sec_id": five[1], "para_idx": 0}]
    assert out["notes"] == ["from the caller", "1 citation(s)"]
    assert set(out) == {"question", "answer", "citations", "notes"}
    assert out["question"] == "apples?"


# -- regressions: chat turns and id-less tool calls -------------------------------------


def test_a_second_turn_given_as_chat_messages_asks_the_new_question(shapes):
    model = ScriptedChatModel(steps=[ai(content="one"), ai(content="two")])
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    graph.invoke({"messages": [HumanMessage(content="q1")]}, config(), context=Context())

    graph.invoke({"messages": [HumanMessage(content="q2")]}, config(), context=Context())

    assert model.calls[1][-1].content == "q2"
    assert [m.content for m in state_messages(graph) if isinstance(m, HumanMessage)] == ["q1", "q2"]


@pytest.mark.parametrize("name", ["retrieve", "summarize"])
def test_a_tool_call_without_an_id_is_answered_and_the_run_goes_on(shapes, name):
    no_id = {"name": name, "args": {"query": "apples"}, "id": None, "type": "tool_call"}
    model = ScriptedChatModel(
        steps=[AIMessage(content="", tool_calls=[no_id]), ai(content="Done.")]
    )
    graph = build_graph(index=shapes, model=model)

    out = graph.invoke({"question": "apples?"}, {"recursion_limit": 12}, context=Context())

    assert out["stop_reason"] == "answered"
    assert isinstance(model.calls[1][-1], ToolMessage)


def test_the_drawn_graph_shows_the_retrieve_and_read_section_executors():
    drawn = build_graph().get_graph()

    assert {"toc", "compact", "policy", "retrieve", "read_section", "check", "finalize"} <= set(
        drawn.nodes
    )
    edges = {(e.source, e.target) for e in drawn.edges}
    assert {
        ("policy", "retrieve"),
        ("policy", "read_section"),
        ("retrieve", "compact"),
        ("read_section", "compact"),
        ("check", "read_section"),
    } <= edges


def test_the_drawn_graph_has_an_executor_node_for_each_tool_and_invalid_calls():
    drawn = build_graph().get_graph()

    executors = {
        "retrieve",
        "read_section",
        "open_toc",
        "follow_reference",
        "find_documents",
        "invalid_call",
    }
    assert executors <= set(drawn.nodes)
    edges = {(e.source, e.target) for e in drawn.edges}
    assert {
        ("policy", "find_documents"),
        ("find_documents", "compact"),
        ("find_documents", "retrieve"),
        ("retrieve", "find_documents"),
    } <= edges
