"""A follow-up naming another company asks the topic's question of that company, through
the whole graph: real store, parser, embeddings, library search and offline policy, an
in-memory checkpointer holding the thread."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.memory import InMemorySaver

import deepread
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context

REPORTS = {
    "acme.md": """# Acme Corporation annual report 2022

## Income taxes

Acme's effective tax rate was 23% in 2022 and 20% in 2021.

## Capital expenditures

Acme spent $1.6 billion on plants and equipment in 2022.
""",
    "beta.md": """# Beta Industries annual report 2022

## Income taxes

Beta's effective tax rate was 15% in 2022 and 18% in 2021.

## Capital expenditures

Beta spent $0.4 billion on plants and equipment in 2022.
""",
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    folder = tmp_path_factory.mktemp("reports")
    for name, text in REPORTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    with deepread.Index.open(store=folder / "store", collection="reports") as idx:
        idx.ingest([folder / name for name in REPORTS])
        yield idx


def test_what_about_another_company_answers_the_topics_quantity_from_its_report(reports):
    beta = next(d.doc_id for d in reports.documents() if d.title.startswith("Beta"))
    graph = build_graph(index=reports, checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "topic"}}
    graph.invoke(
        {"question": "What was Acme's effective tax rate in 2022?"}, thread, context=Context()
    )

    out = graph.invoke({"question": "what about Beta?"}, thread, context=Context())

    assert out["citations"], out["answer"]
    assert {c["doc_id"] for c in out["citations"]} == {beta}, out["answer"]
    assert out["answer"].index("Beta's effective tax rate was 15%") < 300, out["answer"]


def test_a_conversation_limited_to_one_report_says_another_companys_is_outside_it(reports):
    acme, beta = (
        next(d.doc_id for d in reports.documents() if d.title.startswith(name))
        for name in ("Acme", "Beta")
    )
    graph = build_graph(index=reports, checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "limited"}}
    limited = Context(documents=[acme])
    graph.invoke(
        {"question": "What was Acme's effective tax rate in 2022?"}, thread, context=limited
    )

    out = graph.invoke({"question": "what about Beta?"}, thread, context=limited)

    assert out["citations"] == [], out["answer"]
    assert out["stop_reason"] == "no_evidence"
    assert f"do not cover Beta: ({beta}) Beta Industries" in out["answer"]
