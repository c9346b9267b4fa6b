"""A text cut short for showing is cut at a word and says so."""

from __future__ import annotations

from deepread.text.clip import clip


def test_a_text_within_the_limit_is_shown_whole():
    assert clip("Walruses rest on ice.", 21) == "Walruses rest on ice."


def test_a_longer_text_is_cut_back_to_its_last_whole_word_and_marked():
    assert clip("Walruses rest on ice floes.", 19) == "Walruses rest on …"
