"""How tool results are shown to the model: paragraphs with their coordinates.

Each paragraph is prefixed with ``[doc_id:sec_id:para_idx]`` (paper §3.4, Format),
grouped under a line naming its section. Document text is framed as data inside
``<document_content>`` tags; text that could close that frame or forge a coordinate
line is escaped. A paragraph the model has already been shown (read-region memory) is
replaced by a short pointer, so nothing is paid for twice.
"""

from __future__ import annotations

import re
from typing import Any

from deepread.nodes.state import Regions, was_read
from deepread.stores.records import Document, Paragraph

OPEN, CLOSE = "<document_content>", "</document_content>"
# "< /document_content" and "</ document_content" too: any spacing a reader could take
# for the frame's own tag.
_FRAME = re.compile(r"<\s*/?\s*document_content", re.IGNORECASE)
# Line starts the observation itself uses: a paragraph coordinate "[1:2:3]" and a
# section line "## (1) [2]".
_COORD_LINE = re.compile(r"^(\s*)(\[\s*\d+\s*:\s*\d+\s*:\s*\d+\s*\]|##\s*\(\d+\)\s*\[\d+\])",
                         re.MULTILINE)


def escape(text: str) -> str:
    """Neutralise frame tags and coordinate-looking line starts inside document text."""
    text = _FRAME.sub(lambda m: m.group(0).replace("<", "&lt;"), text)
    return _COORD_LINE.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", text)


def format_paragraphs(paragraphs: list[Paragraph], documents: dict[int, Document],
                      regions: Regions) -> tuple[str, list[dict[str, Any]]]:
    """Observation text and the artifact rows (``repeat`` marks pointer-only rows)."""
    lines: list[str] = [OPEN]
    rows: list[dict[str, Any]] = []
    current: tuple[int, int] | None = None
    for p in paragraphs:
        if (p.doc_id, p.sec_id) != current:
            current = (p.doc_id, p.sec_id)
            doc = documents.get(p.doc_id)
            title = doc.sections[p.sec_id].title if doc and p.sec_id < len(doc.sections) else ""
            lines.append(f"## ({p.doc_id}) [{p.sec_id}] {escape(' '.join(title.split()))}")
        repeat = was_read(regions, p.doc_id, p.sec_id, p.para_idx)
        head = f"[{p.doc_id}:{p.sec_id}:{p.para_idx}]"
        if repeat:
            lines.append(f"{head} (already shown above; not repeated)")
        else:
            page = f" (p.{p.page})" if p.page else ""
            lines.append(f"{head}{page} {escape(p.text)}")
        rows.append(p.to_dict() | {"repeat": repeat})
    if len(lines) == 1:
        lines.append("(no paragraphs)")
    lines.append(CLOSE)
    return "\n".join(lines), rows
