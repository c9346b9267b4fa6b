"""The ``retrieve`` tool (Algorithm 1, lines 7–22), run by the ``tools`` node.

Beyond the paper, ``exclude_shown`` asks for the next results page: the best hits among
the paragraphs the conversation has not been shown yet (read-region memory), so a
reader who has read the first hits and their sections can see what else the query
matches without being sent the same paragraphs again as pointers.
"""

from __future__ import annotations

from deepread.nodes.observation import Observation
from deepread.nodes.state import coords_of
from deepread.nodes.tool_call import Outcome, ToolEnv
from deepread.nodes.tool_specs import RetrieveArgs, check_scope


def retrieve(args: RetrieveArgs, env: ToolEnv) -> Outcome:
    """The top-k hits for the query, each widened by the context's window; with
    ``exclude_shown``, the top-k of the paragraphs not shown before."""
    context, index = env.context, env.index
    scope = context.documents
    if args.doc_id is not None:
        check_scope(args.doc_id, scope)
        scope = [args.doc_id]
    exclude = coords_of(env.shown, scope) if args.exclude_shown else set()
    result = index.search(args.query, k=context.k, window=tuple(context.window),
                          doc_id=scope, mode=context.retrieval_mode,  # type: ignore[arg-type]
                          exclude=exclude)
    sections = {}
    for hit in result.hits:
        sec = index.collection.document(hit.doc_id).sections[hit.sec_id]
        sections[f"{hit.doc_id}:{hit.sec_id}"] = {"n_para": sec.n_para, "n_tok": sec.n_tok}
    if exclude and not result.hits:
        header = (f"No hits for {args.query!r} among the paragraphs not shown yet: "
                  "everything it matches has been shown above.")
    else:
        fresh = " not shown before" if exclude else ""
        header = (f"{len(result.hits)} hit(s){fresh} for {args.query!r}, best first "
                  "(coordinates [doc_id:sec_id:para_idx]); read a section with "
                  "read_section.")
    # Documents a retrieve touches join the interaction space: the next prompt shows
    # their TOCs (nodes/space.py).
    return Outcome(result.paragraphs, header,
                   observation=Observation(hits=list(result.hits), sections=sections),
                   widens=[p.doc_id for p in result.paragraphs])
