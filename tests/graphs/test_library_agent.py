"""A library, not a document: the agent finds the documents a question is about.

Three small "filings" (two years of one company, one of another) are written as PDFs here,
each with a cover page that says what it is, and ingested into one collection; two
syllabi in Markdown make a library of their own. Store, parser, embeddings, retriever and
the offline policy are real; a scripted chat model stands in for an LLM only where the
test is about what an LLM is offered and shown.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.pdf_builder import lines_pdf
from support.scripted import ScriptedChatModel, ai

import deepread
from deepread import cli
from deepread.corpus.library import Library
from deepread.nodes.citations import parse_citations
from deepread.records.documents import FrontMatter

BANNER = ["UNITED STATES SECURITIES AND EXCHANGE COMMISSION", "Washington, D.C. 20549", "FORM 10-K"]


def filing(company: str, year: int, revenue: str, employees: str) -> list[list[str]]:
    cover = [
        *BANNER,
        f"For the fiscal year ended December 31, {year}",
        "Commission File Number 1-2345",
        company,
        "(Exact name of registrant as specified in its charter)",
        "Delaware",
        "(State or other jurisdiction of incorporation or organization)",
    ]
    return [
        cover,
        [
            "Results of Operations",
            f"Total revenue was {revenue} million dollars in fiscal {year}.",
            "Sales rose in every region, led by the Americas.",
        ],
        ["Employees", f"The company employed {employees} people at the end of fiscal {year}."],
    ]


FILINGS = {
    "ACME_2018_10K.pdf": filing("ACME CORPORATION", 2018, "4,869", "11,000"),
    "ACME_2019_10K.pdf": filing("ACME CORPORATION", 2019, "5,363", "12,000"),
    "BETA_2019_10K.pdf": filing("BETA INDUSTRIES INC.", 2019, "777", "900"),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("filings")
    for name, pages in FILINGS.items():
        (folder / name).write_bytes(lines_pdf(pages))
    return folder


@pytest.fixture(scope="module")
def library(folder: Path):
    idx = deepread.Index.open(store=folder / "store", collection="filings")
    idx.ingest(sorted(folder.glob("*.pdf")))
    yield idx
    idx.close()


def doc_of(idx: deepread.Index, name: str) -> int:
    return next(d.doc_id for d in idx.documents() if Path(d.source).name == name)


def ask(idx: deepread.Index, question: str, **context) -> dict:
    return deepread.build_graph(index=idx).invoke(
        {"question": question}, context=deepread.Context(**context)
    )


def shown_documents(out: dict) -> set[int]:
    return {c["doc_id"] for c in out["citations"]}


def test_each_filing_is_titled_by_its_company_form_and_fiscal_year(library):
    titles = {Path(d.source).name: d.title for d in library.documents()}
    assert titles["ACME_2019_10K.pdf"] == (
        "ACME CORPORATION — Form 10-K, fiscal year ended December 31, 2019"
    )
    assert len(set(titles.values())) == 3
    stored = library.collection.documents()[0]
    assert stored.front is not None and stored.front.pages == 3  # kept at ingest


def test_the_toc_document_line_shows_title_file_and_card(library):
    model = ScriptedChatModel(steps=[ai(content="ok")])
    deepread.build_graph(index=library, model=model).invoke({"question": "hello"})
    prompt = str(model.calls[0][0].content)
    acme = doc_of(library, "ACME_2018_10K.pdf")
    assert (
        f"({acme}) [0] ACME CORPORATION — Form 10-K, fiscal year ended December 31, 2018"
        " | file=ACME_2018_10K.pdf | pages=3 |"
    ) in prompt
    assert model.bound[0][0]["function"]["name"] == "find_documents"


def test_a_question_naming_no_filing_reads_the_filing_it_is_about(library):
    out = ask(library, "What was Acme's total revenue in fiscal 2019?")
    names = [c["name"] for c in out["tool_calls"]]
    assert names[0] == "find_documents"
    retrieve = next(c for c in out["tool_calls"] if c["name"] == "retrieve")
    acme = doc_of(library, "ACME_2019_10K.pdf")
    assert acme in (
        [retrieve["args"]["doc_id"]]
        if isinstance(retrieve["args"]["doc_id"], int)
        else retrieve["args"]["doc_id"]
    )
    assert doc_of(library, "BETA_2019_10K.pdf") not in shown_documents(out)
    assert "5,363" in out["answer"]


def test_the_find_documents_call_runs_in_its_own_executor_node(library):
    chunks = list(
        deepread.build_graph(index=library).stream(
            {"question": "What was Acme's total revenue in fiscal 2019?"},
            context=deepread.Context(),
            stream_mode="updates",
        )
    )

    nodes = [node for chunk in chunks for node in chunk]
    assert nodes[:5] == ["toc", "compact", "policy", "find_documents", "compact"]
    [answer] = chunks[3]["find_documents"]["messages"]
    assert answer.name == "find_documents" and answer.artifact["documents"]


def test_a_question_about_two_years_reads_both_filings(library):
    out = ask(library, "How did Acme's total revenue change from fiscal 2018 to fiscal 2019?")
    retrieve = next(c for c in out["tool_calls"] if c["name"] == "retrieve")
    both = {doc_of(library, "ACME_2018_10K.pdf"), doc_of(library, "ACME_2019_10K.pdf")}
    assert set(retrieve["args"]["doc_id"]) == both
    assert shown_documents(out) == both


def test_a_question_about_a_company_the_library_does_not_hold_abstains(library):
    out = ask(library, "What was 3M's total revenue in fiscal 2019?")
    assert out["stop_reason"] == "no_evidence"
    assert "3m" in out["answer"] and out["citations"] == []
    assert [c["name"] for c in out["tool_calls"]] == ["find_documents"]


def test_scoping_by_documents_stays_exact(library):
    beta = doc_of(library, "BETA_2019_10K.pdf")
    out = ask(library, "What was Acme's total revenue in fiscal 2019?", documents=[beta])
    assert "find_documents" not in [c["name"] for c in out["tool_calls"]]
    assert shown_documents(out) <= {beta}


def test_find_documents_shows_the_documents_with_their_cards(library):
    model = ScriptedChatModel(
        steps=[
            ai(
                {
                    "name": "find_documents",
                    "args": {"query": "Beta Industries 2019"},
                    "id": "f1",
                    "type": "tool_call",
                }
            ),
            ai(content="ok"),
        ]
    )
    deepread.build_graph(index=library, model=model).invoke({"question": "Beta?"})
    result = model.calls[1][-1]
    beta = doc_of(library, "BETA_2019_10K.pdf")
    assert result.content.splitlines()[1].startswith(
        f"({beta}) BETA INDUSTRIES INC. — Form 10-K, fiscal year ended December 31, 2019 | "
        "file=BETA_2019_10K.pdf"
    )
    assert result.artifact["documents"] == [beta]


def test_the_cli_lists_the_documents_and_those_a_question_names(library, folder, capsys):
    library.close()
    try:
        assert cli.main(["docs", "--store", str(folder / "store"), "--collection", "filings"]) == 0
        text = capsys.readouterr().out
        assert "ACME CORPORATION — Form 10-K, fiscal year ended December 31, 2018" in text
        assert "file=ACME_2018_10K.pdf | pages=3" in text
        assert (
            cli.main(
                [
                    "docs",
                    "Beta 2019",
                    "--store",
                    str(folder / "store"),
                    "--collection",
                    "filings",
                    "--json",
                ]
            )
            == 0
        )
        [doc] = json.loads(capsys.readouterr().out)["documents"]
        assert doc["card"]["file"] == "BETA_2019_10K.pdf"
        assert doc["card"]["kind"] == "Form 10-K"
    finally:
        reopened = deepread.Index.open(store=folder / "store", collection="filings")
        library.__dict__.update(reopened.__dict__)


def test_a_store_written_before_cards_gains_them_with_ingest_force(folder, tmp_path):
    idx = deepread.Index.open(store=tmp_path / "store", collection="old")
    try:
        idx.ingest(sorted(folder.glob("*.pdf")))
        # As a store written before front matter: the same records without it, read by a
        # process that made no cards of them yet (ingest made this index's cards, and a
        # library keeps a record's card while the record is the same object).
        for doc in idx.collection.documents():
            doc.front = None
        old_cards = Library().documents(idx.collection.documents())
        assert all(d.card.kind is None for d in old_cards)  # nothing to say it
        idx.ingest(sorted(folder.glob("*.pdf")), force=True)
        assert {d.card.kind for d in idx.documents()} == {"Form 10-K"}
        assert all(isinstance(d.front, FrontMatter) for d in idx.collection.documents())
    finally:
        idx.close()


SYLLABI = {
    "math331.md": "# MATH 331 Ordinary Differential Equations\n\nSpring 2023\n\n"
    "## Office hours\n\nOffice hours are Mondays 2-3 pm in LGRT 1030.\n\n"
    "## Grading\n\nThe final exam counts for 40 percent of the grade.\n",
    "chem111.md": "# CHEM 111 General Chemistry I\n\nFall 2022\n\n"
    "## Office hours\n\nOffice hours are Thursdays 10-11 am in Goessmann 52.\n\n"
    "## Grading\n\nThe final exam counts for 30 percent of the grade.\n",
}


def test_a_question_asked_of_several_syllabi_says_which_each_part_comes_from(tmp_path):
    for name, text in SYLLABI.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="syllabi") as idx:
        idx.ingest(sorted(tmp_path.glob("*.md")))
        out = ask(idx, "When are office hours held?")
        titles = {d.doc_id: d.title for d in idx.documents()}
    cited = sorted(shown_documents(out))
    assert len(cited) == 2  # both syllabi answer it
    # the first line names its syllabus after its citation; the other's quotes follow a
    # line naming theirs
    lines = out["answer"].splitlines()
    for doc_id in cited:
        assert f"document {doc_id}, {titles[doc_id]}" in out["answer"]
    named = [i for i, line in enumerate(lines) if i == 0 or line.startswith("From document ")]
    parts = [lines[a:b] for a, b in zip(named, [*named[1:], len(lines)], strict=True)]
    assert len(parts) == 2
    for part in parts:
        doc_id = int(part[0].split("document ", 1)[1].split(",", 1)[0])
        cites = parse_citations("\n".join(part))
        assert cites and all(d == doc_id for d, _, _ in cites), part
