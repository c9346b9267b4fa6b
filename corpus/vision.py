"""Vision models at ingest: describe figures so that retrieval can find them.

Any OpenAI-compatible multimodal endpoint works (``langchain-openai``'s ``ChatOpenAI``;
images go as ``image_url`` content parts with a ``data:`` URI), configured by name —
``deepread ingest --vision-model NAME`` / ``DEEPREAD_VISION_MODEL`` — or passed as a
LangChain chat model object from Python.

:func:`describe_figures` sends each ``figure`` paragraph that has an image (a file path,
a ``data:`` URI or an http(s) URL) with its caption to the model and appends the answer
to the paragraph text as ``[Figure description: …]``; a figure without an image is left
as it is. Descriptions are cached by (image sha256, model name) in the store's sidecar
cache (:mod:`deepread.stores.cache`), so re-ingesting never asks twice.

PDF figures carry no image at parse time (:mod:`deepread.corpus.parsing.figures`): here,
and only when a vision model is configured, the largest embedded image (by pixels) of
each figure's page is extracted with PDFium — the library the parser reads the PDF with,
opened once for all the figures of a file — into ``<sidecar dir>/images/<sha256>.<ext>``
and becomes the paragraph's ``image``. JPEG streams are kept as they are; other images are
written as PNG (JPEG 2000 and CMYK included: vision endpoints take PNG and JPEG). A page
whose figure is vector-drawn has no embedded image and is not described.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import logging
import mimetypes
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from deepread.models.chat import message_text
from deepread.prompts import load
from deepread.records.documents import Paragraph
from deepread.stores.cache import ModelCache, sha256
from deepread.stores.holder import process_running

if TYPE_CHECKING:
    import pypdfium2

log = logging.getLogger(__name__)

#: Images larger than this are not sent (most endpoints refuse them anyway).
MAX_IMAGE_BYTES = 20 * 1024 * 1024


def resolve_model(model: BaseChatModel | str | None) -> BaseChatModel | None:
    """A chat model object for a name (an OpenAI-compatible endpoint), or as given."""
    if model is None or model == "":
        return None
    if isinstance(model, str):
        from deepread.models.chat import chat_model

        return chat_model(model)
    return model


def model_name(model: BaseChatModel) -> str:
    """The name a cache entry is keyed by: the endpoint's model name, else the class."""
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def image_part(data: bytes, mime: str = "image/png") -> dict:
    """An OpenAI-style ``image_url`` content part carrying ``data`` inline."""
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


def ask_about_image(model: BaseChatModel, prompt: str, part: dict) -> str:
    """Send one text + image message; the reply's text."""
    reply = model.invoke([HumanMessage(content=[{"type": "text", "text": prompt}, part])])
    return message_text(reply).strip()


def load_image(image: str) -> tuple[bytes | None, dict | None]:
    """Bytes (for the cache key) and the content part of a figure's ``image``."""
    if image.startswith("data:"):
        return image.encode("ascii", "ignore"), {"type": "image_url", "image_url": {"url": image}}
    if image.startswith(("http://", "https://")):
        return image.encode("utf-8"), {"type": "image_url", "image_url": {"url": image}}
    path = Path(image)
    if not path.is_file() or path.stat().st_size > MAX_IMAGE_BYTES:
        return None, None
    data = path.read_bytes()
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    return data, image_part(data, mime)


def pdf_page_images(pdf: Path, pages: Iterable[int], out_dir: Path) -> dict[int, str]:
    """The largest embedded image of each of ``pdf``'s ``pages`` (1-based), saved under
    ``out_dir``: page -> file path. A page without images, or whose image cannot be
    decoded, is left out (logged): a broken image stream must not fail the ingest."""
    # Loaded here, not at import: an ingest without PDFs or without a vision model skips it.
    import pypdfium2

    from deepread.corpus.parsing.pdf.pdfium import PDFIUM_LOCK

    found: dict[int, str] = {}
    with PDFIUM_LOCK:  # PDFium is not thread-safe; ingest parses in a background thread
        try:
            doc = pypdfium2.PdfDocument(str(pdf))
        except pypdfium2.PdfiumError as exc:
            log.warning("cannot open %s to extract its images: %s", pdf, exc)
            return found
        try:
            for page in sorted(set(pages)):
                try:
                    data, ext = _largest_image(doc, page)
                except (pypdfium2.PdfiumError, OSError, ValueError, IndexError) as exc:
                    log.warning("cannot extract images of %s page %s: %s", pdf, page, exc)
                    continue
                if data:
                    found[page] = str(_save(data, ext, out_dir))
        finally:
            doc.close()
    return found


