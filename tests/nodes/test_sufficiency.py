"""Sufficiency and abstention: before answering, the cited evidence must support the
answer (lexically, or by a judge prompt with an LLM); if not, one bounded extra read and
a second answer; if still not, the answer abstains with stop_reason "no_evidence": one
line saying what was searched, then pointers (citation, page, section, opening words) to
the closest passages read, the answer's label kept in its metadata.

The store, parsers and embeddings are real; LLMs are scripted (:mod:`scripted`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage, SystemMessage, ToolMessage
from support.citations import coordinates
from support.scripted import ScriptedChatModel, ScriptedHTTPError, ai, call, shown_coords

import deepread
from deepread.extractive.policy import NOTICE, ExtractiveChatModel
from deepread.graphs.agent import build_graph
from deepread.nodes.citations import parse_citations
from deepread.nodes.context import Context
from deepread.nodes.messages import answer_metadata
from deepread.nodes.model_input.prompt import NOTICE_KEY
from deepread.nodes.sufficiency.support import (
    ABSTENTION,
    abstains,
    dense_check,
    dense_support,
    lexical_check,
    quoted_passages,
)
from deepread.nodes.tools.observation import Observation
from deepread.text.tokens import count_tokens


@pytest.fixture(scope="module")
def five(shapes) -> tuple[int, int]:
    for doc in shapes.documents():
        for sec in doc.sections:
            if sec.title == "Five":
                return doc.doc_id, sec.sec_id
    raise AssertionError("no Five")


def read(five: tuple[int, int], start: int, end: int) -> dict:
    return call("read_section", {"doc_id": five[0], "sec_id": five[1], "start": start, "end": end})


def ask(index, model, question: str, **context) -> dict:
    return build_graph(index=index, model=model).invoke(
        {"question": question}, context=Context(**context)
    )


# -- the lexical check ------------------------------------------------------------------


def test_quoted_passages_must_be_verbatim_in_the_cited_paragraphs():
    evidence = ["The <b>ChainMap</b> class groups   several mappings: d.maps[1:] skips one."]
    good = "> The ChainMap class groups several mappings: d.maps[1:] skips one. [1:2:3]"
    bad = 'It says "The ChainMap class merges all mappings into one" [1:2:3]'

    assert quoted_passages(good) == [
        "The ChainMap class groups several mappings: d.maps[1:] skips one."
    ]
    assert lexical_check("What does ChainMap group?", good, evidence, 0.5).supported
    verdict = lexical_check("What does ChainMap group?", bad, evidence, 0.5)
    assert not verdict.supported and "not in the cited paragraphs" in verdict.reason


def test_a_quote_line_s_citation_and_page_are_no_part_of_its_quote():
    evidence = ["If allow_nan is true, NaN is encoded as such."]
    answer = (
        "NaN is encoded as such. [2:3:32] p. 8\n\n"
        "> If allow_nan is true, NaN is encoded as such. [2:3:32] p. 8"
    )

    assert quoted_passages(answer) == [evidence[0]]
    assert lexical_check("How is NaN encoded?", answer, evidence, 0.5).supported


def test_a_table_row_quoted_as_the_reading_tools_show_it_is_verbatim_in_the_stored_table():
    evidence = ["<table><tr><td>Net income</td><td></td><td>$5,428</td></tr></table>"]
    answer = "> Net income |  | $5,428 [1:2:3]"

    assert lexical_check("What was net income?", answer, evidence, 0.5).supported


def test_straight_quotes_in_two_quoted_lines_of_code_are_not_read_as_one_quote():
    evidence = ['print(f"Not on the diagonal")', 'Mapping patterns: {"bandwidth": b} captures.']
    answer = (
        '> print(f"Not on the diagonal") [1:2:3]\n'
        '> Mapping patterns: {"bandwidth": b} captures. [1:2:4]'
    )

    assert quoted_passages(answer) == [evidence[0], evidence[1]]
    assert lexical_check("What do mapping patterns capture?", answer, evidence, 0.5).supported


def test_question_words_missing_from_the_cited_paragraphs_fail_the_lexical_check():
    evidence = ["Alpha paragraph about apples."]

    supported = lexical_check("Which paragraph is about apples?", "x", evidence, 0.5)
    missing = lexical_check("Where do zebras live?", "x", evidence, 0.5)

    assert supported.supported and supported.coverage == 1.0
    assert not missing.supported and missing.coverage == 0.0
    assert "zebra" in missing.reason


def test_a_cited_paragraph_about_something_else_fails_the_dense_check():
    evidence = ["Alpha paragraph about apples."]

    about = dense_check("Which paragraph is about apples?", "x", evidence, 0.37)
    other = dense_check("Where do zebras live?", "x", evidence, 0.37)

    assert about.supported and about.method == "dense" and about.coverage > 0.37
    assert not other.supported and "best similarity" in other.reason


def test_the_dense_check_compares_what_is_asked_not_the_instructions_around_it():
    evidence = ["Net cash provided by operating activities was $1,234 million in 2020."]
    question = "How much cash did operating activities provide in 2020?"
    wrapped = (
        "You are an investment banker and your only resources are the filings. "
        f"Here's the question: {question} Answer in USD millions."
    )

    assert dense_support(wrapped, evidence) == dense_support(question, evidence)


def test_answers_that_say_the_documents_lack_it_count_as_abstentions():
    assert abstains("The documents do not contain the boiling point.")
    assert abstains("I could not find that in the documents.")
    assert not abstains("Apples are mentioned in [1:2:0].")


# -- the extractive policy ---------------------------------------------------------------


def test_the_extractive_policy_abstains_when_the_documents_lack_the_answer(shapes):
    out = build_graph(index=shapes).invoke(
        {"question": "What is the boiling point of ethanol at sea level?"}, context=Context()
    )

    assert out["stop_reason"] == "no_evidence"
    assert out["sufficiency"] == "insufficient"
    # the label says no LLM wrote it, in the message's metadata, not its text
    assert answer_metadata(out["messages"][-1])["label"] == NOTICE
    assert out["answer"].startswith(ABSTENTION) and NOTICE not in out["answer"]
    assert '(searched for "What is the boiling point of ethanol at sea level?"' in out["answer"]
    # what was found is still pointed at — at most three passages of neighbouring
    # paragraphs — each paragraph cited where it is pointed at
    sections = {(c["doc_id"], c["sec_id"]) for c in out["citations"]}
    assert out["citations"] and len(sections) <= 3
    pointed = parse_citations(out["answer"])
    for c in out["citations"]:
        assert (c["doc_id"], c["sec_id"], c["para_idx"]) in pointed


def test_a_mode_without_read_section_abstains_without_reading(shapes):
    out = build_graph(index=shapes, tools=("retrieve",)).invoke(
        {"question": "What is the boiling point of ethanol at sea level?"}, context=Context()
    )

    assert out["stop_reason"] == "no_evidence"
    assert [c["name"] for c in out["tool_calls"]] == ["retrieve"]


def test_the_check_can_be_switched_off(shapes):
    out = build_graph(index=shapes).invoke(
        {"question": "What is the boiling point of ethanol at sea level?"},
        context=Context(check_sufficiency=False),
    )

    assert out["stop_reason"] == "answered"
    assert out["sufficiency"] == "off"
    assert out["citations"]


def test_the_extractive_policy_searches_for_the_question_not_its_preamble(shapes):
    out = build_graph(index=shapes).invoke(
        {
            "question": "You are a fruit seller and your only resource is this page. Here's the "
            "question: which paragraph is about cherries? Answer in one word."
        },
        context=Context(),
    )

    assert out["tool_calls"][0]["args"] == {"query": "which paragraph is about cherries?"}
    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")


@pytest.mark.parametrize("budget", [600, 1500])
def test_the_extractive_policy_reads_until_its_observation_budget_and_no_further(
    devset_index, budget
):
    model = ExtractiveChatModel(index=devset_index, observation_budget=budget)

    # A results page fills up to half the policy's budget, as the defaults do (750 of
    # 1,500): a fuller first page would pass a small budget before any read.
    out = build_graph(index=devset_index, model=model).invoke(
        {"question": "How does json encode NaN and infinity?"},
        context=Context(check_sufficiency=False, page_tokens=budget // 2),
    )

    # The budget is for reading: find_documents' cards (the devset is a library) are
    # its TOC, not counted.
    spent = sum(
        count_tokens(str(m.content))
        for m in out["messages"]
        if isinstance(m, ToolMessage) and Observation.of(m).documents is None
    )
    assert 0.8 * budget <= spent <= budget


def test_an_extractive_answer_its_evidence_supports_is_returned_as_is(shapes):
    out = build_graph(index=shapes).invoke(
        {"question": "Which paragraph is about cherries?"}, context=Context()
    )

    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")
    assert "Charlie paragraph about cherries." in out["answer"]


# -- an LLM policy (scripted) --------------------------------------------------------------


def test_a_lexically_supported_answer_costs_no_judge_call(shapes, five):
    d, s = five
    model = ScriptedChatModel(
        steps=[ai(read(five, 2, 2)), ai(content=f"Charlie is about cherries [{d}:{s}:2].")]
    )

    out = ask(shapes, model, "Which paragraph is about cherries?")

    assert len(model.calls) == 2
    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")


def test_an_unsupported_answer_gets_one_extra_read_and_a_second_answer(shapes, five):
    d, s = five

    def second_answer(messages: list[BaseMessage]) -> object:
        assert "Delta paragraph about dates." in str(messages[-2].content)
        return ai(content=f"The Delta paragraph is about dates [{d}:{s}:3].")

    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 0)),
            ai(content=f"It is about apples [{d}:{s}:0]."),
            ai(content="INSUFFICIENT: the cited paragraph is about Alpha, not Delta."),
            second_answer,
        ]
    )
    graph = build_graph(index=shapes, model=model)

    # The lexical test: "Delta" is not in the cited Alpha paragraph (the dense one finds
    # the two paragraphs alike enough, 0.48).
    chunks = list(
        graph.stream(
            {"question": "Which fruit does the Delta paragraph name?"},
            context=Context(support_threshold=0.0),
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
        "read_section",
        "compact",
        "policy",
        "check",
        "finalize",
    ]
    out = chunks[-1]["finalize"]
    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")
    assert out["answer"] == f"The Delta paragraph is about dates [{d}:{s}:3]."
    assert coordinates(out["citations"]) == [{"doc_id": d, "sec_id": s, "para_idx": 3}]
    assert len(model.calls) == 4
    [judge_prompt] = model.calls[2]
    assert "Alpha paragraph about apples." in judge_prompt.content
    assert f"It is about apples [{d}:{s}:0]." in judge_prompt.content
    notice, extra = model.calls[3][-1], model.calls[3][-2]
    assert isinstance(notice, SystemMessage) and notice.additional_kwargs[NOTICE_KEY]
    assert "about Alpha, not Delta" in notice.content
    assert isinstance(extra, ToolMessage)
    assert shown_coords(extra) == [(d, s, p) for p in range(5)]  # the containing section
    assert [c["name"] for c in out["tool_calls"]] == ["read_section", "read_section"]


def test_still_unsupported_after_the_extra_step_the_answer_abstains(shapes, five):
    d, s = five
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 0)),
            ai(content=f"Zebras live in the savanna [{d}:{s}:0]."),
            ai(content="INSUFFICIENT: nothing about zebras."),
            ai(content=f"Zebras live in the savanna [{d}:{s}:1]."),
            ai(content="INSUFFICIENT: still nothing about zebras."),
        ]
    )

    out = ask(shapes, model, "Where do zebras live?")

    assert out["stop_reason"] == "no_evidence"
    assert out["sufficiency"] == "insufficient"
    assert out["answer"].startswith(ABSTENTION)
    assert "Five" in out["answer"]  # where the closest passages were
    # the passages both answers cited, shown and cited
    assert [(c["doc_id"], c["sec_id"], c["para_idx"]) for c in out["citations"]] == [(d, s, 1)]
    assert len(model.calls) == 5


def test_a_second_answer_that_abstains_in_its_own_words_is_kept(shapes, five):
    d, s = five
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 0)),
            ai(content=f"Zebras live in the savanna [{d}:{s}:0]."),
            ai(content="INSUFFICIENT"),
            ai(content="The documents do not mention zebras."),
        ]
    )

    out = ask(shapes, model, "Where do zebras live?")

    assert out["stop_reason"] == "no_evidence"
    assert out["answer"] == "The documents do not mention zebras."


def test_a_failing_judge_keeps_the_answer(shapes, five):
    d, s = five
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 0)),
            ai(content=f"Zebras live here [{d}:{s}:0]."),
            ScriptedHTTPError(400, "judge refused"),
        ]
    )

    out = ask(shapes, model, "Where do zebras live?")

    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "unchecked")
    assert coordinates(out["citations"]) == [{"doc_id": d, "sec_id": s, "para_idx": 0}]


def test_an_uncited_answer_is_reported_as_uncited_and_not_rewritten(shapes):
    model = ScriptedChatModel(steps=[ai(content="Done.")])

    out = ask(shapes, model, "Where do zebras live?")

    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "uncited")
    assert out["answer"] == "Done."
    assert len(model.calls) == 1


def test_a_second_answer_over_the_message_cap_keeps_the_first(shapes, five):
    # The second answer is written into the thread by no node: the first one stands, as
    # when the second call fails (a reply the thread would refuse is a failed call).
    d, s = five
    first = f"It is about apples [{d}:{s}:0]."
    model = ScriptedChatModel(
        steps=[
            ai(read(five, 0, 0)),
            ai(content=first),
            ai(content="INSUFFICIENT: the cited paragraph is about Alpha, not Delta."),
            ai(content="x" * 1_000_001),
        ]
    )

    out = ask(shapes, model, "Which fruit does the Delta paragraph name?", support_threshold=0.0)

    assert out["stop_reason"] != "error"
    assert "x" * 1000 not in out["answer"]
    assert len(model.calls) == 4


def test_an_abstention_points_at_the_closest_passages_with_their_citations(
    tmp_path: Path,
) -> None:
    from deepread.nodes.sufficiency.support import ABSTENTION_CHARS, abstention

    (tmp_path / "z.md").write_text(
        "# Zoo\n\n## Walruses\n\nWalruses rest on ice floes between dives.\n\n"
        "## Narwhals\n\n" + "Narwhals have one long tooth. " * 30 + "\n",
        encoding="utf-8",
    )
    with deepread.Index.open(store=tmp_path / "store", collection="z") as idx:
        idx.ingest([tmp_path / "z.md"])
        text = abstention(idx, [(1, 2, 0), (1, 3, 0)], "(offline)", "How long do walruses dive?")

    first, pointers_head, *pointers = text.splitlines()
    # one line: what was searched, where; the label is the message's, not the text's
    assert first == f'{ABSTENTION} (searched for "How long do walruses dive?" in 1 document)'
    assert pointers_head == "Closest passages read:" and "(offline)" not in text
    assert pointers[0] == '- [1:2:0] Walruses — "Walruses rest on ice floes between dives."'
    assert pointers[1].startswith('- [1:3:0] Narwhals — "Narwhals have one long tooth.')
    assert pointers[1].endswith(' …"') and len(pointers[1]) < ABSTENTION_CHARS + 40
    assert parse_citations(text) == [(1, 2, 0), (1, 3, 0)]


def test_an_abstention_cites_each_passage_the_draft_quoted_whole_with_its_neighbours(
    tmp_path: Path,
) -> None:
    """A draft quoting a passage of four short paragraphs: its pointer cites the four (a
    range) — one paragraph of it alone was a quarter of what had been found."""
    from deepread.nodes.sufficiency.support import abstention

    facts = "".join(f"Walrus fact {i} is about tusks.\n\n" for i in range(4))
    places = "".join(f"## Place {i}\n\nSeals rest at place {i}.\n\n" for i in range(4))
    (tmp_path / "z.md").write_text(f"# Zoo\n\n## Walruses\n\n{facts}{places}", encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="z") as idx:
        idx.ingest([tmp_path / "z.md"])
        walruses = [(1, 2, p) for p in range(4)]
        places_cited = [(1, s, 0) for s in range(3, 7)]
        text = abstention(idx, walruses + places_cited)

    # the passage whole, then two more passages: three in all, one line each
    assert parse_citations(text) == [*walruses, (1, 3, 0), (1, 4, 0)]
    pointers = [line for line in text.splitlines() if line.startswith("- ")]
    assert pointers[0] == '- [1:2:0-3] Walruses — "Walrus fact 0 is about tusks."'
    assert [line.split(" ")[1] for line in pointers[1:]] == ["[1:3:0]", "[1:4:0]"]


def test_the_check_reads_every_paragraph_an_answer_with_list_items_cites(tmp_path: Path) -> None:
    from deepread.nodes.sufficiency.support import evidence

    items = "".join(f"- Walrus fact number {i} is true.\n" for i in range(20))
    (tmp_path / "w.md").write_text(
        f"# Walruses\n\nSome facts follow:\n\n{items}\n## Seals\n\nSeals sing.\n", encoding="utf-8"
    )
    with deepread.Index.open(store=tmp_path / "store", collection="w") as idx:
        idx.ingest([tmp_path / "w.md"])
        doc = idx.documents()[0]
        cited = [(doc.doc_id, s.sec_id, p) for s in doc.sections for p in range(s.n_para)]
        cited = [cited[-1], *cited[:-1]]  # order cited, not document order
        got = evidence(idx, cited)

    assert len(cited) > 12
    assert list(got) == cited
    assert all(got[c] for c in cited)
