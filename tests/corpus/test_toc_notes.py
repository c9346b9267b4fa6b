"""TOC enrichment: one-line section summaries from a (scripted) model, cached and budgeted."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage
from support.documents import deep_document
from support.scripted import ScriptedChatModel

import deepread
from deepread.corpus.describe import DescribeBudget, describe_sections, one_line
from deepread.nodes.toc import render_toc, section_line
from deepread.records.documents import Paragraph, Section
from deepread.stores.cache import ModelCache
from deepread.text.tokens import count_tokens

DOC = "# Guide\n\nIntro words.\n\n## Install\n\nRun pip install.\n\n## Use\n\nCall run().\n"


def _summariser() -> ScriptedChatModel:
    def reply(messages):
        title = messages[-1].content.split("Section title: ", 1)[1].split("\n", 1)[0]
        return AIMessage(content=f"All about {title.lower()} | details\n")

    return ScriptedChatModel(steps=[reply], cycle=True)


def _tree() -> tuple[list[Section], list[Paragraph]]:
    sections = [
        Section(0, "Doc", 0, None, [1], 1, 2),
        Section(1, "A", 1, 0, [2], 1, 2),
        Section(2, "B", 2, 1, [], 1, 2),
        Section(3, "Empty", 1, 0, [], 0, 0),
    ]
    paras = [Paragraph(0, s, 0, f"text of {s}") for s in (0, 1, 2)]
    return sections, paras


def test_a_summary_is_shown_as_about_on_its_toc_line() -> None:
    doc = deep_document(1, breadth=1)
    doc.sections[1].summary = "How the  widget\nturns"
    line = section_line(doc, doc.sections[1])
    assert line.endswith("| children=[2] | about: How the widget turns")
    assert "about" not in section_line(doc, doc.sections[2])


def test_sections_are_described_shallowest_first_within_the_budget(tmp_path: Path) -> None:
    sections, paras = _tree()
    model = _summariser()
    budget = DescribeBudget(max_sections=2)
    out = describe_sections(sections, paras, model, ModelCache(tmp_path / "c.sqlite"), budget)
    assert [s.summary for s in out] == [
        "All about doc / details",
        "All about a / details",
        None,
        None,
    ]
    assert sections[0].summary is None  # the input is not modified
    assert budget.sections_used == 2 and len(model.calls) == 2


def test_a_token_budget_stops_descriptions_and_cache_hits_are_free(tmp_path: Path) -> None:
    sections, paras = _tree()
    cache = ModelCache(tmp_path / "c.sqlite")
    describe_sections(sections, paras, _summariser(), cache)
    again = _summariser()
    out = describe_sections(sections, paras, again, cache, DescribeBudget(max_tokens=0))
    assert len(again.calls) == 0 and out[2].summary == "All about b / details"
    fresh = describe_sections(sections, paras, _summariser(), None, DescribeBudget(max_tokens=5))
    assert all(s.summary is None for s in fresh)


def test_one_line_flattens_and_shortens_answers() -> None:
    assert one_line('"Two\nlines | here"') == "Two lines / here"
    assert len(one_line("word " * 100)) <= 160


def test_summaries_count_in_the_toc_budget_and_collapse_still_holds() -> None:
    docs = [deep_document(1), deep_document(2)]
    plain = render_toc(docs)
    for doc in docs:
        for sec in doc.sections:
            sec.summary = f"what {sec.title} explains in a few words"
    rich = render_toc(docs)
    assert rich.tokens > plain.tokens and rich.max_level is None
    budget = plain.tokens
    fitted = render_toc(docs, budget=budget)
    assert fitted.tokens <= budget and fitted.max_level is not None
    assert count_tokens(fitted.text) == fitted.tokens
    assert "| about: what Chapter 1 explains" in fitted.text


def test_ingest_with_a_describe_model_stores_summaries_in_the_toc(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(DOC, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="d") as idx:
        idx.ingest([path], describe_model=_summariser())
    with deepread.Index.open(store=tmp_path / "store", collection="d") as idx:
        (doc,) = idx.toc()
        text = render_toc([doc]).text
    assert [s.summary for s in doc.sections] == [
        None,
        "All about guide / details",
        "All about install / details",
        "All about use / details",
    ]
    assert "[2] Install | paragraphs=1" in text and "about: All about install" in text
