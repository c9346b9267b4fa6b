"""The shared content-word tokeniser behind reranking, quoting and sufficiency."""

from __future__ import annotations

from deepread.text.terms import content_words, key_words, stem, terms


def test_identifiers_stay_whole_and_stop_words_and_short_words_drop():
    assert terms("How does json.dumps use sort_keys in __get__?") == {
        "json",
        "dumps",
        "use",
        "sort_keys",
        "__get__",
    }


def test_stemming_keeps_three_letters_so_short_words_are_not_mangled():
    assert [stem(w) for w in ["keys", "sorted", "encoding", "uses", "has"]] == [
        "key",
        "sort",
        "encod",
        "use",
        "has",
    ]


def test_content_words_let_a_plural_question_meet_a_singular_text():
    assert content_words("sorted keys") == content_words("sort the key")


def test_a_query_that_fits_is_kept_as_written():
    assert key_words("How do I sort the keys?", 100) == "How do I sort the keys?"


def test_an_over_long_query_keeps_its_key_words_once_in_order_within_the_limit():
    pasted = "Please tell me: how does json.dumps sort_keys work? " * 200

    cut = key_words(pasted, 60)

    assert len(cut) <= 60
    assert cut.startswith("Please tell json dumps sort_keys work")
    assert cut.split().count("json") == 1
