"""Markdown reader, including Markdown written by OCR engines.

unstructured renders Markdown to HTML with the ``tables`` and ``fenced_code``
extensions (so a ``# comment`` inside a code fence stays code, not a heading — one of
the official DeepRead code's pitfalls) and partitions that HTML. OCR output (PaddleOCR-VL,
MinerU) mixes ``#`` headings with raw HTML ``<table>`` blocks and image links; raw HTML
blocks pass through the renderer, so tables arrive whole.
"""

from __future__ import annotations

from pathlib import Path

import markdown

from deepread.corpus.parsing.blocks import ParsedDocument
from deepread.corpus.parsing.errors import ParseError
from deepread.corpus.parsing.html import partition_html_text
from deepread.corpus.parsing.markdown_guard import guard, restore
from deepread.corpus.parsing.text import decode_text

_EXTENSIONS = ["tables", "fenced_code"]


def markdown_blocks(text: str, path: Path) -> ParsedDocument:
    """Blocks of Markdown ``text``; images resolve against ``path``'s folder."""
    # Rendering here (rather than via partition_md) lets the HTML path skip language
    # detection and share one partition call with the HTML reader.
    # Openers that can never close would cost Python-Markdown a scan to the end each.
    html = markdown.markdown(guard(text), extensions=_EXTENSIONS)
    parsed = partition_html_text(html, path)
    restore(parsed.blocks)
    return parsed


def read_markdown(path: Path) -> ParsedDocument:
    """Blocks of a Markdown file; headings keep their ``#`` depth."""
    text = decode_text(path)
    if not text.strip():
        raise ParseError(path, "the file is empty")
    return markdown_blocks(text, path)
