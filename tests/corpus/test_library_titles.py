"""Titles that identify documents among the others (corpus/library/titles.py).

Documents are built here with the front matter ingest keeps (metadata, first-page lines):
a few SEC-style filings of two companies, press releases, syllabi and documents that
say nothing of themselves. What the collection shares is learnt from the collection;
nothing here names a banner to the code.
"""

from __future__ import annotations

import pytest
from support.library import filing, plain

from deepread.corpus.library import Library
from deepread.corpus.library.cards import cards
from deepread.corpus.library.titles import Banners, broken
from deepread.records.documents import Document, Section

LIBRARY = [
    filing(1, "ACME CORPORATION", "December 31, 2018", "ACME_2018_10K.pdf"),
    filing(
        2,
        "ACME CORPORATION",
        "December 31, 2019",
        "ACME_2019_10K.pdf",
        meta={"title": "0000012345-20-000007"},
    ),
    filing(3, "Beta Industries, Inc.", "June 30, 2019", "BETA_2019_10K.pdf"),
    filing(
        4,
        "Gamma Holdings plc",
        "March 31, 2020",
        "GAMMA_2020_10K.pdf",
        meta={"title": "UNITED STATES SECURITIES AND EXCHANGE COMMISSION"},
    ),
]


def titles(documents: list[Document]) -> dict[int, str]:
    return {i: c.title for i, c in cards(documents).items()}


def test_a_filing_is_titled_by_its_registrant_form_and_fiscal_year():
    got = titles(LIBRARY)
    assert got[1] == "ACME CORPORATION — Form 10-K, fiscal year ended December 31, 2018"
    assert got[3] == "Beta Industries, Inc. — Form 10-K, fiscal year ended June 30, 2019"
    assert len(set(got.values())) == len(LIBRARY)


def test_lines_printed_on_many_first_pages_are_banners_learnt_from_the_collection():
    banners = Banners.of(LIBRARY)
    assert banners.banner("UNITED STATES SECURITIES AND EXCHANGE COMMISSION")
    assert banners.banner("FORM 10-K") and banners.banner("Delaware")
    assert banners.banner("UNITED STATES")  # most of its word pairs are a banner's
    assert not banners.banner("Gamma Holdings plc")
    # A banner metadata title never names a document.
    assert "SECURITIES AND EXCHANGE" not in titles(LIBRARY)[4]


def test_a_filing_alone_is_titled_by_the_name_its_own_cover_field_gives():
    # The caption says its value is the registrant's name: nothing to learn from others.
    one = [LIBRARY[0]]
    assert titles(one)[1] == "ACME CORPORATION — Form 10-K, fiscal year ended December 31, 2018"
    assert not Banners.of(one).banner("UNITED STATES SECURITIES AND EXCHANGE COMMISSION")


def test_a_10q_beside_a_press_release_is_titled_by_its_registrant():
    # Issue 34: a 10-Q beside one other document was titled by the SEC banner, although
    # its cover prints the name above "(Exact name of registrant …)": the other document
    # printed no such caption, and two documents teach no banner.
    quarterly = filing(
        5,
        "BEST BUY CO., INC.",
        "",
        "BESTBUY_2023Q2_10Q.pdf",
        form="FORM 10-Q",
        more=("For the quarterly period ended July 29, 2023",),
    )
    release = plain(
        6,
        "FOR IMMEDIATE RELEASE",
        "BETA_2023Q2_EARNINGS.pdf",
        lines=(
            "FOR IMMEDIATE RELEASE",
            "MINNEAPOLIS, August 29, 2023 — Beta Industries, Inc. (NYSE: BTA) today "
            "announced results for the second quarter 2023.",
        ),
    )
    got = titles([release, quarterly])
    assert got[6] == "Beta Industries, Inc. — press release, second quarter 2023"
    assert got[5] == "BEST BUY CO., INC. — Form 10-Q, quarterly period ended July 29, 2023"


