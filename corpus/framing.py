"""How document text is framed as data for a model, and escaped inside the frame.

Tool results show paragraphs inside ``<document_content>`` tags (paper §3.4's format
with a frame around it); section titles appear in the TOC of the system prompt; the
offline policy quotes paragraphs in its answers. All are document text, so anything in
them that could close the frame, forge a coordinate line or plant a citation
(``[2:1:0]`` inside a paragraph) is escaped before a model or an answer shows it: a
marker becomes ``\\[2:1:0]``, which no citation parser reads as one.
"""

from __future__ import annotations

import re

OPEN, CLOSE = "<document_content>", "</document_content>"
# "< /document_content" and "</ document_content" too: any spacing a reader could take
# for the frame's own tag.
_FRAME = re.compile(r"<\s*/?\s*document_content", re.IGNORECASE)
# A citation-like marker anywhere in the text: "[1:2:3]", a range "[1:2:3-9]", a list
# "[1:4:2, 1:4:7]" — what an answer cites with (nodes/citations.py parses the same
# brackets). Escaped as "\[1:2:3]" so a document can neither forge a coordinate line of
# the observation nor plant a citation that a copied quote would carry into an answer.
# (Two simple patterns, not one with nested repeats: linear in the text's length.)
_GROUP = re.compile(r"(?<!\\)\[([\d\s:,;\-–]*)\]")
_COORD = re.compile(r"\d\s*:\s*\d+\s*:\s*\d")
# A section line "## (1) [2]" at a line start, as the observation writes them.
_SECTION_LINE = re.compile(r"^(\s*)(##\s*\(\d+\)\s*\[\d+\])", re.MULTILINE)


def escape(text: str) -> str:
    """Neutralise frame tags, citation-like markers and section-line starts inside
    document text."""
    text = _FRAME.sub(lambda m: m.group(0).replace("<", "&lt;"), text)
    text = _GROUP.sub(
        lambda m: f"\\{m.group(0)}" if _COORD.search(m.group(1)) else m.group(0), text
    )
    return _SECTION_LINE.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", text)


#: Longest title a model is shown (a heading of a hostile or broken document may run to
#: the length of a paragraph; it is repeated in every TOC and every observation of its
#: section, so it is cut here, in what is shown — the store keeps it whole).
MAX_TITLE_CHARS = 300


def title_text(title: str) -> str:
    """A document or section title as a model is shown it: on one line, escaped, and cut
    to :data:`MAX_TITLE_CHARS` with the length said."""
    flat = " ".join(title.split())
    if len(flat) > MAX_TITLE_CHARS:
        flat = f"{flat[:MAX_TITLE_CHARS].rsplit(' ', 1)[0]} … ({len(flat)} characters)"
    return escape(flat)
