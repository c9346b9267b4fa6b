"""deepread inside other LangChain agents: ``idx.as_retriever()`` and ``deepread.tools(idx)``.

The store is real (the shipped library-json page as HTML and PDF, see conftest); the agent
is LangChain v1's ``langchain.agents.create_agent`` with a real checkpointer, driven by a
scripted chat model that emits real tool calls (tests/scripted.py). The tools keep the
read-region memory of the conversation they serve: what was shown comes back as the agent
graph's pointer lines, per thread, and the graph's round budget applies.
"""

from __future__ import annotations

import pytest
from langchain.agents import create_agent
from langchain_core.documents import Document as LCDocument
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever
from langgraph.checkpoint.memory import InMemorySaver
from support.scripted import (
    ScriptedChatModel,
    ai,
    call,
    cite,
    last_tool_message,
    section_of,
    shown_coords,
)

import deepread

QUESTION = "How do I make json.dumps sort the keys of dictionaries?"


# -- the retriever ---------------------------------------------------------------------


def test_as_retriever_is_a_langchain_retriever_returning_paragraphs_with_coordinates(
    devset_index: deepread.Index,
) -> None:
    retriever = devset_index.as_retriever(k=3)

    docs = retriever.invoke(QUESTION)

    assert isinstance(retriever, BaseRetriever)
    assert docs and all(isinstance(d, LCDocument) for d in docs)
    for doc in docs:
        meta = doc.metadata
        assert {
            "doc_id",
            "sec_id",
            "para_idx",
            "page",
            "source",
            "title",
            "section",
            "kind",
            "score",
            "paragraphs",
        } <= set(meta)
        [paragraph] = devset_index.read_section(
            meta["doc_id"], meta["sec_id"], meta["para_idx"], meta["para_idx"]
        )
        assert doc.page_content == paragraph.text
        assert doc.id == f"{meta['doc_id']}:{meta['sec_id']}:{meta['para_idx']}"
        section = devset_index.toc(meta["doc_id"])[0].sections[meta["sec_id"]]
        assert meta["section"] == section.title
    assert any("sort_keys" in d.page_content for d in docs)


def test_retrieved_pdf_paragraphs_carry_their_pages_and_html_ones_none(
    devset_index: deepread.Index,
) -> None:
    docs = devset_index.as_retriever(k=10).invoke(QUESTION)

    pdf = [d for d in docs if d.metadata["source"].endswith(".pdf")]
    html = [d for d in docs if d.metadata["source"].endswith(".html")]
    assert pdf and html
    assert all(isinstance(d.metadata["page"], int) and d.metadata["page"] >= 1 for d in pdf)
    # the passage (no window: the hit alone) is printed on the hit's page and on from it
    assert all(d.metadata["pages"][0] == d.metadata["page"] for d in pdf)
    assert all(d.metadata["page"] is None and d.metadata["pages"] == [] for d in html)


def test_the_retriever_gives_k_documents_each_a_hit_with_its_window_as_one_passage(
    devset_index: deepread.Index,
) -> None:
    docs = devset_index.as_retriever(k=3, window=(1, 1)).invoke(QUESTION)

    assert len(docs) == 3
    for doc in docs:
        meta = doc.metadata
        first, last = meta["paragraphs"]
        assert first <= meta["para_idx"] <= last and last - first <= 2
        read = devset_index.read_section(meta["doc_id"], meta["sec_id"], first, last)
        assert doc.page_content == "\n\n".join(p.text for p in read)  # the passage, in order
        assert isinstance(meta["score"], float)


def test_the_retriever_searches_only_the_documents_named(devset_index: deepread.Index) -> None:
    pdf_id = next(d.doc_id for d in devset_index.documents() if d.source.endswith(".pdf"))

    docs = devset_index.as_retriever(k=5, documents=[pdf_id]).invoke(QUESTION)

    assert docs and {d.metadata["doc_id"] for d in docs} == {pdf_id}


def test_a_negative_retriever_window_is_refused(devset_index: deepread.Index) -> None:
    with pytest.raises(ValueError, match="window"):
        devset_index.as_retriever(window=(-1, 0))


# -- the tools -------------------------------------------------------------------------


def tool_message(tool, args: dict) -> ToolMessage:
    return tool.invoke({"name": tool.name, "args": args, "id": "c1", "type": "tool_call"})


