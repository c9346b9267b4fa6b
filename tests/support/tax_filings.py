"""Two companies' 10-K filings for fiscal 2022 as small PDFs, written in the test itself
(fpdf2, tests/support/pdf_builder.py): what ``search`` and ``ask`` show about pages and
about the company a question names.

Each filing is three pages — an SEC cover naming its company, Item 7 with the effective
tax rate on page 2, Item 8 — set as EDGAR filings are. Beta's tax paragraph repeats the
words of "effective tax rate 2022" more than ACME's, so that searching every document
for "ACME effective tax rate 2022" ranks Beta's paragraph first: what a search that
reads the company named must not do.
"""

from __future__ import annotations

from pathlib import Path

from support.pdf_builder import Doc, filler

ACME_TAX = (
    "Our effective income tax rate was 14.8% in fiscal 2022, compared with 17.5% the "
    "year before, reflecting research credits."
)
BETA_TAX = (
    "The effective tax rate for 2022 was 21.0%. The effective tax rate in 2022 was "
    "higher than the effective tax rate of 2021 because of state taxes."
)


def ten_k(path: Path, company: str, tax: str, seed: int) -> Path:
    """A three-page 10-K of ``company`` for fiscal 2022, ``tax`` on page 2."""
    doc = Doc().page()
    for text, size in (
        ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION", 14),
        ("Washington, D.C. 20549", 10),
        ("FORM 10-K", 16),
        ("ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT", 10),
        ("For the fiscal year ended December 31, 2022", 10),
        ("Commission File Number 1-2345", 10),
        (company, 14),
        ("(Exact name of registrant as specified in its charter)", 10),
    ):
        doc.line(text, size=size, bold=True).gap(8)
    doc.page()
    doc.line("Item 7. Management's Discussion and Analysis", size=12, bold=True).gap(6)
    doc.para(filler(60, seed))
    doc.para(tax)
    doc.para(filler(40, seed + 1))
    doc.page()
    doc.line("Item 8. Financial Statements", size=12, bold=True).gap(6)
    doc.para(filler(60, seed + 2))
    return doc.save(path)


def write_filings(folder: Path) -> list[Path]:
    """ACME's and Beta's filings in ``folder``: ``acme-2022-10k.pdf``, ``beta-2022-10k.pdf``."""
    folder.mkdir(parents=True, exist_ok=True)
    return [
        ten_k(folder / "acme-2022-10k.pdf", "ACME WIDGETS, INC.", ACME_TAX, 1),
        ten_k(folder / "beta-2022-10k.pdf", "BETA FOODS CORPORATION", BETA_TAX, 5),
    ]
