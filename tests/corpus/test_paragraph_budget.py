"""A document with more paragraphs than its text pays for is refused, and the refusal
says what to do (corpus/paragraph_budget.py)."""

from __future__ import annotations

import pytest

from deepread.corpus.paragraph_budget import TooManyParagraphs, check_texts

#: 1,675 pieces of 14 characters: a PDF whose fonts have no character map.
PIECES = ["Revenue $9,583"] * 1675


def test_a_pdf_in_pieces_this_short_is_refused_with_the_advice_to_ocr_it():
    with pytest.raises(TooManyParagraphs, match=r"average 14\.0 characters.*OCR"):
        check_texts(PIECES, pdf=True)


def test_another_format_in_short_paragraphs_is_told_to_join_them_not_to_ocr():
    with pytest.raises(TooManyParagraphs, match="join its short paragraphs") as refused:
        check_texts(PIECES)

    assert "OCR" not in str(refused.value)


def test_a_pdf_of_ordinary_paragraphs_within_its_budget_is_not_refused():
    check_texts(["A paragraph of ordinary prose, long enough to pay for itself."] * 1675, pdf=True)