def test_a_name_printed_before_its_caption_on_the_same_line_is_the_registrant():
    doc = plain(
        1,
        "ko-20201231",
        "ko.pdf",
        lines=(
            "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
            "FORM 10-K",
            "For the fiscal year ended December 31, 2020",
            "COCA COLA CO (Exact name of Registrant as specified in its charter)",
            "Delaware 58-0628465",
        ),
        meta={"title": "ko-20201231"},
    )
    assert titles([doc])[1] == "COCA COLA CO — Form 10-K, fiscal year ended December 31, 2020"


def test_a_caption_that_does_not_say_name_is_not_trusted_alone():
    # "(Commission File Number)" names no one: in a document alone it is not a title.
    doc = plain(
        1,
        "Quarterly statement",
        "q.pdf",
        lines=("Quarterly statement", "1-9595", "(Commission File Number)"),
    )
    assert titles([doc])[1] == "Quarterly statement"


def test_an_8k_is_dated_by_its_date_of_report_with_or_without_a_colon():
    def current(doc_id: int, dated: tuple[str, ...]) -> Document:
        return plain(
            doc_id,
            "FORM 8-K",
            f"r{doc_id}.pdf",
            lines=(
                "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
                "FORM 8-K",
                "CURRENT REPORT Pursuant to Section 13 or 15(d)",
                *dated,
                "PEPSICO, INC.",
                "(Exact name of registrant as specified in its charter)",
            ),
        )

    inline = current(1, ("Date of Report (Date of earliest event reported) April 12, 2023",))
    above = current(2, ("May 5, 2023", "(Date of Report (Date of earliest event reported))"))
    got = titles([inline, above])
    assert got[1] == "PEPSICO, INC. — Form 8-K, report of April 12, 2023"
    assert got[2] == "PEPSICO, INC. — Form 8-K, report of May 5, 2023"


def test_an_earnings_release_is_titled_by_its_own_heading_alone():
    release = plain(
        1,
        "Highlights",
        "release.pdf",
        lines=(
            "Highlights",
            "Amcor reports fiscal 2023 results and provides outlook for fiscal 2024",
            "June 2023 quarter: GAAP diluted EPS of 12.3 cps",
        ),
    )
    assert titles([release])[1] == "Amcor — earnings release, fiscal 2023"


def test_a_listed_name_starting_with_a_small_letter_is_kept_whole():
    release = plain(
        1,
        "NEWS RELEASE",
        "ebay.pdf",
        lines=(
            "NEWS RELEASE",
            "Quarterly update",
            "SAN JOSE, Calif., July 26, 2023 -- eBay Inc. (Nasdaq: EBAY) today announced "
            "results for the quarter ended June 30, 2023.",
        ),
    )
    assert titles([release])[1].startswith("eBay Inc. — ")


def test_the_filer_a_metadata_title_names_is_read_though_its_filings_share_it():
    # A cover whose name is a logo, three filings of one company: "Foot Locker" is on
    # every first page (a banner by count), yet the metadata title says whose they are.
    def logo_cover(doc_id: int, year: int) -> Document:
        return plain(
            doc_id,
            "FORM 10-K",
            f"FL_{year}.pdf",
            lines=(
                "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
                "FORM 10-K",
                f"For the fiscal year ended January 28, {year}",
                "(Exact name of registrant as specified in its charter)",
            ),
            meta={"title": f"Form 10-K for Foot Locker INC filed 03/27/{year}"},
        )

    got = titles([logo_cover(i, 2020 + i) for i in (1, 2, 3)])
    assert got[2] == "Foot Locker INC — Form 10-K, fiscal year ended January 28, 2022"


def test_an_annual_report_names_its_year():
    report = plain(1, "2022 ANNUAL REPORT ON FORM 10-K", "ar.pdf", lines=("2022 ANNUAL REPORT",))
    assert Library().documents([report])[0].card.period == "annual report 2022"


