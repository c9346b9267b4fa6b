"""Document search over the documents' cards (corpus/library/search.py)."""

from __future__ import annotations

import pytest
from support.library import filing, plain

from deepread.corpus.library import Library
from deepread.corpus.library.search import abbreviates, asked_words, proper_names, words

DOCS = [
    filing(1, "ACME CORPORATION", "December 31, 2018", "ACME_2018_10K.pdf"),
    filing(2, "ACME CORPORATION", "December 31, 2019", "ACME_2019_10K.pdf"),
    filing(3, "Beta Industries, Inc.", "June 30, 2019", "BETA_2019_10K.pdf"),
    filing(4, "American Express Company", "December 31, 2022", "AMERICANEXPRESS_2022_10K.pdf"),
    filing(
        5,
        "Gamma Holdings plc",
        "March 31, 2020",
        "GAMMA_2020_10K.pdf",
        more=("Trading Symbol(s) | GMH New York Stock Exchange",),
    ),
    plain(
        6,
        "Kenvue separation",
        "ACME_2023_8K.pdf",
        lines=(
            "FORM 8-K",
            "Date of Report (Date of earliest event reported): August 30, 2023",
            "Acme Corporation completed the separation of Kenvue.",
        ),
    ),
]


def found(question: str, docs=DOCS) -> list[int]:
    return [m.doc_id for m in Library().find(docs, question)]


def test_a_company_and_a_year_find_that_companys_filing_of_that_year_first():
    assert found("What was Acme's capital expenditure in FY2019?")[0] == 2
    assert found("What was Acme's capital expenditure in FY2018?")[0] == 1


def test_a_year_the_question_gives_leaves_out_the_companys_filings_of_other_years():
    # 2019 is the year of four filings of nine here, so Acme's 2018 filing scores within
    # KEEP of its 2019 one: the year decides, not the score.
    others = [("Delta", 2019), ("Epsilon", 2019), ("Zeta", 2021), ("Eta", 2021)]
    docs = [
        *DOCS[:5],
        *(
            filing(10 + i, f"{name} Inc.", f"December 31, {year}", f"{name.upper()}_{year}_10K.pdf")
            for i, (name, year) in enumerate(others)
        ),
    ]

    assert found("What was Acme's capital expenditure in FY2019?", docs) == [2]


def test_a_question_about_two_years_finds_both_filings():
    assert set(found("How did Acme's revenue change from FY2018 to FY2019?")[:2]) == {1, 2}


def test_a_question_spanning_two_years_reads_the_later_report_first():
    # The 2019 report also reports 2018, as its comparative year.
    assert found("How did Acme's revenue change from FY2018 to FY2019?")[0] == 2
    assert found("Did Acme's revenue grow between 2019 and 2018?")[0] == 2


RELEASE = plain(
    7,
    "Beta Industries fourth quarter and full year 2019 results",
    "BETA_2019Q4_EARNINGS.pdf",
    lines=("Beta Industries reports fourth quarter and full year 2019 results",),
)


def test_a_year_the_question_gives_puts_the_years_report_before_a_quarters_release():
    # The annual report stored after the release (a higher doc_id: ties go the other way).
    annual = filing(8, "Beta Industries, Inc.", "June 30, 2019", "BETA_2019_10K.pdf")
    docs = [RELEASE, annual, *(d for d in DOCS if d.doc_id != 3)]

    assert found("What was Beta Industries' capital expenditure in FY2019?", docs) == [8, 7]


def test_a_quarter_the_question_gives_puts_that_quarters_release_first():
    docs = [RELEASE, *DOCS]

    assert found("What were Beta Industries' sales in the fourth quarter of 2019?", docs)[0] == 7


def test_a_form_the_question_names_finds_the_companys_documents_of_that_form():
    assert found("What was Acme's revenue per the 8-K?") == [6]
    assert sorted(found("What was Acme's revenue per its Form 10-K?")) == [1, 2]


def test_a_company_named_in_two_words_is_not_found_by_another_holding_one_of_them():
    water = filing(
        7, "American Water Works Company, Inc.", "December 31, 2021", "AMWATER_2021_10K.pdf"
    )

    # the water company's filing is of the year asked; American Express's is the one named
    assert found("What was American Express's net income in 2021?", [*DOCS, water]) == [4]


def test_a_question_about_two_companies_finds_both():
    assert set(found("Compare the revenue of Acme and Beta Industries in 2019.")) >= {2, 3}


def test_a_period_alone_finds_the_documents_of_that_period():
    assert found("Which filings report on the fiscal year 2020?") == [5]


