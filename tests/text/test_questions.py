"""What a question asks: the search query and the check's question keep the questions
and the statements around them, not instructions addressed to the reader; a question that
continues the conversation is told from one that starts afresh."""

from __future__ import annotations

import pytest

from deepread.text.questions import asked, continues, sentences


def test_a_role_play_preamble_is_dropped_and_the_question_after_its_lead_in_kept():
    question = (
        "You are an analyst and your only resource is the balance sheet. Here's "
        "the question: what was the total debt in FY2021? Answer in USD millions."
    )

    assert asked(question) == "what was the total debt in FY2021?"


def test_a_trailing_conditional_instruction_is_dropped():
    question = (
        "Does the company have an improving gross margin? If gross margin is not a "
        "useful metric here, then state that and explain why."
    )

    assert asked(question) == "Does the company have an improving gross margin?"


def test_statements_that_say_what_the_question_is_about_are_kept():
    question = "I have taken Math 132. Can I take this course?"

    assert asked(question) == question


def test_a_single_sentence_is_kept_whole_first_person_and_all():
    question = "Can I get you to write a recommendation letter?"

    assert asked(question) == question


def test_a_text_of_instructions_only_is_kept_as_given():
    question = "Answer in one word. Use the income statement."

    assert asked(question) == question


def test_abbreviations_and_decimals_do_not_end_a_sentence():
    assert sentences("Is U.S. revenue up 3.5 percent? It grew.") == [
        "Is U.S. revenue up 3.5 percent?",
        "It grew.",
    ]


@pytest.mark.parametrize(
    "question",
    [
        "And how do I make it raise an error instead?",
        "And generators?",
        "What about a list?",
        "So what does name mangling do exactly?",
        "Can its counts be negative?",
        "What are their limits?",
        "Can I change that with a hook?",
        "Use a list instead.",
    ],
)
def test_a_question_that_leans_on_the_last_one_continues_the_conversation(question):
    assert continues(question)


@pytest.mark.parametrize(
    "question",
    [
        "How do I make json.dumps sort the keys of dictionaries?",
        "What is a deque?",
        # a pronoun in a long question points at a noun of its own
        "What happens to dictionary keys of unusual types when json.dump is told to skip them?",
        "",
    ],
)
def test_a_question_that_names_its_own_subject_starts_afresh(question):
    assert not continues(question)
