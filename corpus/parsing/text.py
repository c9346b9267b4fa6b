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
from deepread.corpus.parsing.unstructured_setup import partitioner

#: Byte-order marks, longest first: the UTF-32-LE mark begins with the UTF-16-LE one.
_BOMS = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
)


def decode_bom(raw: bytes) -> str | None:
    """``raw`` decoded by its byte-order mark (the mark dropped), or None without one.

    Windows tools write UTF-16 (and some UTF-32) text with a mark; its NUL bytes must not
    be taken for binary data. Bytes the declared encoding cannot read become U+FFFD
    rather than refusing the whole file.
    """
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return raw[len(bom) :].decode(encoding, errors="replace")
    return None


def decode_utf16_unmarked(raw: bytes) -> str | None:
    """``raw`` as UTF-16 written without a byte-order mark, or None when it is not that.

    Some exporters write UTF-16 with no mark. Text in the Latin, Greek or Cyrillic
    ranges then has a NUL as the high byte of nearly every character, always on the same
    side of each pair (odd offsets little-endian, even ones big-endian), while the other
    side holds none; binary data has NULs on both sides. Taken as that only when the
    whole file decodes strictly and reads as text (printable or whitespace), so a binary
    file is still refused as binary.
    """
    head = raw[:8192]
    pairs = len(head) // 2
    if pairs < 2 or len(raw) % 2:
        return None
    even, odd = head[0::2].count(0), head[1::2].count(0)
    for nuls, other, encoding in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if other == 0 and nuls >= pairs * 0.3:
            try:
                text = raw.decode(encoding)
            except UnicodeDecodeError:
                return None
            shown = sum(c.isprintable() or c.isspace() for c in text[:4096])
            return text if shown >= 0.98 * min(len(text), 4096) else None
    return None


def decode_by_bytes(raw: bytes) -> str | None:
    """``raw`` decoded where its bytes alone say the encoding — a byte-order mark
    (:func:`decode_bom`), or UTF-16 without one (:func:`decode_utf16_unmarked`) — else
    None: what every text format tries before UTF-8 and its 8-bit fallback."""
    text = decode_bom(raw)
    return text if text is not None else decode_utf16_unmarked(raw)


def decode_text(path: Path) -> str:
    """The file as text, lines ending in ``\n``: by its BOM, else UTF-16 without one,
    else UTF-8, else cp1252; binary data refused."""
    raw = path.read_bytes()
    text = decode_by_bytes(raw)
    if text is None:
        if b"\x00" in raw[:8192]:
            raise ParseError(path, "looks like binary data, not text (it contains NUL bytes)")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            # Legacy 8-bit text is still text; cp1252 maps every byte, so nothing is lost.
            text = raw.decode("cp1252", errors="replace")
    # Classic Mac OS files end lines in a bare CR: paragraph breaks (blank lines) and
    # Markdown's line-based syntax are read on "\n" only, so such a file was one line.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decode_markup(path: Path) -> str:
    """An HTML file as text: by its BOM, else UTF-16 without one, else UTF-8, else
    Latin-1 (HTML without a charset: never lose the text)."""
    raw = path.read_bytes()
    markup = decode_by_bytes(raw)
    if markup is None:
        try:
            markup = raw.decode("utf-8")
        except UnicodeDecodeError:
            markup = raw.decode("latin-1")
    return markup


def read_text(path: Path) -> ParsedDocument:
    """Paragraphs of a plain-text file."""
    text = decode_text(path)
    if not text.strip():
        raise ParseError(path, "the file is empty")
    partition_text = partitioner("text")

    # Hard-wrapped lines belong to one paragraph and blank lines separate paragraphs.
    # unstructured's own grouper keeps short lines apart ("line two." became its own
    # paragraph), so paragraphs are joined here and handed over one per line.
    joined = "\n".join(
        " ".join(chunk.split()) for chunk in re.split(r"\n\s*\n", text) if chunk.strip()
    )
    elements = partition_text(text=joined, languages=[""])
    blocks = to_blocks(elements)  # Titles without a depth stay paragraphs
    return ParsedDocument(title=None, blocks=blocks)
