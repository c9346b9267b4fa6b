"""A follow-up that names only a new year, company or form asks the topic's question of
it (nodes/messages.py ``conversation_question``, text/follow_ups.py, nodes/follow_ups.py):
the companies are read from a real library's cards (SEC-style filings' front matter)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from support.library import filing

from deepread.corpus.library import Library
from deepread.nodes.follow_ups import slots_of
from deepread.nodes.messages import conversation_question
from deepread.text.follow_ups import in_topic

DOCS = [
    filing(1, "Corning Incorporated", "December 31, 2022", "CORNING_2022_10K.pdf"),
    filing(2, "The Boeing Company", "December 31, 2022", "BOEING_2022_10K.pdf"),
    filing(3, "Adobe Inc.", "December 2, 2022", "ADOBE_2022_10K.pdf"),
    filing(4, "Adobe Inc.", "December 2, 2016", "ADOBE_2016_10K.pdf"),
    filing(5, "Amcor plc", "June 30, 2023", "AMCOR_2023_10K.pdf"),
    filing(6, "CVS Health Corporation", "December 31, 2022", "CVSHEALTH_2022_10K.pdf"),
]
TAX = "What was Corning's effective tax rate in 2022?"


class Shelf:
    """The library's cards and document search over :data:`DOCS`, as an Index reads them."""

    def __init__(self) -> None:
        self.library = Library()

    def card_holds(self, word: str) -> tuple[bool, bool]:
        return self.library.holds(DOCS, word)

    def find_documents(self, query: str, documents: Sequence[int] | None = None) -> list[Any]:
        return self.library.find(DOCS, query, documents)


def asked(*questions: str) -> tuple[str, bool]:
    """The last of ``questions`` as searched, the others asked before it in one thread."""
    earlier: list[BaseMessage] = []
    for q in questions[:-1]:
        earlier += [HumanMessage(q), AIMessage("An answer [1:2:3].")]
    got = conversation_question(questions[-1], earlier, slots_of(Shelf()))
    return got.question, got.rewritten


def test_the_year_before_asks_the_topics_question_of_the_year_before():
    assert asked(TAX, "and the year before?") == (
        "What was Corning's effective tax rate in 2021?",
        True,
    )


def test_a_year_named_anew_replaces_the_topics_year():
    assert asked("What was Adobe's total revenue in fiscal 2022?", "and in fiscal 2016?") == (
        "What was Adobe's total revenue in fiscal 2016?",
        True,
    )


def test_another_company_replaces_the_topics_company():
    assert asked(TAX, "what about Boeing?") == (
        "What was Boeing's effective tax rate in 2022?",
        True,
    )


def test_another_company_of_two_words_replaces_the_topics_company_wherever_it_is_named():
    question = "What were Corning's capital expenditures in 2022, per Corning's 10-K?"

    assert asked(question, "and CVS Health?")[0] == (
        "What were CVS Health's capital expenditures in 2022, per CVS Health's 10-K?"
    )


def test_another_form_replaces_the_topics_form():
    assert asked(
        "What were Amcor's net sales in fiscal 2023 per the 10-K?", "and in the earnings release?"
    ) == (
        "What were Amcor's net sales in fiscal 2023 per the earnings release?",
        True,
    )


def test_a_chain_of_follow_ups_moves_the_topic_one_slot_at_a_time():
    assert asked(TAX, "and the year before?", "what about Boeing?") == (
        "What was Boeing's effective tax rate in 2021?",
        True,
    )


def test_a_follow_up_naming_nothing_new_is_searched_with_the_topics_words_as_before():
    follow_up = "And why did it change?"

    assert asked(TAX, follow_up) == (f"{TAX} {follow_up}", False)


def test_a_follow_up_asking_a_new_quantity_is_not_rewritten():
    follow_up = "And what was its revenue in 2021?"

    assert asked(TAX, follow_up) == (f"{TAX} {follow_up}", False)


def test_a_fresh_question_is_not_rewritten():
    fresh = "What were Boeing's capital expenditures in 2021?"

    assert asked(TAX, fresh) == (fresh, False)


def test_a_quarter_before_the_first_is_the_last_of_the_year_before():
    assert in_topic("What were sales in Q1 2023?", "and the previous quarter?") == (
        "What were sales in Q4 2022?"
    )


def test_a_year_said_relatively_of_a_topic_naming_no_year_cannot_be_placed():
    assert in_topic("What is the effective tax rate?", "and the year before?") is None
