"""References ("Table 3", "Section 4.2", "§4.2", "section <Title>", "page 12") resolve
to coordinates, on hand-made documents and on every devset page, and the agent follows
them with ``follow_reference`` — offered only when the turn mentions one.

What counts on the devset pages: numbered mentions ("Section 4.6.3") and named ones in
the Python documentation's style ("see section Organizing test code", "chapter Data
Structures"). A mention has a target when its page has a section numbered so, or a
section whose title (without its number) begins the words after "section"/"chapter";
the pages have no numbered tables or figures (their tables carry no caption) and, as
HTML, no pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage, ToolMessage
from support.citations import coordinates
from support.scripted import ScriptedChatModel, ai, call, cite, last_tool_message, shown_coords

import deepread
from deepread.corpus.parsing import parse_file
from deepread.corpus.references import Mention, Resolver, mentions, parse_reference
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.records.documents import Document, Paragraph, Section

REPORT_MD = """\
# 4. Fruit

## 4.1 Prices

Prices vary by season; Table 2 lists them and Section 4.2 says how to store fruit.

Table 2: Fruit prices by season.

Apples cost three coins in autumn and five in spring.

## 4.2. Storage

Keep apples cool and dry, away from bananas.

Pears ripen on the counter.

## 4.3 Quinces

