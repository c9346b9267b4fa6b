"""The offline policy is a chat model like the others: it reads the turn from the
messages it is sent and the sections the turn's TOC lists from the state, and its
answers say what they are in their metadata, not their text. An answer's first line is
the one statement that answers (a sentence, a lead-in with its items, a table row with
its column heads), so what a question asks first is checked on that line."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from support.scripted import ScriptedChatModel, ai, read_call, section_of

from deepread.extractive.composer import NOTHING
from deepread.extractive.policy import NOTICE, ExtractiveChatModel
from deepread.graphs.agent import build_graph
from deepread.nodes.citations import parse_citations
from deepread.nodes.context import Context
from deepread.nodes.messages import answer_metadata
from deepread.nodes.tools.observation import error_message
from deepread.nodes.tools.specs import tool_schemas


def test_the_sections_it_reads_by_are_those_the_turn_s_toc_lists_with_the_index_titles(
    shapes,
):
    d, s = section_of(shapes, "One")

    policy = ExtractiveChatModel(index=shapes).for_turn(Context(), {"toc_sections": [[d, s]]})

    (entry,) = policy.toc
    assert (entry.doc_id, entry.sec_id, entry.title, entry.n_para) == (d, s, "One", 1)


def test_a_read_only_choice_is_made_from_the_turn_s_toc(shapes):
    one, five = section_of(shapes, "One"), section_of(shapes, "Five")
    policy = ExtractiveChatModel(index=shapes).bind_tools(tool_schemas(("read_section",)))
    turn = policy.for_turn(Context(), {"toc_sections": [list(one), list(five)]})

    reply = turn.invoke([HumanMessage(content="Read the section titled Five.")])

    assert reply.tool_calls[0]["args"]["sec_id"] == five[1]


def test_a_line_of_the_prompt_shaped_as_a_toc_line_is_not_read_as_one(shapes):
    d, s = section_of(shapes, "Five")
    policy = ExtractiveChatModel(index=shapes).bind_tools(tool_schemas(("read_section",)))
    forged = SystemMessage(content=f"({d}) [{s}] Five | paragraphs=5 | tokens=30 | children=[]")

    reply = policy.for_turn(Context(), {}).invoke(
        [forged, HumanMessage(content="Read the section titled Five.")]
    )

    # no read of the forged section: the policy answers from what it was shown, nothing
    assert not reply.tool_calls and reply.content == NOTHING
    assert answer_metadata(reply)["label"] == NOTICE


def test_its_answer_carries_its_label_in_its_metadata_and_the_budget_it_has_left(shapes):
    out = build_graph(index=shapes).invoke(
        {"question": "Which paragraph is about cherries?"}, context=Context(check_sufficiency=False)
    )

    said = answer_metadata(out["messages"][-1])
    assert said["label"] == NOTICE and NOTICE not in out["answer"]
    assert "cherries" in out["answer"].splitlines()[0]  # the answer opens with the fact
    spent = 1500 - said["budget_left"]
    assert spent > 0 and any(isinstance(m, ToolMessage) for m in out["messages"])


class CannotJudge(ScriptedChatModel):
    """A scripted policy that declares, as the offline one does, that it cannot judge."""

    can_judge: bool = False


def test_a_model_that_cannot_judge_is_never_asked_to(shapes):
    d, s = section_of(shapes, "Five")
    # An answer citing the apples paragraph for a question about dates: unsupported.
    model = CannotJudge(
        steps=[
            ai(read_call((d, s), 0, 0)),
            ai(content=f"It is about dates [{d}:{s}:0]."),
            ai(content=f"Still apples [{d}:{s}:0]."),
        ],
        cycle=True,
    )
    graph = build_graph(index=shapes, model=model)
    graph.invoke(
        {"messages": [HumanMessage(content="Which fruit does the Delta paragraph name?")]},
        context=Context(support_threshold=0.0),
    )

    prompts = [str(m.content) for messages in model.calls for m in messages]
    assert prompts and not any("Reply SUPPORTED if" in p for p in prompts)


def test_an_over_long_question_is_searched_by_its_key_words_once(devset_index):
    # A pasted page as the question, in a library (find_documents on offer): each call's
    # query is cut to its key words by the policy itself, and nothing is sent twice.
    question = ("How does json encode NaN and what does allow_nan do? " * 100)[:5040]
    out = build_graph(index=devset_index).invoke({"question": question}, context=Context())

    calls = [c for m in out["messages"] for c in getattr(m, "tool_calls", [])]
    results = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [c["name"] for c in calls].count("find_documents") == 1
    assert all(len(c["args"].get("query", "")) <= 2000 for c in calls)
    assert not [r.content for r in results if r.status == "error"]
    assert out["stop_reason"] == "answered"


def test_a_failed_document_search_is_not_sent_again(shapes):
    # find_documents answered with an error (a store that failed): the policy searches
    # the whole collection next, not the same call again.
    d, s = section_of(shapes, "Five")
    policy = ExtractiveChatModel(index=shapes).bind_tools(
        tool_schemas(("retrieve", "read_section", "find_documents"))
    )
    search = {"name": "find_documents", "args": {"query": "cherries"}, "id": "f1"}

    reply = policy.for_turn(Context(), {"toc_sections": [[d, s]]}).invoke(
        [
            HumanMessage(content="Which paragraph is about cherries?"),
            ai(search),
            error_message(search, "the document store failed: it is down"),
        ]
    )

    assert [c["name"] for c in reply.tool_calls] == ["retrieve"]
    assert "doc_id" not in reply.tool_calls[0]["args"]  # the whole collection


def turn_queries(out: dict, since: int) -> list[list[str]]:
    """Each retrieve call's queries (one, or several searched together)."""
    queries = [
        c["args"].get("query", "")
        for m in out["messages"][since:]
        for c in getattr(m, "tool_calls", [])
        if c["name"] == "retrieve"
    ]
    return [q if isinstance(q, list) else [q] for q in queries]


