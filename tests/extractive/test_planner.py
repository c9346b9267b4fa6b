"""Which tool the offline policy calls next (extractive/planner.py), from the turn as
data: its tool results as typed observations, the sections its TOC lists."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, ToolMessage

from deepread.extractive.planner import Planner
from deepread.extractive.policy import turn_of
from deepread.extractive.turn import Answer, Call, TocEntry, Turn, by_title
from deepread.nodes.tools.observation import Observation

GRADING = (
    TocEntry(1, 1, "Course schedule", 9, 200),
    TocEntry(1, 2, "Grading policy", 3, 50),
    TocEntry(1, 3, "Office hours", 2, 30),
    TocEntry(2, 1, "Grading", 1, 5),
)


def test_the_documents_found_do_not_count_against_its_reading_budget():
    # find_documents' cards are the library's TOC: a question asked of a library reads
    # as much of its documents as one scoped to them.
    found = ToolMessage(
        content="(1) Acme Corporation — Form 10-K, fiscal year 2023 | file=acme.pdf\n" * 20,
        tool_call_id="find",
        name="find_documents",
        artifact=Observation(documents=[1]).artifact(),
    )
    read = ToolMessage(
        content="[1:2:0] Cash on hand was sufficient.",
        tool_call_id="read",
        name="read_section",
        artifact=Observation().artifact(),
    )
    planner = Planner()

    turn = turn_of([HumanMessage(content="q"), found])
    assert planner.budget_left(turn.results) == planner.observation_budget
    turn = turn_of([HumanMessage(content="q"), found, read])
    assert planner.budget_left(turn.results) < planner.observation_budget


def test_toc_sections_are_ranked_by_how_close_their_titles_are_to_the_question():
    ranked = by_title("How is my final grade computed?", [e for e in GRADING if e.doc_id == 1])

    assert ranked[0].title == "Grading policy"
    assert {e.sec_id for e in ranked} == {1, 2, 3}


def test_read_only_reads_the_toc_section_sharing_most_words_with_the_question():
    planner = Planner(offered=("read_section",), toc=GRADING)

    step = planner.next(Turn("When are the office hours?", "When are the office hours?"))

    assert step == Call("read_section", {"doc_id": 1, "sec_id": 3, "start": 0, "end": 1})


def test_out_of_rounds_it_answers_with_what_it_has():
    step = Planner().next(Turn("q", "q", out_of_rounds=True))

    assert step == Answer()


def test_a_library_question_first_finds_the_documents_it_names():
    planner = Planner(offered=("retrieve", "read_section", "find_documents"))

    step = planner.next(Turn("What did Acme earn in 2023?", "What did Acme earn in 2023?"))

    assert step == Call("find_documents", {"query": "What did Acme earn in 2023?"})


def _found_acme() -> ToolMessage:
    return ToolMessage(
        content="(1) Acme Corporation — Form 10-K, fiscal year 2023 | file=acme.pdf",
        tool_call_id="find",
        name="find_documents",
        artifact=Observation(documents=[1]).artifact(),
    )


def test_once_the_documents_of_a_form_are_found_the_search_leaves_the_form_out():
    question = "What risks did Acme name in 2023 per the 10-K?"
    planner = Planner(offered=("find_documents", "retrieve"))

    step = planner.next(turn_of([HumanMessage(content=question), _found_acme()]))

    assert step == Call("retrieve", {"query": "What risks did Acme name in 2023?", "doc_id": 1})


def test_in_the_documents_found_a_quantity_asked_is_searched_for_by_its_name_too():
    question = "What was Acme's effective tax rate in 2023?"
    planner = Planner(offered=("find_documents", "retrieve"))

    step = planner.next(turn_of([HumanMessage(content=question), _found_acme()]))

    assert step == Call("retrieve", {"query": [question, "effective tax rate"], "doc_id": 1})


def test_a_question_asked_of_the_whole_library_is_searched_by_its_own_words_alone():
    question = "What was the effective tax rate in 2023?"
    nothing = ToolMessage(
        content="No document's title holds a name of the query.",
        tool_call_id="find",
        name="find_documents",
        artifact=Observation(documents=[]).artifact(),
    )
    planner = Planner(offered=("find_documents", "retrieve"))

    step = planner.next(turn_of([HumanMessage(content=question), nothing]))

    assert step == Call("retrieve", {"query": question})
