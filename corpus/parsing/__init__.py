"""Readers that turn files into blocks, and the tree builder on top of them.

``parse_file(path)`` is the one entry point: it picks the reader by file extension and
returns the structured document (sections + paragraphs) ready to be stored.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from deepread.corpus.parsing.blocks import Block, ParsedDocument
from deepread.corpus.parsing.errors import ParseError
from deepread.corpus.parsing.file_kind import irregular_reason
from deepread.corpus.parsing.structure import Structured, build_structure

__all__ = [
    "SUPPORTED_SUFFIXES",
    "Block",
    "ParseError",
    "ParsedDocument",
    "Structured",
    "parse_file",
    "read_blocks",
]


def _reader(suffix: str) -> Callable[[Path], ParsedDocument]:
    # Imported lazily: the PDF and DOCX stacks are heavy and most runs need one format.
    if suffix in (".html", ".htm", ".xhtml"):
        from deepread.corpus.parsing.html import read_html

        return read_html
    if suffix in (".md", ".markdown"):
        from deepread.corpus.parsing.markdown import read_markdown

        return read_markdown
    if suffix == ".pdf":
        from deepread.corpus.parsing.pdf.reader import read_pdf

        return read_pdf
    if suffix == ".docx":
        from deepread.corpus.parsing.docx import read_docx

        return read_docx
    from deepread.corpus.parsing.text import read_text

    return read_text


SUPPORTED_SUFFIXES = (".pdf", ".docx", ".html", ".htm", ".xhtml", ".md", ".markdown", ".txt")


def read_blocks(path: str | Path) -> ParsedDocument:
    """The raw block stream of ``path`` (no tree yet)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ParseError(
            path,
            f"unsupported file type {suffix or '(no extension)'}; "
            f"supported: {', '.join(SUPPORTED_SUFFIXES)}",
        )
    try:
        odd = irregular_reason(path)
    except FileNotFoundError as exc:
        raise ParseError(path, "no such file") from exc
    except OSError as exc:  # permission denied, a name too long…
        raise ParseError(path, (exc.strerror or str(exc)).lower()) from exc
    if odd is not None:
        raise ParseError(path, odd)
    if path.stat().st_size == 0:
        raise ParseError(path, "the file is empty (0 bytes)")
    return _reader(suffix)(path)


def place_text_blocks(path: Path, parsed: ParsedDocument) -> None:
    """Give the blocks of a source without pages their character ranges in its text
    (:mod:`deepread.corpus.parsing.places`); a PDF's blocks have their lines already."""
    if path.suffix.lower() == ".pdf":
        return
    import zipfile

    from lxml import etree

    from deepread.corpus.parsing.places import find_spans
    from deepread.corpus.parsing.source_text import source_text

    try:
        source = source_text(path)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, etree.XMLSyntaxError):
        return  # read once already: a source that cannot be read twice keeps no ranges
    texts = [b.text for b in parsed.blocks]
    for block, span in zip(
        parsed.blocks, find_spans(source.text, texts, markup=source.markup), strict=True
    ):
        block.span = span


def parse_file(path: str | Path) -> Structured:
    """Parse ``path`` into sections and paragraphs; ``ParseError`` says why not."""
    path = Path(path)
    parsed = read_blocks(path)
    place_text_blocks(path, parsed)
    structured = build_structure(parsed, fallback_title=path.stem)
    if not structured.paragraphs:
        raise ParseError(path, "no text content found")
    return structured
