"""Titles that identify documents among the others (corpus/library/titles.py).

Documents are built here with the front matter ingest keeps (metadata, first-page lines):
a few SEC-style filings of two companies, press releases, syllabi and documents that
say nothing of themselves. What the collection shares is learnt from the collection;
nothing here names a banner to the code.
"""

from __future__ import annotations

from support.library import filing, plain

from deepread.corpus.library import Library
from deepread.corpus.library.cards import cards
from deepread.corpus.library.titles import Banners
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


def test_a_library_of_one_document_keeps_the_parsers_title():
    one = [LIBRARY[0]]
    assert (
        titles(one)[1] == "UNITED STATES SECURITIES AND EXCHANGE COMMISSION — Form 10-K, "
        "fiscal year ended December 31, 2018"
    )
    assert not Banners.of(one).banner("UNITED STATES SECURITIES AND EXCHANGE COMMISSION")


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
    assert got[2].endswith("(ACME_2019_10K.pdf)") and got[6].endswith("(copy of ACME 2019.pdf)")
    assert len(set(got.values())) == 5


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
