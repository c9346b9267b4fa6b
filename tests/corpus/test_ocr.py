"""The OCR route: PDF pages rendered to images, read by a (scripted) vision model."""

from __future__ import annotations

from pathlib import Path

import pypdfium2
import pytest
from support.pdf_builder import Doc
from support.scripted import CannedVisionModel

import deepread
from deepread.corpus.enrich import IngestModels
from deepread.corpus.ocr import assign_pages, clean_page, ocr_pdf
from deepread.corpus.parsing import ParseError
from deepread.corpus.parsing.blocks import Block
from deepread.stores.cache import ModelCache

PAGES = {
    1: "# Widget Manual\n\n## 1 Intro\n\nWidgets turn cranks.\n\n## 2 Setup\n\nPlug it in.",
    2: "```markdown\nStill setting up on page two.\n\nTable 1: Voltages\n\n"
    "<table><tr><th>model</th><th>volts</th></tr><tr><td>W1</td><td>12</td></tr></table>"
    "\n```",
    3: "## 3 Care\n\n- Keep dry.\n- Oil monthly.\n\n```\nwidget --oil\n",
}


def _pdf(tmp_path: Path, pages: int = 3) -> Path:
    doc = Doc()
    for i in range(pages):  # distinct sizes: identical page images share one cache entry
        doc.page(size=(120 + 10 * i, 160))
    return doc.save(tmp_path / "manual.pdf")


def _model() -> CannedVisionModel:
    return CannedVisionModel(reply=lambda n: PAGES[n])


def test_ocr_turns_page_images_into_sections_and_paragraphs_with_pages(tmp_path: Path) -> None:
    model = _model()
    parsed = ocr_pdf(_pdf(tmp_path), model, scale=0.5)
    assert len(model.images) == 3
    assert all(url.startswith("data:image/png;base64,") for url in model.images)
    assert parsed.title == "Widget Manual" and parsed.pages == 3
    got = [(b.kind, b.text[:20], b.page) for b in parsed.blocks]
    assert ("heading", "1 Intro", 1) in got and ("heading", "3 Care", 3) in got
    assert ("text", "Still setting up on ", 2) in got
    table = next(b for b in parsed.blocks if b.kind == "table")
    assert (table.page, table.label) == (2, "Table 1") and "W1" in table.text
    code = next(b for b in parsed.blocks if b.kind == "code")
    assert code.page == 3 and "widget --oil" in code.text
    assert not any("DRXPAGE" in b.text for b in parsed.blocks)


def test_ingest_with_an_ocr_model_stores_paragraphs_with_pages(tmp_path: Path) -> None:
    path = _pdf(tmp_path)
    with deepread.Index.open(store=tmp_path / "store", collection="ocr") as idx:
        (doc,) = idx.ingest([path], ocr_model=_model())
        titles = [s.title for s in doc.sections]
        care = titles.index("3 Care")
        items = idx.read_section(doc.doc_id, care)
    assert titles[-3:] == ["1 Intro", "2 Setup", "3 Care"]
    assert [(p.kind, p.page) for p in items][:2] == [("list_item", 3), ("list_item", 3)]


def test_ocr_pages_are_cached_by_image_and_model(tmp_path: Path) -> None:
    cache = ModelCache(tmp_path / "c.sqlite")
    path = _pdf(tmp_path, pages=1)
    ocr_pdf(path, _model(), cache, scale=0.5)
    again = CannedVisionModel(reply=lambda n: "never asked")
    parsed = ocr_pdf(path, again, cache, scale=0.5)
    assert again.images == [] and parsed.blocks[0].text == "Widget Manual"


def test_a_failing_ocr_model_is_a_parse_error_naming_the_page(tmp_path: Path) -> None:
    def boom(n: int) -> str:
        raise RuntimeError("server down")

    with pytest.raises(ParseError, match="page 1"):
        IngestModels(ocr=CannedVisionModel(reply=boom)).parse(_pdf(tmp_path, pages=1))


def test_page_markers_set_pages_and_fences_are_closed() -> None:
    assert clean_page("```md\n# T\n```") == "# T"
    assert clean_page("```\ncode") == "```\ncode\n```"
    blocks = assign_pages(
        [
            Block("text", "DRXPAGE1X"),
            Block("heading", "T", level=1),
            Block("text", "DRXPAGE2X"),
            Block("text", "body"),
        ]
    )
    assert [(b.text, b.page) for b in blocks] == [("T", 1), ("body", 2)]


def test_the_devset_pdf_first_pages_go_through_the_ocr_route(devset: Path, tmp_path: Path) -> None:
    source = pypdfium2.PdfDocument(devset / "docs" / "library-json.pdf")
    first_two = pypdfium2.PdfDocument.new()
    first_two.import_pages(source, [0, 1])
    path = tmp_path / "json2.pdf"
    first_two.save(path)
    first_two.close()
    source.close()
    model = CannedVisionModel(reply=lambda n: f"# json page {n}\n\nText of page {n}.")
    structured = IngestModels(ocr=model).parse(path)
    assert [s.title for s in structured.sections[1:]] == ["json page 1", "json page 2"]
    assert [(p.text, p.page) for p in structured.paragraphs] == [
        ("json page 1\nText of page 1.", 1),
        ("json page 2\nText of page 2.", 2),
    ]
