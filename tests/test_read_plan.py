"""Read sizing from real paragraph tokens: a read fits the budget it was planned for,
whole sections when they fit, else a window around the hit; a table is never cut."""

from __future__ import annotations

import re

import pytest
from pdf_builder import Doc, filler

import deepread
from deepread.nodes.extractive import ExtractiveChatModel, TocEntry
from deepread.nodes.observation import format_paragraphs
from deepread.nodes.read_plan import FRAME, POINTER, Sections, fit, range_cost
from deepread.nodes.state import regions_of
from deepread.stores.tokens import count_tokens


def test_a_section_that_fits_is_read_whole():
    assert fit([10, 10, 10], 1, 100) == (0, 2)


def test_a_window_around_the_hit_grows_two_below_for_one_above():
    sizes = [10] * 20

    start, end = fit(sizes, 10, FRAME + 60)

    assert (start, end) == (9, 14)  # down, down, up, down, down: six paragraphs
    assert range_cost(sizes, start, end, ()) <= FRAME + 60


def test_a_paragraph_larger_than_the_budget_is_not_read_at_all():
    assert fit([10, 900, 10], 1, 300) is None


def test_a_window_skips_past_a_large_neighbour_to_use_the_room_left():
    # The table below the hit does not fit; the paragraphs above it do.
    start, end = fit([10, 10, 10, 900], 2, FRAME + 30)

    assert (start, end) == (0, 2)


def test_paragraphs_shown_before_cost_one_pointer_line_per_run():
    assert range_cost([50, 50, 50, 50], 0, 3, {1, 2}) == FRAME + 50 + POINTER + 50


def test_a_section_shown_whole_already_has_nothing_to_read():
    assert fit([10, 10], 0, 500, {0, 1}) is None


def test_a_page_marker_is_counted_where_the_shown_lines_resume():
    # Paragraphs 1 and 2 share paragraph 0's page: their markers (5 tokens) count only
    # on the line that opens the range or follows a pointer line.
    marks = [0, 5, 5]

    assert range_cost([10, 10, 10], 1, 2, (), marks) == FRAME + 15 + 10
    assert range_cost([10, 10, 10], 0, 2, {1}, marks) == FRAME + 10 + POINTER + 15


@pytest.fixture(scope="module")
def paged(tmp_path_factory: pytest.TempPathFactory):
    """A one-section PDF whose twelve paragraphs run over two pages."""
    folder = tmp_path_factory.mktemp("paged")
    doc = Doc().page().line("Course Schedule", size=16, bold=True).gap(8)
    for i in range(12):
        if i == 7:
            doc.page()
        doc.para(filler(30, seed=i))
    path = doc.save(folder / "paged.pdf")
    with deepread.Index.open(store=folder / "store", collection="paged") as idx:
        idx.ingest([path])
        yield idx


@pytest.mark.parametrize(("start", "end", "shown"), [
    (0, 11, ()), (3, 9, ()), (8, 11, ()), (0, 11, (2, 3, 8)), (5, 10, (5, 6))])
def test_planned_costs_of_a_paged_read_are_its_real_tokens(paged, start, end, shown):
    doc = paged.documents()[0]
    sec = max(doc.sections, key=lambda s: s.n_para)
    sections = Sections(paged)
    read = paged.read(doc.doc_id, sec.sec_id, start, end).paragraphs
    assert sec.n_para == 12

    text, _ = format_paragraphs(read, {doc.doc_id: doc},
                                regions_of([(doc.doc_id, sec.sec_id, i) for i in shown]))

    planned = range_cost(sections.costs(doc.doc_id, sec.sec_id), start, end, set(shown),
                         sections.marks(doc.doc_id, sec.sec_id))
    lines = text.splitlines()[2:-1]  # without the frame and the section's title line
    pointers = [ln for ln in lines if "already shown" in ln]
    assert planned - FRAME - POINTER * len(pointers) == sum(
        count_tokens(ln) + 1 for ln in lines if ln not in pointers)


def test_costs_are_the_tokens_of_the_lines_the_tools_node_shows(shapes):
    doc = shapes.documents()[0]
    five = next(s.sec_id for s in doc.sections if s.title == "Five")
    paragraphs = shapes.read(doc.doc_id, five).paragraphs

    costs = Sections(shapes).costs(doc.doc_id, five)

    text, _ = format_paragraphs(paragraphs, {doc.doc_id: doc}, {})
    body = "\n".join(text.splitlines()[2:-1])  # without the frame and the title line
    # One entry per paragraph; the first carries the heading on a line of its own.
    lines = re.split(r"\n(?=\[\d+:\d+:\d+\])", body)
    assert costs == [count_tokens(line) + 1 for line in lines]
    assert range_cost(costs, 0, len(costs) - 1, ()) >= count_tokens(text)


def test_after_the_hits_the_policy_picks_toc_sections_by_title_similarity():
    policy = ExtractiveChatModel(toc=(
        TocEntry(1, 1, "Course schedule", 9, 200), TocEntry(1, 2, "Grading policy", 3, 50),
        TocEntry(1, 3, "Office hours", 2, 30), TocEntry(1, 4, "Readings", 0, 0),
        TocEntry(2, 1, "Grading", 1, 5)))

    ranked = policy.sections_by_title("How is my final grade computed?", {1})

    assert ranked[0] == (1, 2, 0)  # the grading section first
    assert {s for _, s, _ in ranked} == {1, 2, 3}  # doc 1's sections with paragraphs only

