"""Open a PDF once with PDFium and take everything the parser needs from it.

One open gives the lines of every page (:mod:`~deepread.corpus.parsing.pdf.lines`), the
outline (bookmarks) with each entry's page, and the metadata title, subject and author.
Reading the outline and metadata with a second library would parse the file's object
tree twice for no gain:
PDFium has both, and it also tells an encrypted file from a corrupt one.

The cheap byte checks come first, so a file that is not a PDF, or was cut off, is named
for what it is instead of whatever PDFium's recovery makes of it.
"""

from __future__ import annotations

import ctypes
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c

from deepread.corpus.parsing.errors import ParseError
from deepread.corpus.parsing.pdf.lines import PageText, read_page
from deepread.corpus.parsing.pdf.pdfium import PDFIUM_LOCK, PdfTextError

__all__ = ["OutlineEntry", "PdfContent", "PdfError", "read_document"]


class PdfError(ParseError):
    """A PDF that cannot be read: encrypted, corrupt/truncated, or without a text layer.

    Subclasses :class:`ParseError` (itself a ``ValueError``) so callers that handle any
    reader's failure need no PDF-specific code.
    """


@dataclass(slots=True)
class OutlineEntry:
    """One bookmark: its title, depth (1 = top) and 1-based destination page."""

    title: str
    level: int
    page: int


@dataclass(slots=True)
class PdfContent:
    """What the parser reads from a PDF: pages of lines, outline, metadata title, and
    the metadata fields a document is told apart by (Title, Subject, Author)."""

    pages: list[PageText]
    outline: list[OutlineEntry] = field(default_factory=list)
    title: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)


def read_document(path: Path) -> PdfContent:
    """Open ``path`` once and read its pages, outline and title; :class:`PdfError` if not."""
    _check_bytes(path)
    with PDFIUM_LOCK:
        try:
            pdf = pypdfium2.PdfDocument(str(path), password="")
        except pypdfium2.PdfiumError as exc:
            if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
                raise PdfError(
                    path,
                    "the PDF is encrypted (password-protected) and cannot be "
                    "opened without its password; save an unprotected copy "
                    "and parse that",
                ) from exc
            raise PdfError(path, f"the PDF is corrupt and cannot be read ({exc})") from exc
        try:
            pages = [read_page(pdf.raw, i) for i in range(len(pdf))]
            metadata = {key.lower(): value for key in _METADATA if (value := _meta_text(pdf, key))}
            return PdfContent(
                pages=pages, outline=_outline(pdf), title=metadata.get("title"), metadata=metadata
            )
        except (PdfTextError, pypdfium2.PdfiumError) as exc:
            raise PdfError(
                path, f"the PDF is corrupt and its text cannot be extracted ({exc})"
            ) from exc
        finally:
            pdf.close()


def _check_bytes(path: Path) -> None:
    with path.open("rb") as fh:
        head = fh.read(1024)
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - 2048))
        tail = fh.read()
    if b"%PDF-" not in head:
        raise PdfError(
            path, "not a PDF file (no %PDF header); the file is corrupt or of another type"
        )
    if b"%%EOF" not in tail:
        # Every complete PDF ends with %%EOF; without it the file was cut off (interrupted
        # download or copy), and whatever PDFium recovers would be silently partial.
        raise PdfError(
            path, "the PDF is truncated (no %%EOF marker at the end); re-download or re-export it"
        )


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _outline(pdf: pypdfium2.PdfDocument) -> list[OutlineEntry]:
    """The bookmarks in document order; a broken outline is no outline, not a failure."""
    entries: list[OutlineEntry] = []
    try:
        for bm in pdf.get_toc(max_depth=8):
            dest = bm.get_dest()
            index = dest.get_index() if dest is not None else None
            title = _norm(bm.get_title() or "")
            if index is not None and index >= 0 and title:
                entries.append(OutlineEntry(title, bm.level + 1, index + 1))
    except Exception:  # damaged outlines are common; font and text cues still give headings
        return []
    return entries


#: The information-dictionary fields kept: what a file says it is, who made it, and
#: about what (a filing agent's "Form 10-K filed on … for the period ending …").
_METADATA = ("Title", "Subject", "Author")


def _meta_text(pdf: pypdfium2.PdfDocument, key: str) -> str | None:
    buf_len = pdfium_c.FPDF_GetMetaText(pdf.raw, key.encode("ascii"), None, 0)
    if buf_len <= 2:
        return None
    buf = ctypes.create_string_buffer(buf_len)
    pdfium_c.FPDF_GetMetaText(pdf.raw, key.encode("ascii"), buf, buf_len)
    return _norm(buf.raw[: buf_len - 2].decode("utf-16-le", "replace")) or None
