"""Paragraph text without its table markup (``text/markup.py``)."""

from __future__ import annotations

from deepread.text.markup import plain, untagged


def test_a_table_row_becomes_its_cells_words_kept_apart():
    row = "<table><tr><td>Net sales</td><td>2,000</td></tr></table>"

    assert plain(row) == "Net sales 2,000"


def test_untagged_text_keeps_its_spacing_and_a_tag_becomes_a_space():
    assert untagged("a  b<br/>c") == "a  b c"
