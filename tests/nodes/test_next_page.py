"""The next results page: ``retrieve(exclude_shown=True)`` returns the best hits among
the paragraphs the conversation has not been shown, and the offline policy asks for it
once it has read the first page's sections and the budget holds another page.

A generated handbook (twelve sections of three paragraphs, every one mentioning the
course's "lab"), a real store and the scripted chat model for the LLM side.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from support.documents import markdown_index
from support.scripted import ScriptedChatModel, ai, call, last_tool_message, shown_coords

import deepread
from deepread.extractive.policy import ExtractiveChatModel
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.tools.specs import tool_schemas

TOPICS = [
    "safety goggles",
    "lab reports",
    "late penalties",
    "office hours",
    "grading scale",
    "attendance",
    "textbook",
    "exams",
    "group work",
    "lab notebook",
    "calculators",
    "make-up labs",
]
HANDBOOK = (
    "# Course handbook\n\n"
    + "\n\n".join(
        f"## {topic.title()}\n\n"
        f"The lab rule on {topic} applies to every student in section {i}.\n\n"
        f"Questions about {topic} in the lab go to the teaching assistant of week {i}.\n\n"
        f"A note on {topic}: the lab keeps a record of it for term {i}."
        for i, topic in enumerate(TOPICS, 1)
    )
    + "\n"
)
QUERY = "lab rules"


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    with markdown_index(tmp_path_factory, "handbook", "handbook.md", HANDBOOK) as idx:
        yield idx


def coords(found) -> list[tuple[int, int, int]]:
    return [(h.doc_id, h.sec_id, h.para_idx) for h in found]


def hits(message) -> list[tuple[int, int, int]]:
    return [(h["doc_id"], h["sec_id"], h["para_idx"]) for h in message.artifact["hits"]]


def run_script(index: deepread.Index, *steps) -> ScriptedChatModel:
    model = ScriptedChatModel(steps=[*steps, ai(content="Done.")])
    build_graph(index=index, model=model, checkpointer=InMemorySaver()).invoke(
        {"question": "What are the lab rules?"},
        {"configurable": {"thread_id": "t"}},
        context=Context(check_sufficiency=False, page_tokens=0),
    )  # pages of exactly k
    return model


# -- the store ----------------------------------------------------------------------------


def test_excluding_the_first_hits_gives_the_next_ones_of_the_same_ranking(tmp_path):
    path = tmp_path / "handbook.md"
    path.write_text(HANDBOOK, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="plain", reranker="none") as idx:
        idx.ingest([path])
        ten = coords(idx.search(QUERY, k=10).hits)
        first = coords(idx.search(QUERY, k=5).hits)
        second = coords(idx.search(QUERY, k=5, exclude=first).hits)

    assert first == ten[:5]
    assert second == ten[5:]


def test_excluded_paragraphs_are_never_hits_with_the_default_reranker(handbook):
    first = set(coords(handbook.search(QUERY, k=5).hits))

    second = handbook.search(QUERY, k=5, exclude=first).hits

    assert len(second) == 5
    assert not first & set(coords(second))


# -- the tool, as an LLM calls it -----------------------------------------------------------


def test_the_retrieve_schema_offers_exclude_shown_and_says_what_it_does():
    [schema] = tool_schemas(("retrieve",))
    prop = schema["function"]["parameters"]["properties"]["exclude_shown"]

    assert prop["type"] == "boolean"
    assert "not yet seen" in prop["description"]
    assert "next results page" in prop["description"]
    assert "exclude_shown" in schema["function"]["description"]


def test_a_repeated_retrieve_with_exclude_shown_shows_only_new_paragraphs(handbook):
    model = run_script(
        handbook,
        ai(call("retrieve", {"query": QUERY})),
        ai(call("retrieve", {"query": QUERY, "exclude_shown": True})),
    )

    first = last_tool_message(model.calls[1])
    second = last_tool_message(model.calls[2])
    assert len(hits(second)) == 5
    assert not set(shown_coords(first)) & set(hits(second))
    assert "(shown above)" not in second.content
    assert QUERY not in second.content  # a result does not echo the query


def test_paragraphs_shown_by_a_section_read_are_skipped_too(handbook):
    first = handbook.search(QUERY, k=1).hits[0]
    section = handbook.collection.document(first.doc_id).sections[first.sec_id]
    read = {"doc_id": first.doc_id, "sec_id": first.sec_id, "start": 0, "end": section.n_para - 1}

    model = run_script(
        handbook,
        ai(call("read_section", read)),
        ai(call("retrieve", {"query": QUERY, "exclude_shown": True})),
    )

    assert (first.doc_id, first.sec_id) not in {
        (d, s) for d, s, _ in hits(last_tool_message(model.calls[2]))
    }


def test_when_everything_was_shown_the_page_is_empty_and_says_so(tmp_path_factory):
    with markdown_index(
        tmp_path_factory,
        "tiny",
        "tiny.md",
        "# Lab\n\nThe lab rule is goggles.\n\nThe lab closes at six.\n",
    ) as idx:
        model = run_script(
            idx,
            ai(call("retrieve", {"query": QUERY})),
            ai(call("retrieve", {"query": QUERY, "exclude_shown": True})),
        )

    second = last_tool_message(model.calls[2])
    assert second.status == "success"
    assert hits(second) == []
    assert "everything it matches has been shown" in second.content
    assert QUERY not in second.content


def test_a_bad_exclude_shown_value_is_an_error_the_model_can_act_on(handbook):
    model = run_script(
        handbook, ai(call("retrieve", {"query": QUERY, "exclude_shown": "sometimes"}))
    )

    error = last_tool_message(model.calls[1])
    assert error.status == "error"
    assert "invalid arguments for retrieve" in error.content
    assert "exclude_shown" in error.content


# -- the offline policy ---------------------------------------------------------------------


def test_the_offline_policy_asks_for_the_next_page_after_the_hits_sections(handbook):
    out = build_graph(index=handbook).invoke(
        {"question": "What are the lab rules?"}, context=Context(check_sufficiency=False)
    )

    names = [(c["name"], c["args"].get("exclude_shown", False)) for c in out["tool_calls"]]
    page = names.index(("retrieve", True))
    assert names[0] == ("retrieve", False)
    # The first page's sections are read before it.
    assert names[1:page] and all(n == "read_section" for n, _ in names[1:page])
    assert names.count(("retrieve", True)) == 1


def test_the_offline_policy_asks_for_no_page_the_budget_cannot_hold(handbook):
    # A budget that holds the first page and about one section read.
    model = ExtractiveChatModel(index=handbook, observation_budget=260)

    out = build_graph(index=handbook, model=model).invoke(
        {"question": "What are the lab rules?"}, context=Context(check_sufficiency=False)
    )

    assert out["tool_calls"][0]["name"] == "retrieve"
    assert not any(c["args"].get("exclude_shown") for c in out["tool_calls"])
