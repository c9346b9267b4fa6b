"""The offline policy turns, in a filing, to the MD&A discussion of a metric a question
asks the causes of, and to the section disclosing a topic it asks about — with at most
half the observation budget, so the search after it still has room."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.documents import markdown_index, run_agent, titled

import deepread
from deepread.extractive.policy import ExtractiveChatModel
from deepread.nodes.tools.observation import Observation
from deepread.text.tokens import count_tokens

FILING_MD = """\
# Annual report

## Item 3. Legal Proceedings

See Note 12 for a discussion of legal proceedings.

## Item 7. Management's Discussion and Analysis

### Results of Operations

Net sales rose eight percent on higher volumes in every region.

### Cost of sales and gross margin

Gross margin fell two points as freight and resin costs rose faster than prices.

## Consolidated Statements of Income

### Years Ended December 31

| Item | 2023 | 2022 |
| --- | --- | --- |
| Net sales | 2,000 | 1,900 |
| Cost of sales | 1,500 | 1,450 |
| Gross profit | 500 | 450 |

## Note 12. Legal Proceedings

LITIGATION

## Employees

We had about nine hundred employees at year end.
"""

#: A litigation note far larger than the observation budget (1,500 tokens).
LITIGATION = "\n\n".join(
    f"Case {i}: a customer in district {i} filed a complaint about delivery terms in "
    f"contract number {1000 + i}; the company disputes the claim and intends to defend "
    "itself vigorously."
    for i in range(60)
)


@pytest.fixture(scope="module")
def filing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    text = FILING_MD.replace("LITIGATION", LITIGATION)
    with markdown_index(tmp_path_factory, "disclosures", "filing.md", text) as idx:
        yield idx


def calls(out: dict) -> list[tuple[str, int | None]]:
    return [(c["name"], c["args"].get("sec_id")) for c in out["tool_calls"]]


def test_a_legal_question_reads_the_legal_proceedings_note_before_searching(filing):
    made = calls(run_agent(filing, "Has the company reported any ongoing legal battles?", "legal"))

    assert made[:2] == [
        ("read_section", titled(filing, "Note 12. Legal Proceedings")),
        ("retrieve", None),
    ]


def test_a_disclosure_larger_than_the_budget_is_read_with_half_of_it(filing):
    out = run_agent(filing, "Has the company reported any ongoing legal battles?", "half")

    first = next(m for m in out["messages"] if getattr(m, "tool_call_id", None))
    shown = Observation.of(first).shown
    assert 0 < len(shown) < 60  # a window of the note's cases, not all of them
    assert count_tokens(first.content) <= ExtractiveChatModel().observation_budget // 2


def test_a_why_question_reads_the_mdna_discussion_then_the_statement(filing):
    made = calls(run_agent(filing, "What drove the gross margin change in 2023?", "why"))

    assert made[:3] == [
        ("read_section", titled(filing, "Cost of sales and gross margin")),
        ("read_section", titled(filing, "Years Ended December 31")),
        ("retrieve", None),
    ]


def test_a_question_for_the_figure_only_reads_the_statement_first(filing):
    made = calls(run_agent(filing, "What was the gross margin in 2023?", "figure"))

    assert made[0] == ("read_section", titled(filing, "Years Ended December 31"))