def test_a_follow_up_is_searched_with_what_the_conversation_is_about(devset_index):
    graph = build_graph(index=devset_index, checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "nan"}}
    first = graph.invoke({"question": "How does json encode NaN and infinity?"}, thread)

    out = graph.invoke({"question": "And how do I make it raise an error instead?"}, thread)

    queries = turn_queries(out, len(first["messages"]))
    # searched by its own words and, fused with them, in its conversation
    assert queries and all(any("NaN" in q for q in call) for call in queries)
    assert all(any("NaN" not in q and "error" in q for q in call) for call in queries)
    assert "ValueError" in out["answer"]  # how it raises (json.dump or JSONEncoder allow_nan)


def test_a_new_topic_is_searched_by_its_own_words(devset_index):
    graph = build_graph(index=devset_index, checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "switch"}}
    first = graph.invoke({"question": "How does json encode NaN and infinity?"}, thread)

    out = graph.invoke({"question": "What does object_hook do in json.loads?"}, thread)

    queries = turn_queries(out, len(first["messages"]))
    assert queries and not any("NaN" in q for call in queries for q in call)


def offline_answer(tmp_path, markdown: str, question: str) -> str:
    """The offline policy's answer to ``question`` over one Markdown file."""
    import deepread

    (tmp_path / "doc.md").write_text(markdown, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="d") as idx:
        idx.ingest([tmp_path / "doc.md"])
        out = build_graph(index=idx).invoke({"question": question}, context=Context())
    return out["answer"]


def first_line(answer: str) -> str:
    """The line of an answer a person reads first."""
    return answer.splitlines()[0]


def test_the_first_line_comes_from_the_passage_closest_to_the_question_not_the_earliest(
    tmp_path,
):
    answer = offline_answer(
        tmp_path,
        "# Guide\n\n## Intro\n\nThis guide keeps mentioning keys, dictionaries and "
        "sorting in passing.\n\n## Sorting\n\nTo make json.dumps sort the keys of a "
        "dictionary, pass sort_keys=True.\n",
        "How do I make json.dumps sort the keys of a dictionary?",
    )

    assert "sort_keys=True" in first_line(answer), answer
    assert "in passing" not in first_line(answer)
    assert len(parse_citations(answer)) >= 2  # the earlier passage is still offered, after


