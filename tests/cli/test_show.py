"""``deepread show`` and ``ask --show``: a cited passage drawn as its page, highlighted.

A two-page PDF (a paragraph runs across its page break) and an HTML page are ingested
once; the page images are read back with Pillow (a test dependency) to see that the
highlight is where the passage is and nowhere else. Bad input — a page the file does not
have, a coordinate that does not exist, a source moved, deleted or changed since ingest, a
store written before places were kept, a resolution past its bounds, a 2,000-page PDF —
is a clear error, and nothing is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from support.pdf_builder import Doc, filler, lines_pdf

from deepread import cli
from deepread.corpus.highlight import MAX_PAGES, draw_passage
from deepread.records.documents import Document, Paragraph, Section
from deepread.records.errors import PlaceError

LONG = filler(200, seed=3)
FIRST = filler(40, seed=5)
HTML = (
    "<html><body><h1>Fruit storage</h1><p>Apples are kept cold in the cellar.</p>"
    "<p>Pears cost more in winter, when the market is short of them.</p></body></html>"
)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("DEEPREAD_", "OPENAI_")):
            monkeypatch.delenv(name)


def _pdf(path: Path) -> Path:
    doc = Doc().page().line("Storage report", size=14, bold=True).gap(6).para(FIRST)
    lines = doc.wrap(LONG)
    doc.y = 792 - 72 - 12.5 * 4
    for ln in lines[:4]:
        doc.line(ln)
    doc.page()
    for ln in lines[4:]:
        doc.line(ln)
    return doc.save(path)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("show")
    pdf = _pdf(root / "report.pdf")
    page = root / "fruit.html"
    page.write_text(HTML, encoding="utf-8")
    store = root / "store"
    assert cli.main(["ingest", str(pdf), str(page), "--store", str(store)]) == 0
    return {"root": root, "store": store, "pdf": pdf, "html": page}


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _coords(capsys, library, starts: str) -> tuple[int, int, int, dict]:
    """The coordinate and --json paragraph of the paragraph starting with ``starts``."""
    code, out, err = run(
        capsys, "search", starts, "--k", "5", "--store", library["store"], "--json"
    )
    assert code == 0, err
    found = json.loads(out)["paragraphs"]
    para = next(p for p in found if p["text"].split("\n")[-1].startswith(starts))
    return para["doc_id"], para["sec_id"], para["para_idx"], para


def _yellow(image: Image.Image, box: tuple[float, float, float, float], scale: float) -> float:
    """Share of the pixels inside ``box`` (page points) the highlighter coloured."""
    x0, top, x1, bottom = (round(v * scale) for v in box)
    data = image.crop((x0 + 2, top + 2, x1 - 2, bottom - 2)).convert("RGB").tobytes()
    pixels = [data[i : i + 3] for i in range(0, len(data), 3)]
    return sum(1 for r, g, b in pixels if r > 200 and g > 180 and b < 120) / max(len(pixels), 1)


def test_show_writes_the_page_with_the_passage_highlighted_and_prints_its_path(
    capsys, library, tmp_path
):
    doc, sec, para, row = _coords(capsys, library, FIRST[:30])

    code, out, err = run(
        capsys,
        "show",
        doc,
        sec,
        para,
        "--out",
        tmp_path,
        "--dpi",
        "72",
        "--store",
        library["store"],
    )

    assert code == 0, err
    (path,) = out.split()
    image = Image.open(path)
    assert image.size == (612, 792)
    (box,) = row["boxes"][:1]
    assert _yellow(image, tuple(box[1:]), 1.0) > 0.3
    assert _yellow(image, (300, 600, 500, 700), 1.0) == 0  # far from the passage


def test_a_passage_across_a_page_break_is_shown_on_every_page_it_covers(capsys, library, tmp_path):
    doc, sec, para, row = _coords(capsys, library, LONG[:30])

    code, out, err = run(
        capsys,
        "show",
        doc,
        sec,
        para,
        "--out",
        tmp_path,
        "--dpi",
        "50",
        "--store",
        library["store"],
    )

    assert code == 0, err
    assert [Path(p).name.rsplit("-", 1)[1] for p in out.split()] == ["page1.png", "page2.png"]
    assert {b[0] for b in row["boxes"]} == {1, 2}


def test_a_source_without_pages_is_shown_as_its_text_with_the_passage_marked(
    capsys, library, tmp_path
):
    doc, sec, para, row = _coords(capsys, library, "Pears cost more")

    code, out, err = run(
        capsys, "show", doc, sec, para, "--out", tmp_path, "--store", library["store"], "--json"
    )

    assert code == 0, err
    (written,) = json.loads(out)["files"]
    text = Path(written["path"]).read_text(encoding="utf-8")
    assert (
        "<mark id='passage'>Pears cost more in winter, when the market is short of them.</mark>"
        in text
    )
    assert "Apples are kept cold" in text  # the surrounding text
    assert row["boxes"] == [] and row["span"]


def test_ask_show_writes_one_image_per_citation(capsys, library, tmp_path):
    code, out, err = run(
        capsys,
        "ask",
        "Where are apples kept?",
        "--show",
        tmp_path / "shown",
        "--dpi",
        "40",
        "--store",
        library["store"],
        "--json",
    )

    assert code == 0, err
    result = json.loads(out)
    assert result["citations"] and all("boxes" in c for c in result["citations"])
    cited = {(c["doc_id"], c["sec_id"], c["para_idx"]) for c in result["citations"]}
    shown = {Path(p).name.split("-page")[0].split(".")[0] for p in result["shown"]}
    assert shown == {f"doc{d}-s{s}-p{p}" for d, s, p in cited}
    assert all(Path(p).exists() for p in result["shown"])


def _fails(capsys, library, tmp_path, *argv, says: str) -> None:
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "show", *argv, "--out", out_dir, "--store", library["store"])
    assert code == 2, (out, err)
    assert says in err
    assert not out_dir.exists() or not any(out_dir.iterdir())  # nothing written, not half


def test_a_page_the_document_does_not_have_is_a_clear_error(capsys, library, tmp_path):
    doc, sec, para, _ = _coords(capsys, library, FIRST[:30])
    _fails(capsys, library, tmp_path, doc, sec, para, "--page", "9", says="there is no page 9")


def test_a_coordinate_that_does_not_exist_is_a_clear_error(capsys, library, tmp_path):
    doc, sec, _, _ = _coords(capsys, library, FIRST[:30])
    _fails(capsys, library, tmp_path, doc, sec, 999, says="has no paragraph 999")
    _fails(capsys, library, tmp_path, 77, 0, 0, says="no document 77")


def test_a_huge_dpi_is_refused_with_its_bounds(capsys, library, tmp_path):
    doc, sec, para, _ = _coords(capsys, library, FIRST[:30])
    _fails(capsys, library, tmp_path, doc, sec, para, "--dpi", "100000", says="from 36 to 400")


def test_a_source_moved_since_ingest_keeps_its_place_but_cannot_be_drawn(capsys, library, tmp_path):
    doc, sec, para, row = _coords(capsys, library, FIRST[:30])
    moved = library["root"] / "moved.pdf"
    shutil.move(library["pdf"], moved)
    try:
        _fails(capsys, library, tmp_path, doc, sec, para, says="moved or deleted since ingest")
        assert _coords(capsys, library, FIRST[:30])[3]["boxes"] == row["boxes"]  # kept
    finally:
        shutil.move(moved, library["pdf"])


def test_a_source_changed_since_ingest_is_not_drawn_from_the_new_file(capsys, library, tmp_path):
    doc, sec, para, _ = _coords(capsys, library, "Pears cost more")
    original = library["html"].read_text(encoding="utf-8")
    library["html"].write_text(original.replace("Pears", "Plums"), encoding="utf-8")
    try:
        _fails(capsys, library, tmp_path, doc, sec, para, says="has changed since it was ingested")
    finally:
        library["html"].write_text(original, encoding="utf-8")


def test_a_store_written_before_places_were_kept_reads_as_before_and_says_ingest_force(
    capsys, tmp_path
):
    import deepread
    from deepread.stores.schema import KIND_PARAGRAPH, Match

    page = tmp_path / "old.html"
    page.write_text(HTML, encoding="utf-8")
    store = tmp_path / "store"
    with deepread.Index.open(store=store) as idx:
        idx.ingest([page])
        # what an earlier deepread wrote: paragraphs with no place in their payload
        idx.collection.backend.set_payload(
            Match(equals={"record": KIND_PARAGRAPH}), {"boxes": None, "span": None}
        )
    code, out, err = run(capsys, "read", 1, 1, "--store", store, "--json")
    assert code == 0 and json.loads(out)["paragraphs"][0]["boxes"] is None

    code, out, err = run(capsys, "show", 1, 1, 0, "--out", tmp_path / "out", "--store", store)

    assert code == 2
    assert f"deepread ingest --force {page}" in err
    assert not (tmp_path / "out").exists()


def _big_pdf(tmp_path: Path) -> Document:
    path = tmp_path / "big.pdf"
    path.write_bytes(lines_pdf([[f"Page {n} of the filing."] for n in range(1, 2001)]))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return Document(1, "Big", str(path), [Section(0, "Big", 0, None)], content_hash=digest)


def test_a_page_of_a_2000_page_pdf_is_drawn_alone(tmp_path):
    doc = _big_pdf(tmp_path)
    para = Paragraph(
        1, 0, 0, "Page 2000 of the filing.", page=2000, boxes=((2000, 72.0, 60.0, 200.0, 75.0),)
    )

    (drawing,) = draw_passage(doc, 0, [para], dpi=36)

    assert drawing.page == 2000 and drawing.data.startswith(b"\x89PNG")


def test_a_passage_over_more_pages_than_one_showing_draws_is_refused(tmp_path):
    doc = _big_pdf(tmp_path)
    paras = [
        Paragraph(1, 0, i, f"Page {i + 1}.", page=i + 1, boxes=((i + 1, 72.0, 60.0, 200.0, 75.0),))
        for i in range(MAX_PAGES + 1)
    ]

    with pytest.raises(PlaceError, match=rf"covers {MAX_PAGES + 1} pages; at most {MAX_PAGES}"):
        draw_passage(doc, 0, paras)
