"""Cards kept across a collection's changes (corpus/library/cards.py): the same cards as
made afresh, made again only where a change reaches."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support.library import filing, plain

from deepread.corpus.library import cards as cards_module
from deepread.corpus.library.cards import Cards, cards

LIBRARY = [
    filing(1, "ACME CORPORATION", "December 31, 2018", "ACME_2018_10K.pdf"),
    filing(2, "ACME CORPORATION", "December 31, 2019", "ACME_2019_10K.pdf"),
    filing(3, "Beta Industries, Inc.", "June 30, 2019", "BETA_2019_10K.pdf"),
    plain(4, "Board minutes", "minutes-2021.txt", lines=("Minutes of the board", "May 2021")),
    filing(5, "Gamma Holdings plc", "March 31, 2020", "GAMMA_2020_10K.pdf"),
    plain(6, "Untitled", "notes.txt", meta={"title": "Microsoft Word - x"}),
]


def test_cards_kept_across_changes_are_the_cards_made_afresh():
    kept = Cards()
    steps = [
        LIBRARY[:1],  # one document: the parser's title, no banners yet
        LIBRARY[:2],  # two: the banners begin
        LIBRARY[:4],
        LIBRARY,
        [d for d in LIBRARY if d.doc_id != 3],  # a removal
        [replace(d, title="Rewritten") if d.doc_id == 2 else d for d in LIBRARY],  # rewrite
        LIBRARY[3:],  # most of the filings gone: their banners are no longer banners
    ]
    for documents in steps:
        assert kept.update(documents) == cards(documents)


def test_a_new_document_makes_again_only_the_cards_whose_banners_it_changes(
    monkeypatch: pytest.MonkeyPatch,
):
    kept = Cards()
    kept.update(LIBRARY)
    made: list[int] = []
    card_of = cards_module.card_of
    monkeypatch.setattr(
        cards_module,
        "card_of",
        lambda doc, banners: made.append(doc.doc_id) or card_of(doc, banners),
    )

    kept.update([*LIBRARY, plain(7, "Travel policy", "travel.txt", lines=("Travel policy",))])

    assert made == [7]  # it prints no line the others print


def test_a_record_written_again_gets_its_card_made_again():
    kept = Cards()
    kept.update(LIBRARY)
    rewritten = filing(3, "Beta Holdings, Inc.", "June 30, 2020", "BETA_2019_10K.pdf")

    got = kept.update([*LIBRARY[:2], rewritten, *LIBRARY[3:]])

    assert got[3].title.startswith("Beta Holdings, Inc.")