def _largest_image(doc: pypdfium2.PdfDocument, page: int) -> tuple[bytes | None, str]:
    """Encoded bytes and extension of the page's image with the most pixels."""
    import pypdfium2.raw as pdfium_c

    pdf_page = doc[page - 1]
    try:
        images = list(pdf_page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]))
        if not images:
            return None, ""
        best = max(images, key=lambda im: im.get_px_size()[0] * im.get_px_size()[1])
        buffer = io.BytesIO()
        best.extract(buffer)  # JPEG as stored; decodable pixel data re-encoded by PIL
        data = buffer.getvalue()
        if data.startswith(b"\xff\xd8\xff"):
            return data, ".jpg"
        if not data.startswith(b"\x89PNG"):  # JPEG 2000 or CMYK TIFF: render to RGB PNG
            buffer = io.BytesIO()
            best.get_bitmap().to_pil().convert("RGB").save(buffer, format="PNG")
            data = buffer.getvalue()
        return data, ".png"
    finally:
        pdf_page.close()


def _save(data: bytes, ext: str, out_dir: Path) -> Path:
    """``data`` under its sha256, whole: written beside the target and renamed into
    place, so a process killed mid-write leaves no truncated image under the name of the
    whole one (its partial file, named by its pid, is removed by the next writer of that
    image); one left by an earlier version (written in place) is shorter than its name
    says and is written again — it used to be kept, the stored figure pointing at a
    broken image for good."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{sha256(data)}{ext}"
    try:
        if target.stat().st_size == len(data):
            return target  # the same bytes (the name is their hash)
    except OSError:  # not there yet
        pass
    for stale in out_dir.glob(f".{target.name}.*.part"):  # a killed writer's
        pid = stale.name.removeprefix(f".{target.name}.").removesuffix(".part")
        if pid.isdigit() and not process_running(int(pid)):
            stale.unlink(missing_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        partial.write_bytes(data)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def describe_figures(
    paragraphs: Sequence[Paragraph],
    model: BaseChatModel,
    cache: ModelCache | None = None,
    *,
    source: Path | None = None,
    image_dir: Path | None = None,
) -> tuple[list[Paragraph], int]:
    """Paragraphs with figure descriptions appended, and how many were described.

    ``source`` is the file they came from: PDF figures without an image get the largest
    image of their page, saved under ``image_dir``.
    """
    name = model_name(model)
    prompt = load("describe_figure")
    out: list[Paragraph] = []
    described = 0
    page_images: dict[int, str] = {}
    if source is not None and source.suffix.lower() == ".pdf" and image_dir is not None:
        pages = {p.page for p in paragraphs if p.kind == "figure" and p.image is None and p.page}
        if pages:
            page_images = pdf_page_images(source, pages, image_dir)
    for para in paragraphs:
        if para.kind != "figure":
            out.append(para)
            continue
        image = para.image
        if image is None and para.page in page_images:
            image = page_images[para.page]
            para = dataclasses.replace(para, image=image)
        data, part = load_image(image) if image else (None, None)
        if data is None or part is None:
            out.append(para)
            continue
        digest = sha256(data)
        text = cache.get("figure", name, digest) if cache is not None else None
        if text is None:
            ask = prompt + (f"\n\nIts caption: {para.caption}" if para.caption else "")
            try:
                text = " ".join(ask_about_image(model, ask, part).split())
            except Exception as exc:  # one failed call leaves the figure undescribed
                log.warning("vision model failed on %s: %s", image, exc)
                out.append(para)
                continue
            if cache is not None and text:
                cache.put("figure", name, digest, text)
        if text:
            para = dataclasses.replace(para, text=f"{para.text}\n[Figure description: {text}]")
            described += 1
        out.append(para)
    return out, described
