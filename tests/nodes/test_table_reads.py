"""A table as the reading tools show it: its rows of cells, one line each — counted so
in the table of contents and in a read's plan, so that a statement whose HTML is larger
than a read is read whole as its rows."""

from __future__ import annotations

import pytest
from support.documents import markdown_index

from deepread.nodes.context import Context
from deepread.nodes.read_memory import regions_of
from deepread.nodes.read_plan import Sections, fit, range_cost
from deepread.nodes.tools.contract import ToolEnv, render
from deepread.nodes.tools.read_section import read_section
from deepread.nodes.tools.specs import ReadSectionArgs
from deepread.text.markup import shown_text
from deepread.text.tokens import count_tokens

#: A cash-flow statement of 60 lines under its caption: ~1,900 tokens as HTML, under
#: 1,000 as rows.
STATEMENT = "\n".join(
    [
        "# Annual report",
        "",
        "## Cash flows",
        "",
        "Consolidated Statements of Cash Flows",
        "",
        "| | 2023 | 2022 |",
        "|---|---|---|",
        "| Net income | $5,428 | $4,756 |",
        *(f"| Adjustment line {i} | {i},{i:03d} | ({i * 7},{i:03d}) |" for i in range(59)),
        "",
        "The statement's notes follow.",
    ]
)
READ = 1200  # the offline policy's read budget


@pytest.fixture(scope="module")
def statement(tmp_path_factory: pytest.TempPathFactory):
    with markdown_index(tmp_path_factory, "statement", "report.md", STATEMENT) as idx:
        doc = idx.documents()[0]
        sec = next(s for s in doc.sections if s.title == "Cash flows")
        table = next(p for p in idx.read(doc.doc_id, sec.sec_id).paragraphs if p.kind == "table")
        yield idx, doc, sec, table


def shown(index, doc_id: int, sec_id: int, start: int, end: int) -> str:
    outcome = read_section(
        ReadSectionArgs(doc_id=doc_id, sec_id=sec_id, start=start, end=end),
        ToolEnv(index, Context()),
    )
    text, _ = render(outcome, {d.doc_id: d for d in index.documents()}, regions_of([]))
    return text


def test_a_table_is_read_as_its_rows_of_cells(statement):
    idx, doc, sec, table = statement

    text = shown(idx, doc.doc_id, sec.sec_id, table.para_idx, table.para_idx)

    assert "Net income | $5,428 | $4,756" in text.splitlines()
    assert "<td>" not in text and "<tr>" not in text


def test_the_table_of_contents_counts_a_table_by_the_tokens_of_its_rows(statement):
    idx, doc, sec, _ = statement
    paragraphs = idx.read(doc.doc_id, sec.sec_id).paragraphs

    assert sec.n_tok == sum(count_tokens(shown_text(p.text, p.kind)) for p in paragraphs)
    assert sec.n_tok < sum(count_tokens(p.text) for p in paragraphs) / 1.5


def test_a_statement_larger_than_a_read_as_html_is_read_whole_as_its_rows(statement):
    idx, doc, sec, table = statement
    assert count_tokens(table.text) > READ  # as stored, no read could show it

    span = fit(Sections(idx).read_cost(doc.doc_id, sec.sec_id), table.para_idx, READ)

    assert span is not None and span[0] <= table.para_idx <= span[1]
    assert count_tokens(shown(idx, doc.doc_id, sec.sec_id, *span)) <= READ


def test_the_planned_cost_of_reading_a_table_is_the_tiktoken_count_of_what_it_shows(statement):
    idx, doc, sec, _ = statement
    cost = Sections(idx).read_cost(doc.doc_id, sec.sec_id)

    planned = range_cost(cost, 0, sec.n_para - 1, set())

    assert planned == count_tokens(shown(idx, doc.doc_id, sec.sec_id, 0, sec.n_para - 1))
