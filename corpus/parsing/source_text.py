"""The text of a source without pages, as its paragraphs' character ranges count it.

A paragraph of a text, Markdown, HTML or Word file is placed by a range of characters
(:mod:`deepread.corpus.parsing.places`); this module says of *what* text: the same
function reads it at ingest, to find the ranges, and when a citation is shown, to mark
one — so the two can never disagree on what a character offset means.

* text and Markdown: the decoded file (:func:`~deepread.corpus.parsing.text.decode_text`:
  by its byte-order mark, UTF-16, UTF-8 or cp1252, lines ending in ``\\n``);
* HTML: the decoded markup, tags and all (``markup`` is then true: tags and entities
  are not words);
* DOCX: the main document part's paragraphs (table cells' too), in document order, one
  a line — a Word file's characters have no offsets of their own.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from deepread.corpus.parsing.text import decode_markup, decode_text

__all__ = ["SourceText", "source_text"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
#: Largest main document part read for its text (uncompressed), as the DOCX reader allows.
_MAX_PART = 512 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SourceText:
    """A source's text and whether it is markup (HTML)."""

    text: str
    markup: bool


def _docx(path: Path) -> str:
    with zipfile.ZipFile(path) as package:
        info = package.getinfo("word/document.xml")
        if info.file_size > _MAX_PART:
            raise ValueError(f"its document part expands to {info.file_size // 2**20} MB")
        data = package.read(info)
    root = etree.fromstring(data, etree.XMLParser(huge_tree=True, resolve_entities=False))
    lines = []
    for para in root.iter(f"{_W}p"):
        lines.append("".join(t.text or "" for t in para.iter(f"{_W}t")))
    return "\n".join(lines)


def source_text(path: Path) -> SourceText:
    """The text ``path``'s paragraph ranges count in (see the module docstring)."""
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm", ".xhtml"):
        return SourceText(decode_markup(path), markup=True)
    if suffix == ".docx":
        return SourceText(_docx(path), markup=False)
    return SourceText(decode_text(path), markup=False)
