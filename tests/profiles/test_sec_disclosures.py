"""Where a filing discusses or discloses what a question asks besides the statements:
a why-question's MD&A discussion of the metric's line items, and the section every
annual report gives a disclosure topic (legal proceedings, acquisitions, geographic
information); a document without statements gets nothing."""

from __future__ import annotations

from deepread.profiles.kinds.sec_filing.statements import (
    disclosure_sections,
    discussion_sections,
    topic_sections,
    why_asked,
)
from deepread.records.documents import Section


def outline(*rows: tuple[str, int | None]) -> list[Section]:
    """Sections ``(title, parent)`` numbered from 1 under a root, children linked."""
    sections = [Section(0, "Annual report", 0, None)]
    for sec_id, (title, parent) in enumerate(rows, start=1):
        level = 1 if parent is None else sections[parent].level + 1
        sections.append(Section(sec_id, title, level, parent or 0))
        sections[parent or 0].children.append(sec_id)
    return sections


FILING = outline(
    ("Item 3. Legal Proceedings", None),  # 1
    ("Item 7. Management's Discussion and Analysis", None),  # 2
    ("Results of Operations", 2),  # 3
    ("Cost of Sales / Gross Margin", 3),  # 4
    ("Research and Development", 3),  # 5
    ("Consolidated Statements of Income", None),  # 6
    ("Note 5 – Acquisitions and Divestitures", None),  # 7
    ("Acquisitions", 7),  # 8
    ("Divestitures", 7),  # 9
    ("Note 16 – Commitments and Contingencies", None),  # 10
    ("Litigation and Regulatory Proceedings", 10),  # 11
    ("Note 20 – Segments and Geographic Information", None),  # 12
    ("Cost of sales by segment", None),  # 13
)
TOKENS = {1: 40, 4: 200, 6: 900, 8: 500, 9: 300, 10: 200, 11: 2000, 12: 700, 13: 90}


def weight(sec_id: int) -> int:
    return TOKENS.get(sec_id, 0)


def test_a_question_about_what_drove_a_change_asks_why():
    assert why_asked("What drove gross margin change as of FY2022?")
    assert not why_asked("What was the gross margin in FY2022?")


def test_a_why_question_about_a_margin_goes_to_the_mdna_discussion_of_its_costs():
    # "Cost of sales by segment" names the costs too, but outside the MD&A.
    assert discussion_sections("What drove gross margin change in FY2022?", FILING) == [4]


def test_a_question_asking_for_the_figure_only_gets_no_discussion():
    assert discussion_sections("What was the gross margin in FY2022?", FILING) == []


def test_a_legal_question_goes_to_the_litigation_note_not_the_item_pointing_to_it():
    assert topic_sections(
        "Has the company reported any ongoing legal battles?", FILING, weight
    ) == [11]


def test_an_acquisitions_question_goes_to_the_acquisitions_part_of_the_note():
    assert topic_sections("What are the major acquisitions done in FY2023?", FILING, weight) == [8]


def test_a_geographies_question_goes_to_the_geographic_information_note():
    assert topic_sections("What are the geographies the company operates in?", FILING, weight) == [
        12
    ]


def test_a_document_without_a_statement_gets_no_disclosure_sections():
    syllabus = outline(
        ("Course policies", None), ("Legal notices", 1), ("Acquisitions of library books", None)
    )

    assert (
        disclosure_sections(
            "Are there legal matters about acquisitions?", {1: syllabus}, lambda d, s: 100
        )
        == []
    )


def test_in_a_filing_the_discussion_comes_before_the_topic_section():
    question = "Why did the gross margin fall, and what acquisitions were made?"

    picked = disclosure_sections(question, {3: FILING}, lambda d, s: weight(s))

    assert picked == [(3, 4), (3, 8)]


def test_an_industry_question_goes_to_the_business_item_not_the_risk_factors():
    report = outline(
        ("Item 1. Business", None),
        ("Overview", 1),
        ("Item 1A. Risk Factors", None),
        ("Industry risks", 3),
    )

    assert topic_sections(
        "What industry does the company primarily operate in?", report, lambda s: 100
    ) == [1]


def test_a_products_and_services_question_goes_to_the_business_item():
    report = outline(("Item 1. Business", None), ("Item 7. Management's Discussion", None))

    assert topic_sections(
        "What are the major products and services it offers?", report, lambda s: 100
    ) == [1]


def test_a_segment_named_regional_is_not_the_geographic_information():
    release = outline(
        ("Consolidated Statements of Operations", None),
        ("Regional Operations", None),
        ("Regional sales results", None),
    )

    assert topic_sections("Which region had the highest EBITDAR?", release, lambda s: 100) == [3]
