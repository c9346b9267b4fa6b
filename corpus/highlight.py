"""A cited passage shown as its source shows it: page images with the passage highlighted,
or, for a source without pages, its surrounding text with the passage marked.

What a person checking an answer needs is the page, not a coordinate. The places kept at
ingest (:mod:`deepread.corpus.parsing.places`) say where each paragraph is; this module
draws them:

* **PDF**: every page the passage covers, rendered by PDFium (pypdfium2) at ``dpi``, the
  passage's rectangles painted like a highlighter (multiplied yellow, so the text stays
  black) and outlined; written as PNG (:mod:`deepread.corpus.png`). A passage across a
  page break is one image per page.
* **Text, Markdown, HTML, DOCX**: an HTML file of the source's text around the passage
  (tags of an HTML source removed), the passage in a ``<mark>``, scrolled into view.

Everything that can go wrong is said before anything is written, and what is written is
written whole (each file to a temporary name in its folder, renamed once all are drawn):
a passage stored before places were kept (``ingest --force`` adds them), a source file
moved, deleted or changed since ingest (the stored place stays; the picture cannot be
drawn from another file), a page the file does not have, a resolution or an image size
past the bounds, more pages than one showing draws.
"""

from __future__ import annotations

import html
import math
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from deepread.corpus.files import sha256_file
from deepread.records.documents import Box, Document, Paragraph, Span
from deepread.records.errors import PlaceError

if TYPE_CHECKING:
    import numpy as np

    from deepread.corpus.index import Index

__all__ = [
    "DEFAULT_DPI",
    "MAX_DPI",
    "MAX_PAGES",
    "MAX_PIXELS",
    "MIN_DPI",
    "Drawing",
    "check_dpi",
    "draw_cited",
    "draw_passage",
    "page_png",
    "pages_of",
    "source_file",
    "write_files",
]

DEFAULT_DPI = 144
MIN_DPI = 36
MAX_DPI = 400
#: Most pixels one page image may have (a poster-sized page at 400 dpi would be ~1 GB).
MAX_PIXELS = 40_000_000
#: Most page images one passage is drawn as (a range of paragraphs over a whole filing
#: would otherwise render hundreds of pages).
MAX_PAGES = 20
#: Characters of the source shown before and after a passage without pages.
CONTEXT_CHARS = 3000

#: The highlighter's colour (multiplied into the page) and the outline's.
_FILL = (255, 226, 70)
_EDGE = (230, 120, 0)
_EDGE_PX = 2


@dataclass(frozen=True, slots=True)
class Drawing:
    """One file of a shown passage: its name (no folder), its bytes, and the page it is
    (``None``: the text of a source without pages)."""

    name: str
    data: bytes
    page: int | None


def check_dpi(dpi: int) -> int:
    """``dpi`` if within :data:`MIN_DPI` … :data:`MAX_DPI`, else :class:`PlaceError`."""
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise PlaceError(f"--dpi {dpi} is out of bounds: from {MIN_DPI} to {MAX_DPI}")
    return dpi


def pages_of(paragraphs: Sequence[Paragraph]) -> dict[int, list[Box]]:
    """The passage's rectangles by page, pages in order."""
    pages: dict[int, list[Box]] = {}
    for p in paragraphs:
        for box in p.boxes or ():
            pages.setdefault(box[0], []).append(box)
    return dict(sorted(pages.items()))


def source_file(doc: Document) -> Path:
    """The document's source file as it was ingested, or :class:`PlaceError` saying
    why it cannot be drawn from (gone, not a file, changed since ingest)."""
    path = Path(doc.source)
    where = f"document {doc.doc_id}'s source {doc.source}"
    if not path.exists():
        raise PlaceError(
            f"{where} is not there any more (moved or deleted since ingest): the place "
            "of the passage is kept in the store, but its page cannot be drawn without "
            "the file; put the file back, or ingest it from where it is now"
        )
    if not path.is_file():
        raise PlaceError(f"{where} is not a regular file; its page cannot be drawn")
    if doc.content_hash:
        try:
            same = sha256_file(path) == doc.content_hash
        except OSError as exc:
            raise PlaceError(f"{where} cannot be read ({exc.strerror or exc})") from exc
        if not same:
            raise PlaceError(
                f"{where} has changed since it was ingested: the stored place is the old "
                "file's, so the page is not drawn from the new one; `deepread ingest` "
                "it again"
            )
    return path