Quinces are best cooked.
"""


def doc_of(titles: list[str], paragraphs: list[Paragraph], doc_id: int = 1) -> Document:
    sections = [Section(0, "", 0, None)]
    for i, title in enumerate(titles, start=1):
        n = sum(1 for p in paragraphs if p.sec_id == i)
        sections.append(Section(i, title, 1, 0, n_para=n))
    return Document(doc_id=doc_id, title="t", source="t", sections=sections)


def para(sec: int, idx: int, text: str, **kw) -> Paragraph:
    return Paragraph(doc_id=1, sec_id=sec, para_idx=idx, text=text, **kw)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("references")
    (root / "report.md").write_text(REPORT_MD, encoding="utf-8")
    idx = deepread.Index.open(store=root / "store", collection="report")
    idx.ingest([root / "report.md"])
    yield idx
    idx.close()


def section_id(index: deepread.Index, prefix: str) -> tuple[int, int]:
    for doc in index.documents():
        for sec in doc.sections:
            if sec.title.startswith(prefix):
                return doc.doc_id, sec.sec_id
    raise AssertionError(prefix)


# -- mentions and parsing ----------------------------------------------------------------


def test_mentions_are_found_in_free_text_in_order():
    text = (
        "See Table 3 and fig. 2.1, then Section 4.2 (§4.8.3.2) on page 12; "
        "the section Organizing test code explains more."
    )

    found = [(m.kind, m.key) for m in mentions(text)]

    assert found == [
        ("table", "3"),
        ("figure", "2.1"),
        ("section", "4.2"),
        ("section", "4.8.3.2"),
        ("page", "12"),
        ("named", "Organizing test code explains more."),
    ]


def test_plain_prose_mentions_nothing():
    assert mentions("This section shows a table of results on the next page.") == []


def test_a_bare_number_or_a_title_is_a_reference_for_the_tool():
    assert parse_reference("4.2") == [Mention("section", "4.2", "4.2")]
    assert parse_reference("Class Definition Syntax")[0].kind == "named"


# -- the resolver on hand-made documents ------------------------------------------------


@pytest.mark.parametrize("title", ["4.2 Foo", "4.2. Foo", "Section 4.2: Foo", "4.2"])
def test_a_section_number_matches_a_title_starting_with_it(title):
    doc = doc_of(["4. Top", "4.1 Other", title, "4.21 Not it"], [])
    resolver = Resolver([doc], lambda d: [])

    for ref in ("Section 4.2", "§4.2", "§ 4.2", "sec. 4.2", "4.2"):
        [target] = resolver.resolve(parse_reference(ref)[0])
        assert (target.doc_id, target.sec_id) == (1, 3), ref


def test_a_deep_numbered_heading_resolves():
    doc = doc_of(["9.3. A First Look", "9.3.1. Class Definition Syntax", "4.8.3.2. Deep"], [])
    resolver = Resolver([doc], lambda d: [])

    assert resolver.resolve(Mention("section", "9.3.1", "Section 9.3.1"))[0].sec_id == 2
    assert resolver.resolve(Mention("section", "4.8.3.2", "§4.8.3.2"))[0].sec_id == 3
    assert resolver.resolve(Mention("section", "9.3.2", "Section 9.3.2")) == []


def test_tables_and_figures_resolve_by_label_then_caption_then_caption_like_text():
    paragraphs = [
        para(1, 0, "Results are in Table 1 and Figure 2."),
        para(1, 1, "<table><tr><td>a</td></tr></table>", kind="table", label="Table 1"),
        para(1, 2, "Figure 2: Growth over time.", kind="caption"),
        para(1, 3, "<img>", kind="figure"),
        para(1, 4, "<table><tr><td>b</td></tr></table>", kind="table", caption="Table 3. Costs"),
        para(1, 5, "Table 4 – Staff by year."),
        para(1, 6, "Table 5 shows nothing: prose, not a caption."),
    ]
    doc = doc_of(["1 Results"], paragraphs)
    resolver = Resolver([doc], lambda d: paragraphs)

    def coords(ref: str) -> list[tuple[int, int, int]]:
        targets = resolver.resolve(parse_reference(ref)[0])
        return targets[0].coords if targets else []

    assert coords("Table 1") == [(1, 1, 1)]
    assert coords("figure 2") == [(1, 1, 2), (1, 1, 3)]  # caption, then its figure
    assert coords("Table 3") == [(1, 1, 4)]
    assert coords("Tab. 4") == [(1, 1, 5)]
    assert coords("Table 5") == []


def test_a_page_maps_to_its_paragraphs_under_the_first_section_touching_it():
    paragraphs = [
        para(1, 0, "a", page=11),
        para(1, 1, "b", page=12),
        para(2, 0, "c", page=12),
        para(2, 1, "d", page=13),
    ]
    doc = doc_of(["1 One", "2 Two"], paragraphs)
    resolver = Resolver([doc], lambda d: paragraphs)

    [target] = resolver.resolve(Mention("page", "12", "page 12"))

    assert target.sec_id == 1
    assert target.coords == [(1, 1, 1), (1, 2, 0)]
    assert resolver.resolve(Mention("page", "99", "page 99")) == []


def test_paragraphs_are_loaded_once_per_document():
    loads: list[int] = []
    paragraphs = [para(1, 0, "Table 1: x.")]
    resolver = Resolver(
        [doc_of(["1 A"], paragraphs)], lambda d: loads.append(d.doc_id) or paragraphs
    )

    for _ in range(3):
        resolver.resolve(Mention("table", "1", "Table 1"))

    assert loads == [1]


# -- acceptance: every mention in the devset pages that has a target -------------------

_NUMBERED = re.compile(r"(?:\b[Ss]ections?\s*|§\s*)(\d+(?:\.\d+)*)")
_NAMED = re.compile(r"\b(?:[Ss]ection|[Cc]hapter)\s+([A-Z][^\n]*)")


def expected_target(mention_text: str, doc: Document) -> int | None:
    """An oracle independent of the resolver: the section the mention names."""
    numbered = _NUMBERED.match(mention_text)
    if numbered:
        number = numbered.group(1)
        return next(
            (
                s.sec_id
                for s in doc.sections[1:]
                if re.match(rf"{re.escape(number)}\.?(\s|$)", s.title)
            ),
            None,
        )
    words = " ".join(_NAMED.match(mention_text).group(1).split()).lower()
    best = None
    for s in doc.sections[1:]:
        name = re.sub(r"^\d+(\.\d+)*\.?\s+", "", " ".join(s.title.split())).lower()
        if (
            len(name) >= 4
            and re.match(rf"{re.escape(name)}\b", words)
            and (best is None or len(name) > best[0])
        ):
            best = (len(name), s.sec_id)
    return best[1] if best else None


def test_every_section_mention_in_the_devset_pages_with_a_target_resolves_to_it(devset):
    resolved, unresolved = [], []
    for path in sorted((devset / "docs").glob("*.html")):
        structured = parse_file(path)
        doc = Document(
            doc_id=0, title=structured.title, source=str(path), sections=structured.sections
        )
        resolver = Resolver([doc], lambda d, ps=structured.paragraphs: ps)
        for p in structured.paragraphs:
            if p.kind == "code":
                continue
            for m in mentions(p.text):
                if m.kind not in ("section", "named"):
                    continue
                want = expected_target(m.text, doc)
                got = [t.sec_id for t in resolver.resolve(m)]
                if want is None:
                    unresolved.append((path.name, m.text[:40], got))
                else:
                    assert got == [want], (path.name, p.coord, m.text)
                    resolved.append((path.name, m.text[:40]))
    names = {text.split(".")[0] for _, text in resolved}
    # the two in-page references the devset pages make
    assert {"section Organizing test code", "section Documentation Strings"} <= names
    # "Section 4.6.3" (Knuth's book) and "chapter Data Structures" point outside the pages
    assert all(got == [] for _, _, got in unresolved), unresolved
    assert any(text.startswith("Section 4.6.3") for _, text, _ in unresolved)


# -- the agent follows references -------------------------------------------------------


def tool_names(model: ScriptedChatModel) -> list[list[str]]:
    return [[t["function"]["name"] for t in tools] for tools in model.bound]


def test_follow_reference_is_offered_only_when_the_question_mentions_one(report):
    plain = ScriptedChatModel(steps=[ai(content="Nothing.")])
    build_graph(index=report, model=plain).invoke(
        {"question": "How are apples kept?"}, context=Context()
    )
    referring = ScriptedChatModel(steps=[ai(content="Nothing.")])
    build_graph(index=report, model=referring).invoke(
        {"question": "What does Table 2 list?"}, context=Context()
    )
    off = ScriptedChatModel(steps=[ai(content="Nothing.")])
    build_graph(index=report, model=off).invoke(
        {"question": "What does Table 2 list?"}, context=Context(follow_references=False)
    )

    assert tool_names(plain) == [["retrieve", "read_section"]]
    assert tool_names(referring) == [["retrieve", "read_section", "follow_reference"]]
    assert tool_names(off) == [["retrieve", "read_section"]]


def test_follow_reference_joins_when_an_observation_mentions_a_section(report):
    prices = section_id(report, "4.1")
    model = ScriptedChatModel(
        steps=[
            ai(
                call(
                    "read_section", {"doc_id": prices[0], "sec_id": prices[1], "start": 0, "end": 0}
                )
            ),
            ai(content="Nothing."),
        ]
    )

    build_graph(index=report, model=model).invoke(
        {"question": "How are apples kept?"}, context=Context()
    )

    assert tool_names(model) == [
        ["retrieve", "read_section"],
        ["retrieve", "read_section", "follow_reference"],
    ]


def test_following_a_section_reference_shows_it_and_its_citation_is_kept(report):
    storage = section_id(report, "4.2")

    def answer(messages: list[BaseMessage]) -> object:
        return ai(content=f"Cool and dry {cite(shown_coords(last_tool_message(messages))[:1])}")

    model = ScriptedChatModel(
        steps=[ai(call("follow_reference", {"reference": "Section 4.2"})), answer]
    )
    out = build_graph(index=report, model=model).invoke(
        {"question": "What does Section 4.2 say about apples?"}, context=Context()
    )

    result = last_tool_message(model.calls[1])
    assert isinstance(result, ToolMessage) and result.status == "success"
    assert "'Section 4.2' → section" in result.content
    assert "Keep apples cool and dry" in result.content
    assert f"[{storage[0]}:{storage[1]}:0]" in result.content
    assert coordinates(out["citations"]) == [
        {"doc_id": storage[0], "sec_id": storage[1], "para_idx": 0}
    ]
    assert out["stop_reason"] == "answered"


def test_following_a_table_reference_shows_the_table_with_coordinates(report):
    model = ScriptedChatModel(
        steps=[
            ai(
                call("follow_reference", {"reference": "Table 2"}),
                call("follow_reference", {"reference": "Table 9"}),
            ),
            ai(content="Done."),
        ]
    )
    build_graph(index=report, model=model).invoke(
        {"question": "What does Table 2 list?"}, context=Context()
    )

    table, missing = model.calls[1][-2:]
    assert "Fruit prices by season" in table.content
    assert shown_coords(table)
    assert missing.status == "error" and "no target found for 'Table 9'" in missing.content


def test_a_page_reference_shows_that_pdf_page(devset_index):
    pdf = next(d for d in devset_index.documents() if d.source.endswith(".pdf"))
    model = ScriptedChatModel(
        steps=[
            ai(call("follow_reference", {"reference": "page 2", "doc_id": pdf.doc_id})),
            ai(content="Done."),
        ]
    )

    build_graph(index=devset_index, model=model).invoke(
        {"question": "What is on page 2?"}, context=Context(documents=[pdf.doc_id])
    )

    result = last_tool_message(model.calls[1])
    rows = result.artifact["paragraphs"]
    assert rows and {r["page"] for r in rows} == {2}
    assert {r["doc_id"] for r in rows} == {pdf.doc_id}


def test_the_default_tool_set_is_still_the_papers_two(report):
    model = ScriptedChatModel(steps=[ai(content="x")])
    build_graph(index=report, model=model, tools=("retrieve",)).invoke(
        {"question": "What does Table 2 list?"}, context=Context()
    )

    assert tool_names(model) == [["retrieve"]]  # no reading tools in Search-o1 mode


def test_report_fixture_parses_numbered_headings(report: deepread.Index, tmp_path: Path):
    titles = [s.title for d in report.documents() for s in d.sections]
    assert any(t.startswith("4.2") for t in titles)
