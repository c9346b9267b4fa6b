"""The bounded interaction space: what of a large collection the prompt shows.

The paper puts every document's TOC in the system prompt, which stops fitting after a
few long documents. RISE (``papers/rise.md``) shows that bounding what the agent sees,
and letting search widen it, keeps agents accurate and cheap as corpora grow. When the
full TOC exceeds ``toc_budget``, the prompt shows instead:

* a list of all documents in scope, one line each (as many as fit in half the budget);
* the full TOCs of the documents in the *space*: at first those that retrieval ranks
  highest for the question; later every document a retrieve call touches, or that the
  model opens with ``open_toc`` (the space only grows, by a union reducer);

and says which documents' TOCs are shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepread.corpus.framing import title_text
from deepread.corpus.index import Index
from deepread.corpus.toc_text import render_toc
from deepread.stores.records import Document
from deepread.text.tokens import count_tokens

#: Documents whose TOCs open the space: the distinct documents of the top hits.
INITIAL_DOCUMENTS = 3
_INITIAL_HITS = 10


def document_line(doc: Document) -> str:
    title = title_text(doc.title)
    return (f"({doc.doc_id}) {title} | sections={len(doc.sections)} | "
            f"paragraphs={doc.n_para} | tokens={doc.n_tok}")


def initial_space(index: Index, question: str, scope: Sequence[int] | None) -> list[int]:
    """The documents retrieval ranks highest for the question."""
    hits = index.search(question, k=_INITIAL_HITS, doc_id=scope).hits
    return list(dict.fromkeys(h.doc_id for h in hits))[:INITIAL_DOCUMENTS]


def render_space(documents: Sequence[Document], space: Sequence[int], budget: int) -> str:
    """Document list plus the TOCs of the documents in ``space``, within ``budget``."""
    by_id = {d.doc_id: d for d in documents}
    lines = [f"The collection has {len(documents)} documents; their full tables of "
             "contents do not fit here. All documents:"]
    spent = count_tokens(lines[0])
    for i, doc in enumerate(documents):
        line = document_line(doc)
        cost = count_tokens(line) + 1
        if spent + cost > budget // 2:
            rest = len(documents) - i
            lines.append(f"… and {rest} more document(s); retrieve searches all of them.")
            break
        lines.append(line)
        spent += cost
    shown = [by_id[i] for i in space if i in by_id]
    ids = ", ".join(str(d.doc_id) for d in shown) or "none yet"
    lines.append(f"Tables of contents shown below for documents: {ids}. Open another "
                 "document's with open_toc(doc_id); retrieve results add theirs.")
    head = "\n".join(lines)
    if not shown:
        return head
    rendered = render_toc(shown, max(0, budget - count_tokens(head)))
    return f"{head}\n\n{rendered.text}".rstrip()
