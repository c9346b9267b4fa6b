"""What a chat view and a streaming client see of a run: the answer as an AI message
with its citations, deepread's own instructions never as the user's words, every
node's update, and one ``custom`` event per tool call and per result.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from support.citations import coordinates
from support.scripted import (
    ScriptedChatModel,
    StreamingScriptedChatModel,
    ai,
    call,
    read_call,
    section_of,
)

from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.model_input.prompt import NOTICE_KEY


def test_the_answer_is_the_last_ai_message_of_the_output_with_its_citations(shapes):
    d, s = section_of(shapes, "Five")
    model = ScriptedChatModel(
        steps=[ai(read_call((d, s), 2, 2)), ai(content=f"Charlie is about cherries [{d}:{s}:2].")]
    )

    out = build_graph(index=shapes, model=model).invoke(
        {"question": "Which paragraph is about cherries?"}, context=Context()
    )

    answer = out["messages"][-1]
    assert isinstance(answer, AIMessage) and answer.content == out["answer"]
    assert answer.response_metadata["citations"] == out["citations"]
    assert coordinates(out["citations"]) == [{"doc_id": d, "sec_id": s, "para_idx": 2}]
    assert out["citations"][0]["span"]  # with its place in the source


def test_deepreads_own_instructions_are_system_notices_not_the_users_words(shapes):
    d, s = section_of(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(read_call((d, s), 0, 0)),
            ai(content=f"Zebras live here [{d}:{s}:0]."),
            ai(content="INSUFFICIENT: nothing about zebras."),
            ai(content="The documents do not mention zebras."),
            ai(call("retrieve", {"query": "zebras"})),
            ai(content="Still nothing."),
        ]
    )
    graph = build_graph(index=shapes, model=model, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"question": "Where do zebras live?"}, config, context=Context())

    graph.invoke({"question": "And lions?"}, config, context=Context(max_rounds=1))

    messages = graph.get_state(config).values["messages"]
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == [
        "Where do zebras live?",
        "And lions?",
    ]
    [nudge] = [m for m in messages if isinstance(m, SystemMessage)]
    assert nudge.additional_kwargs[NOTICE_KEY] == "sufficiency"
    budget = model.calls[-1][-1]  # the budget notice goes with its one call
    assert isinstance(budget, SystemMessage) and budget.additional_kwargs[NOTICE_KEY]


def test_every_node_update_is_visible_in_the_updates_stream(shapes):
    d, s = section_of(shapes, "Five")
    model = ScriptedChatModel(
        steps=[ai(read_call((d, s), 2, 2)), ai(content=f"Charlie is about cherries [{d}:{s}:2].")]
    )

    chunks = list(
        build_graph(index=shapes, model=model).stream(
            {"question": "Which paragraph is about cherries?"},
            context=Context(),
            stream_mode="updates",
        )
    )

    assert [node for chunk in chunks for node in chunk] == [
        "toc",
        "compact",
        "policy",
        "read_section",
        "compact",
        "policy",
        "check",
        "finalize",
    ]
    assert all(isinstance(update, dict) and update for chunk in chunks for update in chunk.values())


def test_the_custom_stream_has_each_tool_call_and_a_summary_of_its_result(shapes):
    d, s = section_of(shapes, "Five")
    calls = [
        call("retrieve", {"query": "cherries"}),
        read_call((d, s), -1, 9),
        call("summarize", {}),
    ]
    model = ScriptedChatModel(steps=[ai(*calls), ai(content="Done.")])

    events = list(
        build_graph(index=shapes, model=model).stream(
            {"question": "cherries?"}, context=Context(), stream_mode="custom"
        )
    )

    assert [(e["event"], e["id"]) for e in events] == [
        (kind, c["id"]) for c in calls for kind in ("tool_call", "tool_result")
    ]
    retrieved, read_range, unknown = events[1], events[3], events[5]
    assert retrieved["hits"] >= 1 and retrieved["paragraphs"] >= 1
    assert read_range["range"] == [0, 4] and read_range["status"] == "success"
    assert unknown["status"] == "error" and "unknown tool" in unknown["error"]
    assert events[2]["args"] == calls[1]["args"]


def test_the_messages_stream_gives_the_answer_token_by_token_from_the_policy(shapes):
    d, s = section_of(shapes, "Five")
    answer = f"Charlie is about cherries [{d}:{s}:2]."
    model = StreamingScriptedChatModel(steps=[ai(read_call((d, s), 2, 2)), ai(content=answer)])

    events = list(
        build_graph(index=shapes, model=model).stream(
            {"question": "Which paragraph is about cherries?"},
            context=Context(),
            stream_mode="messages",
        )
    )

    tokens = [
        chunk.content
        for chunk, meta in events
        if meta["langgraph_node"] == "policy" and chunk.content
    ]
    assert tokens == ["Charlie ", "is ", "about ", "cherries ", f"[{d}:{s}:2]."]
    assert "".join(tokens) == answer
    tools = [chunk for chunk, meta in events if meta["langgraph_node"] == "read_section"]
    assert [t.type for t in tools] == ["tool"]  # the read's result, as one message


def test_a_pdf_paragraphs_citation_carries_its_pages_text_title_and_source(devset_index):
    pdf = next(d for d in devset_index.documents() if d.source.endswith(".pdf"))
    hit = devset_index.search("sort_keys", doc_id=pdf.doc_id).hits[0]
    d, s, p = hit.coord
    model = ScriptedChatModel(steps=[ai(read_call((d, s), p, p)), ai(content=f"So [{d}:{s}:{p}].")])

    out = build_graph(index=devset_index, model=model).invoke(
        {"question": "What does sort_keys do?"}, context=Context(check_sufficiency=False)
    )

    [cite] = out["citations"]
    [para] = devset_index.read_section(d, s, p, p)
    assert cite["pages"] == para.pages and cite["page"] == para.pages[0] >= 1
    assert cite["text"] == para.text
    assert cite["source"] == pdf.source and cite["title"] == pdf.title
    assert out["messages"][-1].response_metadata["citations"] == out["citations"]
