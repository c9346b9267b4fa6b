"""The offline policy turns to the financial statement a question's quantity is computed
from — read with its subtree when its table sits under a child heading — and runs as
before for a question that asks for no financial quantity."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.documents import markdown_index, run_agent, titled

import deepread

FILING_MD = """\
# Annual report

## Business

We make packaging for food and beverage customers in forty countries.

## Liquidity and capital resources

Cash on hand was sufficient for the needs of the business during the year.

## Consolidated Balance Sheets

In millions of dollars.

### As of December 31

| Item | 2023 | 2022 |
| --- | --- | --- |
| Cash and cash equivalents | 120 | 100 |
| Trade receivables | 300 | 280 |
| Inventories | 410 | 390 |
| Total current assets | 830 | 770 |
| Total current liabilities | 600 | 640 |

## Consolidated Statements of Income

### Years Ended December 31

| Item | 2023 | 2022 |
| --- | --- | --- |
| Net sales | 2,000 | 1,900 |
| Cost of sales | 1,500 | 1,450 |
| Gross profit | 500 | 450 |

## Consolidated Statements of Cash Flows

### Years Ended December 31

CASH_FLOW_TABLE

### Note 1. Basis of presentation

The statements include the accounts of the company and its subsidiaries.

## Employees

We had about nine hundred employees at year end.
"""


#: A cash flow statement larger than the whole observation budget (1,500 tokens).
CASH_FLOW_TABLE = "\n".join(
    ["| Item | 2023 | 2022 |", "| --- | --- | --- |"]
    + [f"| Operating line item number {i} | {1000 + i:,} | {2000 + i:,} |" for i in range(150)]
)


@pytest.fixture(scope="module")
def filing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    text = FILING_MD.replace("CASH_FLOW_TABLE", CASH_FLOW_TABLE)
    with markdown_index(tmp_path_factory, "filing", "filing.md", text) as idx:
        yield idx


def calls(index: deepread.Index, question: str, thread: str) -> list[tuple[str, int | None]]:
    out = run_agent(index, question, thread)
    return [(c["name"], c["args"].get("sec_id")) for c in out["tool_calls"]]


def test_a_liquidity_ratio_question_reads_the_balance_sheet_and_its_table_first(filing):
    made = calls(filing, "Has the quick ratio improved between 2022 and 2023?", "quick")

    assert made[:2] == [
        ("read_section", titled(filing, "Consolidated Balance Sheets")),
        ("read_section", titled(filing, "As of December 31")),
    ]
    assert ("retrieve", None) in made  # the budget left still searches


def test_a_statement_named_in_an_instruction_is_the_one_read(filing):
    question = "What was the change in net sales? Give a solution by using the income statement."

    made = calls(filing, question, "named")

    # The statement's heading has no paragraphs of its own: its child's table is read.
    assert made[0] == ("read_section", titled(filing, "Years Ended December 31"))


def test_a_question_about_no_financial_quantity_starts_with_retrieve(filing):
    made = calls(filing, "How many employees does the company have?", "plain")

    assert made[0] == ("retrieve", None)


def test_a_statement_too_large_to_read_is_not_replaced_by_the_note_after_it(filing):
    made = calls(filing, "What was the free cash flow in 2023?", "fcf")

    assert ("read_section", titled(filing, "Note 1. Basis of presentation")) not in made
    assert made[0] == ("retrieve", None)


def test_with_filings_of_one_company_found_the_best_ranked_ones_statement_comes_first(
    tmp_path,
):
    paths = []
    for name in ("acme_2023_10k.md", "acme_2023_annual.md", "beta_2023_10k.md"):
        paths.append(tmp_path / name)
        # Not byte-identical: a copy of a file stored in the same ingest is not stored again.
        text = FILING_MD.replace("CASH_FLOW_TABLE", "") + f"\n<!-- {name} -->\n"
        paths[-1].write_text(text, encoding="utf-8")
    question = "Has Acme's quick ratio improved between 2022 and 2023?"
    with deepread.Index.open(store=tmp_path / "store", collection="three") as idx:
        idx.ingest(paths)
        best, other = (m.doc_id for m in idx.find_documents(question))

        out = run_agent(idx, question, "three")
        sheet = titled(idx, "Consolidated Balance Sheets")

    first, second = out["tool_calls"][:2]
    assert first["name"] == "find_documents"
    assert second["name"] == "read_section"
    assert (second["args"]["doc_id"], second["args"]["sec_id"]) == (best, sheet)
    assert other != best


def test_with_two_filings_in_view_the_search_comes_before_the_statement(tmp_path):
    # Which filing's balance sheet is meant is not known before a retrieve.
    paths = []
    for name in ("first.md", "second.md"):
        paths.append(tmp_path / name)
        # Not byte-identical: a copy of a file stored in the same ingest is not stored again.
        text = FILING_MD.replace("CASH_FLOW_TABLE", "") + f"\n<!-- {name} -->\n"
        paths[-1].write_text(text, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="two") as idx:
        idx.ingest(paths)

        out = run_agent(idx, "Has the quick ratio improved between 2022 and 2023?", "two")
        sheet = titled(idx, "Consolidated Balance Sheets")

    # In a library the documents the question names are found first (issue 25); this
    # question names neither filing, so both stay in view and the search comes next.
    names = [c["name"] for c in out["tool_calls"]]
    assert names[0] == "find_documents" and names[1] == "retrieve"
    # The balance sheet is shown after the search (by its hits or a read of it).
    assert any(
        f"[{d}:{sheet}:0]" in m.content
        for m in out["messages"][2:]
        for d in (1, 2)
        if m.type == "tool"
    )


def test_with_filings_found_a_statement_comes_from_the_best_ranked_one_that_has_it(tmp_path):
    # An earnings release ranked first has no balance sheet: the next filing's is read.
    release = FILING_MD.split("## Consolidated Balance Sheets")[0].replace(
        "# Annual report", "# Acme results for 2022 and 2023"
    )
    annual = FILING_MD.replace("CASH_FLOW_TABLE", "")
    beta = annual.replace("# Annual report", "# Beta annual report")
    annual = annual.replace("# Annual report", "# Acme annual report")
    paths = [tmp_path / f"{n}.md" for n in ("acme_2022_2023_release", "acme_2023_report", "beta")]
    for path, text in zip(paths, (release, annual, beta), strict=True):
        path.write_text(text, encoding="utf-8")
    question = "Has Acme's quick ratio improved between 2022 and 2023?"
    with deepread.Index.open(store=tmp_path / "store", collection="three") as idx:
        idx.ingest(paths)
        found = [m.doc_id for m in idx.find_documents(question)]
        by_file = {Path(d.source).name: d.doc_id for d in idx.documents()}

        report = idx.document(by_file["acme_2023_report.md"])
        sheet = next(s.sec_id for s in report.sections if s.title == "Consolidated Balance Sheets")

        out = run_agent(idx, question, "three")

    assert found == [by_file["acme_2022_2023_release.md"], report.doc_id]
    second = out["tool_calls"][1]
    assert second["name"] == "read_section"
    assert (second["args"]["doc_id"], second["args"]["sec_id"]) == (report.doc_id, sheet)


def test_a_document_titled_by_its_statements_heading_reads_that_statement_not_itself(tmp_path):
    # The first headings are printed by all three documents: banners. The two reports'
    # next line, the balance sheet's heading, becomes their title — the root section's
    # title too.
    full = FILING_MD.replace("CASH_FLOW_TABLE", "")
    texts = {
        "notes_2023.md": full.split("## Consolidated Balance Sheets")[0],
        "acme_2023_report.md": full,
        "beta_2023_report.md": full,
    }
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    question = "Has Acme's quick ratio improved between 2022 and 2023?"
    with deepread.Index.open(store=tmp_path / "store", collection="three") as idx:
        idx.ingest([tmp_path / name for name in texts])
        acme = next(d for d in idx.documents() if d.source.endswith("acme_2023_report.md"))
        sheet = next(
            s.sec_id for s in acme.sections[1:] if s.title == "Consolidated Balance Sheets"
        )

        out = run_agent(idx, question, "three")

    assert acme.title.startswith("Consolidated Balance Sheets")
    second = out["tool_calls"][1]
    assert (second["args"]["doc_id"], second["args"]["sec_id"]) == (acme.doc_id, sheet)


def test_a_statement_whose_table_sits_under_the_next_heading_of_its_level_is_read_on_into_it(
    tmp_path,
):
    # A PDF's statement whose first row label ("Assets") was taken for a heading of the
    # statement's own level: its table is beside its heading, not under it.
    beside = FILING_MD.replace("CASH_FLOW_TABLE", "").replace(
        "### As of December 31", "As of December 31.\n\n## Assets"
    )
    (tmp_path / "filing.md").write_text(beside, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="beside") as idx:
        idx.ingest([tmp_path / "filing.md"])
        sheet, assets = titled(idx, "Consolidated Balance Sheets"), titled(idx, "Assets")

        made = calls(idx, "Has the quick ratio improved between 2022 and 2023?", "beside")

    assert made[:2] == [("read_section", sheet), ("read_section", assets)]


def test_a_statement_without_a_table_near_it_is_not_read_on_into_another_statement(tmp_path):
    # The balance sheet's heading holds a line and no table; the next section is the
    # income statement: a reader does not take its table for the balance sheet's.
    bare = FILING_MD.replace("CASH_FLOW_TABLE", "")
    table = bare.index("### As of December 31")
    bare = bare[:table] + bare[bare.index("## Consolidated Statements of Income") :]
    (tmp_path / "filing.md").write_text(bare, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="bare") as idx:
        idx.ingest([tmp_path / "filing.md"])
        income = titled(idx, "Consolidated Statements of Income")
        its_table = titled(idx, "Years Ended December 31")  # the income statement's

        made = calls(idx, "Has the quick ratio improved between 2022 and 2023?", "bare")

    assert not {("read_section", income), ("read_section", its_table)} & set(made[:2])