def _stem(doc_id: int, sec_id: int, first: int, last: int) -> str:
    paras = f"{first}" if first == last else f"{first}-{last}"
    return f"doc{doc_id}-s{sec_id}-p{paras}"


def draw_passage(
    doc: Document,
    sec_id: int,
    paragraphs: Sequence[Paragraph],
    *,
    dpi: int = DEFAULT_DPI,
    page: int | None = None,
) -> list[Drawing]:
    """The files that show ``paragraphs`` (one passage of ``doc``'s section ``sec_id``):
    a PNG per page it covers (or only ``page``, highlighted where the passage is on it),
    or one HTML file for a source without pages. Nothing is written here."""
    check_dpi(dpi)
    if not paragraphs:
        raise PlaceError(f"no paragraphs to show in document {doc.doc_id} section {sec_id}")
    first, last = paragraphs[0].para_idx, paragraphs[-1].para_idx
    stem = _stem(doc.doc_id, sec_id, first, last)
    coord = f"[{doc.doc_id}:{sec_id}:{first}" + (f"-{last}]" if last != first else "]")
    if not all(p.placed for p in paragraphs):
        raise PlaceError(
            f"{coord} was stored before deepread kept where paragraphs are; "
            f"`deepread ingest --force {doc.source}` gives its paragraphs places"
        )
    by_page = pages_of(paragraphs)
    if not by_page and page is None:
        spans = [p.span for p in paragraphs if p.span is not None]
        if not spans:
            raise PlaceError(f"{coord} has no place in its source (none was found at ingest)")
        path = source_file(doc)
        text = _text_html(doc, coord, path, (min(s[0] for s in spans), max(s[1] for s in spans)))
        return [Drawing(f"{stem}.html", text.encode("utf-8"), None)]
    if page is not None:
        by_page = {page: by_page.get(page, [])}
    if len(by_page) > MAX_PAGES:
        raise PlaceError(
            f"{coord} covers {len(by_page)} pages; at most {MAX_PAGES} are drawn at once: "
            "show fewer paragraphs, or one page with --page"
        )
    path = source_file(doc)
    return [
        Drawing(f"{stem}-page{number}.png", png, number)
        for number, png in _draw_pages(path, by_page, dpi)
    ]


def draw_cited(
    index: Index,
    doc_id: int,
    sec_id: int,
    first: int,
    last: int | None = None,
    *,
    dpi: int = DEFAULT_DPI,
    page: int | None = None,
) -> list[Drawing]:
    """:func:`draw_passage` of paragraphs ``first..last`` of section ``sec_id`` of
    document ``doc_id`` in ``index``: a coordinate that does not exist is a
    :class:`~deepread.records.errors.CoordinateError` naming what does."""
    check_dpi(dpi)
    last = first if last is None else last
    if last < first:
        raise PlaceError(f"the paragraph range {first}-{last} runs backwards")
    doc = index.document(doc_id)
    section = doc.section(sec_id)
    if not 0 <= first < section.n_para or last >= section.n_para:
        from deepread.records.errors import CoordinateError

        valid = f"0-{section.n_para - 1}" if section.n_para else "none"
        wanted = f"{first}" if first == last else f"{first}-{last}"
        raise CoordinateError(
            f"document {doc_id} section {sec_id} has no paragraph {wanted} "
            f"(its paragraphs: {valid})"
        )
    paragraphs = index.read_section(doc_id, sec_id, first, last)
    return draw_passage(doc, sec_id, paragraphs, dpi=dpi, page=page)


