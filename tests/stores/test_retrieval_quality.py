"""Hybrid ranking, the offline reranker, multi-query retrieve, and search text."""

from __future__ import annotations

import pytest

import deepread
from deepread.records.documents import Hit, Paragraph
from deepread.stores.rerank import CoverageReranker, resolve_reranker
from deepread.stores.search_text import search_text
from deepread.text.markup import plain_table


def para(i: int, text: str) -> tuple[Hit, Paragraph]:
    return Hit(1, 1, i, 1.0 / (i + 1)), Paragraph(1, 1, i, text)


def test_the_reranker_lifts_the_candidate_holding_every_query_word():
    candidates = [
        para(0, "Loose neighbour about JSON in general."),
        para(1, "Another loose neighbour."),
        para(2, "The sort_keys flag sorts dictionary keys when encoding JSON."),
    ]
    ranked = CoverageReranker().rerank(
        "sort dictionary keys encoding JSON", candidates, ["", "", ""], k=2
    )
    assert [p.para_idx for _, p in ranked] == [2, 0]


def test_the_reranker_keeps_first_stage_order_between_equal_matches():
    candidates = [para(0, "apples"), para(1, "apples"), para(2, "apples")]
    ranked = CoverageReranker().rerank("apples", candidates, ["", "", ""], k=3)
    assert [p.para_idx for _, p in ranked] == [0, 1, 2]


def test_the_section_title_counts_as_part_of_the_candidate():
    candidates = [para(0, "unrelated words"), para(1, "a name prefixed with an underscore")]
    ranked = CoverageReranker().rerank(
        "private variables", candidates, ["Other", "Private Variables"], k=1
    )
    assert ranked[0][1].para_idx == 1


def test_rerankers_are_chosen_by_name():
    assert isinstance(resolve_reranker(None), CoverageReranker)
    assert resolve_reranker("none") is None


def test_tables_are_searched_by_their_cell_text():
    markup = (
        "<table><tr><th>JSON</th><th>Python</th></tr><tr><td>number (int)</td>"
        "<td>int</td></tr></table>"
    )
    assert plain_table(markup) == "JSON | Python\nnumber (int) | int"
    assert search_text(markup, "table", "Conversions") == (
        "Conversions: JSON | Python\nnumber (int) | int"
    )
    assert search_text("Plain.", "text", "") == "Plain."


def test_multi_query_retrieve_merges_rankings_in_rank_order(shapes_index):
    one = shapes_index.search("apples", k=2, mode="bm25").hits
    two = shapes_index.search("figs", k=2, mode="bm25").hits
    both = shapes_index.search(["apples", "figs"], k=2, mode="bm25")
    expected = []
    for pair in zip(one, two, strict=False):
        for hit in pair:
            if (hit.doc_id, hit.sec_id, hit.para_idx) not in [
                (h.doc_id, h.sec_id, h.para_idx) for h in expected
            ]:
                expected.append(hit)
    assert [(h.sec_id, h.para_idx) for h in both.hits] == [(h.sec_id, h.para_idx) for h in expected]
    assert both.query == ["apples", "figs"]


def test_multi_query_retrieve_keeps_each_paragraph_once(shapes_index):
    got = shapes_index.retrieve(["apples", "apples bananas"], k=3, window=(1, 1), mode="bm25")
    coords = [p.coord for p in got]
    assert len(coords) == len(set(coords))


def test_an_empty_query_in_a_list_is_an_error(shapes_index):
    with pytest.raises(ValueError, match="empty"):
        shapes_index.retrieve(["apples", " "])


def test_hybrid_with_reranking_finds_a_precise_devset_fact(devset_index):
    got = devset_index.retrieve("How do I make json.dumps sort the keys of dictionaries?", k=5)
    assert any("sort_keys" in p.text for p in got)


def test_retrieval_modes_all_work_with_the_reranker_off(store, shapes_file):
    idx = deepread.Index.open(store=store, collection="plain", reranker="none")
    idx.ingest([shapes_file])
    for mode in ("dense", "bm25", "hybrid"):
        assert idx.retrieve("cherries", k=1, mode=mode)[0].text.startswith("Charlie")
    idx.close()


def test_a_paragraph_that_opens_with_its_heading_is_not_given_the_title_again():
    assert search_text("Office Hours\nMonday 2-3 pm.", "text", "Office Hours") == (
        "Office Hours\nMonday 2-3 pm."
    )
    assert search_text("Week 3\nMidterm\nIn class.", "text", "Midterm") == (
        "Week 3\nMidterm\nIn class."
    )
    assert search_text("Monday 2-3 pm.", "text", "Office Hours") == ("Office Hours: Monday 2-3 pm.")
