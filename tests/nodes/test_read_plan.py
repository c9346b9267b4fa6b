"""Read sizing from real paragraph tokens: a read fits the budget it was planned for,
whole sections when they fit, else a window around the hit; a table is never cut."""

from __future__ import annotations

import pytest
from support.pdf_builder import Doc, filler

import deepread
from deepread.nodes.context import Context
from deepread.nodes.read_memory import regions_of
from deepread.nodes.read_plan import ReadCost, Sections, fit, range_cost
from deepread.nodes.tools.contract import ToolEnv, render
from deepread.nodes.tools.read_section import read_section
from deepread.nodes.tools.specs import ReadSectionArgs
from deepread.text.tokens import count_tokens

FRAME, POINTER = 30, 12


def flat(sizes: list[int], marks: list[int] = ()) -> ReadCost:  # type: ignore[assignment]
    """Paragraph lines of ``sizes`` with a fixed frame and pointer line."""
    return ReadCost(sizes, marks, lambda start, end, shown: FRAME, lambda first, last: POINTER)


def test_a_section_that_fits_is_read_whole():
    assert fit(flat([10, 10, 10]), 1, 100) == (0, 2)


def test_a_window_around_the_hit_grows_two_below_for_one_above():
    cost = flat([10] * 20)

    start, end = fit(cost, 10, FRAME + 60)

    assert (start, end) == (9, 14)  # down, down, up, down, down: six paragraphs
    assert range_cost(cost, start, end, ()) <= FRAME + 60


def test_a_paragraph_larger_than_the_budget_is_not_read_at_all():
    assert fit(flat([10, 900, 10]), 1, 300) is None


def test_a_window_skips_past_a_large_neighbour_to_use_the_room_left():
    # The table below the hit does not fit; the paragraphs above it do.
    start, end = fit(flat([10, 10, 10, 900]), 2, FRAME + 30)

    assert (start, end) == (0, 2)


def test_paragraphs_shown_before_cost_one_pointer_line_per_run():
    assert range_cost(flat([50, 50, 50, 50]), 0, 3, {1, 2}) == FRAME + 50 + POINTER + 50


def test_a_run_of_shown_paragraphs_ending_the_range_is_one_pointer_line_too():
    assert range_cost(flat([50, 50, 50, 50]), 0, 3, {2, 3}) == FRAME + 50 + 50 + POINTER


def test_a_section_shown_whole_already_has_nothing_to_read():
    assert fit(flat([10, 10]), 0, 500, {0, 1}) is None


def test_a_page_marker_is_counted_where_the_shown_lines_resume():
    # Paragraphs 1 and 2 share paragraph 0's page: their markers (5 tokens) count only
    # on the line that opens the range or follows a pointer line.
    cost = flat([10, 10, 10], [0, 5, 5])

    assert range_cost(cost, 1, 2, ()) == FRAME + 15 + 10
    assert range_cost(cost, 0, 2, {1}) == FRAME + 10 + POINTER + 15


@pytest.fixture(scope="module")
def paged(tmp_path_factory: pytest.TempPathFactory):
    """A one-section PDF whose twelve paragraphs run over two pages, the first
    beginning with the section's title (a heading kept in its paragraph)."""
    folder = tmp_path_factory.mktemp("paged")
    doc = Doc().page().line("Course Schedule", size=16, bold=True).gap(8)
    for i in range(12):
        if i == 7:
            doc.page()
        doc.para(("Course Schedule by week: " if i == 0 else "") + filler(30, seed=i))
    path = doc.save(folder / "paged.pdf")
    with deepread.Index.open(store=folder / "store", collection="paged") as idx:
        idx.ingest([path])
        yield idx


def shown_text(
    index, doc_id: int, sec_id: int, start: int, end: int, shown: tuple[int, ...]
) -> str:
    """What the read_section tool shows for the read, ``shown`` paragraphs read before."""
    env = ToolEnv(index, Context())
    outcome = read_section(ReadSectionArgs(doc_id=doc_id, sec_id=sec_id, start=start, end=end), env)
    text, _ = render(
        outcome,
        {d.doc_id: d for d in index.documents()},
        regions_of([(doc_id, sec_id, i) for i in shown]),
    )
    return text


@pytest.mark.parametrize(
    ("start", "end", "shown"),
    [
        (0, 11, ()),
        (3, 9, ()),
        (8, 11, ()),
        (0, 11, (2, 3, 8)),
        (5, 10, (5, 6)),
        (0, 4, (0,)),
        (0, 11, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)),
        (6, 7, (7,)),
    ],
)
def test_the_planned_cost_of_a_read_is_the_tiktoken_count_of_what_it_shows(
    paged, start, end, shown
):
    doc = paged.documents()[0]
    sec = max(doc.sections, key=lambda s: s.n_para)
    assert sec.n_para == 12

    planned = range_cost(Sections(paged).read_cost(doc.doc_id, sec.sec_id), start, end, set(shown))

    assert planned == count_tokens(shown_text(paged, doc.doc_id, sec.sec_id, start, end, shown))


def test_the_planned_cost_counts_the_title_left_out_above_a_paragraph_holding_it(paged):
    doc = paged.documents()[0]
    sec = max(doc.sections, key=lambda s: s.n_para)

    whole = shown_text(paged, doc.doc_id, sec.sec_id, 0, 3, ())
    later = shown_text(paged, doc.doc_id, sec.sec_id, 1, 3, ())

    assert whole.splitlines()[1] == f"## ({doc.doc_id}) [{sec.sec_id}] (paragraphs 0-3 of 12)"
    assert later.splitlines()[1].startswith(f"## ({doc.doc_id}) [{sec.sec_id}] Course Sched")


def test_the_planned_cost_of_every_section_read_whole_is_its_real_tokens(shapes):
    doc = shapes.documents()[0]
    sections = Sections(shapes)
    for sec in doc.sections:
        if sec.n_para:
            planned = range_cost(sections.read_cost(doc.doc_id, sec.sec_id), 0, sec.n_para - 1, ())
            text = shown_text(shapes, doc.doc_id, sec.sec_id, 0, sec.n_para - 1, ())
            assert planned == count_tokens(text), sec.title
