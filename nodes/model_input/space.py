"""The bounded interaction space: what of a large collection the prompt shows.

The paper puts every document's TOC in the system prompt, which stops fitting after a
few long documents. RISE (``papers/rise.md``) shows that bounding what the agent sees,
and letting search widen it, keeps agents accurate and cheap as corpora grow. When the
full TOC exceeds ``toc_budget``, the prompt shows instead:

* a list of the documents in scope, one line each — its identifying title and card —,
  the documents of the space first, then the others (as many as fit in half the
  budget);
* the full TOCs of the documents in the *space*: at first those the question names
  (the document search over the documents' cards, :meth:`deepread.Index.
  find_documents`), else those that retrieval ranks highest for it; later every
  document a retrieve or find_documents call touches, or that the model opens with
  ``open_toc`` (the space only grows, by a union reducer);

and says which documents' TOCs are shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from deepread.corpus.framing import escape, title_text
from deepread.corpus.index import Index
from deepread.corpus.toc_text import render_toc
from deepread.records.documents import Document
from deepread.text.tokens import count_tokens

#: Documents whose TOCs open the space: the distinct documents of the top hits.
INITIAL_DOCUMENTS = 3
_INITIAL_HITS = 10


def document_line(doc: Document) -> str:
    title = title_text(doc.title)
    card = f" | {escape(doc.card.describe(max_sections=3))}" if doc.card is not None else ""
    return (
        f"({doc.doc_id}) {title}{card} | sections={len(doc.sections)} | "
        f"paragraphs={doc.n_para} | tokens={doc.n_tok}"
    )


def initial_space(index: Index, question: str, scope: Sequence[int] | None) -> list[int]:
    """The documents the question names (:meth:`deepread.Index.find_documents`), else
    those retrieval ranks highest for it."""
    named = [m.doc_id for m in index.find_documents(question, scope)]
    if named:
        return named
    hits = index.search(question, k=_INITIAL_HITS, doc_id=scope).hits
    return list(dict.fromkeys(h.doc_id for h in hits))[:INITIAL_DOCUMENTS]


class RenderedSpace(NamedTuple):
    """The prompt's bounded space: its text, and ``(doc_id, sec_id)`` of the sections
    its TOCs list, in order (:attr:`deepread.corpus.toc_text.RenderedToc.sections`)."""

    text: str
    sections: tuple[tuple[int, int], ...]


def render_space(documents: Sequence[Document], space: Sequence[int], budget: int) -> RenderedSpace:
    """Document list plus the TOCs of the documents in ``space``, within ``budget``."""
    by_id = {d.doc_id: d for d in documents}
    lines = [
        f"The collection has {len(documents)} documents; their full tables of "
        "contents do not fit here. All documents:"
    ]
    spent = count_tokens(lines[0])
    # The space's documents (those the question names) first: they are what a long
    # list would otherwise cut.
    ordered = sorted(documents, key=lambda d: d.doc_id not in set(space))
    for i, doc in enumerate(ordered):
        line = document_line(doc)
        cost = count_tokens(line) + 1
        if spent + cost > budget // 2:
            rest = len(documents) - i
            lines.append(
                f"… and {rest} more document(s); find_documents and retrieve search all of them."
            )
            break
        lines.append(line)
        spent += cost
    shown = [by_id[i] for i in space if i in by_id]
    ids = ", ".join(str(d.doc_id) for d in shown) or "none yet"
    lines.append(
        f"Tables of contents shown below for documents: {ids}. Open another "
        "document's with open_toc(doc_id); retrieve results add theirs."
    )
    head = "\n".join(lines)
    if not shown:
        return RenderedSpace(head, ())
    rendered = render_toc(shown, max(0, budget - count_tokens(head)))
    return RenderedSpace(f"{head}\n\n{rendered.text}".rstrip(), rendered.sections)