def test_the_tools_are_retrieve_read_section_toc_and_find_documents_with_json_schemas(
    devset_index: deepread.Index,
) -> None:
    made = {t.name: t for t in deepread.tools(devset_index)}

    assert list(made) == ["retrieve", "read_section", "toc", "find_documents"]
    assert set(made["read_section"].args) == {"doc_id", "sec_id", "start", "end"}
    assert set(made["retrieve"].args) == {"query", "doc_id", "exclude_shown"}
    assert all(t.description for t in made.values())
    # The conversation the tools read their memory from is injected, never offered
    schemas = {n: t.tool_call_schema.model_json_schema()["properties"] for n, t in made.items()}
    assert not any("messages" in props for props in schemas.values())


def test_tools_without_memory_offer_no_next_page(devset_index: deepread.Index) -> None:
    made = {t.name: t for t in deepread.tools(devset_index, memory=False)}

    assert set(made["retrieve"].args) == {"query", "doc_id"}
    assert "shown above" not in made["read_section"].description


def test_the_retrieve_tool_shows_paragraphs_with_coordinates_and_an_artifact(
    devset_index: deepread.Index,
) -> None:
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


def test_the_find_documents_tool_says_what_no_document_mentions(
    devset_index: deepread.Index,
) -> None:
    find = {t.name: t for t in deepread.tools(devset_index)}["find_documents"]

    named = tool_message(find, {"query": "What did Zyxwvut earn in 2019?"})
    unnamed = tool_message(find, {"query": "How do I sort the keys?"})

    assert named.status == "success" and "No document of the library mentions zyxwvut" in (
        named.content
    )
    assert named.artifact["unheld"] == ["zyxwvut"] and named.artifact["documents"] == []
    assert "it names no document" in unnamed.content and "all 2 documents" in unnamed.content


@pytest.mark.parametrize(
    ("tool", "args", "says"),
    [
        ("read_section", {"doc_id": 99, "sec_id": 0, "start": 0, "end": 3}, "99"),
        ("read_section", {"doc_id": 1, "sec_id": 10_000, "start": 0, "end": 3}, "10000"),
        ("read_section", {"doc_id": "one", "sec_id": 0, "start": 0, "end": 3}, "doc_id"),
        ("read_section", {"doc_id": 1}, "sec_id"),
        ("retrieve", {"query": "  "}, "empty"),
        ("toc", {"doc_id": 42}, "42"),
        ("find_documents", {"query": "  "}, "empty"),
    ],
)
def test_a_bad_tool_call_is_a_tool_error_the_model_can_act_on(
    devset_index: deepread.Index, tool: str, args: dict, says: str
) -> None:
    made = {t.name: t for t in deepread.tools(devset_index)}

    msg = tool_message(made[tool], args)

    assert msg.status == "error"
    assert msg.content.startswith("Error:") and says in msg.content


def test_tools_limited_to_documents_refuse_another_document(devset_index: deepread.Index) -> None:
    read = deepread.tools(devset_index, documents=[1])[1]

    msg = tool_message(read, {"doc_id": 2, "sec_id": 0, "start": 0, "end": 1})

    assert msg.status == "error" and "outside" in msg.content


# -- inside LangChain v1's create_agent ---------------------------------------------------


def read_the_best_hit(messages) -> AIMessage:
    """Read the section of the first hit the retrieve showed, whole."""
    retrieved = next(m for m in messages if isinstance(m, ToolMessage) and m.name == "retrieve")
    doc_id, sec_id, _ = shown_coords(retrieved)[0]
    return ai(call("read_section", {"doc_id": doc_id, "sec_id": sec_id, "start": 0, "end": 99}))


def answer_citing_sort_keys(messages) -> AIMessage:
    message = last_tool_message(messages)
    rows = [r for r in message.artifact["paragraphs"] if "sort_keys is true" in r["text"]]
    coords = [(r["doc_id"], r["sec_id"], r["para_idx"]) for r in rows]
    return ai(content=f"Pass sort_keys=True {cite(coords[:1])}")


def test_create_agent_answers_from_a_real_store_with_deepread_tools(
    devset_index: deepread.Index,
) -> None:
    model = ScriptedChatModel(
        steps=[
            ai(call("toc", {})),
            ai(call("retrieve", {"query": "sort keys of dictionaries json.dumps"})),
            ai(call("read_section", {"doc_id": 99, "sec_id": 0, "start": 0, "end": 5})),
            read_the_best_hit,
            answer_citing_sort_keys,
        ]
    )
    agent = create_agent(model, deepread.tools(devset_index, k=3))

    out = agent.invoke({"messages": [HumanMessage(QUESTION)]})

    tool_messages = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [m.name for m in tool_messages] == ["toc", "retrieve", "read_section", "read_section"]
    assert [m.status for m in tool_messages] == ["success", "success", "error", "success"]
    assert "99" in tool_messages[2].content  # the model saw why, and went on
    answer = out["messages"][-1]
    assert isinstance(answer, AIMessage) and not answer.tool_calls
    assert answer.content.startswith("Pass sort_keys=True [")
    # what it cites is a real paragraph that says so
    d, s, p = (int(x) for x in answer.content.split("[")[1].rstrip("]").split(":"))
    [paragraph] = devset_index.read_section(d, s, p, p)
    assert "sort_keys is true" in paragraph.text
    assert [t["function"]["name"] if isinstance(t, dict) else t.name for t in model.bound[0]] == [
        "retrieve",
        "read_section",
        "toc",
        "find_documents",
    ]


