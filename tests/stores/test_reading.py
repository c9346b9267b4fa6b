"""Algorithm 1's reading primitives against the real store: Retrieve and ReadSection.

Coordinates are 0-based and ranges inclusive. Most tests read the SHAPES document
(``conftest.SHAPES_MD``), doc 1 of a collection shared by the module (tests that write
use the per-test ``shapes_index`` instead):

* sec 0 (root): 1 paragraph, the preamble;
* sec 1 "Shapes": no paragraphs, children 2 and 3;
* sec 2 "Five": Alpha/apples, Bravo/bananas, Charlie/cherries, Delta/dates,
  Echo/elderberries (para 0..4);
* sec 3 "Empty": no paragraphs, child 4;
* sec 4 "One": one paragraph about figs.

Queries run in ``bm25`` mode with words unique to chosen paragraphs, so hits and their
order are deterministic; extra matching words give the intended hit the higher score.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import deepread
from deepread import Index, Paragraph

FIVE, EMPTY, ONE = 2, 3, 4


def coords(paragraphs: list[Paragraph]) -> list[tuple[int, int, int]]:
    return [p.coord for p in paragraphs]


def five(*para_idx: int) -> list[tuple[int, int, int]]:
    return [(1, FIVE, i) for i in para_idx]


# -- retrieve: windows ---------------------------------------------------------------


def test_window_is_clipped_at_the_start_of_the_section(shapes: Index) -> None:
    got = shapes.retrieve("Alpha apples", k=1, window=(2, 1), mode="bm25")

    # para 0 of "Five" has nothing above it; the preamble (sec 0) is never pulled in
    assert coords(got) == five(0, 1)


def test_window_is_clipped_at_the_end_of_the_section(shapes: Index) -> None:
    got = shapes.retrieve("Echo elderberries", k=1, window=(1, 3), mode="bm25")

    # para 4 is the last of "Five"; the figs paragraph of sec 4 is never pulled in
    assert coords(got) == five(3, 4)


def test_window_larger_than_the_section_returns_the_whole_section(shapes: Index) -> None:
    got = shapes.retrieve("Charlie cherries", k=1, window=(10, 10), mode="bm25")

    assert coords(got) == five(0, 1, 2, 3, 4)


def test_window_never_leaves_a_one_paragraph_section(shapes: Index) -> None:
    got = shapes.retrieve("figs", k=1, window=(3, 3), mode="bm25")

    assert coords(got) == [(1, ONE, 0)]


def test_overlapping_windows_keep_first_occurrence_in_hit_order(shapes: Index) -> None:
    result = shapes.search("Bravo bananas apples", k=2, window=(0, 1), mode="bm25")

    assert [(h.sec_id, h.para_idx) for h in result.hits] == [(FIVE, 1), (FIVE, 0)]
    # hit 1 → paras 1, 2; hit 2 → paras 0, 1, where 1 is already taken
    assert coords(result.paragraphs) == five(1, 2, 0)


def test_a_window_covered_by_an_earlier_hit_adds_nothing(shapes: Index) -> None:
    got = shapes.retrieve("Bravo bananas apples", k=2, window=(1, 1), mode="bm25")

    # hit 1 (para 1) → 0, 1, 2; hit 2 (para 0) → 0, 1: both already there
    assert coords(got) == five(0, 1, 2)


def test_zero_window_returns_just_the_hits_in_rank_order(shapes: Index) -> None:
    result = shapes.search("Bravo bananas apples", k=2, window=(0, 0), mode="bm25")

    assert coords(result.paragraphs) == five(1, 0)
    assert coords(result.paragraphs) == [(h.doc_id, h.sec_id, h.para_idx) for h in result.hits]
    assert result.hits[0].score > result.hits[1].score


def test_zero_window_is_the_default(shapes: Index) -> None:
    got = shapes.retrieve("Delta dates", k=1, mode="bm25")

    assert coords(got) == five(3)


# -- retrieve: hits and filters ------------------------------------------------------


@pytest.mark.parametrize("k", [1, 3, 6])
def test_k_limits_the_number_of_hits(shapes: Index, k: int) -> None:
    # every one of the 7 paragraphs contains "paragraph"
    result = shapes.search("paragraph", k=k, mode="bm25")

    assert len(result.hits) == k
    assert len(result.paragraphs) == k


def test_k_larger_than_the_collection_returns_every_matching_paragraph(shapes: Index) -> None:
    got = shapes.retrieve("paragraph", k=50, mode="bm25")

    assert sorted(coords(got)) == [(1, 0, 0), *five(0, 1, 2, 3, 4), (1, ONE, 0)]


def test_doc_id_filter_restricts_hits_to_that_document(shapes_index: Index, tmp_path: Path) -> None:
    orchard = tmp_path / "orchard.md"
    orchard.write_text(
        "# Orchard\n\nGreen apples grow in the orchard.\n\nRed apples are picked in autumn.\n",
        encoding="utf-8",
    )
    (doc,) = shapes_index.ingest([orchard])
    assert doc.doc_id == 2

    everywhere = shapes_index.retrieve("apples", k=10, mode="bm25")
    only_two = shapes_index.retrieve("apples", k=10, mode="bm25", doc_id=2)
    only_one = shapes_index.retrieve("apples", k=10, mode="bm25", doc_id=[1])

    assert {p.doc_id for p in everywhere} == {1, 2}
    assert {p.doc_id for p in only_two} == {2}
    assert len(only_two) == 2
    assert coords(only_one) == five(0)


def test_unknown_doc_id_raises_an_error_listing_the_valid_ids(shapes: Index) -> None:
    with pytest.raises(KeyError) as info:
        shapes.retrieve("apples", doc_id=7, mode="bm25")

    message = str(info.value.args[0])
    assert "7" in message
    assert "documents: 1" in message


@pytest.mark.parametrize("window", [(-1, 0), (0, -1), (-2, -2)])
def test_negative_window_raises_value_error(shapes: Index, window: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="window"):
        shapes.retrieve("apples", window=window, mode="bm25")


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query_raises_value_error(shapes: Index, query: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        shapes.retrieve(query)


@pytest.mark.parametrize("window", [(0, 0), (1, 1)])
def test_every_retrieved_paragraph_carries_its_coordinates_text_and_kind(
    shapes: Index, window: tuple[int, int]
) -> None:
    got = shapes.retrieve("paragraph", k=7, window=window, mode="bm25")

    assert len(got) == 7
    texts = {p.coord: p.text for p in got}
    assert texts[(1, FIVE, 2)] == "Charlie paragraph about cherries."
    # The empty section's heading and its own one come first (a heading is the first
    # line of the first paragraph after it).
    assert texts[(1, ONE, 0)] == "Empty\nOne\nOnly paragraph about figs."
    for p in got:
        assert isinstance(p, Paragraph)
        assert p.doc_id == 1
        assert isinstance(p.sec_id, int) and isinstance(p.para_idx, int)
        assert p.text.strip()
        assert p.kind == "text"


def test_hybrid_retrieve_finds_the_paragraph_by_meaning(shapes: Index) -> None:
    got = shapes.retrieve("Which paragraph is about figs?", k=1)

    assert coords(got) == [(1, ONE, 0)]


# -- read_section --------------------------------------------------------------------


def test_read_section_returns_the_inclusive_range_in_order(shapes: Index) -> None:
    read = shapes.read(1, FIVE, 1, 3)

    assert (read.start, read.end) == (1, 3)
    assert [p.text for p in read.paragraphs] == [
        "Bravo paragraph about bananas.",
        "Charlie paragraph about cherries.",
        "Delta paragraph about dates.",
    ]
    assert coords(read.paragraphs) == five(1, 2, 3)


def test_read_section_of_a_single_index_returns_that_paragraph(shapes: Index) -> None:
    assert coords(shapes.read_section(1, FIVE, 2, 2)) == five(2)


def test_read_section_clips_a_negative_start_and_an_end_past_the_section(shapes: Index) -> None:
    read = shapes.read(1, FIVE, -3, 99)

    assert (read.start, read.end) == (0, 4)
    assert coords(read.paragraphs) == five(0, 1, 2, 3, 4)


def test_read_section_defaults_to_the_whole_section(shapes: Index) -> None:
    assert coords(shapes.read_section(1, FIVE)) == five(0, 1, 2, 3, 4)


def test_read_section_with_start_after_end_is_empty(shapes: Index) -> None:
    assert shapes.read_section(1, FIVE, 3, 1) == []


@pytest.mark.parametrize(("start", "end"), [(5, 5), (5, 9), (100, 200)])
def test_read_section_starting_beyond_the_section_is_empty(
    shapes: Index, start: int, end: int
) -> None:
    assert shapes.read_section(1, FIVE, start, end) == []


def test_read_section_ending_before_the_section_is_empty(shapes: Index) -> None:
    assert shapes.read_section(1, FIVE, -5, -1) == []


@pytest.mark.parametrize("sec_id", [1, EMPTY])
def test_read_section_of_an_empty_section_is_empty(shapes: Index, sec_id: int) -> None:
    assert shapes.toc(1)[0].section(sec_id).n_para == 0
    assert shapes.read_section(1, sec_id, 0, 10) == []


@pytest.mark.parametrize(("start", "end"), [(0, 0), (-1, 5), (0, 10**9)])
def test_read_section_of_a_one_paragraph_section_returns_it(
    shapes: Index, start: int, end: int
) -> None:
    read = shapes.read(1, ONE, start, end)

    assert (read.start, read.end) == (0, 0)
    assert [p.text for p in read.paragraphs] == ["Empty\nOne\nOnly paragraph about figs."]


def test_read_section_reads_text_before_the_first_heading_from_the_root(shapes: Index) -> None:
    (para,) = shapes.read_section(1, 0)

    assert para.text == "Preamble paragraph before any heading."


@pytest.mark.parametrize("sec_id", [5, 99, -1])
def test_unknown_section_raises_an_error_naming_the_valid_range(shapes: Index, sec_id: int) -> None:
    with pytest.raises(deepread.CoordinateError, match=r"valid: 0\.\.4"):
        shapes.read_section(1, sec_id, 0, 0)


def test_read_section_of_an_unknown_document_names_the_valid_ids(shapes: Index) -> None:
    with pytest.raises(deepread.CoordinateError, match="documents: 1"):
        shapes.read_section(3, 0, 0, 0)


# -- the devset: HTML and PDF of one real page -----------------------------------------


def _json_questions(questions: list[dict]) -> list[str]:
    picked = [
        q["question"]
        for q in questions
        if any(e["doc"].startswith("library-json") for e in q["evidence"])
    ]
    assert picked, "the devset has no question about library-json"
    return picked


def test_devset_windows_stay_inside_the_hit_section_and_are_contiguous(
    devset_index: Index, questions: list[dict]
) -> None:
    for question in _json_questions(questions):
        result = devset_index.search(question, k=5, window=(1, 1))
        assert result.hits, question
        out = result.paragraphs
        pos = 0
        seen: set[tuple[int, int, int]] = set()
        for hit in result.hits:
            n_para = devset_index.toc(hit.doc_id)[0].section(hit.sec_id).n_para
            lo, hi = max(0, hit.para_idx - 1), min(n_para - 1, hit.para_idx + 1)
            span = [(hit.doc_id, hit.sec_id, i) for i in range(lo, hi + 1)]
            new = [c for c in span if c not in seen]
            mine = out[pos : pos + len(new)]
            # this hit's paragraphs: its own section, consecutive indices, hit included
            assert {(p.doc_id, p.sec_id) for p in mine} <= {(hit.doc_id, hit.sec_id)}
            idxs = [p.para_idx for p in mine]
            if idxs:
                assert idxs == list(range(idxs[0], idxs[0] + len(idxs)))
            assert coords(mine) == new, question
            pos += len(new)
            seen.update(span)
        assert pos == len(out), "paragraphs that belong to no hit's window"


def test_devset_window_text_equals_read_section_of_the_same_span(
    devset_index: Index, questions: list[dict]
) -> None:
    question = _json_questions(questions)[0]
    result = devset_index.search(question, k=3, window=(1, 1))
    by_coord = {p.coord: p for p in result.paragraphs}

    assert result.hits, question  # else the loop below checks nothing
    for hit in result.hits:
        read = devset_index.read(hit.doc_id, hit.sec_id, hit.para_idx - 1, hit.para_idx + 1)
        assert read.start <= hit.para_idx <= read.end
        assert (hit.doc_id, hit.sec_id, hit.para_idx) in {p.coord for p in read.paragraphs}
        for p in read.paragraphs:
            assert by_coord[p.coord] == p


def test_devset_holds_the_html_and_the_pdf_as_two_documents(devset_index: Index) -> None:
    docs = devset_index.documents()

    assert [d.doc_id for d in docs] == [1, 2]
    assert sorted(Path(d.source).suffix for d in docs) == [".html", ".pdf"]
    for doc in docs:
        assert doc.n_para == devset_index.collection.count_paragraphs(doc.doc_id) > 0
