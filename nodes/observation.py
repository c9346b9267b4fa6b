"""How tool results are shown to the model: paragraphs with their coordinates.

Each paragraph is prefixed with ``[doc_id:sec_id:para_idx]`` (paper §3.4, Format),
grouped under a line naming its section. Document text is framed as data inside
``<document_content>`` tags; text that could close that frame or forge a coordinate
line is escaped. A paragraph the model has already been shown (read-region memory) is
replaced by a short pointer, so nothing is paid for twice.
"""

from __future__ import annotations

from typing import Any

from deepread.corpus.framing import CLOSE, OPEN, escape
from deepread.nodes.state import Regions, was_read
from deepread.stores.records import Document, Paragraph


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
