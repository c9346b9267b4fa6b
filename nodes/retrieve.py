"""The ``retrieve`` node: executes Retrieve calls (Algorithm 1, lines 7–22)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deepread.corpus.index import Index
from deepread.nodes.context import Context
from deepread.nodes.executor import Outcome, run_calls
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentState
from deepread.nodes.tools import RetrieveArgs


def retrieve_call(args: RetrieveArgs, index: Index, context: Context) -> Outcome:
    scope = context.documents
    if args.doc_id is not None:
        if scope and args.doc_id not in scope:
            raise ValueError(f"document {args.doc_id} is outside this conversation's scope "
                             f"(documents {', '.join(map(str, scope))})")
        scope = [args.doc_id]
    result = index.search(args.query, k=context.k, window=tuple(context.window),
                          doc_id=scope, mode=context.retrieval_mode)  # type: ignore[arg-type]
    sections = {}
    for hit in result.hits:
        sec = index.collection.document(hit.doc_id).sections[hit.sec_id]
        sections[f"{hit.doc_id}:{hit.sec_id}"] = {"n_para": sec.n_para, "n_tok": sec.n_tok}
    header = (f"{len(result.hits)} hit(s) for {args.query!r}, best first (coordinates "
              "[doc_id:sec_id:para_idx]); read a section with read_section.")
    return Outcome(result.paragraphs, {"hits": [h.to_dict() for h in result.hits],
                                       "sections": sections}, header)


def make_retrieve(resources: Resources):
    def retrieve(state: AgentState, runtime: Runtime[Context]) -> dict[str, Any]:
        context = runtime.context or Context()
        update = run_calls(state, "retrieve", retrieve_call, resources.index(context), context)
        if state.get("bounded"):
            # Documents a retrieve touches join the interaction space: the next prompt
            # shows their TOCs (nodes/space.py).
            update["space"] = [row["doc_id"] for msg in update["messages"]
                               for row in (msg.artifact or {}).get("paragraphs", [])]
        return update

    return retrieve
