"""The paper's OCR route: PDF pages → images → a vision model → Markdown → blocks.

DeepRead parses PDFs with an OCR model (PaddleOCR-VL) that writes Markdown. Here each
page is rendered with pypdfium2 (``scale`` 2.0 ≈ 144 dpi) to PNG and sent to any
OpenAI-compatible vision endpoint (e.g. PaddleOCR-VL or another VLM served by vLLM) —
``deepread ingest --ocr-model NAME`` / ``DEEPREAD_OCR_MODEL`` or
``Index.ingest(..., ocr_model=...)``. Pages are cached by (PNG sha256, model name).

The pages' Markdown is joined with a marker paragraph before each page and parsed once by
the normal Markdown path (:func:`deepread.corpus.parsing.markdown.markdown_blocks`), so
headings may open on one page and continue on the next and tables stay whole; each
marker then sets the ``page`` of the blocks after it and is dropped. A code fence left
open at the end of a page is closed there, so it cannot swallow the next page's marker.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from deepread.corpus.parsing.blocks import Block, ParsedDocument
from deepread.corpus.parsing.errors import ParseError
from deepread.corpus.vision import ask_about_image, image_part, model_name
from deepread.prompts import load
from deepread.stores.cache import ModelCache, sha256

log = logging.getLogger(__name__)

#: Render scale (1.0 = 72 dpi).
DEFAULT_SCALE = 2.0
_MARKER = "DRXPAGE{}X"
_MARKER_RE = re.compile(r"DRXPAGE(\d+)X")
_OUTER_FENCE = re.compile(r"^\s*```(?:markdown|md)?\s*\n(.*?)\n\s*```\s*$", re.DOTALL)

#: Called as ``progress(page, pages)`` after each page.
PageProgress = Callable[[int, int], None]


def render_pages(path: Path, scale: float = DEFAULT_SCALE) -> list[bytes]:
    """PNG bytes of every page of ``path``."""
    import pypdfium2

    from deepread.corpus.parsing.pdf.pdfium import PDFIUM_LOCK

    # PDFium is not thread-safe and ingest parses PDFs in a background thread.
    with PDFIUM_LOCK:
        try:
            pdf = pypdfium2.PdfDocument(str(path))
        except pypdfium2.PdfiumError as exc:
            raise ParseError(path, f"cannot render the PDF for OCR ({exc})") from exc
        pages: list[bytes] = []
        try:
            for i in range(len(pdf)):
                buf = io.BytesIO()
                pdf[i].render(scale=scale).to_pil().save(buf, format="PNG")
                pages.append(buf.getvalue())
        finally:
            pdf.close()
    return pages


def clean_page(markdown: str) -> str:
    """The model's page Markdown without an outer ```markdown fence, fences balanced."""
    text = markdown.strip()
    m = _OUTER_FENCE.match(text)
    if m:
        text = m.group(1)
    if sum(1 for ln in text.splitlines() if ln.lstrip().startswith("```")) % 2:
        text += "\n```"
    return text


def ocr_page(model: BaseChatModel, png: bytes, cache: ModelCache | None = None) -> str:
    """Markdown of one rendered page (cached by image hash and model)."""
    name = model_name(model)
    digest = sha256(png)
    cached = cache.get("ocr", name, digest) if cache is not None else None
    if cached is not None:
        return cached
    text = clean_page(ask_about_image(model, load("ocr_page"), image_part(png)))
    if cache is not None:
        cache.put("ocr", name, digest, text)
    return text


def join_pages(pages: list[str]) -> str:
    """One Markdown text with a marker paragraph before each page (1-based)."""
    return "\n\n".join(f"{_MARKER.format(i)}\n\n{md}" for i, md in enumerate(pages, start=1))


def assign_pages(blocks: list[Block]) -> list[Block]:
    """Set each block's page from the markers before it; drop the markers."""
    out: list[Block] = []
    page: int | None = None
    for block in blocks:
        markers = list(_MARKER_RE.finditer(block.text))
        if markers:
            rest = _MARKER_RE.sub(" ", block.text).strip()
            if rest:  # a marker glued to text (should not happen): keep the text
                block.text = " ".join(rest.split()) if block.kind != "table" else rest
                block.page = page if page is not None else int(markers[0].group(1))
                out.append(block)
            page = int(markers[-1].group(1))
            continue
        block.page = page
        out.append(block)
    return out


def ocr_pdf(
    path: Path,
    model: BaseChatModel,
    cache: ModelCache | None = None,
    *,
    scale: float = DEFAULT_SCALE,
    progress: PageProgress | None = None,
) -> ParsedDocument:
    """Blocks of ``path`` read by the OCR ``model``, each with its page."""
    from deepread.corpus.parsing.markdown import markdown_blocks

    pngs = render_pages(path, scale)
    if not pngs:
        raise ParseError(path, "the PDF has no pages")
    pages: list[str] = []
    for i, png in enumerate(pngs, start=1):
        try:
            pages.append(ocr_page(model, png, cache))
        except Exception as exc:
            raise ParseError(path, f"OCR model failed on page {i}: {exc}") from exc
        if progress:
            progress(i, len(pngs))
    parsed = markdown_blocks(join_pages(pages), path)
    parsed.blocks = assign_pages(parsed.blocks)
    parsed.pages = len(pngs)
    first_h1 = next((b.text for b in parsed.blocks if b.kind == "heading" and b.level == 1), None)
    parsed.title = first_h1
    return parsed
