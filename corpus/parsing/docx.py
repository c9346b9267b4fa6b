"""Word (.docx) reader: unstructured's partitioner, headings from Word heading styles."""

from __future__ import annotations

import zipfile
from pathlib import Path

from deepread.corpus.parsing.blocks import ParsedDocument
from deepread.corpus.parsing.elements import to_blocks
from deepread.corpus.parsing.errors import ParseError
from deepread.corpus.parsing.offline import partitioner


def read_docx(path: Path) -> ParsedDocument:
    """Blocks of a .docx file; the core-properties title when the author set one."""
    if path.stat().st_size == 0:
        raise ParseError(path, "the file is empty")
    if not zipfile.is_zipfile(path):
        raise ParseError(path, "not a valid .docx (a .docx is a ZIP package; this is not)")
    import docx
    partition_docx = partitioner("docx")

    try:
        title = (docx.Document(str(path)).core_properties.title or "").strip() or None
        elements = partition_docx(filename=str(path), languages=[""])
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise ParseError(path, f"not a readable .docx ({exc})") from exc
    return ParsedDocument(title=title, blocks=to_blocks(elements))
