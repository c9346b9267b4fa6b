"""The TOC serializer: the Directory Structure text of the system prompt (§3.3, Fig. 5).

One line per section, grouped by document, indented by depth::

    (doc_id) [sec_id] Title | paragraphs=N | tokens=N | children=[…]

followed by `` | about: …`` when the section has a one-line summary (TOC enrichment).
A document's first line, its root section's, is its document line: the title that
identifies it among the others and its card after it — file name, kind and period when
the title does not say them, pages (:mod:`deepread.corpus.library`); when the TOC is
collapsed to one line per document, its top-level sections too::

    (3) AMCOR PLC — Form 10-K, fiscal year ended June 30, 2023 | file=AMCOR_2023_10K.pdf
        | pages=156 | paragraphs=… | tokens=… | children=hidden(84)
        | sections: PART I; PART II; …

(one line in the TOC, wrapped here).

The official code never truncates its TOC (an 853-section report made a 69K-character
prompt). Here the TOC respects a token budget: when the full TOC does not fit, the
deepest level is collapsed first (its parents show how many sections they hide), then
the next, down to one line per document; only then are whole documents left out. Every
collapse is stated in the text — never a silent cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepread.corpus.framing import escape, title_text
from deepread.records.documents import Document, Section
from deepread.text.tokens import count_tokens


@dataclass(frozen=True, slots=True)
class RenderedToc:
    """A serialised TOC, what it cost, and how much was collapsed to fit."""

    text: str
    tokens: int
    max_level: int | None  # deepest level shown; None = nothing collapsed
    documents_shown: int
    documents_total: int
    #: ``(doc_id, sec_id)`` of every section line of :attr:`text`, in its order: what the
    #: TOC lists, as data (a policy choosing among them never reads them back from text).
    sections: tuple[tuple[int, int], ...] = ()


def _descendants(doc: Document, sec: Section) -> int:
    return sum(1 + _descendants(doc, doc.sections[c]) for c in sec.children)


def section_line(doc: Document, sec: Section, max_level: int | None = None) -> str:
    """The Fig. 5 line of one section; children past ``max_level`` are summarised."""
    indent = "  " * max(0, sec.level - 1) if sec.level else ""
    # Titles are document text: frame tags and coordinate-like text in them are escaped
    # as in tool observations, and a title as long as a paragraph is cut.
    title = title_text(sec.title) or "(untitled)"
    if max_level is not None and sec.level >= max_level and sec.children:
        kids = f"children=hidden({_descendants(doc, sec)})"
    else:
        kids = f"children=[{', '.join(map(str, sec.children))}]"
    about = ""
    if sec.summary:  # TOC enrichment (deepread.corpus.describe), counted in the budget
        about = f" | about: {escape(' '.join(sec.summary.split()))}"
    card = ""
    if sec.sec_id == 0 and doc.card is not None:  # the document line
        collapsed = max_level == 0 and bool(sec.children)
        described = doc.card.describe(max_sections=6 if collapsed else 0)
        if collapsed and doc.card.sections:  # the sections go last, after the counts
            head, _, listed = described.partition(" | sections: ")
            card, about = f" | {escape(head)}", f"{about} | sections: {escape(listed)}"
        else:
            card = f" | {escape(described)}"
    return (
        f"{indent}({doc.doc_id}) [{sec.sec_id}] {title}{card} | paragraphs={sec.n_para} "
        f"| tokens={sec.n_tok} | {kids}{about}"
    )


def listed(doc: Document, max_level: int | None = None) -> list[Section]:
    """The sections of ``doc`` a TOC collapsed to ``max_level`` lists, in order."""
    return [s for s in doc.sections if max_level is None or s.level <= max_level]


def document_lines(doc: Document, max_level: int | None = None) -> list[str]:
    return [section_line(doc, s, max_level) for s in listed(doc, max_level)]


def full_toc(documents: Sequence[Document]) -> str:
    """The whole TOC of ``documents``, as :func:`render_toc` gives it without a budget,
    its tokens not counted (``deepread toc``: counting loads the tokenizer, ~1 s)."""
    return "\n".join(line for doc in documents for line in document_lines(doc))


def render_toc(documents: Sequence[Document], budget: int | None = None) -> RenderedToc:
    """The TOC of ``documents`` within ``budget`` tokens (``None``: no limit)."""
    docs = list(documents)
    deepest = max((s.level for d in docs for s in d.sections), default=0)

    def build(max_level: int | None, n_docs: int) -> str:
        lines: list[str] = []
        for doc in docs[:n_docs]:
            lines.extend(document_lines(doc, max_level))
        notes = []
        if max_level is not None:
            notes.append(
                f"[TOC collapsed to fit its budget: only levels 0–{max_level} are listed; "
                "sections marked children=hidden(N) contain N more sections, reachable "
                "with retrieve or read_section.]"
            )
        if n_docs < len(docs):
            rest = [str(d.doc_id) for d in docs[n_docs:]]
            notes.append(
                f"[{len(rest)} more document(s) not listed to fit the budget: "
                f"doc_id {', '.join(rest)}; retrieve still searches them.]"
            )
        return "\n".join(lines + notes)

    def rendered(max_level: int | None, n_docs: int, text: str) -> RenderedToc:
        keys = tuple((d.doc_id, s.sec_id) for d in docs[:n_docs] for s in listed(d, max_level))
        return RenderedToc(text, count_tokens(text), max_level, n_docs, len(docs), keys)

    text = build(None, len(docs))
    if budget is None or count_tokens(text) <= budget:
        return rendered(None, len(docs), text)
    for level in range(deepest - 1, -1, -1):
        text = build(level, len(docs))
        if count_tokens(text) <= budget:
            return rendered(level, len(docs), text)
    for n_docs in range(len(docs) - 1, -1, -1):
        text = build(0, n_docs)
        if count_tokens(text) <= budget:
            break
    return rendered(0, n_docs, text)
