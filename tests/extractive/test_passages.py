"""A quote of the offline answer is a passage: the ranked paragraph and the shown
paragraphs that follow it, within the quote's length (extractive/passages.py)."""

from __future__ import annotations

from deepread.extractive.passages import ITEMS, passages

#: A scope list said over four short paragraphs of one section, then a long one.
SCOPES = {
    (1, 2, 0): "At any time during execution, there are nested scopes.",
    (1, 2, 1): "The innermost scope is searched first.",
    (1, 2, 2): "The scopes of enclosing functions are searched next.",
    (1, 2, 3): "The outermost scope is searched last.",
    (1, 2, 4): "A long paragraph. " * 40,
}


def coords_of(passage):
    return [coord for coord, _ in passage]


def test_a_short_paragraph_is_quoted_with_the_shown_paragraphs_that_follow_it():
    (passage,) = passages([(1, 2, 1)], SCOPES, count=1, limit=700)

    assert coords_of(passage) == [(1, 2, 1), (1, 2, 2), (1, 2, 3)]


def test_the_ranked_paragraph_stays_first_and_what_precedes_it_is_not_added():
    (passage,) = passages([(1, 2, 2)], SCOPES, count=1, limit=700)

    assert coords_of(passage)[0] == (1, 2, 2)
    assert (1, 2, 1) not in coords_of(passage)


def test_a_passage_stops_before_the_paragraph_that_would_pass_the_quote_s_length():
    (passage,) = passages([(1, 2, 0)], SCOPES, count=1, limit=100)

    assert coords_of(passage) == [(1, 2, 0), (1, 2, 1)]


def test_a_paragraph_not_shown_ends_the_passage():
    shown = {c: t for c, t in SCOPES.items() if c != (1, 2, 2)}

    (passage,) = passages([(1, 2, 1)], shown, count=1, limit=700)

    assert coords_of(passage) == [(1, 2, 1)]


def test_a_paragraph_already_quoted_is_skipped_for_the_next_ranked():
    ranked = [(1, 2, 1), (1, 2, 2), (1, 2, 4)]

    first, second = passages(ranked, SCOPES, count=2, limit=700)

    assert coords_of(first) == [(1, 2, 1), (1, 2, 2), (1, 2, 3)]
    assert coords_of(second) == [(1, 2, 4)]


def test_the_same_text_in_a_second_copy_of_a_document_is_quoted_once():
    texts = {(1, 1, 0): "Sort the keys.", (2, 1, 0): "Sort the keys.", (2, 1, 5): "Other."}

    got = passages([(1, 1, 0), (2, 1, 0), (2, 1, 5)], texts, count=3, limit=700)

    assert [coords_of(p) for p in got] == [[(1, 1, 0)], [(2, 1, 5)]]


def test_a_passage_ending_with_a_lead_in_is_followed_by_its_items_past_its_length():
    texts = {(1, 1, 0): "Some differences still remain:"}
    texts |= {(1, 1, i): f"Difference number {i} " + "x" * 200 for i in range(1, ITEMS + 3)}

    (passage,) = passages([(1, 1, 0)], texts, count=1, limit=100)

    assert coords_of(passage) == [(1, 1, i) for i in range(ITEMS + 1)]
    assert [item for _, item in passage] == [False] + [True] * ITEMS


#: Five places in five sections, far apart: each its own passage.
PLACES = {(1, s, 0): f"Place {s}." for s in range(1, 6)}


def test_past_count_a_passage_is_quoted_only_when_its_paragraph_is_tied_to_the_question():
    ranked = list(PLACES)
    tied = {(1, 4, 0)}

    got = passages(ranked, PLACES, count=2, limit=700, most=6, tied=tied.__contains__)

    assert [coords_of(p) for p in got] == [[(1, 1, 0)], [(1, 2, 0)], [(1, 4, 0)]]


def test_no_more_than_most_passages_are_quoted_however_many_are_tied():
    got = passages(list(PLACES), PLACES, count=2, limit=700, most=3, tied=lambda c: True)

    assert len(got) == 3
