"""The ``find_documents`` tool: which documents of the library a question is about.

Offered when the conversation's scope holds several documents (nodes/tools/specs.py):
the question's names, periods and dates are matched with each document's card
(:meth:`deepread.Index.find_documents`), and the documents found are shown with their
cards, to be searched with ``retrieve(doc_id=[…])``; they join the bounded interaction
space (nodes/model_input/space.py). A question that names no document is about the library as a
whole, and the result says so.

A question that names something no document holds at all — no title, file name or
first page holds it, nor any paragraph (``Index.text_uses``), while none of its other
names is any document's title or file name — is about something the library does not
hold: "What was 3M's capital expenditure?" of a library without 3M. The result says so
and carries the names (``Observation.unheld``); the offline policy then abstains instead
of answering from another company's filing.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepread.corpus.framing import escape, title_text
from deepread.corpus.index import Index
from deepread.corpus.library import proper_names
from deepread.nodes.tools.contract import Outcome, ToolEnv
from deepread.nodes.tools.observation import Observation
from deepread.nodes.tools.specs import FindDocumentsArgs
from deepread.records.documents import Document


def unheld_names(index: Index, question: str, scope: Sequence[int] | None) -> list[str]:
    """The names ``question`` gives that no document of ``scope`` holds (see the module
    docstring); ``[]`` when one of its names is a document's title or file name."""
    names = proper_names(question)
    held = {name: index.card_holds(name) for name in names}
    if not names or any(in_key for _, in_key in held.values()):
        return []
    return [
        name
        for name, (anywhere, _) in held.items()
        if not anywhere and not index.text_uses(name, scope)
    ]


def document_line(doc: Document) -> str:
    """``(doc_id) Title | file=… | kind, period | pages=N`` (titles are data: escaped)."""
    card = doc.card
    about = f" | {escape(card.describe(max_sections=0))}" if card is not None else ""
    return f"({doc.doc_id}) {title_text(doc.title)}{about}"


def find_documents(args: FindDocumentsArgs, env: ToolEnv) -> Outcome:
    """The documents the query names, with their cards; or why there are none."""
    index, scope = env.index, env.context.documents
    matches = index.find_documents(args.query, scope)
    unheld = unheld_names(index, args.query, scope)
    if unheld:
        names = ", ".join(unheld)
        return Outcome(
            text=f"No document of the library mentions {escape(names)}: no "
            "title, file name, first page or paragraph holds it. The library "
            "cannot answer about it.",
            observation=Observation(documents=[], unheld=unheld),
        )
    if not matches:
        total = len(scope) if scope else len(index.documents())
        return Outcome(
            text="No document's title, file name or first page holds a name, "
            "period or date of the query: it names no document. retrieve "
            f"searches all {total} documents.",
            observation=Observation(documents=[]),
        )
    lines = ["Documents the query names, best first:"]
    for match in matches:
        lines.append(
            f"{document_line(index.document(match.doc_id))} | holds: {', '.join(match.words)}"
        )
    ids = [m.doc_id for m in matches]
    return Outcome(text="\n".join(lines), observation=Observation(documents=ids), widens=ids)