def page_png(doc: Document, page: int, boxes: Sequence[Box], dpi: int = DEFAULT_DPI) -> bytes:
    """One page of ``doc`` as PNG with ``boxes`` highlighted (a server's page route)."""
    check_dpi(dpi)
    return _draw_pages(source_file(doc), {page: list(boxes)}, dpi)[0][1]


def _draw_pages(path: Path, by_page: dict[int, list[Box]], dpi: int) -> list[tuple[int, bytes]]:
    import pypdfium2

    from deepread.corpus.parsing.pdf.pdfium import PDFIUM_LOCK
    from deepread.corpus.png import png_bytes

    scale = dpi / 72
    out = []
    with PDFIUM_LOCK:
        try:
            pdf = pypdfium2.PdfDocument(str(path), password="")
        except pypdfium2.PdfiumError as exc:
            raise PlaceError(f"{path} cannot be opened as a PDF ({exc})") from exc
        try:
            count = len(pdf)
            for number in by_page:
                if not 1 <= number <= count:
                    raise PlaceError(
                        f"{path} has pages 1-{count}; there is no page {number}"
                        + ("" if number > 0 else " (pages count from 1)")
                    )
            rendered = []
            for number, boxes in by_page.items():
                page = pdf[number - 1]
                try:
                    width, height = page.get_size()
                    pixels = math.ceil(width * scale) * math.ceil(height * scale)
                    if pixels > MAX_PIXELS:
                        raise PlaceError(
                            f"page {number} of {path} at {dpi} dpi would be {pixels:,} "
                            f"pixels (at most {MAX_PIXELS:,}); ask for a lower --dpi"
                        )
                    bitmap = page.render(
                        scale=scale,
                        force_bitmap_format=pypdfium2.raw.FPDFBitmap_BGR,
                        rev_byteorder=True,
                    )
                    rendered.append((number, bitmap.to_numpy().copy(), boxes))
                finally:
                    page.close()
        finally:
            pdf.close()
    for number, rgb, boxes in rendered:
        _highlight(rgb, boxes, scale)
        out.append((number, png_bytes(rgb, dpi=dpi)))
    return out