def test_an_amended_filing_with_the_same_name_and_year_gets_a_title_of_its_own():
    amended = filing(
        5,
        "ACME CORPORATION",
        "December 31, 2019",
        "ACME_2019_10KA.pdf",
        form="FORM 10-K/A",
        more=("Amendment No. 1",),
    )
    got = titles([*LIBRARY, amended])
    assert got[5] == (
        "ACME CORPORATION — Form 10-K/A, Amendment No. 1, fiscal year ended December 31, 2019"
    )
    assert got[5] != got[2]


def test_two_copies_with_the_same_title_are_told_apart_by_their_file_names():
    copy = filing(6, "ACME CORPORATION", "December 31, 2019", "copy of ACME 2019.pdf")
    got = titles([*LIBRARY, copy])
    # Neither is known to be the original: both say so, and which file each is.
    assert got[2].endswith("(same title as doc 6; file: ACME_2019_10K.pdf)")
    assert got[6].endswith("(same title as doc 2; file: copy of ACME 2019.pdf)")
    assert len(set(got.values())) == 5


def test_an_impostor_claiming_a_listed_name_is_flagged_beside_the_one_it_copies():
    # A filing whose front page claims ACME's name, year and form, under its own file.
    impostor = filing(9, "ACME CORPORATION", "December 31, 2019", "acme-2019-annual.pdf")
    three = filing(10, "ACME CORPORATION", "December 31, 2019", "acme 10k.pdf")
    got = titles([*LIBRARY, impostor, three])

    assert got[9].endswith("(same title as docs 2, 10; file: acme-2019-annual.pdf)")
    assert got[2].endswith("(same title as docs 9, 10; file: ACME_2019_10K.pdf)")


def test_titles_equal_but_for_invisible_or_wide_characters_are_flagged_the_same():
    # "ACME" with a zero-width space inside, and in fullwidth letters: the same name to
    # a reader, so the same title.
    hidden = filing(6, "AC\u200bME CORPORATION", "December 31, 2019", "acme2019.pdf")
    wide = filing(7, "ＡＣＭＥ CORPORATION", "December 31, 2019", "acme-fy2019.pdf")
    got = titles([*LIBRARY, hidden, wide])

    assert "same title as docs 6, 7" in got[2]
    assert "same title as docs 2, 7; file: acme2019.pdf" in got[6]
    assert "same title as docs 2, 6; file: acme-fy2019.pdf" in got[7]


def test_a_document_with_no_usable_title_anywhere_is_named_by_its_file():
    blank = plain(7, "Untitled", "board-minutes-2021.txt", meta={"title": "Microsoft Word - x"})
    got = titles([*LIBRARY, blank])
    assert got[7] == "board-minutes-2021"


def test_a_press_release_is_titled_by_its_listed_name_kind_and_quarter():
    release = plain(
        8,
        "FOR IMMEDIATE RELEASE",
        "ACME_2022Q4_EARNINGS.pdf",
        lines=(
            "FOR IMMEDIATE RELEASE",
            "• 2022 Fourth-Quarter sales of $2.1 Billion",
            "Springfield (January 24, 2023) – Acme Corporation (NYSE: ACM) today announced "
            "results for fourth-quarter and full year 2022.",
        ),
    )
    assert titles([*LIBRARY, release])[8] == (
        "Acme Corporation — press release, fourth quarter and full year 2022"
    )


def test_syllabi_are_titled_by_course_kind_and_term_and_a_shared_heading_is_skipped():
    def syllabus(doc_id: int, course: str, file: str, term: str) -> Document:
        return plain(
            doc_id,
            "Course Description",
            file,
            lines=("SYLLABUS", course, term, "Course Description", "Office hours: by appointment"),
            meta={"title": f"Microsoft Word - {file}.docx"},
        )

    got = titles(
        [
            syllabus(1, "MATH 331: Ordinary Differential Equations", "math331.pdf", "Spring 2023"),
            syllabus(2, "CHEM 111 General Chemistry I", "chem111.pdf", "Fall 2022"),
            syllabus(3, "ENG 204 Asian American Literature", "eng204 syllabus.pdf", "Fall 2021"),
        ]
    )
    assert got[1] == "MATH 331: Ordinary Differential Equations — syllabus, Spring 2023"
    assert got[3] == "ENG 204 Asian American Literature — syllabus, Fall 2021"


