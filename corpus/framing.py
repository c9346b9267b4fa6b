"""How document text is framed as data for a model, and escaped inside the frame.

Tool results show paragraphs inside ``<document_content>`` tags (paper §3.4's format
with a frame around it); section titles appear in the TOC of the system prompt. Both
are document text, so anything in them that could close the frame or forge a
coordinate line is escaped before a model sees it.
"""

from __future__ import annotations

import re

OPEN, CLOSE = "<document_content>", "</document_content>"
# "< /document_content" and "</ document_content" too: any spacing a reader could take
# for the frame's own tag.
_FRAME = re.compile(r"<\s*/?\s*document_content", re.IGNORECASE)
# Line starts the observation itself uses: a paragraph coordinate "[1:2:3]", a pointer
# to paragraphs already shown "[1:2:3-9]", and a section line "## (1) [2]".
_COORD_LINE = re.compile(
    r"^(\s*)(\[\s*\d+\s*:\s*\d+\s*:\s*\d+\s*(?:[-–]\s*\d+\s*)?\]|##\s*\(\d+\)\s*\[\d+\])",
    re.MULTILINE)


def escape(text: str) -> str:
    """Neutralise frame tags and coordinate-looking line starts inside document text."""
    text = _FRAME.sub(lambda m: m.group(0).replace("<", "&lt;"), text)
    return _COORD_LINE.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", text)