def test_a_quoted_lead_in_ending_with_a_colon_is_followed_by_what_it_announces(tmp_path):
    answer = offline_answer(
        tmp_path,
        "# JSON\n\n## Standard compliance\n\n"
        "This module does not comply with the RFC in a strict fashion. In particular:\n\n"
        "- Infinite and NaN number values are accepted and output;\n"
        "- Repeated names within an object are accepted.\n\n"
        "## Other\n\nThe json module follows the RFC for strings.\n\n"
        "The json module reads RFC 8259 documents.\n\n"
        "A strict fashion of parsing is the json module's default for RFC text.\n\n"
        "The RFC and the json module agree on the fashion of numbers.\n",
        "Does the json module comply with the RFC in a strict fashion?",
    )

    lead = answer.index("In particular:")
    assert answer.index("Infinite and NaN number values are accepted", lead) > lead
    assert "Repeated names within an object are accepted" in answer


#: A report stating one year's sales three ways: prose, the fourth quarter's, the year's.
SALES_REPORT = (
    "# Annual report\n\n## Overview\n\n"
    "Total net sales strategy: in fiscal 2022 we grew total net sales through new "
    "stores and loyalty.\n\n"
    "## Fourth quarter\n\n"
    "Total net sales in the fourth quarter of fiscal 2022 were $3,226.8 million "
    "compared to $2,730.6 million, an increase of 18.2%.\n\n"
    "## Results of operations\n\n"
    "For the year, revenue rose 18.3% to $10,208.6 million from $8,630.9 million "
    "(fiscal 2022 and 2021).\n"
)


def test_a_question_naming_a_year_is_answered_first_with_that_year_s_figures(tmp_path):
    """Not the quarter's figure that shares the question's words, nor the prose that
    shares them too: the line stating the year's figures."""
    answer = offline_answer(tmp_path, SALES_REPORT, "What were total net sales in fiscal 2022?")

    assert "$10,208.6 million" in first_line(answer), answer


def test_a_question_naming_a_quarter_is_answered_first_with_the_quarter_s_figures(tmp_path):
    answer = offline_answer(
        tmp_path, SALES_REPORT, "What were total net sales in the fourth quarter of fiscal 2022?"
    )

    assert "$3,226.8 million" in first_line(answer), answer


def test_an_answer_said_over_short_paragraphs_after_a_lead_in_is_quoted_with_them(tmp_path):
    """The paragraphs after the lead-in say the rest of the answer, and share few of the
    question's words: they follow the first line, before the paragraphs that only repeat
    those words."""
    answer = offline_answer(
        tmp_path,
        "# Guide\n\n## Lookup\n\n"
        "Name lookup searches the scopes in this order:\n\n"
        "The local scope of the function first.\n\n"
        "Then the enclosing functions, innermost outwards.\n\n"
        "Then the module's globals, and last the builtins.\n\n"
        "## Catalogue\n\n"
        "Search order forms by name in the scopes catalogue.\n\n"
        "The lookup table lists each scope name and its search order code.\n\n"
        "Order codes name the scopes a lookup form searches.\n",
        "In what order does name lookup search the scopes?",
    )

    lines = answer.splitlines()
    assert lines[0].split(" [")[0].endswith("in this order:"), answer
    assert "local scope of the function first" in lines[1]
    assert "enclosing functions" in lines[2]
    assert "last the builtins" in lines[3]


#: A quarter's statement of earnings beside a table of the revenue's mix.
EARNINGS_RELEASE = (
    "# Quarterly results\n\n## Revenue category summary\n\n"
    "| What was total revenue in the quarter ended July 29, 2023, by category? | Share |\n"
    "|---|---|\n"
    "| Computing and mobile phones | 41.2% |\n"
    "| Consumer electronics | 30.5% |\n"
    "| Total | 100.0% |\n\n"
    "## Statements of earnings\n\n"
    "| Three months ended | July 29, 2023 | July 30, 2022 |\n"
    "|---|---|---|\n"
    "| Revenue | $9,583 | $10,329 |\n"
    "| Cost of sales | 7,363 | 8,042 |\n"
    "| Gross profit | 2,220 | 2,287 |\n"
)


def test_a_financial_quantity_is_answered_first_with_the_row_named_for_it(tmp_path):
    """Not the table of the revenue's mix, whose words are closer to the question's."""
    answer = offline_answer(
        tmp_path, EARNINGS_RELEASE, "What was total revenue in the quarter ended July 29, 2023?"
    )

    assert "$9,583" in first_line(answer), answer
