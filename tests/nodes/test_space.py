"""The bounded interaction space of collections whose full TOC exceeds the budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.scripted import ScriptedChatModel, ai, call, last_tool_message, shown_coords

import deepread
from deepread.nodes.model_input.space import initial_space, render_space
from deepread.records.errors import StoreError

TOPICS = ["volcanoes", "glaciers", "deserts", "rainforests", "coral reefs", "tundra"]


def topic_markdown(topic: str) -> str:
    parts = [f"# All about {topic}", f"An overview of {topic}."]
    for i in range(1, 13):
        parts += [
            f"## {topic.title()} aspect {i}",
            f"### Detail {i}.1",
            f"Fact {i} about {topic}: measurement {i * 7} units.",
        ]
    return "\n\n".join(parts) + "\n"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("library")
    for topic in TOPICS:
        (folder / f"{topic.replace(' ', '-')}.md").write_text(topic_markdown(topic))
    idx = deepread.Index.open(store=folder / "store", collection="lib")
    idx.ingest(sorted(folder.glob("*.md")))
    yield idx
    idx.close()


def doc_of(idx: deepread.Index, topic: str) -> int:
    return next(d.doc_id for d in idx.documents() if Path(d.source).stem == topic.replace(" ", "-"))


def system_prompt(model: ScriptedChatModel, call_number: int) -> str:
    return str(model.calls[call_number][0].content)


SMALL = deepread.Context(toc_budget=500)


def test_the_full_toc_of_this_library_does_not_fit_the_budget(library):
    from deepread.corpus.toc_text import render_toc

    assert render_toc(library.documents()).tokens > SMALL.toc_budget


def test_the_prompt_lists_every_document_and_shows_the_best_ranked_tocs(library):
    model = ScriptedChatModel(steps=[ai(content="ok")])
    graph = deepread.build_graph(index=library, model=model)
    graph.invoke({"question": "What is known about glaciers?"}, context=SMALL)
    prompt = system_prompt(model, 0)
    glaciers = doc_of(library, "glaciers")
    for topic in TOPICS:
        assert f"({doc_of(library, topic)}) All about {topic}" in prompt
    assert "Tables of contents shown below for documents: " in prompt
    shown = prompt.split("Tables of contents shown below for documents: ")[1].split(".")[0]
    assert str(glaciers) in shown.split(", ")
    assert f"({glaciers}) [1] All about glaciers |" in prompt


def test_the_initial_space_follows_retrieval_for_the_question(library):
    space = initial_space(library, "coral reefs measurement", None)
    assert space[0] == doc_of(library, "coral reefs")


def test_open_toc_is_offered_only_when_the_space_is_bounded(library):
    bounded = ScriptedChatModel(steps=[ai(content="ok")])
    deepread.build_graph(index=library, model=bounded).invoke(
        {"question": "glaciers"}, context=SMALL
    )
    roomy = ScriptedChatModel(steps=[ai(content="ok")])
    deepread.build_graph(index=library, model=roomy).invoke(
        {"question": "glaciers"}, context=deepread.Context(toc_budget=100_000)
    )
    names = [[t["function"]["name"] for t in tools] for tools in (bounded.bound[0], roomy.bound[0])]
    # find_documents: this library holds several documents (nodes/find_documents.py)
    assert names == [
        ["find_documents", "retrieve", "read_section", "open_toc"],
        ["find_documents", "retrieve", "read_section"],
    ]


def test_the_agent_reaches_a_document_that_was_not_in_the_first_toc(library):
    desert = doc_of(library, "deserts")

    def read_first_section(messages):
        return ai(call("read_section", {"doc_id": desert, "sec_id": 3, "start": 0, "end": 5}))

    def answer(messages):
        coords = shown_coords(last_tool_message(messages))
        return ai(content=f"Deserts: [{coords[0][0]}:{coords[0][1]}:{coords[0][2]}]")

    model = ScriptedChatModel(
        steps=[ai(call("open_toc", {"doc_id": desert})), read_first_section, answer]
    )
    graph = deepread.build_graph(index=library, model=model)
    out = graph.invoke({"question": "What is known about glaciers?"}, context=SMALL)
    first = system_prompt(model, 0)
    assert f"({desert}) [1] All about deserts |" not in first
    opened = last_tool_message(model.calls[1])
    assert opened.name == "open_toc" and f"({desert}) [2] Deserts aspect 1" in opened.content
    assert f"({desert}) [1] All about deserts |" in system_prompt(model, 1)
    assert out["stop_reason"] == "answered"
    assert out["citations"] and out["citations"][0]["doc_id"] == desert


def test_a_retrieve_that_touches_another_document_widens_the_space(library):
    tundra = doc_of(library, "tundra")
    model = ScriptedChatModel(
        steps=[
            ai(call("retrieve", {"query": "tundra measurement", "doc_id": tundra})),
            ai(content="done"),
        ]
    )
    graph = deepread.build_graph(index=library, model=model)
    graph.invoke({"question": "What is known about volcanoes?"}, context=SMALL)
    assert f"({tundra}) [1] All about tundra |" not in system_prompt(model, 0)
    assert f"({tundra}) [1] All about tundra |" in system_prompt(model, 1)


def test_open_toc_of_an_unknown_document_is_an_error_the_model_can_read(library):
    model = ScriptedChatModel(steps=[ai(call("open_toc", {"doc_id": 999})), ai(content="done")])
    out = deepread.build_graph(index=library, model=model).invoke(
        {"question": "glaciers"}, context=SMALL
    )
    reply = last_tool_message(model.calls[1])
    assert reply.status == "error" and "no document 999" in reply.content
    assert out["stop_reason"] == "answered"


def test_open_toc_when_the_store_fails_is_an_error_the_model_can_read(library, monkeypatch):
    def gone(doc_id: int) -> None:
        raise StoreError(f"the store went away while reading document {doc_id}")

    def store_goes_away_then_open_toc(messages: list) -> object:
        monkeypatch.setattr(library.collection, "document", gone)
        return ai(call("open_toc", {"doc_id": 1}))

    model = ScriptedChatModel(steps=[store_goes_away_then_open_toc, ai(content="done")])
    out = deepread.build_graph(index=library, model=model).invoke(
        {"question": "glaciers"}, context=SMALL
    )
    reply = last_tool_message(model.calls[1])
    assert reply.status == "error"
    assert reply.content == (
        "Error: the document store failed: the store went away while reading document 1"
    )
    assert out["stop_reason"] == "answered"


def test_open_toc_is_refused_when_the_space_is_not_bounded(library):
    model = ScriptedChatModel(steps=[ai(call("open_toc", {"doc_id": 1})), ai(content="done")])
    deepread.build_graph(index=library, model=model).invoke(
        {"question": "glaciers"}, context=deepread.Context(toc_budget=100_000)
    )
    reply = last_tool_message(model.calls[1])
    assert reply.status == "error"
    assert reply.content == (
        "Error: open_toc is not available now; the tools are: "
        "find_documents, retrieve, read_section"
    )


def test_the_space_keeps_the_sections_its_tocs_list_as_data(library):
    import re

    rendered = render_space(library.documents(), [doc_of(library, "glaciers")], 500)
    lines = re.findall(r"^\s*\((\d+)\) \[(\d+)\] ", rendered.text, re.MULTILINE)

    assert rendered.sections == tuple((int(d), int(s)) for d, s in lines)
    assert {d for d, _ in rendered.sections} == {doc_of(library, "glaciers")}


def test_the_space_rendering_stays_within_its_budget(library):
    text = render_space(library.documents(), [doc_of(library, "glaciers")], 500).text
    from deepread.text.tokens import count_tokens

    assert count_tokens(text) <= 500


def test_a_store_failure_while_the_space_widens_ends_the_turn_with_the_reason(library, monkeypatch):
    tundra = doc_of(library, "tundra")

    def store_goes_away(*args: object) -> None:
        raise StoreError("the store went away")

    def retrieve_then_lose_the_store(messages: list) -> object:
        # The retrieve runs; then the store fails before the widened TOC is rendered.
        original = library.search

        def search_then_fail(*args: object, **kwargs: object) -> object:
            result = original(*args, **kwargs)
            monkeypatch.setattr(library, "toc", store_goes_away)
            return result

        monkeypatch.setattr(library, "search", search_then_fail)
        return ai(call("retrieve", {"query": "tundra measurement", "doc_id": tundra}))

    model = ScriptedChatModel(steps=[retrieve_then_lose_the_store, ai(content="done")])
    out = deepread.build_graph(index=library, model=model).invoke(
        {"question": "What is known about volcanoes?"}, context=SMALL
    )
    assert out["stop_reason"] == "error"
    assert out["error"] == "the document store failed: the store went away"
    assert len(model.calls) == 1
