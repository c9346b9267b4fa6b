"""Figure descriptions from a (scripted) vision model are cached and made searchable."""

from __future__ import annotations

import base64
import io
import subprocess
from pathlib import Path

from PIL import Image
from support.pdf_builder import Doc, filler
from support.scripted import CannedVisionModel

import deepread
from deepread.corpus.vision import describe_figures, pdf_page_images
from deepread.records.documents import Paragraph
from deepread.stores.cache import ModelCache

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _figure_doc(tmp_path: Path) -> Path:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "chart.png").write_bytes(PNG)
    path = tmp_path / "doc.md"
    path.write_text(
        "# Doc\n\n## Sales\n\nNumbers follow.\n\n![chart](img/chart.png)\n\n"
        "Figure 1: Sales by quarter.\n",
        encoding="utf-8",
    )
    return path


def test_figures_with_images_are_described_and_the_call_carries_the_image() -> None:
    model = CannedVisionModel(reply=lambda n: "A bar chart; Q3 peaks at 42 units.")
    paras = [
        Paragraph(0, 1, 0, "text"),
        Paragraph(
            0,
            1,
            1,
            "Figure 1: Sales",
            kind="figure",
            caption="Figure 1: Sales",
            image="data:image/png;base64,AAAA",
        ),
        Paragraph(0, 1, 2, "no image", kind="figure"),
    ]
    out, described = describe_figures(paras, model)
    assert described == 1
    assert (
        out[1].text == "Figure 1: Sales\n[Figure description: A bar chart; Q3 peaks at 42 units.]"
    )
    assert out[0] == paras[0] and out[2] == paras[2]
    assert model.images == ["data:image/png;base64,AAAA"]
    assert "Figure 1: Sales" in model.prompts[0]


def test_descriptions_are_cached_by_image_hash_and_model(tmp_path: Path) -> None:
    cache = ModelCache(tmp_path / "c.sqlite")
    (tmp_path / "a.png").write_bytes(PNG)
    (tmp_path / "b.png").write_bytes(PNG)  # same bytes, another file: same key
    paras = [
        Paragraph(0, 1, i, "f", kind="figure", image=str(tmp_path / n))
        for i, n in enumerate(("a.png", "b.png"))
    ]
    model = CannedVisionModel(reply=lambda n: f"description {n}")
    out, _ = describe_figures(paras, model, cache)
    assert model.images == [f"data:image/png;base64,{base64.b64encode(PNG).decode()}"]
    assert out[0].text == out[1].text == "f\n[Figure description: description 1]"
    other = CannedVisionModel(reply=lambda n: "other model", model_name="other-vlm")
    describe_figures(paras[:1], other, cache)
    assert len(other.images) == 1 and len(cache) == 2


def test_ingest_with_a_vision_model_makes_the_description_retrievable(tmp_path: Path) -> None:
    path = _figure_doc(tmp_path)
    model = CannedVisionModel(reply=lambda n: "Pie chart of zebra habitats in Kenya.")
    with deepread.Index.open(store=tmp_path / "store", collection="v") as idx:
        (doc,) = idx.ingest([path], vision_model=model)
        hits = idx.retrieve("zebra habitats", k=1, mode="bm25")
    assert hits[0].kind == "figure" and hits[0].label == "Figure 1"
    assert "zebra habitats" in hits[0].text
    assert (tmp_path / "store" / "enrich-cache.sqlite").is_file()
    assert doc.n_tok > 0
    again = CannedVisionModel(reply=lambda n: "never asked")
    with deepread.Index.open(store=tmp_path / "store", collection="v2") as idx:
        idx.ingest([path], vision_model=again)
    assert again.images == []  # served from the sidecar cache


def _figure_pdf(tmp_path: Path) -> Path:
    """Page 1: a figure caption, a 60x40 red image and a 10x10 blue one drawn larger on
    the page (the larger in pixels is the figure; the other an icon); page 2: a JPEG;
    page 3: text only."""
    jpeg = io.BytesIO()
    Image.new("RGB", (50, 30), (0, 200, 0)).save(jpeg, "JPEG")
    (tmp_path / "green.jpg").write_bytes(jpeg.getvalue())
    doc = Doc().page().line("Sales", size=16, bold=True).para(filler(30))
    doc.image(Image.new("RGB", (60, 40), (255, 0, 0)), width=240, height=160)
    doc.image(Image.new("RGB", (10, 10), (0, 0, 255)), width=300, height=300)
    doc.line("Figure 1: Sales by quarter.")
    doc.page().image(io.BytesIO(jpeg.getvalue()), width=100, height=60)
    doc.page().para(filler(40, seed=1))
    return doc.save(tmp_path / "report.pdf")


def test_a_pdf_figure_is_described_from_the_largest_image_of_its_page(tmp_path: Path) -> None:
    path = _figure_pdf(tmp_path)
    model = CannedVisionModel(reply=lambda n: "Red bars: zebra sales peak in Q3.")
    with deepread.Index.open(store=tmp_path / "store", collection="pdf") as idx:
        idx.ingest([path], vision_model=model)
        hits = idx.retrieve("zebra sales", k=1, mode="bm25")
    assert hits[0].kind == "figure" and hits[0].label == "Figure 1"
    assert "zebra sales peak" in hits[0].text
    (url,) = model.images
    assert url.startswith("data:image/png;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert sent.size == (60, 40) and sent.convert("RGB").getpixel((30, 20)) == (255, 0, 0)


def test_a_jpeg_in_a_pdf_is_extracted_with_its_own_bytes(tmp_path: Path) -> None:
    path = _figure_pdf(tmp_path)
    found = pdf_page_images(path, [2], tmp_path / "images")
    assert Path(found[2]).suffix == ".jpg"
    assert Path(found[2]).read_bytes() == (tmp_path / "green.jpg").read_bytes()


def test_pages_without_images_or_beyond_the_end_are_left_out(tmp_path: Path) -> None:
    path = _figure_pdf(tmp_path)
    found = pdf_page_images(path, [1, 3, 99], tmp_path / "images")
    assert list(found) == [1]
    assert sorted(p.name for p in (tmp_path / "images").iterdir()) == [Path(found[1]).name]


def _a_dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_an_image_cut_short_by_a_killed_ingest_is_written_again_whole(tmp_path: Path) -> None:
    """Images are named by their bytes' hash: a process killed while writing one left a
    truncated file under the whole one's name, which every later ingest kept (the
    stored figure pointing at a broken image for good)."""
    path = _figure_pdf(tmp_path)
    whole = (tmp_path / "green.jpg").read_bytes()
    images = tmp_path / "images"
    first = Path(pdf_page_images(path, [2], images)[2])
    first.write_bytes(whole[: len(whole) // 3])  # what a kill mid-write left
    gone = _a_dead_pid()
    (images / f".{first.name}.{gone}.part").write_bytes(whole[:10])  # the new way's leftover

    again = Path(pdf_page_images(path, [2], images)[2])

    assert again == first and again.read_bytes() == whole
    assert sorted(p.name for p in images.iterdir()) == [first.name]  # no partial left
