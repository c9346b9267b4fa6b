"""The agent's other nodes called directly, one behaviour each: state in, update out."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from support.citations import coordinates
from support.scripted import ScriptedChatModel, ai, call, section_of

from deepread.nodes.context import Context
from deepread.nodes.finalize import finalize
from deepread.nodes.policy import make_policy
from deepread.nodes.read_memory import index_scope, region_key
from deepread.nodes.resources import Resources
from deepread.nodes.toc import make_toc, render_toc


def runtime(**context: Any) -> Runtime[Context]:
    return Runtime(context=Context(**context))


def test_toc_starts_a_turn_with_the_question_and_the_directory_structure(shapes):
    update = make_toc(Resources(index=shapes))({"question": "cherries?"}, runtime())

    assert update["messages"] == [HumanMessage(content="cherries?")]
    assert update["turn_start"] == 0 and update["rounds"] == 0
    assert "[0] " in update["toc"] and "Five | paragraphs=5" in update["toc"]


def toc_lines(text: str) -> list[list[int]]:
    """``[doc_id, sec_id]`` of the section lines of a rendered TOC, read back from it."""
    return [[int(d), int(s)] for d, s in re.findall(r"^\s*\((\d+)\) \[(\d+)\] ", text, re.M)]


def test_toc_keeps_the_sections_its_text_lists_as_data_in_the_same_order(shapes):
    update = make_toc(Resources(index=shapes))({"question": "cherries?"}, runtime())

    assert update["toc_sections"] == toc_lines(update["toc"])
    assert len(update["toc_sections"]) == len(shapes.toc()[0].sections)


def test_a_collapsed_toc_keeps_only_the_sections_it_still_lists(shapes):
    full = render_toc(shapes.toc()).tokens
    update = make_toc(Resources(index=shapes))({"question": "q"}, runtime(toc_budget=full - 1))

    assert "collapsed" in update["toc"]
    assert update["toc_sections"] == toc_lines(update["toc"])
    assert 0 < len(update["toc_sections"]) < len(shapes.toc()[0].sections)


def test_the_policy_offers_the_tools_and_names_every_call_it_makes(shapes):
    model = ScriptedChatModel(steps=[ai({**call("retrieve", {"query": "q"}), "id": ""})])
    state = {"messages": [HumanMessage(content="q")], "question": "q", "toc": "", "rounds": 0}

    update = make_policy(Resources(index=shapes, model=model))(state, runtime())

    (reply,) = update["messages"]
    assert reply.tool_calls[0]["id"].startswith("call_")
    assert update["offered"] == ["retrieve", "read_section"] and update["rounds"] == 1
    assert [t["function"]["name"] for t in model.bound[-1]] == ["retrieve", "read_section"]
    assert isinstance(model.calls[0][0], SystemMessage)


def test_out_of_rounds_the_policy_asks_for_an_answer_without_tools(shapes):
    model = ScriptedChatModel(steps=[ai(call("retrieve", {"query": "q"}), content="So.")])
    state = {"messages": [HumanMessage(content="q")], "question": "q", "toc": "", "rounds": 2}

    update = make_policy(Resources(index=shapes, model=model))(state, runtime(max_rounds=2))

    assert update["stop_reason"] == "budget"
    assert update["messages"][0].tool_calls == [] and update["messages"][0].content == "So."


def test_finalize_keeps_only_citations_of_paragraphs_shown(shapes):
    d, s = section_of(shapes, "Five")
    answer = AIMessage(content=f"Cherries [{d}:{s}:2], walruses [9:9:9].", id="a1")
    scope = index_scope(shapes)  # read-region memory is kept per collection
    state = {
        "messages": [HumanMessage(content="q"), answer],
        "turn_start": 0,
        "scope": scope,
        "read_regions": {region_key(d, s, scope): [[0, 4]]},
    }

    update = finalize(state, runtime())

    assert coordinates(update["citations"]) == [{"doc_id": d, "sec_id": s, "para_idx": 2}]
    assert update["dropped_citations"] == 1 and update["stop_reason"] == "answered"
    assert update["messages"][0].response_metadata["citations"] == update["citations"]