# -- read-region memory and budgets inside create_agent -----------------------------------


def read(doc_sec: tuple[int, int], start: int, end: int) -> dict:
    return call(
        "read_section", {"doc_id": doc_sec[0], "sec_id": doc_sec[1], "start": start, "end": end}
    )


def results(out: dict) -> list[ToolMessage]:
    return [m for m in out["messages"] if isinstance(m, ToolMessage)]


def test_a_paragraph_shown_before_comes_back_as_the_graphs_pointer_line(shapes) -> None:
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(
        steps=[ai(read(five, 0, 2)), ai(read(five, 1, 4)), ai(content="Done.")]
    )
    agent = create_agent(model, deepread.tools(shapes))

    first, second = results(agent.invoke({"messages": [HumanMessage("Fruit?")]}))

    assert "Bravo paragraph about bananas." in first.content
    assert f"[{five[0]}:{five[1]}:1-2] (shown above)" in second.content
    assert "Bravo paragraph" not in second.content
    assert "Delta paragraph about dates." in second.content
    assert [r["repeat"] for r in second.artifact["paragraphs"]] == [True, True, False, False]


def test_the_tools_show_what_deepreads_own_graph_shows_for_the_same_calls(shapes) -> None:
    five = section_of(shapes, "Five")
    steps = [
        ai(read(five, 0, 2)),
        ai(read(five, 1, 4)),
        ai(call("retrieve", {"query": "cherries dates"})),
        ai(content="Done."),
    ]
    graph = deepread.build_graph(index=shapes, model=ScriptedChatModel(steps=list(steps)))
    ours = graph.invoke(
        {"question": "Fruit?"}, context=deepread.Context(page_tokens=0, check_sufficiency=False)
    )
    agent = create_agent(
        ScriptedChatModel(steps=list(steps)),
        deepread.tools(shapes, context=deepread.Context(page_tokens=0)),
    )

    theirs = agent.invoke({"messages": [HumanMessage("Fruit?")]})

    assert [m.content for m in results(theirs)] == [m.content for m in results(ours)]
    assert "(shown above)" in results(theirs)[2].content


def test_the_memory_is_the_threads_kept_across_turns_and_empty_on_a_new_thread(shapes) -> None:
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 4)),
            ai(content="Read it."),
            ai(read(five, 2, 2)),
            ai(content="Again."),
        ],
        cycle=True,
    )
    agent = create_agent(model, deepread.tools(shapes), checkpointer=InMemorySaver())
    one = {"configurable": {"thread_id": "one"}}
    agent.invoke({"messages": [HumanMessage("Read Five.")]}, one)

    later = agent.invoke({"messages": [HumanMessage("And Charlie?")]}, one)
    fresh = agent.invoke(
        {"messages": [HumanMessage("Read Five.")]}, {"configurable": {"thread_id": "two"}}
    )

    assert results(later)[-1].content.count("(shown above)") == 1
    assert "Charlie paragraph about cherries." not in results(later)[-1].content
    assert "(shown above)" not in results(fresh)[0].content
    assert "Charlie paragraph about cherries." in results(fresh)[0].content


def test_exclude_shown_gives_the_next_results_page(shapes) -> None:
    model = ScriptedChatModel(
        steps=[
            ai(call("retrieve", {"query": "paragraph about"})),
            ai(call("retrieve", {"query": "paragraph about", "exclude_shown": True})),
            ai(content="Done."),
        ]
    )
    agent = create_agent(model, deepread.tools(shapes, k=2))

    first, second = results(agent.invoke({"messages": [HumanMessage("Fruit?")]}))

    seen = {tuple(h.values())[:3] for h in first.artifact["hits"]}
    after = {tuple(h.values())[:3] for h in second.artifact["hits"]}
    assert len(seen) == len(after) == 2 and not seen & after


