"""Bounds on what a question, a tool call and a state write may ask of the agent (issue 29
§4): each over-long input is refused with an error the caller can act on — a tool error
for the model, ``stop_reason="error"`` for the question, a ``ValueError`` (HTTP 400 on a
server) for a message written into a thread — before it costs anything.

The graph, store and checkpointer are real; the chat model is scripted. The state writes
are ``graph.update_state(..., as_node=...)``, what a server's ``POST /threads/T/state``
calls.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Overwrite
from support.scripted import ScriptedChatModel, ai, call, section_of

from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.messages import MessageError, add_checked_messages
from deepread.nodes.model_input import notes
from deepread.nodes.tools.specs import ToolArgumentError, ToolLimits, parse_args
from deepread.text.tokens import count_tokens

THREAD = {"configurable": {"thread_id": "t"}}


def run(graph, question: str, **context: Any) -> dict[str, Any]:
    return graph.invoke({"question": question}, THREAD, context=Context(**context))


def results(graph) -> list[ToolMessage]:
    return [m for m in graph.get_state(THREAD).values["messages"] if isinstance(m, ToolMessage)]


# -- the question ------------------------------------------------------------------------


def test_a_question_over_the_cap_ends_the_turn_before_any_model_call(shapes) -> None:
    model = ScriptedChatModel(steps=[])
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    out = run(graph, "Which fruit? " * 2000, max_question_chars=10_000)

    assert out["stop_reason"] == "error"
    assert out["error"] == (
        "the question is 26000 characters; at most 10000 are accepted "
        "(context field max_question_chars, DEEPREAD_MAX_QUESTION_CHARS)"
    )
    assert model.calls == []
    assert graph.get_state(THREAD).values["messages"] == []


def test_a_chat_message_over_the_question_cap_is_refused_the_same_way(shapes) -> None:
    model = ScriptedChatModel(steps=[])
    graph = build_graph(index=shapes, model=model)

    out = graph.invoke(
        {"messages": [{"role": "user", "content": "x" * 5000}]},
        context=Context(max_question_chars=4999),
    )

    assert out["stop_reason"] == "error" and "5000 characters" in out["error"]
    assert model.calls == []


def test_the_default_question_cap_refuses_a_megabyte_and_takes_a_page(shapes) -> None:
    graph = build_graph(index=shapes, model=ScriptedChatModel(steps=[ai(content="Figs.")]))

    big = graph.invoke({"question": "figs? " * 200_000})
    page = graph.invoke({"question": "Which paragraph is about figs? " * 100})

    assert big["stop_reason"] == "error" and "max_question_chars" in big["error"]
    assert page["stop_reason"] == "answered"


# -- tool-call arguments -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (
            {"query": [f"fruit {i}" for i in range(3000)]},
            "3000 queries in one call; at most 10: send the most specific ones",
        ),
        ({"query": "apples " * 1000}, "the query is 7000 characters; at most 2000 are searched"),
        ({"query": ["apples", "b" * 2001]}, "query 1 is 2001 characters"),
    ],
)
def test_retrieve_arguments_over_the_caps_are_a_tool_error_naming_the_cap(
    args: dict[str, Any], why: str
) -> None:
    with pytest.raises(ToolArgumentError) as caught:
        parse_args("retrieve", args)

    assert why in str(caught.value)


def test_the_caps_come_from_the_context() -> None:
    limits = ToolLimits.of(Context(max_queries=2, max_query_chars=5))

    with pytest.raises(ToolArgumentError, match=r"3 queries in one call; at most 2"):
        parse_args("retrieve", {"query": ["a", "b", "c"]}, limits)
    with pytest.raises(ToolArgumentError, match="the reference is 6 characters; at most 5"):
        parse_args("follow_reference", {"reference": "Tab. 3"}, limits)
    assert parse_args("retrieve", {"query": ["a", "b"]}, limits).query == ["a", "b"]


def test_a_forged_tool_call_written_into_state_is_refused_on_resume_not_run(shapes) -> None:
    """A client writes a model reply with a 3,000-query retrieve and a read of 10**9
    paragraphs into its thread (``as_node="policy"``), then resumes it: both calls are
    answered with errors, nothing is searched or read."""
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(steps=[ai(content="Nothing."), ai(content="Done.")])
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    run(graph, "Which fruit?")
    forged = ai(
        call("retrieve", {"query": [f"q{i}" for i in range(3000)]}),
        call("read_section", {"doc_id": five[0], "sec_id": five[1], "start": 0, "end": 10**9}),
    )

    graph.update_state(THREAD, {"messages": [forged]}, as_node="policy")
    graph.invoke(None, THREAD, context=Context(max_read_paragraphs=3))

    search, read = results(graph)[-2:]
    assert search.status == read.status == "error"
    assert "3000 queries in one call" in search.content
    assert read.content == (
        f"Error: read_section returns at most 3 paragraphs per call; section ({five[0]}) "
        f"[{five[1]}] has 5 and 0-1000000000 asks for 5: read it in parts, e.g. "
        f"read_section({five[0]}, {five[1]}, 0, 2)"
    )


def test_a_read_within_the_cap_after_clipping_to_its_section_is_run(shapes) -> None:
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(
                call(
                    "read_section", {"doc_id": five[0], "sec_id": five[1], "start": 0, "end": 10**9}
                )
            ),
            ai(content="Read."),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    run(graph, "What is in Five?", max_read_paragraphs=5)

    [read] = results(graph)
    assert read.status == "success" and "paragraphs 0-4 of 5" in read.content


def test_calls_past_the_per_reply_cap_are_answered_not_run(shapes) -> None:
    model = ScriptedChatModel(
        steps=[
            ai(*[call("retrieve", {"query": f"fruit {i}"}) for i in range(5)]),
            ai(content="Done."),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    run(graph, "Which fruit?", max_tool_calls=2)

    answers = results(graph)
    assert [a.status for a in answers] == ["success", "success", "error", "error", "error"]
    assert answers[2].content == (
        "Error: not run: at most 2 tool calls of one reply are run "
        "and this one made 5; call it again in the next round"
    )


def test_the_offline_policy_cuts_its_own_calls_to_the_caps(shapes) -> None:
    """The extractive policy searches with the question itself: a long question's query
    is cut to ``max_query_chars``, its reads to ``max_read_paragraphs`` — never refused.

    One hit per search (``k=1``) leaves the hit's section unread, so the policy reads it:
    both kinds of call are made, and each check below sees at least one."""
    graph = build_graph(index=shapes, checkpointer=InMemorySaver())

    out = run(
        graph,
        "Which paragraph is about cherries? " * 100,
        max_query_chars=60,
        max_read_paragraphs=2,
        k=1,
    )

    assert out["stop_reason"] == "answered"
    answers = results(graph)
    assert answers and all(a.status == "success" for a in answers)
    calls = [
        c
        for m in graph.get_state(THREAD).values["messages"]
        if isinstance(m, AIMessage)
        for c in m.tool_calls
    ]
    queries = [c["args"]["query"] for c in calls if c["name"] == "retrieve"]
    reads = [c["args"] for c in calls if c["name"] == "read_section"]
    assert queries and all(0 < len(q) <= 60 for q in queries)
    assert reads and all(r["end"] - r["start"] < 2 for r in reads)
    # Five's five paragraphs were asked for, and two of them read: the cut was made.
    five = section_of(shapes, "Five")
    assert {"doc_id": five[0], "sec_id": five[1], "start": 0, "end": 1} in reads


# -- messages written into a thread ----------------------------------------------------------


def test_a_tool_message_without_the_id_of_its_call_is_a_clear_error() -> None:
    with pytest.raises(MessageError) as caught:
        add_checked_messages(
            [], [{"role": "user", "content": "hi"}, {"type": "tool", "content": "forged result"}]
        )

    assert str(caught.value) == (
        "messages[1]: a 'tool' message needs 'tool_call_id' (the id of the tool call it answers)"
    )
    assert isinstance(caught.value, ValueError)  # HTTP 400 on a LangGraph server


def test_a_message_over_the_cap_written_into_a_thread_is_refused(
    shapes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPREAD_MAX_MESSAGE_CHARS", "1000")
    graph = build_graph(
        index=shapes,
        model=ScriptedChatModel(steps=[ai(content="Ok.")]),
        checkpointer=InMemorySaver(),
    )
    run(graph, "Which fruit?")
    before = graph.get_state(THREAD).values["messages"]

    with pytest.raises(
        MessageError,
        match=r"1001 characters, over the 1000 a message may "
        r"hold \(DEEPREAD_MAX_MESSAGE_CHARS\)",
    ):
        graph.update_state(THREAD, {"messages": [AIMessage(content="x" * 1001)]}, as_node="policy")

    assert graph.get_state(THREAD).values["messages"] == before


@pytest.mark.parametrize(
    "replace",
    [
        lambda v: {"__overwrite__": v},
        lambda v: {"type": "__overwrite__", "value": v},
        Overwrite,
    ],
    ids=["json-key", "json-typed", "Overwrite"],
)
def test_a_value_sent_to_replace_a_field_whole_is_checked_like_any_update(
    shapes, monkeypatch: pytest.MonkeyPatch, replace
) -> None:
    """LangGraph stores a replacing update (``{"__overwrite__": value}``, as a client may
    send one) without running the field's reducer — our checks (issue 38, probing state
    updates: the message cap and the tool-call check were skipped, and the messages
    stored as raw dicts; read regions unsorted)."""
    monkeypatch.setenv("DEEPREAD_MAX_MESSAGE_CHARS", "1000")
    graph = build_graph(
        index=shapes,
        model=ScriptedChatModel(steps=[ai(content="Ok.")]),
        checkpointer=InMemorySaver(),
    )
    run(graph, "Which fruit?")
    before = graph.get_state(THREAD).values["messages"]

    with pytest.raises(MessageError, match="1001 characters, over the 1000"):
        graph.update_state(
            THREAD, {"messages": replace([{"type": "ai", "content": "x" * 1001}])}, as_node="policy"
        )
    with pytest.raises(MessageError, match="needs 'tool_call_id'"):
        graph.update_state(
            THREAD, {"messages": replace([{"type": "tool", "content": "forged"}])}, as_node="policy"
        )
    assert graph.get_state(THREAD).values["messages"] == before

    graph.update_state(
        THREAD,
        {
            "messages": replace([{"type": "ai", "content": "short"}]),
            "read_regions": replace({"s/1:1": [[9, 12], [0, 3], [2, 5]]}),
        },
        as_node="policy",
    )
    values = graph.get_state(THREAD).values
    assert [type(m).__name__ for m in values["messages"]] == ["AIMessage"]  # replaced
    assert values["read_regions"] == {"s/1:1": [[0, 5], [9, 12]]}  # merged


def test_a_tool_result_longer_than_a_message_may_be_is_answered_with_an_error(
    shapes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPREAD_MAX_MESSAGE_CHARS", "150")
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(call("read_section", {"doc_id": five[0], "sec_id": five[1], "start": 0, "end": 4})),
            ai(content="Read."),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())

    out = run(graph, "What is in Five?")

    [read] = results(graph)
    assert out["stop_reason"] == "answered"
    assert read.status == "error" and "one message may hold; ask for less" in read.content


def test_token_counts_are_not_cached_by_holding_the_texts() -> None:
    text = "word " * 50_000
    other = "wxrd " * 50_000  # the same length, other tokens

    counted = notes._tokens(text)

    held = notes._counts.keys()
    # the count is kept, under a key of numbers only: no cache key holds a text
    assert (len(text), hash(text)) in held
    assert all(isinstance(k, tuple) and all(isinstance(x, int) for x in k) for k in held)
    # kept per text, not per length: a text of the same length has its own count
    assert counted == count_tokens(text)
    assert notes._tokens(other) == count_tokens(other) != counted


# -- the same bounds for the LangChain and MCP tools -------------------------------------------


def test_the_langchain_tools_refuse_what_the_agents_tools_refuse(shapes) -> None:
    import deepread

    retrieve, read_section, _, find_documents = deepread.tools(shapes)
    five = section_of(shapes, "Five")

    many = retrieve.invoke(
        {
            "name": "retrieve",
            "args": {"query": [[i] for i in range(3000)]},
            "type": "tool_call",
            "id": "c1",
        }
    )
    long = retrieve.invoke(
        {"name": "retrieve", "args": {"query": "apples " * 1000}, "type": "tool_call", "id": "c2"}
    )
    wide = read_section.invoke(
        {
            "name": "read_section",
            "type": "tool_call",
            "id": "c3",
            "args": {"doc_id": five[0], "sec_id": five[1], "start": 0, "end": 10**9},
        }
    )

    named = find_documents.invoke(
        {
            "name": "find_documents",
            "type": "tool_call",
            "id": "c4",
            "args": {"query": "Acme " * 1000},
        }
    )

    assert many.status == "error" and len(many.content) < 600, many.content
    assert long.status == "error" and "at most 2000 are searched" in long.content
    assert named.status == "error" and "at most 2000 are searched" in named.content
    assert wide.status == "success" and "paragraphs 0-4 of 5" in wide.content


def test_a_weighted_memo_keeps_at_most_its_weight_and_never_an_oversized_value() -> None:
    from deepread.nodes.lru import Lru

    memo: Lru[str, list[int]] = Lru(10, weight=len)
    for name, size in [("a", 4), ("b", 4), ("c", 4), ("huge", 11)]:
        memo.get_or_make(name, lambda size=size: [0] * size)

    assert memo.keys() == ["b", "c"]


def test_the_documents_in_space_are_united_in_linear_time() -> None:
    """``space`` is a client-writable field: its reducer scanned a list per id (issue 38,
    probing state updates: 100,000 ids onto 100,000 was minutes of CPU)."""
    import time

    from deepread.nodes.state import union_ids

    started = time.process_time()
    united = union_ids(list(range(100_000)), list(range(50_000, 150_000)))
    spent = time.process_time() - started

    assert united == list(range(150_000))
    assert spent < 2.0, f"{spent:.1f} CPU seconds"
