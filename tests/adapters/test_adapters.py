"""deepread inside other LangChain agents: ``idx.as_retriever()`` and ``deepread.tools(idx)``.

The store is real (the shipped library-json page as HTML and PDF, see conftest); the agent
is LangGraph's prebuilt ``create_react_agent`` driven by a scripted chat model that emits
real tool calls (tests/scripted.py).
"""

from __future__ import annotations

import warnings

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever
from support.scripted import ScriptedChatModel, ai, call, cite, last_tool_message, shown_coords

import deepread

QUESTION = "How do I make json.dumps sort the keys of dictionaries?"


def react_agent(model, tools):
    with warnings.catch_warnings():  # deprecated for langchain.agents, which is not a dep
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools)


# -- the retriever ---------------------------------------------------------------------

def test_as_retriever_is_a_langchain_retriever_returning_paragraphs_with_coordinates(
        devset_index: deepread.Index) -> None:
    retriever = devset_index.as_retriever(k=3)

    docs = retriever.invoke(QUESTION)

    assert isinstance(retriever, BaseRetriever)
    assert docs and all(isinstance(d, LCDocument) for d in docs)
    for doc in docs:
        meta = doc.metadata
        assert {"doc_id", "sec_id", "para_idx", "page", "source", "title", "section",
                "kind", "hit"} <= set(meta)
        [paragraph] = devset_index.read_section(meta["doc_id"], meta["sec_id"],
                                                meta["para_idx"], meta["para_idx"])
        assert doc.page_content == paragraph.text
        assert doc.id == f"{meta['doc_id']}:{meta['sec_id']}:{meta['para_idx']}"
        section = devset_index.toc(meta["doc_id"])[0].sections[meta["sec_id"]]
        assert meta["section"] == section.title
    assert any("sort_keys" in d.page_content for d in docs)


def test_retrieved_pdf_paragraphs_carry_their_page_and_html_ones_none(
        devset_index: deepread.Index) -> None:
    docs = devset_index.as_retriever(k=10).invoke(QUESTION)

    pdf = [d for d in docs if d.metadata["source"].endswith(".pdf")]
    html = [d for d in docs if d.metadata["source"].endswith(".html")]
    assert pdf and html
    assert all(isinstance(d.metadata["page"], int) and d.metadata["page"] >= 1 for d in pdf)
    assert all(d.metadata["page"] is None for d in html)


def test_the_retriever_window_adds_neighbours_inside_the_hit_section(
        devset_index: deepread.Index) -> None:
    docs = devset_index.as_retriever(k=1, window=(1, 1)).invoke(QUESTION)

    hits = [d for d in docs if d.metadata["hit"]]
    assert len(hits) == 1 and "score" in hits[0].metadata
    hit = hits[0].metadata
    assert {(d.metadata["doc_id"], d.metadata["sec_id"]) for d in docs} == {
        (hit["doc_id"], hit["sec_id"])}
    assert [d.metadata["para_idx"] for d in docs] == list(
        range(max(0, hit["para_idx"] - 1), max(0, hit["para_idx"] - 1) + len(docs)))


def test_the_retriever_searches_only_the_documents_named(
        devset_index: deepread.Index) -> None:
    pdf_id = next(d.doc_id for d in devset_index.documents() if d.source.endswith(".pdf"))

    docs = devset_index.as_retriever(k=5, documents=[pdf_id]).invoke(QUESTION)

    assert docs and {d.metadata["doc_id"] for d in docs} == {pdf_id}


def test_a_negative_retriever_window_is_refused(devset_index: deepread.Index) -> None:
    with pytest.raises(ValueError, match="window"):
        devset_index.as_retriever(window=(-1, 0))


# -- the tools -------------------------------------------------------------------------

def tool_message(tool, args: dict) -> ToolMessage:
    return tool.invoke({"name": tool.name, "args": args, "id": "c1", "type": "tool_call"})


def test_the_tools_are_retrieve_read_section_and_toc_with_json_schemas(
        devset_index: deepread.Index) -> None:
    made = {t.name: t for t in deepread.tools(devset_index)}

    assert list(made) == ["retrieve", "read_section", "toc"]
    assert set(made["read_section"].args) == {"doc_id", "sec_id", "start", "end"}
    assert set(made["retrieve"].args) == {"query", "doc_id"}
    assert all(t.description for t in made.values())


