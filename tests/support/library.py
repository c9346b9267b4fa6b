"""Documents as the store keeps them, with the front matter ingest keeps: SEC-style
filings and documents that say little of themselves, for the library tests
(tests/corpus/test_library_titles.py, test_library_search.py)."""

from __future__ import annotations

from deepread.records.documents import Document, FrontMatter, Section

BANNER = [
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
    "Washington, D.C. 20549",
    "FORM 10-K",
    "(Mark One)",
    "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT",
]


def filing(
    doc_id: int,
    company: str,
    ended: str,
    file: str,
    form: str = "FORM 10-K",
    more: tuple[str, ...] = (),
    meta: dict[str, str] | None = None,
) -> Document:
    lines = [
        BANNER[0],
        BANNER[1],
        form,
        BANNER[3],
        BANNER[4],
        f"For the fiscal year ended {ended}",
        *more,
        "Commission File Number 1-2345",
        company,
        "(Exact name of registrant as specified in its charter)",
        "Delaware",
        "(State or other jurisdiction of incorporation or organization)",
    ]
    return Document(
        doc_id,
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
        f"/lib/{file}",
        [
            Section(0, "x", 0, None),
            Section(1, "PART I", 1, 0),
            Section(2, "Item 1. Business", 2, 1),
            Section(3, "PART II", 1, 0),
        ],
        content_hash=f"h{doc_id}",
        front=FrontMatter(metadata=meta or {}, lines=tuple(lines), pages=120),
    )


def plain(
    doc_id: int,
    title: str,
    file: str,
    lines: tuple[str, ...] = (),
    meta: dict[str, str] | None = None,
) -> Document:
    return Document(
        doc_id,
        title,
        f"/lib/{file}",
        [Section(0, title, 0, None)],
        content_hash=f"h{doc_id}",
        front=FrontMatter(metadata=meta or {}, lines=lines),
    )
