"""The offline answer (extractive/composer.py): which shown paragraphs it quotes, in
which order, and how each is quoted."""

from __future__ import annotations

from deepread.extractive.composer import Composer, quote, rank_paragraphs


def test_a_long_paragraph_is_quoted_from_the_sentence_that_holds_the_question_s_words():
    text = "Opening words about nothing much. " * 20 + "Walruses sleep on ice floes at night."
    shown = quote(text, 120, {"walrus", "sleep", "ice"} | {"walruses"})

    assert shown.startswith("… Walruses sleep on ice floes")


def test_a_long_paragraph_whose_opening_holds_the_words_is_quoted_from_its_start():
    text = "Walruses sleep on ice. " + "Other words follow here. " * 40
    assert quote(text, 100, {"walruses", "sleep"}).startswith("Walruses sleep on ice.")
    assert quote(text, 100).startswith("Walruses sleep on ice.")


def test_a_paragraph_sharing_nothing_with_the_question_is_not_ranked_to_fill_the_answer():
    texts = {
        (1, 1, 0): "A customer may ask for a refund within 30 days from delivery.",
        (1, 1, 1): "The refund is paid to the card used for the order.",
        (2, 1, 0): "Employee 3 of the payroll earns 43 thousand a year.",
    }

    ranked = [coord for coord, _ in rank_paragraphs("How do I get a refund?", texts)]

    assert ranked[0] == (1, 1, 0) and (1, 1, 1) in ranked
    assert (2, 1, 0) not in ranked


def test_an_answer_said_in_several_places_quotes_each_place_tied_to_the_question():
    """Five differences in five sections, each sharing the question's words: three
    passages showed three of them, though the agent had read all five."""
    differences = {
        (1, s, 0): f"One difference between OrderedDict and dict: {what}."
        for s, what in enumerate(
            [
                "equality checks order",
                "popitem takes a last argument",
                "move_to_end repositions a key",
                "reordering is cheaper",
                "reversed worked before 3.8",
            ],
            start=1,
        )
    }
    aside = {(2, 1, 0): "A dict is a mapping type.", (2, 2, 0): "Dict views are dynamic."}

    answer = Composer().compose(
        "What differences remain between OrderedDict and dict?", differences | aside
    )

    assert all(f"[1:{s}:0]" in answer for s in range(1, 6)), answer
    assert "[2:1:0]" not in answer and "[2:2:0]" not in answer, answer


def test_the_search_s_best_hit_is_quoted_first_and_the_closest_in_meaning_after_it():
    """The README's own question: the search ranked "If sort_keys is true…" first, and
    the answer opened with the command-line option's one-liner, closer in meaning."""
    texts = {
        (4, 12, 7): "Sort the output of dictionaries alphabetically by key.",
        (4, 3, 30): "If sort_keys is true (default: False), then the output of dictionaries "
        "will be sorted by key.",
        (4, 2, 20): "Keys in key/value pairs of JSON are always of the type str.",
    }
    question = "How do I make json.dumps sort the keys of dictionaries?"

    answer = Composer().compose(question, texts, top=(4, 3, 30))
    without = Composer().compose(question, texts)

    quoted = [line for line in answer.splitlines() if line.startswith("> ")]
    assert quoted[0].endswith("[4:3:30]") and quoted[1].endswith("[4:12:7]"), answer
    assert without.split("> ", 1)[1].startswith("Sort the output"), without
