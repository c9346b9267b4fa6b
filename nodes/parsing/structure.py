"""Build the section tree and the per-section paragraph lists from a block stream.

The rules of paper §3.2, in one place for every format:

* ``sec_id`` 0 is the document root (level 0, titled with the document's title); it
  holds any paragraph that comes before the first heading;
* every heading opens section ``1..N`` in document order; its parent is the nearest
  earlier section of a smaller level (the root when none);
* paragraphs get ``para_idx`` 0, 1, … inside the section they fall in;
* ``n_para`` / ``n_tok`` count direct paragraphs only (tiktoken).
"""

from __future__ import annotations

from dataclasses import dataclass

from deepread.nodes.parsing.blocks import ParsedDocument
from deepread.stores.records import Paragraph, Section
from deepread.stores.tokens import count_tokens_batch


@dataclass(slots=True)
class Structured:
    """A parsed document before it has a ``doc_id``: title, sections, paragraphs."""

    title: str
    sections: list[Section]
    paragraphs: list[Paragraph]  # doc_id 0 until the store assigns one


def build_structure(parsed: ParsedDocument, fallback_title: str) -> Structured:
    """Sections and paragraphs of ``parsed``; ``fallback_title`` names an untitled doc."""
    headings = [b for b in parsed.blocks if b.kind == "heading"]
    title = parsed.title or (headings[0].text if headings else "") or fallback_title
    sections = [Section(sec_id=0, title=title, level=0, parent=None)]
    paragraphs: list[Paragraph] = []
    stack: list[Section] = [sections[0]]  # open ancestors, levels strictly increasing
    current = sections[0]
    for block in parsed.blocks:
        if block.kind == "heading":
            level = max(1, block.level or 1)
            while stack[-1].level >= level:
                stack.pop()
            parent = stack[-1]
            current = Section(sec_id=len(sections), title=block.text, level=level,
                              parent=parent.sec_id)
            parent.children.append(current.sec_id)
            sections.append(current)
            stack.append(current)
            continue
        paragraphs.append(Paragraph(doc_id=0, sec_id=current.sec_id,
                                    para_idx=current.n_para, text=block.text,
                                    kind=block.kind, page=block.page))
        current.n_para += 1
    for para, n_tok in zip(paragraphs, count_tokens_batch([p.text for p in paragraphs]),
                           strict=True):
        sections[para.sec_id].n_tok += n_tok
    return Structured(title=title, sections=sections, paragraphs=paragraphs)
