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
and only when a vision model is configured, the largest embedded image of the figure's
page is extracted with pypdf into ``<sidecar dir>/images/<sha256>.<ext>`` and becomes the
paragraph's ``image``. A page whose figure is vector-drawn has no embedded image and is
not described.
"""

from __future__ import annotations

import base64
import dataclasses
import logging
import mimetypes
from collections.abc import Sequence
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from deepread.corpus.models import message_text
from deepread.prompts import load
from deepread.stores.cache import ModelCache, sha256
from deepread.stores.records import Paragraph

log = logging.getLogger(__name__)

#: Images larger than this are not sent (most endpoints refuse them anyway).
MAX_IMAGE_BYTES = 20 * 1024 * 1024


def resolve_model(model: BaseChatModel | str | None) -> BaseChatModel | None:
    """A chat model object for a name (an OpenAI-compatible endpoint), or as given."""
    if model is None or model == "":
        return None
    if isinstance(model, str):
        from deepread.corpus.models import chat_model

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


def pdf_page_image(pdf: Path, page: int, out_dir: Path) -> str | None:
    """The largest embedded image of ``pdf``'s ``page`` (1-based) saved under ``out_dir``."""
    try:
        from pypdf import PdfReader

        images = list(PdfReader(pdf).pages[page - 1].images)
    except Exception as exc:  # a broken image stream must not fail the ingest
        log.warning("cannot extract images of %s page %s: %s", pdf, page, exc)
        return None
    if not images:
        return None
    best = max(images, key=lambda im: len(im.data))
    ext = Path(best.name).suffix or ".png"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{sha256(best.data)}{ext}"
    if not target.exists():
        target.write_bytes(best.data)
    return str(target)


def describe_figures(paragraphs: Sequence[Paragraph], model: BaseChatModel,
                     cache: ModelCache | None = None, *, source: Path | None = None,
                     image_dir: Path | None = None) -> tuple[list[Paragraph], int]:
    """Paragraphs with figure descriptions appended, and how many were described.

    ``source`` is the file they came from: PDF figures without an image get the largest
    image of their page, saved under ``image_dir``.
    """
    name = model_name(model)
    prompt = load("describe_figure")
    out: list[Paragraph] = []
    described = 0
    pdf = source if source is not None and source.suffix.lower() == ".pdf" else None
    for para in paragraphs:
        if para.kind != "figure":
            out.append(para)
            continue
        image = para.image
        if image is None and pdf is not None and para.page and image_dir is not None:
            image = pdf_page_image(pdf, para.page, image_dir)
            if image:
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
