"""The typed tool result: one serialiser to the ToolMessage artifact, one reader."""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage

from deepread.nodes.read_memory import coords_of, regions_of
from deepread.nodes.tools.observation import (
    Observation,
    ShownParagraph,
    error_message,
    format_paragraphs,
    result_message,
)
from deepread.records.documents import Document, Hit, Paragraph, Section

CALL = {"name": "retrieve", "args": {"query": "q"}, "id": "c1", "type": "tool_call"}


def test_an_observation_comes_back_whole_from_its_artifact():
    sent = Observation(
        paragraphs=[
            ShownParagraph(1, 2, 3, "alpha", page=4),
            ShownParagraph(1, 2, 4, "beta", repeat=True),
        ],
        hits=[Hit(1, 2, 3, 0.5)],
        sections={"1:2": {"n_para": 9, "n_tok": 120}},
    )

    message = result_message(CALL, "text", sent)

    assert message.status == "success"
    assert Observation.of(message) == sent
    assert message.artifact["paragraphs"][1]["repeat"] is True  # plain JSON data


def test_an_error_result_carries_its_reason():
    message = error_message(CALL, "no document 42")

    assert message.status == "error" and message.content == "Error: no document 42"
    assert Observation.of(message).error == "no document 42"
    assert Observation.of(message).paragraphs == []


def test_anything_but_an_observation_reads_as_an_empty_one():
    assert Observation.of(AIMessage(content="hi")) == Observation()
    assert Observation.of(ToolMessage(content="x", tool_call_id="c", artifact="?")) == (
        Observation()
    )


def test_rows_with_only_coordinates_are_read():
    message = ToolMessage(
        content="…",
        tool_call_id="c",
        artifact={"paragraphs": [{"doc_id": 1, "sec_id": 2, "para_idx": 0, "unknown": "ignored"}]},
    )

    [row] = Observation.of(message).paragraphs

    assert row.coord == (1, 2, 0) and row.text == "" and not row.repeat


def test_the_summary_counts_what_a_result_showed():
    obs = Observation(
        paragraphs=[
            ShownParagraph(1, 2, 0, "a", page=7),
            ShownParagraph(1, 2, 1, "b", page=8, repeat=True),
        ],
        range=[0, 1],
    )

    assert obs.summary() == {"paragraphs": 2, "repeats": 1, "range": [0, 1], "pages": [7, 8]}


def test_a_page_is_named_under_a_title_where_it_changes_and_after_a_pointer():
    doc = Document(
        1,
        "Syllabus",
        "s.pdf",
        [Section(0, "Syllabus", 0, None), Section(1, "Schedule", 1, 0, n_para=5)],
    )
    pages = [3, 3, 4, 4, 4]
    paragraphs = [Paragraph(1, 1, i, f"row {i}", page=page) for i, page in enumerate(pages)]

    text, _ = format_paragraphs(paragraphs, {1: doc}, regions_of([(1, 1, 3)]))

    assert [ln for ln in text.splitlines() if ln.startswith("[")] == [
        "[1:1:0] (p.3) row 0",
        "[1:1:1] row 1",
        "[1:1:2] (p.4) row 2",
        "[1:1:3] (shown above)",
        "[1:1:4] (p.4) row 4",
    ]


def test_the_coordinates_of_read_regions_are_those_they_were_made_of():
    coords = [(1, 2, 0), (1, 2, 1), (1, 2, 4), (3, 0, 7)]

    assert coords_of(regions_of(coords)) == set(coords)
    assert coords_of(regions_of(coords), [3]) == {(3, 0, 7)}