def test_the_library_gives_each_document_its_title_its_card_and_its_root_sections_title():
    docs = Library().documents(LIBRARY)
    first = docs[0]
    assert first.title == first.sections[0].title == first.card.title
    assert first.card.file == "ACME_2018_10K.pdf" and first.card.pages == 120
    assert first.card.kind == "Form 10-K" and first.card.sections == ("PART I", "PART II")
    assert first.card.describe() == (
        "file=ACME_2018_10K.pdf | pages=120 | sections: PART I; PART II"
    )
    assert LIBRARY[0].title == "UNITED STATES SECURITIES AND EXCHANGE COMMISSION"  # stored


def test_a_store_written_before_front_matter_still_loses_its_banner_titles():
    old = [
        Document(
            i,
            "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
            f"/lib/{f}",
            [Section(0, "x", 0, None)],
        )
        for i, f in enumerate(["A_2018.pdf", "B_2019.pdf", "C_2020.pdf"], 1)
    ]
    old.append(Document(4, "Notes on glaciers", "/lib/glaciers.md", [Section(0, "x", 0, None)]))
    assert titles(old) == {1: "A_2018", 2: "B_2019", 3: "C_2020", 4: "Notes on glaciers"}


def _cover(
    name_lines: tuple[str, ...], meta: dict[str, str] | None = None, doc_id: int = 1
) -> Document:
    """A 10-K cover as the PDF reader gives it, its name lines where the form puts them."""
    return plain(
        doc_id,
        "FORM 10-K",
        f"cover{doc_id}.pdf",
        lines=(
            "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
            "FORM 10-K",
            "For the Fiscal Year Ended June 30, 2022",
            "Commission File Number 001-37845",
            *name_lines,
            "WASHINGTON 91-1144442",
        ),
        meta=meta,
    )


def test_a_cover_without_a_name_caption_is_named_by_the_line_after_its_file_number():
    # Issue 34: "MICROSOFT CORPORATION" (no form, no year) — and alone, "FORM 10-K".
    doc = _cover(("MICROSOFT CORPORATION",))
    assert titles([doc])[1] == (
        "MICROSOFT CORPORATION — Form 10-K, fiscal year ended June 30, 2022"
    )


def test_a_form_label_alone_is_never_a_name():
    doc = _cover(())  # the name was a logo: nothing names the registrant
    title = titles([doc])[1]
    assert not title.startswith("FORM 10-K") and title.endswith(
        "Form 10-K, fiscal year ended June 30, 2022"
    )


def test_a_name_split_by_the_extraction_is_not_used():
    # Issue 34: "ESORTS I NTERNATIONAL" — small capitals whose larger first letters came
    # out apart, one lost. Not shown; the file's own title names the filer instead.
    caption = "(Exact name of registrant as specified in its charter)"
    doc = _cover(
        ("ESORTS I NTERNATIONAL", caption),
        meta={"title": "MGM Resorts International 2022 Annual Report"},
    )
    other = _cover(("AMCOR PLC", caption), doc_id=2)
    got = titles([doc, other])
    assert "ESORTS" not in got[1]
    assert got[1].startswith("MGM Resorts International 2022 Annual Report — Form 10-K")
    assert got[2].startswith("AMCOR PLC — Form 10-K")