def test_a_question_that_names_no_document_finds_none():
    assert found("What drove the reduction in SG&A expense as a percent of net sales?") == []
    assert found("When are office hours?") == []


def test_an_abbreviation_of_a_name_and_a_ticker_find_their_company():
    assert found("Does AMEX have an improving operating margin profile?") == [4]
    assert found("How did GMH's revenue grow?") == [5]
    assert abbreviates("amex", [["american", "express", "company"]])
    assert abbreviates("jpm", [["jpmorgan", "chase", "co"]])
    assert abbreviates("amw", [["american", "water", "works"]])  # the starts of two words
    assert not abbreviates("amx", [["american", "water", "works"]])  # "x" starts no word
    assert not abbreviates("bet", [["american", "express"]])


def test_an_abbreviation_finds_its_company_though_another_filing_s_cover_mentions_it():
    """PG&E's 2015 cover lists its stock on "NYSE MKT (formerly AMEX)": "AMEX" was then
    a word some document holds as written, so no key's abbreviation was looked for, and
    "Does AMEX have an improving operating margin profile as of 2022?" read PG&E's
    filing (the 155-filing library, docs/history/benchmarks-2026.md §26)."""
    mentions = filing(
        7,
        "Delta Utilities Corporation",
        "December 31, 2015",
        "DELTA_2015_10K.pdf",
        more=("Name of each exchange on which registered: NYSE MKT (formerly AMEX)",),
    )
    assert found("Does AMEX have an improving operating margin profile?", [*DOCS, mentions]) == [4]


def test_a_date_and_a_name_on_the_first_page_find_the_report_of_that_day():
    assert found("What did Acme say about Kenvue on August 30, 2023?")[0] == 6


def test_a_scope_limits_the_search_to_its_documents():
    got = Library().find(DOCS, "What was Acme's capital expenditure in FY2019?", scope=[1, 3])
    assert [m.doc_id for m in got] == [1]


def test_the_words_of_a_question_are_its_names_and_periods():
    names, periods = asked_words(
        "What is JnJ's FY2022 revenue per the Q2 report of May 3, 2023? Round to one decimal place."
    )
    assert names == {"jnj"} and {"2022", "2023", "q2", "monthday0503"} <= periods
    assert proper_names("What is 3M's revenue in USD? Use the Balance Sheet.") == [
        "3m",
        "usd",
        "balance",
        "sheet",
    ]
    assert "fy" not in words("FY2019") and {"fy2019", "2019"} <= words("FY2019")
    assert "q4" in words("ACME_2023Q4_EARNINGS")


def test_a_document_added_later_is_indexed_without_rereading_the_others():
    library = Library()
    library.find(DOCS[:3], "Acme")
    before = dict(library._search._entries)
    late = filing(9, "Delta Airways", "December 31, 2021", "DELTA_2021_10K.pdf")
    assert [m.doc_id for m in library.find([*DOCS[:3], late], "Delta 2021")] == [9]
    entries = library._search._entries
    assert all(entries[i] is before[i] for i in (1, 2, 3))
    assert [m.doc_id for m in library.find(DOCS[:3], "Delta 2021")] == []  # removed again


@pytest.fixture
def built(monkeypatch) -> list[int]:
    """A 1 for each time the document search over the cards is built."""
    from deepread.corpus.library import search as search_module

    builds: list[int] = []
    update = search_module.DocumentSearch.update
    monkeypatch.setattr(
        search_module.DocumentSearch,
        "update",
        lambda self, documents: builds.append(1) or update(self, documents),
    )
    return builds


def test_listing_documents_never_builds_the_search_and_a_question_builds_it_once(built):
    """``deepread docs``, ``toc`` and ``read`` only list documents: the search index over
    their cards (0.6 s of 1.0 on 157 filings) is built when a question is first matched,
    and again only when the documents change."""
    library = Library()
    library.documents(DOCS)
    library.document(DOCS, 2)
    assert built == []
    assert library.find(DOCS, "What was Acme's capital expenditure in FY2019?")[0].doc_id == 2
    library.holds(DOCS, "acme")
    assert built == [1]
    fewer = [d for d in DOCS if d.doc_id != 2]
    assert 2 not in [m.doc_id for m in library.find(fewer, "Acme's capital expenditure 2019")]
    assert built == [1, 1]


def test_a_question_naming_no_one_and_no_period_builds_no_search(built):
    """``deepread search "sort keys json"`` names nothing a card could hold: finding the
    documents it names is answered without building the index over the cards (most of
    a one-shot search's own work on a small store)."""
    library = Library()
    assert library.find(DOCS, "sort keys json") == []
    assert built == []
    library.find(DOCS, "sort keys json in 2019")  # a period: the index is built
    assert built == [1]