def _highlight(rgb: np.ndarray, boxes: Sequence[Box], scale: float) -> None:
    """Paint ``boxes`` (page points) on the page image ``rgb`` in place: the inside
    multiplied by the highlighter's yellow, an outline just outside it."""
    import numpy as np

    height, width = rgb.shape[:2]
    fill = np.array(_FILL, dtype=np.uint16)
    edge = np.array(_EDGE, dtype=np.uint8)
    for _, x0, top, x1, bottom in boxes:
        a, b = max(0, math.floor(x0 * scale)), min(width, math.ceil(x1 * scale))
        c, d = max(0, math.floor(top * scale)), min(height, math.ceil(bottom * scale))
        if a >= b or c >= d:
            continue
        region = rgb[c:d, a:b]
        region[:] = (region.astype(np.uint16) * fill // 255).astype(np.uint8)
        ea, eb = max(0, a - _EDGE_PX), min(width, b + _EDGE_PX)
        ec, ed = max(0, c - _EDGE_PX), min(height, d + _EDGE_PX)
        rgb[ec:c, ea:eb] = edge
        rgb[d:ed, ea:eb] = edge
        rgb[ec:ed, ea:a] = edge
        rgb[ec:ed, b:eb] = edge


# --- sources without pages --------------------------------------------------------------

_BREAK_TAG = re.compile(r"<\s*(?:br|/p|/div|/li|/h[1-6]|/tr|/table|/pre|hr)\b[^<>]*>", re.I)
_ANY_TAG = re.compile(r"<[^<>]*>")
_HIDDEN = re.compile(r"<(script|style)\b.*?</\1\s*>", re.I | re.S)
_BLANKS = re.compile(r"\n\s*\n(\s*\n)+")


def _plain(fragment: str, markup: bool) -> str:
    """A fragment of the source as text: for markup, tags out and entities decoded."""
    if not markup:
        return fragment
    fragment = _HIDDEN.sub("", fragment)
    text = html.unescape(_ANY_TAG.sub("", _BREAK_TAG.sub("\n", fragment)))
    return _BLANKS.sub("\n\n", text)


def _context(text: str, span: Span) -> tuple[str, str, str]:
    """The source before the passage, the passage and after it, cut at line ends."""
    start, end = max(0, span[0]), min(len(text), span[1])
    lo = max(0, start - CONTEXT_CHARS)
    hi = min(len(text), end + CONTEXT_CHARS)
    if lo > 0:
        nl = text.find("\n", lo, start)
        lo = nl + 1 if nl >= 0 else lo
    if hi < len(text):
        nl = text.rfind("\n", end, hi)
        hi = nl if nl >= 0 else hi
    before, after = text[lo:start], text[end:hi]
    # a fragment cut inside a tag (a ">" before any "<") starts after the tag's end
    first_close, first_open = before.find(">"), before.find("<")
    if first_close >= 0 and (first_open < 0 or first_open > first_close):
        before = before[first_close + 1 :]
    # and one cut inside a tag at its end (a "<" after the last ">") ends before it
    last_open = after.rfind("<")
    if last_open > after.rfind(">"):
        after = after[:last_open]
    return before, text[start:end], after


def _text_html(doc: Document, coord: str, path: Path, span: Span) -> str:
    from deepread.corpus.parsing.source_text import source_text

    try:
        source = source_text(path)
    except (OSError, ValueError, KeyError) as exc:
        raise PlaceError(f"{path} cannot be read for its text ({exc})") from exc
    if span[1] > len(source.text):
        raise PlaceError(
            f"{coord}'s place ends at character {span[1]:,}, but {path} has "
            f"{len(source.text):,}: the file is not the one ingested; ingest it again"
        )
    before, passage, after = (_plain(part, source.markup) for part in _context(source.text, span))
    esc = html.escape
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'>"
        f"<title>{esc(coord)} {esc(doc.title)}</title>"
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48em;margin:2em auto;"
        "padding:0 1em;color:#222}header{color:#555;border-bottom:1px solid #ddd;"
        "margin-bottom:1em}.src{white-space:pre-wrap}mark{background:#ffe246;"
        "outline:2px solid #e67800}</style></head><body>"
        f"<header><strong>{esc(doc.title)}</strong> {esc(coord)}<br>"
        f"<small>{esc(doc.source)}, characters {span[0]:,}-{span[1]:,}</small></header>"
        f"<div class='src'>{esc(before)}<mark id='passage'>{esc(passage)}</mark>"
        f"{esc(after)}</div>"
        "<script>document.getElementById('passage').scrollIntoView({block:'center'})"
        "</script></body></html>\n"
    )


def write_files(folder: Path, drawings: Sequence[Drawing]) -> list[Path]:
    """Write ``drawings`` into ``folder`` (made if missing) all or none: each to a
    temporary name beside its final one, renamed once every one is written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlaceError(f"cannot make the folder {folder} ({exc.strerror or exc})") from exc
    done: list[tuple[Path, Path]] = []
    try:
        for d in drawings:
            fd, name = tempfile.mkstemp(prefix=f".{d.name}.", dir=folder)
            done.append((Path(name), folder / d.name))
            os.fchmod(fd, 0o644)  # as a file the user wrote (mkstemp's is private)
            with os.fdopen(fd, "wb") as fh:
                fh.write(d.data)
    except OSError as exc:
        for partial, _ in done:
            partial.unlink(missing_ok=True)
        raise PlaceError(f"cannot write into {folder} ({exc.strerror or exc})") from exc
    for written, final in done:
        os.replace(written, final)
    return [final for _, final in done]
