"""The sufficiency check's steps, each alone (nodes/check.py): the first answer's check,
the second answer's, the abstention and the verdict — on the real shapes index, with the
state a turn would hold."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from support.scripted import section_of

from deepread.nodes.check import abstain, first_pass, second_pass, verify
from deepread.nodes.citations import parse_citations
from deepread.nodes.context import Context
from deepread.nodes.messages import answer_metadata
from deepread.nodes.model_input.prompt import NOTICE_KEY
from deepread.nodes.read_memory import index_scope, region_key
from deepread.nodes.resources import Resources
from deepread.nodes.sufficiency.support import ABSTENTION


@pytest.fixture(scope="module")
def five(shapes) -> tuple[int, int]:
    return section_of(shapes, "Five")


def turn(shapes, five, answer: str, **more: Any) -> dict[str, Any]:
    """A turn that read paragraphs 0–3 of "Five" and answered ``answer``."""
    scope = index_scope(shapes)
    return {
        "question": "Which paragraph is about cherries?",
        "messages": [HumanMessage(content="Which paragraph is about cherries?"), AIMessage(answer)],
        "turn_start": 0,
        "scope": scope,
        "read_regions": {region_key(*five, scope): [[0, 3]]},
        **more,
    }


def test_an_answer_citing_nothing_it_read_is_uncited(shapes, five):
    state = turn(shapes, five, "Cherries are in the third paragraph.")

    assert first_pass(Resources(index=shapes), True, state, Context(), {}) == {
        "sufficiency": "uncited"
    }


def test_a_turn_that_ran_out_of_rounds_is_not_checked(shapes, five):
    doc, sec = five
    state = turn(shapes, five, f"Charlie paragraph about cherries. [{doc}:{sec}:2]")
    state["stop_reason"] = "budget"

    assert first_pass(Resources(index=shapes), True, state, Context(), {}) == {
        "sufficiency": "unchecked"
    }


def test_a_quote_of_the_cited_paragraph_is_supported(shapes, five):
    doc, sec = five
    state = turn(shapes, five, f'"Charlie paragraph about cherries." [{doc}:{sec}:2]')
    context = Context(support_threshold=0.0, sufficiency_threshold=0.5)

    assert first_pass(Resources(index=shapes), True, state, context, {}) == {
        "sufficiency": "supported"
    }


def test_a_failed_second_answer_keeps_the_first(shapes, five):
    state = turn(shapes, five, "anything")  # no extra read was requested in this turn

    assert second_pass(Resources(index=shapes), state, Context(), {}) == {
        "sufficiency": "unchecked"
    }


def test_the_abstention_keeps_the_answers_label_and_cites_what_was_found(shapes, five):
    doc, sec = five
    answer = AIMessage("x", response_metadata={"deepread": {"label": "No LLM was used."}})

    update = abstain(shapes, answer, [(doc, sec, 2)], "Which paragraph is about kiwis?")

    (message,) = update["messages"]
    assert update["stop_reason"] == "no_evidence" and update["sufficiency"] == "insufficient"
    assert message.additional_kwargs[NOTICE_KEY] == "no_evidence"
    # the label in its metadata, as the answer's was; the text says what was searched
    assert answer_metadata(message)["label"] == "No LLM was used."
    text = str(message.content)
    assert text.startswith(ABSTENTION) and "No LLM was used." not in text
    assert '(searched for "Which paragraph is about kiwis?" in 1 document)' in text
    assert parse_citations(text) == [(doc, sec, 2)]


def test_a_verdict_without_a_judge_is_the_checks_own(shapes, five):
    doc, sec = five
    state = turn(shapes, five, "")
    context = Context(support_threshold=0.0, sufficiency_threshold=0.5)
    usage: dict[str, int] = {}

    verdict = verify(
        Resources(index=shapes),
        shapes,
        state,
        context,
        f'"Delta paragraph about dates." [{doc}:{sec}:3]',
        [(doc, sec, 2)],
        usage,
    )

    assert verdict is not None and not verdict.supported  # the quote is not in paragraph 2
    assert usage == {}  # no judge was asked (no model configured)
