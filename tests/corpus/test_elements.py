"""Tables and figures are first-class paragraphs with caption, label, image and page."""

from __future__ import annotations

from pathlib import Path

import pytest

import deepread
from deepread.corpus.parsing import parse_file
from deepread.corpus.parsing.blocks import Block
from deepread.corpus.parsing.figures import attach_captions, caption_label, pdf_captions
from deepread.records.documents import Document, Section

HTML = """<html><body><main>
<h1>Report</h1>
<h2>Results</h2>
<p>We measured throughput.</p>
<figure><img src="img/chart.png" alt="Bar chart of throughput">
<figcaption>Figure 2.1: Throughput by year.</figcaption></figure>
<table><caption>Table 3. Latency per region</caption>
<tr><th>region</th><th>ms</th></tr><tr><td>eu</td><td>12</td></tr></table>
<p>Figure 3 shows nothing; this is prose.</p>
</main></body></html>
"""

MARKDOWN = """# Paper

## 1 Data

Some text.

![A scatter plot](figs/scatter.png "Figure 4: Height against weight")

Table 1: Counts per class

<table><tr><td>cats</td><td>3</td></tr></table>

![](figs/bare.png)

Figure 5: A bare image with its caption below.
"""


def test_caption_labels_are_read_from_caption_starts() -> None:
    assert caption_label("Table 3: Latency") == "Table 3"
    assert caption_label("Figure 2.1. Throughput") == "Figure 2.1"
    assert caption_label("Fig. 7 — Layout") == "Figure 7"
    assert caption_label("Figure 3 shows that x grows") is None
    assert caption_label("Tables are useful") is None
    assert caption_label(None) is None


def test_html_figures_and_table_captions_become_labelled_paragraphs(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(HTML, encoding="utf-8")
    paras = parse_file(path).paragraphs
    figure = next(p for p in paras if p.kind == "figure")
    assert figure.label == "Figure 2.1"
    assert figure.caption == "Figure 2.1: Throughput by year."
    assert figure.image == str((tmp_path / "img" / "chart.png").resolve())
    assert "Bar chart of throughput" in figure.text
    table = next(p for p in paras if p.kind == "table")
    assert table.label == "Table 3"
    assert table.text.startswith("Table 3. Latency per region\n<table>")
    prose = [p for p in paras if p.kind == "text"]
    assert any("prose" in p.text for p in prose)
    assert all(p.label is None for p in prose)


def test_markdown_images_and_adjacent_caption_lines_are_attached(tmp_path: Path) -> None:
    path = tmp_path / "paper.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    paras = parse_file(path).paragraphs
    figures = [p for p in paras if p.kind == "figure"]
    assert [f.label for f in figures] == ["Figure 4", "Figure 5"]
    assert figures[0].image == str((tmp_path / "figs" / "scatter.png").resolve())
    assert figures[1].caption == "Figure 5: A bare image with its caption below."
    table = next(p for p in paras if p.kind == "table")
    assert table.label == "Table 1" and "cats" in table.text
    assert not any(p.text.startswith(("Table 1", "Figure 5")) and p.kind == "text" for p in paras)


def test_a_caption_line_next_to_no_table_keeps_only_its_label() -> None:
    blocks = attach_captions([Block("caption", "Table 9: orphan"), Block("text", "x")])
    assert blocks[0].label == "Table 9" and blocks[0].kind == "caption"


def test_pdf_caption_lines_open_figures_and_label_table_captions() -> None:
    blocks = pdf_captions(
        [
            Block("text", "Figure 1: A diagram.", page=2),
            Block("text", "Table 2. Sizes", page=3),
            Block("text", "Figure 1 shows the flow.", page=3),
        ]
    )
    assert [(b.kind, b.label, b.page) for b in blocks] == [
        ("figure", "Figure 1", 2),
        ("caption", "Table 2", 3),
        ("text", None, 3),
    ]


def test_caption_label_and_image_round_trip_through_the_store(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(HTML, encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="el") as idx:
        (doc,) = idx.ingest([path])
        read = [p for s in doc.sections for p in idx.read_section(doc.doc_id, s.sec_id)]
    figure = next(p for p in read if p.kind == "figure")
    assert (figure.label, figure.image) == (
        "Figure 2.1",
        str((tmp_path / "img" / "chart.png").resolve()),
    )
    assert next(p for p in read if p.kind == "table").caption == "Table 3. Latency per region"


def test_documents_stored_before_summaries_existed_still_load() -> None:
    old = {
        "doc_id": 1,
        "title": "t",
        "source": "s",
        "sections": [
            {
                "sec_id": 0,
                "title": "t",
                "level": 0,
                "parent": None,
                "children": [],
                "n_para": 1,
                "n_tok": 3,
            }
        ],
    }
    doc = Document.from_dict(old)
    assert doc.sections[0].summary is None
    assert Section(**doc.sections[0].to_dict()) == doc.sections[0]


@pytest.mark.parametrize("name", ["library-json.html", "tutorial-classes.html"])
def test_devset_pages_keep_their_tables_without_spurious_figures(devset: Path, name: str) -> None:
    paras = parse_file(devset / "docs" / name).paragraphs
    assert not [p for p in paras if p.kind == "figure"]
    if name == "library-json.html":
        assert any(p.kind == "table" for p in paras)
