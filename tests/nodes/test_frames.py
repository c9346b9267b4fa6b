"""What a tool result's frame says, and what it leaves to the prompts: no result echoes
its query or explains its coordinates; a read's range rides on its section's line; a
pointer line is short; each section's line is written once per result, without a title
the paragraph right below already prints; the prompts describe exactly these lines."""

from __future__ import annotations

from support.scripted import ScriptedChatModel, ai, call, last_tool_message

from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.read_memory import regions_of
from deepread.nodes.tools.observation import (
    POINTER,
    extent,
    format_paragraphs,
    pointer_line,
    section_line,
)
from deepread.nodes.tools.retrieve import by_section
from deepread.prompts import load
from deepread.records.documents import Document, Paragraph, Section

QUERY = "which paragraph talks about cherries and elderberries"


def schedule() -> Document:
    return Document(
        1,
        "Syllabus",
        "s.pdf",
        [Section(0, "Syllabus", 0, None), Section(1, "Course Schedule", 1, 0, n_para=3)],
    )


def test_a_retrieve_result_has_no_header_and_does_not_echo_the_query(shapes):
    model = ScriptedChatModel(steps=[ai(call("retrieve", {"query": QUERY})), ai(content="Done.")])
    build_graph(index=shapes, model=model).invoke({"question": "cherries?"}, context=Context())

    result = last_tool_message(model.calls[1])

    assert result.content.startswith("<document_content>\n## (")
    assert QUERY not in result.content
    assert "doc_id:sec_id:para_idx" not in result.content  # the legend is in the prompt


def test_a_retrieve_writes_each_section_once_sections_in_order_of_their_best_hit():
    ranked = [
        Paragraph(1, 5, 7, "best"),
        Paragraph(1, 2, 0, "second"),
        Paragraph(1, 5, 3, "third"),
        Paragraph(1, 2, 4, "fourth"),
    ]

    assert [p.coord for p in by_section(ranked)] == [(1, 5, 3), (1, 5, 7), (1, 2, 0), (1, 2, 4)]


def test_a_pointer_line_is_the_coordinates_then_shown_above():
    assert POINTER == "(shown above)"
    assert pointer_line(3, 9, 18, 52) == "[3:9:18-52] (shown above)"
    assert pointer_line(3, 9, 4, 4) == "[3:9:4] (shown above)"


def test_a_read_says_its_range_and_the_section_size_on_the_section_line():
    assert section_line(1, 2, "  Grading\n policy ", extent(3, 9, 24)) == (
        "## (1) [2] Grading policy (paragraphs 3-9 of 24)"
    )
    assert section_line(1, 2, "Grading") == "## (1) [2] Grading"


def test_a_title_is_left_out_above_a_paragraph_that_begins_with_it():
    paragraphs = [
        Paragraph(1, 1, 0, "Course  Schedule\nWeek 1: intro"),
        Paragraph(1, 1, 1, "Week 2: lab"),
    ]

    text, _ = format_paragraphs(paragraphs, {1: schedule()}, {})

    assert text.splitlines()[1:3] == ["## (1) [1]", "[1:1:0] Course  Schedule"]


def test_a_title_stays_when_the_paragraph_holding_it_is_only_pointed_at():
    paragraphs = [
        Paragraph(1, 1, 0, "Course Schedule\nWeek 1: intro"),
        Paragraph(1, 1, 1, "Week 2: lab"),
    ]

    text, _ = format_paragraphs(paragraphs, {1: schedule()}, regions_of([(1, 1, 0)]))

    assert text.splitlines()[1:3] == ["## (1) [1] Course Schedule", "[1:1:0] (shown above)"]


def test_the_prompts_describe_the_lines_the_tools_write():
    system, read, retrieve = load("system"), load("read_section"), load("retrieve")

    assert f"[doc_id:sec_id:a-b] {POINTER}" in system
    assert "(paragraphs start-end of n)" in read
    assert extent(3, 9, 24) == "paragraphs 3-9 of 24"  # the same template, filled in
    assert "`[doc_id:sec_id:para_idx] text` (`(p.N)` where the page changes)" in retrieve
    assert "`## (doc_id) [sec_id] Title`, best section first" in retrieve
    assert section_line(1, 2, "Title") == "## (1) [2] Title"
