"""Plain-text reader and the text decoding every text format shares.

Plain text has no markup for headings, so a ``.txt`` file becomes paragraphs only
(split at blank lines by unstructured), all in the root section — guessing headings
from short lines would hide their text from the reading tools.
"""

from __future__ import annotations

import re
from pathlib import Path

from deepread.corpus.parsing.blocks import ParsedDocument
from deepread.corpus.parsing.elements import to_blocks
from deepread.corpus.parsing.errors import ParseError
from deepread.corpus.parsing.offline import partitioner


def decode_text(path: Path) -> str:
    """The file as text: UTF-8 (BOM allowed), else a clear error for binary data."""
    raw = path.read_bytes()
    if b"\x00" in raw[:8192]:
        raise ParseError(path, "looks like binary data, not text (it contains NUL bytes)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Legacy 8-bit text is still text; cp1252 maps every byte, so nothing is lost.
        return raw.decode("cp1252", errors="replace")


def read_text(path: Path) -> ParsedDocument:
    """Paragraphs of a plain-text file."""
    text = decode_text(path)
    if not text.strip():
        raise ParseError(path, "the file is empty")
    partition_text = partitioner("text")

    # Hard-wrapped lines belong to one paragraph and blank lines separate paragraphs.
    # unstructured's own grouper keeps short lines apart ("line two." became its own
    # paragraph), so paragraphs are joined here and handed over one per line.
    joined = "\n".join(" ".join(chunk.split()) for chunk in re.split(r"\n\s*\n", text)
                       if chunk.strip())
    elements = partition_text(text=joined, languages=[""])
    blocks = to_blocks(elements)  # Titles without a depth stay paragraphs
    return ParsedDocument(title=None, blocks=blocks)