def test_glyphs_extracted_without_their_characters_are_not_a_title():
    # A release whose fonts map no characters: its first lines are symbols, its parser
    # title "2 FAQ@PD". The file's name is all that is left to show.
    doc = plain(
        1,
        "2 FAQ@PD",
        "MCD_Q4_release.pdf",
        lines=("-", "!\"#$!%&'", "( )", "$ +,\"'# !/0!.123.2# 1"),
        meta={"title": "Q422-8-KtoFile-1.30.23.vf (1).pdf"},
    )
    assert titles([doc])[1] == "MCD_Q4_release"


def test_a_combined_filing_is_named_by_the_first_row_of_its_registrants_table():
    # Two registrants in one filing, listed in a table under "Exact Name of Registrant
    # as Specified in its Charter"; the cells of a cover laid out as a table come apart.
    def combined(doc_id: int, rows: tuple[str, ...], year: int) -> Document:
        return plain(
            doc_id,
            "FORM 10-K",
            f"pge{doc_id}.pdf",
            lines=(
                "FORM 10-K",
                f"For the Fis cal Year Ended December | 31, | {year}",
                "Commission Exact Name of Registrant State or Other Jurisdiction of IRS Employer",
                "File Number as Specified In Its Charter Incorporation or Organization",
                *rows,
                "Pacific Gas and Electric Company:",
                "(Registrant's telephone number, including area code)",
            ),
        )

    upper = combined(
        1,
        (
            "1-12609 PG&E CORPORATION California 94-3234914",
            "1-2348 PACIFIC GAS AND ELECTRIC COMPANY California 94-0742640",
        ),
        2015,
    )
    mixed = combined(2, ("1-12609 PG&E Corporation California 94-3234914",), 2016)
    got = titles([upper, mixed])  # both print the telephone caption: no name for it
    assert got[1] == "PG&E CORPORATION — Form 10-K, year ended December 31, 2015"
    assert got[2] == "PG&E Corporation — Form 10-K, year ended December 31, 2016"


def test_a_heading_reporting_results_of_no_period_is_no_earnings_release():
    paper = plain(
        1,
        "Sparse Retrieval Revisited",
        "paper.pdf",
        lines=("Sparse Retrieval Revisited", "Our model reports state-of-the-art results"),
    )
    card = Library().documents([paper])[0].card
    assert card.title == "Sparse Retrieval Revisited" and card.kind is None


@pytest.mark.parametrize(
    ("text", "is_broken"),
    [
        ("ESORTS I NTERNATIONAL", True),  # issue 34: small capitals split, a letter lost
        ("MGM R ESORTS I NTERNATIONAL", True),
        ("File Number as S pecified I n I ts C harter", True),
        ("2 FAQ@PD", True),  # glyphs without their characters
        ("!\"#$!%&'", True),
        ("MGM RESORTS INTERNATIONAL", False),
        ("AT&T INC.", False),
        ("E*TRADE FINANCIAL CORPORATION", False),
        ("C# Programming — Syllabus", False),
        ("Annual Report | Acme Corporation", False),
        ("Course Title: ECE 4670 Author: Prof. <PROF_FULL_NAME>", False),
        ("$ +,\"'# !/0!.123.2# 1", True),
        ("Class B common stock of Acme, Inc.", False),
        ("A Study of Rivers", False),
        ("McDONALD'S CORPORATION", False),
    ],
)
def test_text_the_extraction_broke_is_told_from_names(text: str, is_broken: bool) -> None:
    assert broken(text) is is_broken


def test_a_document_alone_keeps_a_short_heading_and_its_own_control_characters():
    # Nothing in a collection of one marks "Ok" as cover noise; a title holding control
    # characters is the document's own text (escaped where shown), not a broken one.
    short = plain(1, "Ok", "ok.md", lines=("Ok", "Allowed text."))
    hostile = plain(2, "Harbour \x1b[2J rules", "harbour.md", lines=("Harbour \x1b[2J rules",))
    assert titles([short])[1] == "Ok"
    assert titles([hostile])[2] == "Harbour \x1b[2J rules"