def test_the_retrieve_tool_shows_paragraphs_with_coordinates_and_an_artifact(
        devset_index: deepread.Index) -> None:
    retrieve = deepread.tools(devset_index, k=2)[0]

    msg = tool_message(retrieve, {"query": "sort_keys"})

    assert msg.status == "success"
    rows = msg.artifact["paragraphs"]
    assert rows and len(msg.artifact["hits"]) == 2
    for row in rows:
        assert f"[{row['doc_id']}:{row['sec_id']}:{row['para_idx']}]" in msg.content
    assert "<document_content>" in msg.content


def test_the_toc_tool_lists_sections_with_their_ids(devset_index: deepread.Index) -> None:
    toc = deepread.tools(devset_index)[2]

    msg = tool_message(toc, {})

    assert msg.status == "success"
    assert "(1) [0]" in msg.content and "(2) [0]" in msg.content
    assert "paragraphs=" in msg.content


@pytest.mark.parametrize(("tool", "args", "says"), [
    ("read_section", {"doc_id": 99, "sec_id": 0, "start": 0, "end": 3}, "99"),
    ("read_section", {"doc_id": 1, "sec_id": 10_000, "start": 0, "end": 3}, "10000"),
    ("read_section", {"doc_id": "one", "sec_id": 0, "start": 0, "end": 3}, "doc_id"),
    ("read_section", {"doc_id": 1}, "sec_id"),
    ("retrieve", {"query": "  "}, "empty"),
    ("toc", {"doc_id": 42}, "42"),
])
def test_a_bad_tool_call_is_a_tool_error_the_model_can_act_on(
        devset_index: deepread.Index, tool: str, args: dict, says: str) -> None:
    made = {t.name: t for t in deepread.tools(devset_index)}

    msg = tool_message(made[tool], args)

    assert msg.status == "error"
    assert msg.content.startswith("Error:") and says in msg.content


def test_tools_limited_to_documents_refuse_another_document(
        devset_index: deepread.Index) -> None:
    read = deepread.tools(devset_index, documents=[1])[1]

    msg = tool_message(read, {"doc_id": 2, "sec_id": 0, "start": 0, "end": 1})

    assert msg.status == "error" and "outside" in msg.content


# -- inside LangGraph's prebuilt ReAct agent ---------------------------------------------

def read_the_best_hit(messages) -> AIMessage:
    """Read the section of the first hit the retrieve showed, whole."""
    retrieved = next(m for m in messages if isinstance(m, ToolMessage) and m.name == "retrieve")
    doc_id, sec_id, _ = shown_coords(retrieved)[0]
    return ai(call("read_section", {"doc_id": doc_id, "sec_id": sec_id, "start": 0,
                                    "end": 99}))


def answer_citing_sort_keys(messages) -> AIMessage:
    message = last_tool_message(messages)
    rows = [r for r in message.artifact["paragraphs"] if "sort_keys is true" in r["text"]]
    coords = [(r["doc_id"], r["sec_id"], r["para_idx"]) for r in rows]
    return ai(content=f"Pass sort_keys=True {cite(coords[:1])}")


def test_create_react_agent_answers_from_a_real_store_with_deepread_tools(
        devset_index: deepread.Index) -> None:
    model = ScriptedChatModel(steps=[
        ai(call("toc", {})),
        ai(call("retrieve", {"query": "sort keys of dictionaries json.dumps"})),
        ai(call("read_section", {"doc_id": 99, "sec_id": 0, "start": 0, "end": 5})),
        read_the_best_hit,
        answer_citing_sort_keys,
    ])
    agent = react_agent(model, deepread.tools(devset_index, k=3))

    out = agent.invoke({"messages": [HumanMessage(QUESTION)]})

    tool_messages = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [m.name for m in tool_messages] == ["toc", "retrieve", "read_section",
                                               "read_section"]
    assert [m.status for m in tool_messages] == ["success", "success", "error", "success"]
    assert "99" in tool_messages[2].content  # the model saw why, and went on
    answer = out["messages"][-1]
    assert isinstance(answer, AIMessage) and not answer.tool_calls
    assert answer.content.startswith("Pass sort_keys=True [")
    # what it cites is a real paragraph that says so
    d, s, p = (int(x) for x in answer.content.split("[")[1].rstrip("]").split(":"))
    [paragraph] = devset_index.read_section(d, s, p, p)
    assert "sort_keys is true" in paragraph.text
    assert [t["function"]["name"] if isinstance(t, dict) else t.name
            for t in model.bound[0]] == ["retrieve", "read_section", "toc"]
