"""The ``open_toc`` tool: one document's TOC, which then joins the interaction space.

Offered only when the prompt shows a bounded space (nodes/model_input/space.py): the document list
names every document, and this is how the model reaches one whose TOC it has not seen.
"""

from __future__ import annotations

from deepread.corpus.toc_text import render_toc
from deepread.nodes.tools.contract import Outcome, ToolEnv
from deepread.nodes.tools.observation import Observation
from deepread.nodes.tools.specs import OpenTocArgs, check_scope


def open_toc(args: OpenTocArgs, env: ToolEnv) -> Outcome:
    """The document's table of contents, as the Directory Structure shows it."""
    check_scope(args.doc_id, env.context.documents)
    doc = env.index.document(args.doc_id)
    return Outcome(
        text=render_toc([doc], env.context.toc_budget).text,
        observation=Observation(doc_id=doc.doc_id),
        widens=[doc.doc_id],
    )