def test_two_collections_in_one_agent_keep_their_memories_apart(shapes, tmp_path) -> None:
    from support.documents import SHAPES_MD

    (tmp_path / "shapes.md").write_text(SHAPES_MD, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="other") as other:
        other.ingest([tmp_path / "shapes.md"])
        five = section_of(shapes, "Five")
        mine = deepread.tools(shapes)
        theirs = [t.model_copy(update={"name": f"other_{t.name}"}) for t in deepread.tools(other)]
        model = ScriptedChatModel(
            steps=[
                ai(read(five, 0, 4)),
                ai(call("other_read_section", read(five, 0, 4)["args"])),
                ai(content="Done."),
            ]
        )

        first, second = results(
            create_agent(model, mine + theirs).invoke({"messages": [HumanMessage("Fruit?")]})
        )

    assert "(shown above)" not in second.content  # the same coordinates, another text
    assert "Charlie paragraph about cherries." in second.content
    assert second.artifact["source"] != first.artifact["source"]


def test_after_max_rounds_a_call_is_answered_with_the_budget_notice(shapes) -> None:
    five = section_of(shapes, "Five")
    model = ScriptedChatModel(
        steps=[ai(read(five, 0, 0)), ai(read(five, 1, 1)), ai(content="Done.")]
    )
    agent = create_agent(model, deepread.tools(shapes, context=deepread.Context(max_rounds=1)))

    first, second = results(agent.invoke({"messages": [HumanMessage("Fruit?")]}))

    assert first.status == "success"
    assert second.status == "error"
    assert "You have used all 1 tool rounds" in second.content


def test_a_context_and_the_keyword_shortcuts_are_not_mixed(shapes) -> None:
    with pytest.raises(ValueError, match="context"):
        deepread.tools(shapes, k=3, context=deepread.Context())


# -- memory per document version (issue 38 §5) ----------------------------------------------


def test_a_document_ingested_again_with_new_text_is_shown_again_not_pointed_at(
    tmp_path,
) -> None:
    """The graph's memory is per document version (nodes/state.py); the tools' was not:
    after fees.md went from 10 to 500 dollars, read_section answered ``(shown above)``."""
    fees = tmp_path / "fees.md"
    fees.write_text("# Fees\n\nThe late fee is 10 dollars.\n", encoding="utf-8")
    model = ScriptedChatModel(
        steps=[ai(read((1, 1), 0, 0)), ai(content="10."), ai(read((1, 1), 0, 0)), ai(content="?")]
    )
    thread = {"configurable": {"thread_id": "fees"}}
    with deepread.Index.open(store=tmp_path / "store", collection="fees") as idx:
        idx.ingest([fees])
        agent = create_agent(model, deepread.tools(idx), checkpointer=InMemorySaver())
        agent.invoke({"messages": [HumanMessage("What is the late fee?")]}, thread)
        fees.write_text("# Fees\n\nThe late fee is 500 dollars.\n", encoding="utf-8")
        idx.ingest([fees])

        later = results(agent.invoke({"messages": [HumanMessage("And now?")]}, thread))[-1]

    assert "The late fee is 500 dollars." in later.content
    assert "(shown above)" not in later.content
    assert [r["repeat"] for r in later.artifact["paragraphs"]] == [False]


def test_a_doc_id_given_to_a_new_file_after_a_removal_counts_as_not_shown(tmp_path) -> None:
    """After ``rm`` and a new file taking doc_id 1, ``retrieve(exclude_shown=True)`` said
    everything it matched had been shown."""
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text("# Fees\n\nThe late fee is 10 dollars.\n", encoding="utf-8")
    new.write_text("# Charges\n\nThe late fee became 500 dollars.\n", encoding="utf-8")
    search = {"query": "late fee dollars"}
    model = ScriptedChatModel(
        steps=[
            ai(call("retrieve", search)),
            ai(content="10."),
            ai(call("retrieve", search | {"exclude_shown": True})),
            ai(content="?"),
        ]
    )
    thread = {"configurable": {"thread_id": "rm"}}
    with deepread.Index.open(store=tmp_path / "store", collection="fees") as idx:
        [first] = idx.ingest([old])
        agent = create_agent(model, deepread.tools(idx), checkpointer=InMemorySaver())
        agent.invoke({"messages": [HumanMessage("What is the late fee?")]}, thread)
        idx.remove(first.doc_id)
        [second] = idx.ingest([new])
        assert second.doc_id == first.doc_id

        later = results(agent.invoke({"messages": [HumanMessage("And now?")]}, thread))[-1]

    assert "The late fee became 500 dollars." in later.content
    assert [(h["doc_id"], h["sec_id"], h["para_idx"]) for h in later.artifact["hits"]] == [
        (1, 1, 0)
    ]
