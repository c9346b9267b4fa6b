"""Pages wherever a citation is shown: ``ask``'s citation lines, ``ask --json``,
``search``'s hits — and ``search`` reading the company a query names, as ``ask`` does.

The store is real, written by ``deepread ingest`` from two 10-K filings generated as
small PDFs (tests/support/tax_filings.py: ACME's and Beta's, each with its effective tax
rate on page 2); the answers are the offline extractive policy's, no model involved.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.cli_run import offline, run
from support.tax_filings import ACME_TAX, BETA_TAX, write_filings

from deepread.cli.cited import cited_line, page_label
from deepread.records.documents import Card, Document, Paragraph, Section

ACME = "ACME WIDGETS, INC. — Form 10-K, fiscal year ended December 31, 2022"
ITEM_7 = "Item 7. Management's Discussion and Analysis"
QUESTION = "What was ACME's effective tax rate in 2022?"


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    offline(monkeypatch)


@pytest.fixture(scope="module")
def filings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of ACME's filing (doc 1) and Beta's (doc 2)."""
    root = tmp_path_factory.mktemp("tax-filings")
    store = root / "store"
    code, _, err = run("ingest", *write_filings(root / "files"), "--store", store)
    assert code == 0, err
    return store


def ask_json(store: Path) -> dict[str, Any]:
    code, out, err = run("ask", QUESTION, "--store", store, "--json")
    assert code == 0, err
    return json.loads(out)


def test_ask_s_citations_name_the_page_of_a_pdf_paragraph(filings: Path) -> None:
    code, out, err = run("ask", QUESTION, "--store", filings)

    assert code == 0, err
    line = re.compile(rf"^  \[1:\d+:\d+\] p\. 2  {re.escape(ACME)} › {re.escape(ITEM_7)}$", re.M)
    assert line.search(out), out


def test_json_says_no_llm_wrote_the_offline_answer(filings: Path) -> None:
    assert ask_json(filings)["answered_by"] == "the extractive policy (no LLM)"


def test_json_citations_carry_page_text_title_and_source(filings: Path) -> None:
    citations = ask_json(filings)["citations"]

    [tax] = [c for c in citations if c.get("text") == ACME_TAX]
    assert tax["page"] == 2 and tax["pages"] == [2]
    assert tax["title"] == ACME
    assert Path(tax["source"]).name == "acme-2022-10k.pdf"
    assert tax["boxes"] and {b[0] for b in tax["boxes"]} == {2}
    assert all({"page", "pages", "text", "title", "source"} <= set(c) for c in citations)


def test_search_names_each_hit_s_document_title_and_page(filings: Path) -> None:
    code, out, err = run("search", "effective tax rate", "--store", filings, "--all", "--k", "2")

    assert code == 0, err
    hits = [line for line in out.splitlines() if line.startswith("#")]
    titles = {1: ACME, 2: "BETA FOODS CORPORATION — Form 10-K, fiscal year ended December 31, 2022"}
    named = set()
    for rank, line in enumerate(hits, 1):  # each company's tax paragraph, on its page 2
        doc = int(line.split("[")[1].split(":")[0])
        head = rf"#{rank} \[{doc}:\d+:\d+\] p\. 2  {re.escape(titles[doc])} › {re.escape(ITEM_7)}"
        assert re.fullmatch(rf"{head}  score=\d+\.\d{{4}}", line), line
        named.add(doc)
    assert named == {1, 2}


def test_search_limits_itself_to_the_documents_the_query_names(filings: Path) -> None:
    query = "ACME effective tax rate 2022"
    _, everywhere, _ = run("search", query, "--store", filings, "--all", "--k", "3")
    code, out, err = run("search", query, "--store", filings, "--k", "3")

    # Beta's paragraph words the query better: searching every document ranks it first ...
    assert everywhere.split("\n\n")[1].startswith("[2:") and BETA_TAX in everywhere
    # ... but the query names ACME, and only ACME's filing is searched
    assert code == 0, err
    hits = [line for line in out.splitlines() if line.startswith("#")]
    assert hits and all(line.startswith(f"#{i} [1:") for i, line in enumerate(hits, 1))
    assert ACME_TAX in out.split("\n\n")[1].splitlines()[0]
    assert f"searching 1 of 2 documents, those the query names: (1) {ACME}" in err
    assert "--all searches every document" in err


def test_search_json_says_which_documents_the_query_named(filings: Path) -> None:
    code, out, err = run("search", "ACME effective tax rate 2022", "--store", filings, "--json")

    assert code == 0, err
    data = json.loads(out)
    assert data["named_documents"] == [1]
    assert {h["doc_id"] for h in data["hits"]} == {1}


def test_a_paragraph_running_on_to_the_next_page_is_cited_with_both() -> None:
    p = Paragraph(4, 3, 30, "…", page=49, boxes=((49, 72, 700, 540, 760), (50, 72, 72, 540, 90)))

    assert p.pages == [49, 50]
    assert page_label(p.pages) == "pp. 49–50"
    assert page_label([]) == "" and page_label([7]) == "p. 7"


def test_a_document_sharing_its_title_is_cited_by_title_and_file_without_the_flag() -> None:
    flagged = "Acme Annual Report 2019 (same title as doc 5; file: acme.md)"
    doc = Document(
        4,
        flagged,
        "/lib/acme.md",
        [Section(0, flagged, 0, None, [1]), Section(1, "Revenue", 1, 0)],
        card=Card(title=flagged, file="acme.md"),
    )

    assert cited_line((4, 1, 0), [], doc) == "[4:1:0] Acme Annual Report 2019 (acme.md) › Revenue"
    assert cited_line((4, 0, 0), [3], doc) == (
        "[4:0:0] p. 3  Acme Annual Report 2019 (acme.md) › Acme Annual Report 2019"
    )
